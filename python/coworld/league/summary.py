"""What `coworld league table` (and the end of a league run) reports about a league,
read from its database: standings with their flags and warnings, ratings, reliability,
void episodes and spend; and the verdict of each cell `coworld league compare` prints.
The CLI renders these; nothing here prints."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..usage import Usage
from .bradley_terry import ratings, unrated
from .flags import alike_pairings, standing_flags, warnings
from .ranking import FALLBACK_CAUSES, Difference, Standing, reliability, standings
from .records import CUT_CAUSES
from .stats import Rating
from .storage import LeagueDB


@dataclass(frozen=True)
class CauseShare:
    """One failure cause of a policy's decisions: the share retried for it (Claude
    only) and the share the fallback played for it."""

    cause: str
    retried: float
    fallback: float


@dataclass(frozen=True)
class Reliability:
    """A policy that decides for itself (Claude or Python): its decisions, tokens and
    cost, and every cause that made it retry or fall back (none: a clean record)."""

    policy: str
    decisions: int
    tokens: int
    cost_usd: float
    causes: tuple[CauseShare, ...]


@dataclass(frozen=True)
class LeagueSummary:
    league: str
    #: scored episodes
    episodes: int
    #: void episodes left unscored by the API (not the league's own budget or Ctrl-C cuts)
    voided: int
    standings: list[Standing]
    #: (policy, game) -> its flags (`alike`, `fallback`); empty when nothing is flagged
    flags: dict[tuple[str, str], list[str]]
    warnings: list[str]
    ratings: list[Rating]
    #: why a game has no ratings, one line per game
    unrated: list[str]
    reliability: list[Reliability]
    #: every Claude call of the league, and those of its scored episodes
    spent: Usage
    scored: Usage


def league_summary(
    source: LeagueDB | str | Path, league: str | None = None
) -> LeagueSummary | None:
    """The summary of `league` (default: the latest) in a league database (a LeagueDB,
    or the path of league.db or its directory); None when it holds no league yet."""
    if isinstance(source, LeagueDB):
        return _summarize(source, league, source.path)
    db = LeagueDB.open_existing(source)
    try:
        return _summarize(db, league, source)
    finally:
        db.close()


def _summarize(db: LeagueDB, league: str | None, where: str | Path) -> LeagueSummary | None:
    names = db.leagues()
    if not names:
        return None
    league = league or names[-1]
    if league not in names:
        raise ConfigError(
            f"{where}: no league named {league!r}; it holds {', '.join(names)}", "league"
        )
    blocks = db.blocks(league)
    alike = alike_pairings(db, league)
    return LeagueSummary(
        league=league,
        episodes=db.count(league),
        voided=sum(1 for v in db.open_voids(league).values() if v[-1].cause not in CUT_CAUSES),
        standings=standings(blocks),
        flags=standing_flags(blocks, alike),
        warnings=warnings(blocks, alike),
        ratings=ratings(blocks, int(db.config(league).get("seed", 0))),
        unrated=unrated(blocks),
        reliability=reliability_rows(reliability(blocks)),
        spent=db.spent(league),
        scored=db.usage(league, voided=False),
    )


def reliability_rows(by_policy: Mapping[str, Mapping[str, Any]]) -> list[Reliability]:
    """ranking.reliability's rates (standings.json's `reliability`) as rows, each with
    the causes that happened, in FALLBACK_CAUSES order."""
    return [
        Reliability(
            policy,
            int(r["decisions"]),
            int(r["tokens"]),
            float(r["cost_usd"]),
            tuple(
                CauseShare(c, r.get(f"retry_rate:{c}", 0.0), r[f"fallback_rate:{c}"])
                for c in FALLBACK_CAUSES
                if r.get(f"retry_rate:{c}") or r[f"fallback_rate:{c}"]
            ),
        )
        for policy, r in by_policy.items()
        if r["decisions"]
    ]


#: The verdicts of a compared cell.
WORSE, BETTER, NOT_SIGNIFICANT, NO_INTERVAL = "worse", "better", "not significant", "no interval"


def verdict(d: Difference) -> str:
    """Worse (the interval of current - baseline wholly below 0), better (wholly above),
    else not a sameness: only no significant difference, or no interval at all."""
    if d.worse:
        return WORSE
    if d.lo > 0:
        return BETTER
    return NO_INTERVAL if d.lo != d.lo else NOT_SIGNIFICANT
