"""Leagues: schedules, storage that survives, standings, regression gates."""

from .config import LeagueConfig, load_league, parse_league
from .ranking import compare, standings
from .runner import LeagueReport, LeagueRun
from .storage import LeagueDB

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
