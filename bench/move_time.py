"""Move time per ladder rung, so league authors can budget: mean CPU milliseconds
per `baseline_move` over every position of four seeded episodes of uniform
random play, so openings, middles and ends all count.

    .venv/bin/python bench/move_time.py [game ...]
"""

from __future__ import annotations

import random
import sys
import time

import coworld
from coworld.games import ROTATION, of_family

RUNGS = {
    **{g: ["tactician", "mcts?sims=100", "mcts?sims=1000"] for g in ROTATION},
    **{g: ["probe", "ismcts?sims=100", "ismcts?sims=1000"] for g in of_family("fog")},
    "hanabi": ["conventions", "tracker"],
}


def positions(game: str, episodes: int = 4) -> list[coworld.State]:
    g = coworld.game(game)
    out = []
    for seed in range(1, episodes + 1):
        rng = random.Random(seed)
        s = g.init(seed=seed)
        while not s.is_terminal:
            out.append(s)
            s = g.apply(s, rng.choice(g.legal_moves(s)))
    return out


def main() -> None:
    print("| game | rung | positions | ms/move |")
    print("| --- | --- | ---: | ---: |")
    games = sys.argv[1:] or list(RUNGS)
    for game in games:
        rungs = RUNGS[game]
        pos = positions(game)
        for rung in rungs:
            t = time.process_time()
            for s in pos:
                s.baseline_move(rung)
            ms = (time.process_time() - t) / len(pos) * 1000
            print(f"| {game} | {rung} | {len(pos)} | {ms:.3f} |", flush=True)


if __name__ == "__main__":
    main()
