"""The ladder table: each rung against the rung below, from a real league.

One league per game runs every ordered pairing of the listed policies (so both
seat orders on the same seeds), stored in `runs/ladder/<game>/league.db`; the
table then reads the head-to-head results back from the database: wins, draws
and losses of the higher rung and its win rate with a 95% Wilson interval.

    .venv/bin/python bench/ladder.py [episodes] [game ...]

`episodes` is per ordered pairing (default 100, so 200 games per pair of rungs).
"""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

from coworld.games import ROTATION, of_family
from coworld.league import LeagueDB, LeagueRun, parse_league

GAUNTLET = ROTATION
FOG = of_family("fog")

#: Per game: the policies of its league, and the (higher, lower) rungs to report.
LADDERS: dict[str, tuple[list[str], list[tuple[str, str]]]] = {
    **{
        g: (
            ["tactician", "mcts?sims=100", "mcts?sims=1000"],
            [("mcts?sims=1000", "tactician"), ("mcts?sims=1000", "mcts?sims=100")],
        )
        for g in GAUNTLET
    },
    **{
        g: (
            ["probe", "sweep", "ismcts?sims=1000"],
            [("ismcts?sims=1000", "probe"), ("ismcts?sims=1000", "sweep")],
        )
        for g in FOG
    },
}


def wilson(wins: float, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    z, p = 1.96, wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(game: str, episodes: int, out: Path) -> Path:
    policies, _ = LADDERS[game]
    # A league resumes what it finds; a benchmark of this build starts afresh.
    shutil.rmtree(out / game, ignore_errors=True)
    config = parse_league(
        {
            "name": f"ladder-{game}",
            "games": [game],
            "policies": policies,
            "episodes": episodes,
            "seed": 2026,
            "threads": 1,
            "replays": 0,
            "out": str(out / game),
        },
        base_dir=Path.cwd(),
    )
    return LeagueRun(config, progress=False).run().database


def table(game: str, database: Path) -> list[str]:
    rows = LeagueDB(database).episodes(f"ladder-{game}")
    lines = []
    for high, low in LADDERS[game][1]:
        w = d = n = 0
        for r in rows:
            if set(r.seats) != {high, low}:
                continue
            mine = r.score[r.seats.index(high)]
            n += 1
            w += mine > 0
            d += mine == 0
        lo, hi = wilson(w + d / 2, n)
        rate = (w + d / 2) / n if n else float("nan")
        lines.append(
            f"| {game} | {high} | {low} | {n} | {w} / {d} / {n - w - d} "
            f"| {rate:.1%} | [{lo:.1%}, {hi:.1%}] |"
        )
    return lines


def main() -> None:
    episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    games = sys.argv[2:] or list(LADDERS)
    out = Path("runs/ladder")
    print("| game | higher rung | lower rung | games | W / D / L | score | 95% CI |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for game in games:
        for line in table(game, run(game, episodes, out)):
            print(line, flush=True)


if __name__ == "__main__":
    main()
