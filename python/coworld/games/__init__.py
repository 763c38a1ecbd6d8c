"""The registry of games: `coworld.game(id)` returns the reducer for an id."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from .. import _core
from ..errors import ConfigError
from .base import PerfectInformationReducer, Reducer

GAMES: tuple[str, ...] = tuple(_core.GAMES)

FAMILIES: dict[str, str] = {
    "phantom-ttt-3": "fog",
    "dark-hex-4": "fog",
    "dark-hex-5": "fog",
    "recon-hex-5": "fog",
    "connect-four": "gauntlet",
    "breakthrough": "gauntlet",
    "hex": "gauntlet",
    "quoridor": "gauntlet",
    "rotate": "gauntlet",
    "hanabi": "hanabi",
}


def family_module(game_id: str) -> ModuleType:
    """The family module of a (resolved) game id: its rules text for Claude seats,
    `observation_text`, `parse_reply`, `FALLBACK` baseline and optional `feed_line`."""
    if game_id not in FAMILIES:
        raise ConfigError(f"unknown game {game_id!r}; known games: {', '.join(GAMES)}", "game")
    return importlib.import_module(f"{__name__}.{FAMILIES[game_id]}")


def _reducer_class(family: str) -> type[Reducer]:
    if family == "gauntlet":
        return PerfectInformationReducer
    if family == "fog":
        from .fog import FogReducer

        return FogReducer
    if family == "hanabi":
        from .hanabi import HanabiReducer

        return HanabiReducer
    return Reducer


def game(spec: str | Mapping[str, Any]) -> Reducer:
    """The reducer for a game id, or for a config dict `{"game": id, ...settings}`."""
    if isinstance(spec, Mapping):
        settings = dict(spec)
        game_id = settings.pop("game", None)
        if not isinstance(game_id, str):
            raise ConfigError(
                "a game config needs a `game` field naming one of: " + ", ".join(GAMES), "game"
            )
    else:
        game_id, settings = spec, {}
    if game_id not in FAMILIES:
        raise ConfigError(f"unknown game {game_id!r}; known games: {', '.join(GAMES)}", "game")
    reducer = _reducer_class(FAMILIES[game_id])(game_id, settings)
    reducer.family = FAMILIES[game_id]
    return reducer
