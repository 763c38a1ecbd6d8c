"""Leagues: schedules, storage that survives, standings, regression gates.

The names below load on first use, so importing one room of the package (its
backends, its records) does not import them all."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import LeagueConfig, load_league, parse_league
    from .ranking import compare, standings
    from .runner import LeagueReport, LeagueRun
    from .storage import LeagueDB

#: Each exported name and the module it lives in.
_HOMES = {
    "LeagueConfig": "config",
    "load_league": "config",
    "parse_league": "config",
    "compare": "ranking",
    "standings": "ranking",
    "LeagueReport": "runner",
    "LeagueRun": "runner",
    "LeagueDB": "storage",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LeagueConfig",
    "LeagueDB",
    "LeagueReport",
    "LeagueRun",
    "compare",
    "load_league",
    "parse_league",
    "standings",
]
