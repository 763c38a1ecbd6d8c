"""Batch mode at scale: a league of Claude episodes (phantom-ttt-3, a prompt policy
against `probe`, both seat orders) in rounds against the local Message Batches
server (its own process, so its CPU is not counted here) answering each batch a
fixed delay after it is created.

    .venv/bin/python bench/batch_league.py [--episodes 500] [--delay 2] [--game phantom-ttt-3]

Prints: rounds taken, requests per round, CPU per decision (this process, all
threads, over the league's Claude phase), and the league's cost at the batch
rate beside its realtime cost from the same token counts (every call's usage,
as stored, priced at the list price).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import coworld.league.batch as batch_mode
from coworld.league import LeagueDB, LeagueRun, parse_league
from coworld.prices import price_of
from coworld.usage import Usage

ROOT = Path(__file__).resolve().parent.parent
MODEL = "claude-haiku-4-5"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=500, help="per pairing (two pairings)")
    ap.add_argument("--delay", type=float, default=2.0, help="seconds until a batch ends")
    ap.add_argument("--game", default="phantom-ttt-3")
    args = ap.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.mock_batches", str(args.delay)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        run(args, url)
    finally:
        server.terminate()
        server.wait()


def run(args: argparse.Namespace, url: str) -> None:
    import os

    os.environ["ANTHROPIC_API_KEY"] = "sk-test"
    os.environ["ANTHROPIC_BASE_URL"] = url
    batch_mode.POLL_SECONDS = (0.25, 1.0)
    batch_mode.GATHER_SECONDS = 0.2
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "p.md").write_text(
            f"---\nname: house\nmodel: {MODEL}\nmax_tokens: 64\n---\nPlay well.\n"
        )
        raw = {
            "name": "batch",
            "games": [args.game],
            "policies": ["p.md", "probe"],
            "episodes": args.episodes,
            "seed": 7,
            "replays": 0,
            "concurrency": 2 * args.episodes,
            "mode": "batch",
            "out": str(base / "out"),
        }
        config = parse_league(raw, base_dir=base)
        cpu0, wall0 = _cpu(), time.monotonic()
        league = LeagueRun(config, progress=False)
        report = league.run()
        cpu, wall = _cpu() - cpu0, time.monotonic() - wall0
        db = LeagueDB(config.database)
        try:
            rounds = db.conn.execute(
                "SELECT round, SUM(requests) FROM batch_rounds GROUP BY round ORDER BY round"
            ).fetchall()
            calls = db.conn.execute(
                "SELECT input_tokens, output_tokens, cache_write_tokens, cache_read_tokens, "
                "cost_usd FROM calls WHERE pairing != 'preflight'"
            ).fetchall()
        finally:
            db.close()
    price = price_of(MODEL)
    batch_cost = sum(c[4] for c in calls)
    realtime_cost = sum(price.cost(Usage(c[0], c[1], c[2], c[3])) for c in calls)
    sizes = [n for _, n in rounds]
    print(f"{report.episodes} episodes ({args.game}, house vs probe), {len(calls)} decisions")
    print(
        f"rounds: {len(rounds)}; requests per round: max {max(sizes)}, min {min(sizes)}, "
        f"mean {sum(sizes) / len(sizes):.1f}; first rounds {sizes[:8]}"
    )
    print(f"wall {wall:.1f} s; CPU {cpu:.2f} s = {cpu / len(calls) * 1e3:.2f} ms per decision")
    print(
        f"cost at the batch rate ${batch_cost:.4f}; realtime from the same tokens "
        f"${realtime_cost:.4f}; ratio {batch_cost / realtime_cost:.4f}; "
        f"half of realtime to the cent: {round(batch_cost, 2) == round(realtime_cost / 2, 2)}"
    )


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


if __name__ == "__main__":
    main()
