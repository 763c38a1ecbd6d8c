"""Side by side: uniformly random games through coworld and through OpenSpiel.

For each entry the same number of random games runs through our batch simulator
(`coworld.simulate(game, ["random", "random"], n, seed, threads=1)`, one core) and
through `pyspiel` in this same process (a uniformly random legal action per step,
drawn with Python's `random`). The script prints games per CPU-second for both
(best of three runs) and the ratio. OpenSpiel games are cut at our ply cap so both
sides play the same games. A benchmark, not a test: nothing here asserts a time.

Families add an entry to `ENTRIES`: name -> (our runner, their runner), each a
function of (games, seed) that plays that many games.

    .venv/bin/python bench/versus_openspiel.py [games] [name ...]
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

import coworld

Runner = Callable[[int, int], None]


def ours(game: str) -> Runner:
    def run(games: int, seed: int) -> None:
        coworld.simulate(game, ["random", "random"], games, seed, threads=1)

    return run


def theirs(name: str, params: dict, max_plies: int) -> Runner:
    def run(games: int, seed: int) -> None:
        import pyspiel

        game = pyspiel.load_game(name, params)
        rng = random.Random(seed)
        for _ in range(games):
            state = game.new_initial_state()
            plies = 0
            while not state.is_terminal() and plies < max_plies:
                state.apply_action(rng.choice(state.legal_actions()))
                plies += 1

    return run


ENTRIES: dict[str, tuple[Runner, Runner]] = {
    "connect-four": (ours("connect-four"), theirs("connect_four", {}, 42)),
    "breakthrough": (
        ours("breakthrough"),
        theirs("breakthrough", {"rows": 6, "columns": 6}, 100),
    ),
    "hex": (ours("hex"), theirs("hex", {"board_size": 7}, 49)),
    "quoridor": (
        ours("quoridor"),
        theirs("quoridor", {"board_size": 9, "wall_count": 10}, 200),
    ),
}


def games_per_second(run: Runner, games: int, repeats: int = 3, seed: int = 7) -> float:
    """Best of `repeats` runs, in games per CPU-second of this process: throughput per
    core, steadier than wall time on a shared machine (both sides run on one thread)."""
    run(max(1, games // 10), seed)  # warm up (tables, imports)
    best = 0.0
    for _ in range(repeats):
        start = time.process_time()
        run(games, seed)
        best = max(best, games / max(time.process_time() - start, 1e-9))
    return best


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 2000
    names = argv[1:] or list(ENTRIES)
    print(f"{'game':<16}{'coworld g/s':>14}{'openspiel g/s':>16}{'ratio':>9}")
    for name in names:
        our_run, their_run = ENTRIES[name]
        our_rate = games_per_second(our_run, games)
        their_rate = games_per_second(their_run, games)
        print(f"{name:<16}{our_rate:>14.0f}{their_rate:>16.0f}{our_rate / their_rate:>8.1f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
