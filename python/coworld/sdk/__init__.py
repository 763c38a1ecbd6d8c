"""RFC-003 information partitions: the SDK contract every coworld game is built on."""

from .protocol import SubmittedAction, TurnReducer, TurnView, defines_view_for, seat_view

__all__ = ["SubmittedAction", "TurnReducer", "TurnView", "defines_view_for", "seat_view"]
