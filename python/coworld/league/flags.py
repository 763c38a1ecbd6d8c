"""What a league's standings warn about: cells whose episodes are all one game, and
scores a policy earned mostly through fallback moves (the family's baseline playing
for it).

- Alike: every episode of a pairing on a game has the same scores, length and ending
  (at least `ALIKE_MIN` of them). Deterministic policies on a game without chance do
  this: the cell is one game counted many times, and its interval means nothing.
  Openings (`openings = N`) vary them.
- Fallback: a policy that decides for itself (Claude, Python) whose moves were played
  by the fallback on more than `FALLBACK_WARN` of its decisions is warned about; a
  standing where more than `MOSTLY` of them were is marked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from .records import Block
from .stats import OVERALL
from .storage import LeagueDB

#: A policy's share of fallback decisions past which the league warns.
FALLBACK_WARN = 0.2
#: A standing earned "mostly by fallbacks": past this share of the policy's decisions.
MOSTLY = 0.5
#: Episodes a pairing needs before all of them being alike is worth a flag.
ALIKE_MIN = 4

ALIKE = "alike"
FALLBACK = "fallback"


def alike_pairings(db: LeagueDB, league: str) -> list[tuple[str, tuple[str, ...], int]]:
    """(game, seats, episodes) of every pairing whose episodes are all alike."""
    kinds: dict[tuple[str, tuple[str, ...]], set[bytes]] = defaultdict(set)
    counts: dict[tuple[str, tuple[str, ...]], int] = defaultdict(int)
    for c in db.chunks(league):
        key = (c.game, c.seats)
        rows = np.column_stack([c.score, c.plies, c.ending]).astype(np.int64)
        kinds[key].update(r.tobytes() for r in np.unique(rows, axis=0))
        counts[key] += c.count
    for r in db.runner_rows(league):
        key = (r.game, r.seats)
        kinds[key].add(repr((r.score, r.plies, r.ending)).encode())
        counts[key] += 1
    return [
        (game, seats, counts[(game, seats)])
        for (game, seats), k in kinds.items()
        if len(k) == 1 and counts[(game, seats)] >= ALIKE_MIN
    ]


def fallback_shares(blocks: Iterable[Block]) -> dict[tuple[str, str], float]:
    """(policy, game) -> share of the policy's own decisions that the fallback played,
    per game and overall, for every policy that decides for itself."""
    own: dict[tuple[str, str], float] = defaultdict(float)
    fell: dict[tuple[str, str], float] = defaultdict(float)
    for block in blocks:
        for episode in block.decisions or ():
            for policy, counts in zip(block.seats, episode, strict=True):
                mine = sum(v for k, v in counts.items() if ":" not in k and k in DECIDED)
                for game in (block.game, OVERALL):
                    own[(policy, game)] += mine
                    fell[(policy, game)] += counts.get("fallback", 0)
    return {k: fell[k] / n for k, n in own.items() if n}


#: Origins of decisions a policy makes (or was asked to make) for itself.
DECIDED = ("model", "retry", "policy", "fallback")


def standing_flags(
    blocks: Iterable[Block], alike: Iterable[tuple[str, tuple[str, ...], int]] = ()
) -> dict[tuple[str, str], list[str]]:
    """(policy, game) -> its flags: `alike` when a pairing it played there was all one
    game, `fallback` when most of its decisions were the fallback's."""
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for game, seats, _ in alike:
        for policy in dict.fromkeys(seats):
            if ALIKE not in out[(policy, game)]:
                out[(policy, game)].append(ALIKE)
    for key, share in fallback_shares(blocks).items():
        if share > MOSTLY:
            out[key].append(FALLBACK)
    return dict(out)


def warnings(
    blocks: Iterable[Block], alike: Iterable[tuple[str, tuple[str, ...], int]] = ()
) -> list[str]:
    """One line per thing the standings should not be read without."""
    lines = [
        f"{policy}: the fallback played {share:.0%} of its decisions (over "
        f"{FALLBACK_WARN:.0%}); its scores are largely the fallback baseline's"
        for (policy, game), share in sorted(fallback_shares(blocks).items())
        if game == OVERALL and share > FALLBACK_WARN
    ]
    by_game: dict[str, list[str]] = defaultdict(list)
    for game, seats, _ in alike:
        by_game[game].append(" vs ".join(seats))
    lines += [
        f"{game}: every episode of {_some(pairings)} was the same game (same scores, length "
        "and ending): deterministic play on a game without chance measures one game; set "
        "`openings = N` in the league file to vary them"
        for game, pairings in sorted(by_game.items())
    ]
    return lines


def _some(pairings: list[str]) -> str:
    """Up to three pairings by name, then how many more."""
    more = len(pairings) - 3
    return ", ".join(pairings[:3]) + (f" and {more} more pairings" if more > 0 else "")
