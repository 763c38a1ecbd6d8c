"""coworld: leagues of game policies (scripted baselines and Claude-played
prompts) on a Rust core. See README.md for the tour."""

from __future__ import annotations

from . import _core
from .errors import ConfigError, CoworldError, IllegalMove
from .games import GAMES, catalog, game
from .sdk import SubmittedAction
from .simulate import ENDINGS, SimResult, simulate
from .vecenv import VecEnv, episode_seed

__version__ = _core.__version__


def __getattr__(name: str) -> object:
    # The RL adapters (extra `rl`) load on first use: `import coworld` never needs them.
    if name in ("pettingzoo", "gymnasium"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'coworld' has no attribute {name!r}")


__all__ = [
    "ENDINGS",
    "GAMES",
    "ConfigError",
    "CoworldError",
    "IllegalMove",
    "SimResult",
    "SubmittedAction",
    "VecEnv",
    "catalog",
    "episode_seed",
    "game",
    "simulate",
]
