"""coworld: leagues of game policies (scripted baselines and Claude-played
prompts) on a Rust core. See README.md for the tour."""

from __future__ import annotations

from . import _core
from .errors import ConfigError, CoworldError, IllegalMove
from .games import GAMES, catalog, game
from .sdk import SubmittedAction
from .simulate import ENDINGS, SimResult, simulate

__version__ = _core.__version__

__all__ = [
    "ENDINGS",
    "GAMES",
    "ConfigError",
    "CoworldError",
    "IllegalMove",
    "SimResult",
    "SubmittedAction",
    "catalog",
    "game",
    "simulate",
]
