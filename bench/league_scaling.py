"""A scripted league of 100,000 episodes on one machine: episodes per second per
core, scaling from 1 to 2 cores, and the league layer's overhead over the raw
batch simulator (target: under 10%).

    .venv/bin/python bench/league_scaling.py [--episodes 100000] [--game connect-four]
"""

from __future__ import annotations

import os

# numpy's OpenBLAS threads spin while idle and would be billed to this process's
# CPU time; nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import tempfile
import time
from pathlib import Path

import coworld
from coworld.league import LeagueRun, parse_league
from coworld.league.schedule import build_schedule


def raw(game: str, policies: list[str], per_pairing: int, threads: int, pairings) -> float:
    started = time.perf_counter()
    for p in pairings:
        coworld.simulate(game, list(p.seats), per_pairing, seed=p.base_seed, threads=threads)
    return time.perf_counter() - started


def league(game: str, policies: list[str], per_pairing: int, threads: int) -> tuple[float, float]:
    """(seconds playing and storing episodes, seconds end to end incl. the exports)."""
    with tempfile.TemporaryDirectory() as tmp:
        config = parse_league(
            {
                "name": "bench",
                "games": [game],
                "policies": policies,
                "episodes": per_pairing,
                "threads": threads,
                "replays": 0,
                "out": str(Path(tmp) / "out"),
            }
        )
        started = time.perf_counter()
        report = LeagueRun(config, progress=False).run()
        return report.playing_seconds, time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--game", default="connect-four")
    ap.add_argument("--policies", nargs="+", default=["tactician", "random"])
    args = ap.parse_args()
    config = parse_league(
        {
            "name": "bench",
            "games": [args.game],
            "policies": args.policies,
            "episodes": 1,
            "replays": 0,
        }
    )
    pairings = build_schedule(config)
    per_pairing = args.episodes // len(pairings)
    total = per_pairing * len(pairings)
    print(
        f"{args.game}, {' vs '.join(args.policies)}: {total:,} episodes in {len(pairings)} pairings"
    )
    rates = {}
    for threads in (1, 2):
        r = raw(args.game, args.policies, per_pairing, threads, pairings)
        lg, whole = league(args.game, args.policies, per_pairing, threads)
        rates[threads] = total / lg
        print(
            f"{threads} core(s): raw simulator {total / r:,.0f} ep/s, "
            f"league {total / lg:,.0f} ep/s ({total / lg / threads:,.0f} ep/s per core); "
            f"league overhead {100 * (lg / r - 1):+.1f}% "
            f"(end to end with schedule, database setup and the plot: {whole:.2f} s)"
        )
    print(f"scaling 1 -> 2 cores: x{rates[2] / rates[1]:.2f}")


if __name__ == "__main__":
    main()
