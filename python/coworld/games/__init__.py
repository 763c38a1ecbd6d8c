"""The registry of games: `coworld.game(id)` returns the reducer for an id.

Every fact about a game id comes from the core's catalogue (`catalog()`); this
module and everything else only read it.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Mapping
from typing import Any, cast

from .. import _core
from ..errors import ConfigError
from .base import PerfectInformationReducer, Reducer
from .family import FamilyModule

_CATALOG: dict[str, Any] = _core.catalog()

GAMES: tuple[str, ...] = tuple(_CATALOG["order"])

#: The family module of each game id (`fog`, `gauntlet`, `hanabi`).
FAMILIES: dict[str, str] = {g: e["family"] for g, e in _CATALOG["games"].items()}

#: What `rotate` draws from, in the rotation order.
ROTATION: tuple[str, ...] = tuple(_CATALOG["rotation"])


def catalog() -> dict[str, dict[str, Any]]:
    """Per game id: family, seats (min, max, default), settings keys, baselines (with
    their parameter keys), endings, score range, ply cap, hidden information, port or
    original variant, rotation membership (and, for `rotate`, the rotation order), and
    what a viewer draws by: `seatNames`, `cooperative`, `pieces`, `notation`,
    `standingScale` and `cards` (docs/human-seats.md lists them)."""
    return copy.deepcopy(_CATALOG["games"])


def entry(game_id: str) -> dict[str, Any]:
    """The catalogue entry of one game id (a copy)."""
    if game_id not in FAMILIES:
        raise ConfigError(f"unknown game {game_id!r}; known games: {', '.join(GAMES)}", "game")
    return copy.deepcopy(_CATALOG["games"][game_id])


def of_family(family: str) -> tuple[str, ...]:
    """The ids of one family, in catalogue order."""
    return tuple(g for g in GAMES if FAMILIES[g] == family)


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
