"""Side by side: the same number of uniformly random games through coworld's
batch simulator (one thread) and through OpenSpiel (pyspiel), in one process.

Each family adds one entry to `ENTRIES`: a name -> (our runner, pyspiel runner),
each runner playing `n` whole random games. Prints games/s for both and the ratio.

    .venv/bin/python bench/versus_openspiel.py [games] [family ...]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import coworld

Runner = Callable[[int], None]


def _hanabi_ours(n: int) -> None:
    coworld.simulate("hanabi", ["random"] * 4, n, seed=1, threads=1)


def _hanabi_pyspiel(n: int) -> None:
    """OpenSpiel's C++ loop: `evaluate_bots` samples chance and plays its
    uniform-random bots without returning to Python until the game ends."""
    import pyspiel

    game = pyspiel.load_game("hanabi", {"players": 4})
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(4)]
    for i in range(n):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, i)


ENTRIES: dict[str, tuple[Runner, Runner]] = {
    "hanabi": (_hanabi_ours, _hanabi_pyspiel),
}


def games_per_second(run: Runner, n: int, repeats: int = 3) -> float:
    """Best of `repeats` timed runs (the machine is shared; the best run is the least disturbed)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run(n)
        best = min(best, time.perf_counter() - start)
    return n / best


def compare(name: str, n: int) -> tuple[float, float]:
    ours, theirs = ENTRIES[name]
    ours(min(n, 100))  # warm up
    theirs(min(n, 100))
    a = games_per_second(ours, n)
    b = games_per_second(theirs, n)
    print(
        f"{name:14s} coworld {a:12,.0f} games/s   openspiel {b:12,.0f} games/s"
        f"   ratio {a / b:6.1f}x"
    )
    return a, b


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 20_000
    names = argv[1:] or list(ENTRIES)
    print(f"{n} uniformly random games per run, one thread, best of 3")
    for name in names:
        compare(name, n)


if __name__ == "__main__":
    main(sys.argv[1:])
