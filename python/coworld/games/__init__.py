"""The registry of games: `coworld.game(id)` returns the reducer for an id.

Every fact about a game id comes from the core's catalogue (`catalog()`); this
module and everything else only read it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from ..errors import ConfigError
from .base import PerfectInformationReducer, Reducer
from .catalogue import FAMILIES, GAMES, ROTATION, catalog, entry, of_family
from .family import FamilyModule

if TYPE_CHECKING:  # mypy checks every family module against the protocol
    from . import fog, gauntlet, hanabi

    _FAMILIES: tuple[FamilyModule, ...] = (fog, gauntlet, hanabi)

__all__ = [
    "FAMILIES",
    "GAMES",
    "ROTATION",
    "FamilyModule",
    "Reducer",
    "catalog",
    "entry",
    "family_module",
    "game",
    "of_family",
]


def family_module(game_id: str) -> FamilyModule:
    """The family module of a (resolved) game id (see `FamilyModule`)."""
    if game_id not in FAMILIES:
        raise ConfigError(f"unknown game {game_id!r}; known games: {', '.join(GAMES)}", "game")
    return cast(FamilyModule, importlib.import_module(f"{__name__}.{FAMILIES[game_id]}"))


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
