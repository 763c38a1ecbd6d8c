"""Side by side for Fog-of-War Boards: uniformly random games through coworld and
through OpenSpiel, plus the probe-vs-sweep baseline throughput.

For each entry the same number of random games runs through our batch simulator
(`coworld.simulate(game, ["random", "random"], n, seed, threads=1)`, one core) and
through `pyspiel` in this same process (a uniformly random legal attempt per ply,
drawn with Python's `random`); the script prints games/s for both and the ratio.
OpenSpiel has no ply cap; ours (2 x cells) never binds, so both sides play whole
games. recon-hex-5 is an original variant with no OpenSpiel peer: only its
probe-vs-sweep rate is shown. A benchmark, not a test: nothing here asserts a time.

Kept apart from bench/versus_openspiel.py (the gauntlet's) so the two families
merge without a clash; the structure is the same.

    .venv/bin/python bench/versus_fog_openspiel.py [games] [name ...]
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

import coworld

Runner = Callable[[int, int], None]


def ours(game: str, policies: tuple[str, str] = ("random", "random")) -> Runner:
    def run(games: int, seed: int) -> None:
        coworld.simulate(game, list(policies), games, seed, threads=1)

    return run


def theirs(name: str, params: dict) -> Runner:
    def run(games: int, seed: int) -> None:
        import pyspiel

        game = pyspiel.load_game(name, params)
        rng = random.Random(seed)
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))

    return run


ENTRIES: dict[str, tuple[Runner, Runner]] = {
    "phantom-ttt-3": (ours("phantom-ttt-3"), theirs("phantom_ttt", {})),
    "dark-hex-4": (
        ours("dark-hex-4"),
        theirs("dark_hex", {"num_rows": 4, "num_cols": 4, "gameversion": "cdh"}),
    ),
    "dark-hex-5": (
        ours("dark-hex-5"),
        theirs("dark_hex", {"num_rows": 5, "num_cols": 5, "gameversion": "adh"}),
    ),
}

BASELINE_GAMES = ("phantom-ttt-3", "dark-hex-4", "dark-hex-5", "recon-hex-5")


def games_per_second(run: Runner, games: int, seed: int = 7) -> float:
    run(max(1, games // 10), seed)  # warm up (tables, imports)
    start = time.perf_counter()
    run(games, seed)
    return games / (time.perf_counter() - start)


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 2000
    names = argv[1:] or list(ENTRIES)
    print(f"{'game':<16}{'coworld g/s':>14}{'openspiel g/s':>16}{'ratio':>9}")
    for name in names:
        if name not in ENTRIES:
            continue
        our_run, their_run = ENTRIES[name]
        our_rate = games_per_second(our_run, games)
        their_rate = games_per_second(their_run, games)
        print(f"{name:<16}{our_rate:>14.0f}{their_rate:>16.0f}{our_rate / their_rate:>8.1f}x")
    print()
    print(f"{'game':<16}{'probe vs sweep episodes/s (1 thread)':>38}")
    for name in argv[1:] or BASELINE_GAMES:
        rate = games_per_second(ours(name, ("probe", "sweep")), games * 10)
        print(f"{name:<16}{rate:>38.0f}")


if __name__ == "__main__":
    main(sys.argv[1:])
