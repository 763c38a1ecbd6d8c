"""Hanabi self-play scores of `tracker` (and `conventions` for reference) at 2 to 5
seats: mean over N seeds with its 95% interval (normal approximation), the share of
perfect games and of zero-score (three fuses) games, and the mean move time.

    .venv/bin/python bench/hanabi_tracker.py [episodes]
"""

from __future__ import annotations

import math
import sys
import time

import coworld


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print("| policy | seats | games | mean | 95% CI | perfect | zero | µs/move |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for policy in ("tracker", "conventions"):
        for seats in (2, 3, 4, 5):
            t = time.process_time()
            r = coworld.simulate(
                "hanabi", [policy] * seats, n, seed=2026, threads=1, config={"seats": seats}
            )
            cpu = time.process_time() - t
            s = r.score[:, 0].astype(float)
            half = 1.96 * s.std(ddof=1) / math.sqrt(n)
            print(
                f"| {policy} | {seats} | {n} | {s.mean():.2f} | "
                f"[{s.mean() - half:.2f}, {s.mean() + half:.2f}] | "
                f"{(s == 25).mean():.1%} | {(s == 0).mean():.1%} | "
                f"{cpu / r.plies.sum() * 1e6:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
