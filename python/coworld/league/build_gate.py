"""A build gate's reference: one policy as another engine build recorded it
against an anchor in a league database, read back and compared seed by seed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core
from ..errors import ConfigError
from .records import Block
from .schedule import game_seed
from .stats import head_to_head_units
from .storage import LeagueDB


@dataclass(frozen=True)
class Recorded:
    """REFERENCE as another engine build recorded it: `policy`'s seed pairs against the
    anchor in the latest league of the league database `database`."""

    database: Path
    policy: str


#: A build gate's outcome per seed: (1 + x - y) / 2 for the candidate's and the recorded
#: reference's mean points x, y against the anchor on that seed: 0, 1/8, .., 1.
NONA = np.linspace(0.0, 1.0, 9)


def recorded_outcomes(
    blocks: list[Block],
    candidate: str,
    anchor: str,
    recorded: Recorded,
    reference: list[Block],
    below: int,
) -> tuple[np.ndarray, int]:
    """A build gate's counts over NONA for seeds below `below` that both the candidate
    (here) and the recorded reference (there) completed, and the episodes played here."""

    def points(bs: list[Block], policy: str) -> dict[tuple[str, int], float]:
        kept = [
            Block(b.game, b.seats, b.score[b.index < below], index=b.index[b.index < below])
            for b in bs
            if b.index is not None and set(b.seats) == {policy, anchor}
        ]
        out = {}
        for p in head_to_head_units(kept):
            mine = (p.points if p.a == policy else p.games - p.points) / 2
            assert p.index is not None
            for i, x, g in zip(p.index, mine, p.games, strict=True):
                if g == 2:
                    out[(p.game, int(i))] = float(x)
        return out

    here = points(blocks, candidate)
    there = points(reference, recorded.policy)
    counts = np.zeros(NONA.size)
    for key, x in here.items():
        if key in there:
            counts[int(round((1 + x - there[key]) * 4))] += 1
    played = sum(int((b.index < below).sum()) for b in blocks if b.index is not None)
    return counts, played


def load_recorded(
    recorded: Recorded, anchor: str, games: tuple[str, ...]
) -> tuple[list[Block], int, int, int | None]:
    """The recorded league's blocks, its seed, the seed pairs it holds per game (the
    fewest over the games) and its openings; refuses one whose episodes used other
    seeds."""
    db = LeagueDB.open_existing(recorded.database)
    try:
        names = db.leagues()
        if not names:
            raise ConfigError(f"{recorded.database} holds no league", "reference")
        league = names[-1]
        seed = int(db.config(league).get("seed", 1))
        openings = openings_of(db.config(league))
        chunks = db.chunks(league)
        rows = db.runner_rows(league)
        blocks = db.blocks(league)
    finally:
        db.close()
    pair = {recorded.policy, anchor}
    held = []
    for game in games:
        base = game_seed(seed, game)
        found: dict[tuple[str, ...], set[int]] = {}
        episodes = [
            (c.seats, c.start + i, int(s))
            for c in chunks
            if c.game == game
            for i, s in enumerate(c.seed)
        ]
        episodes += [(r.seats, r.idx, r.seed) for r in rows if r.game == game]
        for seats, idx, s in episodes:
            if set(seats) != pair or len(seats) != 2:
                continue
            if s != _core.episode_seed(base, idx):
                raise ConfigError(
                    f"{recorded.database}: {game} episode {idx} of {'/'.join(seats)} "
                    f"used seed {s}, not this build's {_core.episode_seed(base, idx)}; a build "
                    "gate needs both builds on the same seeds",
                    "reference",
                )
            found.setdefault(tuple(seats), set()).add(idx)
        both = set.intersection(*found.values()) if len(found) == 2 else set()
        n = 0
        while n in both:
            n += 1
        if n == 0:
            raise ConfigError(
                f"{recorded.database} (league {league!r}) holds no seed pair of "
                f"{recorded.policy!r} against {anchor!r} on {game}",
                "reference",
            )
        held.append(n)
    return blocks, seed, min(held), openings


def openings_of(stored: dict[str, Any]) -> int | None:
    """A stored league's openings as a GateConfig takes them: 0 when it played none,
    its one count, or None (each game's default) when they differ by game."""
    by_game = stored.get("openings") or {}
    counts = set(by_game.values())
    return 0 if not counts else counts.pop() if len(counts) == 1 else None
