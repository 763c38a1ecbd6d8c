"""The catalogue of games, as the core gives it: every fact about a game id
(family, seats, settings, baselines, endings, ply cap...) is read from here."""

from __future__ import annotations

import copy
from typing import Any

from .. import _core
from ..errors import ConfigError

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
