"""MCTS simulations per second on one core: coworld's `mcts?sims=N` against
OpenSpiel's C++ `MCTSBot` with a `RandomRolloutEvaluator` (one rollout per
leaf, UCT c = 2, no solver), same game, same simulation count, same process.

Both search the same positions: each seed plays four uniform random plies from
the start, then each side picks one move with N simulations. At ply four no
immediate win or forced reply exists in these games, so coworld's root tactics
never cut the search short and both sides run all N simulations. Time is CPU
time of this process (best of three), so other load on the machine does not
count against either side.

    .venv/bin/python bench/mcts_versus_openspiel.py [sims] [positions]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import random
import sys
import time

import pyspiel

import coworld

GAMES = {
    "connect-four": ("connect_four", {}),
    "hex": ("hex", {"board_size": 7}),
    "breakthrough": ("breakthrough", {"rows": 6, "columns": 6}),
}
OPENING_PLIES = 4


def positions(ours: str, n: int) -> list[tuple[coworld.State, list[str]]]:
    """n positions, each a coworld state with the moves that led to it."""
    g = coworld.game(ours)
    out = []
    for seed in range(1, n + 1):
        s = g.init(seed=seed)
        rng = random.Random(seed)
        for _ in range(OPENING_PLIES):
            s = g.apply(s, rng.choice(g.legal_moves(s)))
        out.append((s, list(s.moves)))
    return out


def spiel_state(game: pyspiel.Game, moves: list[str], ours: str) -> pyspiel.State:
    """The OpenSpiel state after the same moves (matched by action string)."""
    s = game.new_initial_state()
    for mv in moves:
        by_name = {_canon(ours, s.action_to_string(a)): a for a in s.legal_actions()}
        s.apply_action(by_name[mv])
    return s


def _canon(ours: str, text: str) -> str:
    """OpenSpiel's action text in coworld notation."""
    if ours == "connect-four":
        return "abcdefg"[int(text[1:])]
    if ours == "hex":
        return text
    # breakthrough: OpenSpiel's first seat starts on the high ranks ("a5a4"), ours
    # on the low ones ("a2-a3"): the same position mirrored across the middle rank.
    t = text.rstrip("*")
    return f"{t[0]}{7 - int(t[1])}-{t[2]}{7 - int(t[3])}"


def cpu(f) -> float:
    best = float("inf")
    for _ in range(3):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    sims = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    print("| game | sims | positions | coworld sims/s | OpenSpiel sims/s | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for ours, (name, params) in GAMES.items():
        game = pyspiel.load_game(name, params)
        pos = positions(ours, n)
        spiel = [spiel_state(game, moves, ours) for _, moves in pos]
        bot = pyspiel.MCTSBot(
            game, pyspiel.RandomRolloutEvaluator(1, 7), 2.0, sims, 10_000, False, 7, False
        )
        ours_t = cpu(lambda pos=pos: [s.baseline_move(f"mcts?sims={sims}") for s, _ in pos])
        theirs_t = cpu(lambda bot=bot, spiel=spiel: [bot.step(s) for s in spiel])
        a, b = sims * n / ours_t, sims * n / theirs_t
        print(f"| {ours} | {sims} | {n} | {a:,.0f} | {b:,.0f} | {a / b:.1f}x |")


if __name__ == "__main__":
    main()
