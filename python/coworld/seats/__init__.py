"""Seats: scripted baselines, Claude-played policies, and reading their replies."""

from .reply import Reply

__all__ = ["Reply"]
