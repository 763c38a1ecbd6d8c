"""Side by side with OpenSpiel, in one process, one core each.

For every game with an OpenSpiel peer, the same number of uniformly random games
runs through coworld's batch simulator (`coworld.simulate(..., threads=1)`) and
through OpenSpiel's own C++ loop (`pyspiel.evaluate_bots` with uniform random
bots: no Python between moves, so this is OpenSpiel's C++ throughput).

Throughput is per CPU-second of this process (best of three), steadier than wall
time on a shared machine. Two ratios are printed:
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


def cpu_best(run, repeats: int = 3) -> float:
    """The fastest of `repeats` runs, in CPU seconds."""
    run()  # warm up: tables, imports, page faults
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return max(best, 1e-9)


def ours(peer: Peer, games: int) -> tuple[float, float]:
    """(games/s, plies/s) of uniformly random games in the batch simulator."""
    plies = coworld.simulate(
        peer.ours, ["random"] * peer.seats, games, seed=7, threads=1
    ).plies.sum()
    seconds = cpu_best(
        lambda: coworld.simulate(peer.ours, ["random"] * peer.seats, games, seed=7, threads=1)
    )
    return games / seconds, plies / seconds


def theirs(peer: Peer, games: int) -> tuple[float, float]:
    """(games/s, plies/s) of uniformly random games in OpenSpiel's C++ loop."""
    import pyspiel

    game = pyspiel.load_game(peer.name, peer.params)
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(peer.seats)]

    def run() -> None:
        for i in range(games):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, i)

    seconds = cpu_best(run)
    return games / seconds, games * mean_length(game, min(games, 300)) / seconds


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
    return games / cpu_best(lambda: coworld.simulate(game, policies, games, seed=7, threads=1), 1)


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 2000
    names = argv[1:] or list(PEERS)
    print(f"random games, one core each, {games} games per run (best of 3, CPU time)")
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
