"""Side by side with OpenSpiel, in one process, one core each.

For every game with an OpenSpiel peer, the same number of uniformly random games
runs through coworld's batch simulator (`coworld.simulate(..., threads=1)`) and
through OpenSpiel's own C++ loop (`pyspiel.evaluate_bots` with uniform random
bots: no Python between moves, so this is OpenSpiel's C++ throughput).

Throughput is per CPU-second of this process, steadier than wall time on a
shared machine: each side grows its batch (from the `games` argument) until one
run takes at least MIN_SECONDS of CPU, then keeps the best of five such runs. A
fixed game count would time a few milliseconds of our side against a second of
OpenSpiel's, and a millisecond run is mostly timer and cache noise. Two ratios
are printed:
- games/s: whole games per second on each side;
- plies/s: moves per second, the fair one where our ply cap cuts games that
  OpenSpiel plays to the end (breakthrough 100, quoridor 200). OpenSpiel's mean
  game length comes from a Python-driven sample of the same random play.
A second table gives the scripted baselines' episodes per second (probe vs
sweep, tactician self-play, conventions self-play). A benchmark, not a test.

    .venv/bin/python bench/versus_openspiel.py [games] [name ...]
"""

from __future__ import annotations

import os

# numpy's OpenBLAS threads spin while idle and would be billed to this process's
# CPU time; nothing here uses BLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import random
import sys
import time
from dataclasses import dataclass

import coworld


@dataclass(frozen=True)
class Peer:
    ours: str
    seats: int
    name: str
    params: dict


PEERS = {
    "connect-four": Peer("connect-four", 2, "connect_four", {}),
    "breakthrough": Peer("breakthrough", 2, "breakthrough", {"rows": 6, "columns": 6}),
    "hex": Peer("hex", 2, "hex", {"board_size": 7}),
    "quoridor": Peer("quoridor", 2, "quoridor", {"board_size": 9, "wall_count": 10}),
    "phantom-ttt-3": Peer("phantom-ttt-3", 2, "phantom_ttt", {}),
    "dark-hex-4": Peer(
        "dark-hex-4", 2, "dark_hex", {"num_rows": 4, "num_cols": 4, "gameversion": "cdh"}
    ),
    "dark-hex-5": Peer(
        "dark-hex-5", 2, "dark_hex", {"num_rows": 5, "num_cols": 5, "gameversion": "adh"}
    ),
    "hanabi": Peer("hanabi", 4, "hanabi", {"players": 4}),
}

BASELINES = {
    "connect-four": ["tactician", "tactician"],
    "breakthrough": ["tactician", "tactician"],
    "hex": ["tactician", "tactician"],
    "quoridor": ["tactician", "tactician"],
    "phantom-ttt-3": ["probe", "sweep"],
    "dark-hex-4": ["probe", "sweep"],
    "dark-hex-5": ["probe", "sweep"],
    "recon-hex-5": ["probe", "sweep"],
    "hanabi": ["conventions"] * 4,
}


MIN_SECONDS = 0.25


def cpu_seconds(run_n, n: int) -> float:
    start = time.process_time()
    run_n(n)
    return max(time.process_time() - start, 1e-9)


def steady_rate(run_n, games: int, repeats: int = 5) -> tuple[float, int]:
    """(games per CPU-second, games per run): `run_n(n)` plays n games. The batch
    grows until a run takes MIN_SECONDS; the best of `repeats` runs counts."""
    run_n(games)  # warm up: tables, imports, page faults
    n = games
    while (seconds := cpu_seconds(run_n, n)) < MIN_SECONDS:
        n = int(n * min(10.0, 1.2 * MIN_SECONDS / seconds)) + 1
    best = min([seconds] + [cpu_seconds(run_n, n) for _ in range(repeats - 1)])
    return n / best, n


def ours(peer: Peer, games: int) -> tuple[float, float]:
    """(games/s, plies/s) of uniformly random games in the batch simulator."""

    def run_n(n: int):
        return coworld.simulate(peer.ours, ["random"] * peer.seats, n, seed=7, threads=1)

    rate, n = steady_rate(run_n, games)
    return rate, rate * run_n(n).plies.mean()


def theirs(peer: Peer, games: int) -> tuple[float, float]:
    """(games/s, plies/s) of uniformly random games in OpenSpiel's C++ loop."""
    import pyspiel

    game = pyspiel.load_game(peer.name, peer.params)
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(peer.seats)]

    def run_n(n: int) -> None:
        for i in range(n):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, i)

    rate, _ = steady_rate(run_n, games)
    return rate, rate * mean_length(game, min(games, 300))


def mean_length(game, sample: int) -> float:
    """Mean number of player moves in OpenSpiel's random games (chance outcomes excluded)."""
    rng = random.Random(3)
    total = 0
    for _ in range(sample):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                total += 1
    return total / sample


def baseline_rate(game: str, policies: list[str], games: int) -> float:
    def run_n(n: int):
        return coworld.simulate(game, policies, n, seed=7, threads=1)

    rate, _ = steady_rate(run_n, games, 1)
    return rate


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 2000
    names = argv[1:] or list(PEERS)
    print(
        f"random games, one core each, at least {games} games and {MIN_SECONDS} CPU-s per run"
        " (best of 5, CPU time)"
    )
    print(
        f"{'game':<15}{'coworld g/s':>13}{'openspiel g/s':>15}{'ratio':>8}"
        f"{'coworld ply/s':>15}{'openspiel ply/s':>17}{'ratio':>8}"
    )
    for name in names:
        if name not in PEERS:
            continue
        (g1, p1), (g2, p2) = ours(PEERS[name], games), theirs(PEERS[name], games)
        games_part = f"{g1:>13,.0f}{g2:>15,.0f}{g1 / g2:>7.1f}x"
        print(f"{name:<15}{games_part}{p1:>15,.0f}{p2:>17,.0f}{p1 / p2:>7.1f}x")
    print("\nscripted baselines, one core, episodes/s")
    for name, policies in BASELINES.items():
        if argv[1:] and name not in names:
            continue
        n = max(50, games // (20 if name in ("quoridor", "hanabi") else 4))
        pairing = " vs ".join(dict.fromkeys(policies))
        print(f"{name:<15}{pairing:<26}{baseline_rate(name, policies, n):>12,.0f}")


if __name__ == "__main__":
    main(sys.argv[1:])
