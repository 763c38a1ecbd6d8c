"""Environment steps per second on one core: coworld.VecEnv against a Python loop
over pyspiel states and against PettingZoo's own connect_four_v3, in one process.

A step is one decision of the seat to move, including reading its observation
tensor and legal actions and drawing a uniformly random legal action:
- VecEnv (n = 1024, threads=1): `env.step(env.sample_legal())`, the draw from the
  mask in the core, observation tensors and masks written for every env;
- pyspiel: `state.observation_tensor()`, `state.legal_actions()`,
  `random.choice`, `state.apply_action` (chance nodes are sampled and not
  counted), a new state when one ends;
- PettingZoo connect_four_v3: `env.last()` (its observation dict with the
  action mask), a random choice from the mask, `env.step`, reset at the end;
- coworld.pettingzoo.env("connect-four"): the same loop over our AEC adapter
  (one Python call into the core per observation and per move), for users who
  compare adapter against adapter.
Throughput is per CPU-second of this process (best of three rounds), steadier
than wall time on a shared machine. A benchmark, not a test.

    .venv/bin/python bench/versus_rl.py [seconds per measurement, default 2]
PettingZoo's classic games need `pip install "pettingzoo[classic]"` (pygame).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import coworld

PYSPIEL = {
    "hex": ("hex", {"board_size": 7}),
    "connect-four": ("connect_four", {}),
    "dark-hex-5": ("dark_hex", {"num_rows": 5, "num_cols": 5, "gameversion": "adh"}),
    "hanabi": ("hanabi", {"players": 4}),
}
N = 1024


def rate(run: Callable[[float], int], seconds: float) -> float:
    """Best of three: steps per CPU-second of `run(budget)`, which returns its steps."""
    best = 0.0
    for _ in range(3):
        start = time.process_time()
        steps = run(seconds)
        best = max(best, steps / (time.process_time() - start))
    return best


def vecenv(game: str) -> Callable[[float], int]:
    env = coworld.VecEnv(game, N, seed=1, threads=1)
    env.reset()

    def run(seconds: float) -> int:
        steps, end = 0, time.process_time() + seconds
        while time.process_time() < end:
            for _ in range(20):
                env.step(env.sample_legal())
            steps += 20 * N
        return steps

    return run


def pyspiel_loop(game: str) -> Callable[[float], int]:
    import pyspiel

    name, params = PYSPIEL[game]
    g = pyspiel.load_game(name, params)
    rng = random.Random(1)

    def run(seconds: float) -> int:
        steps, end = 0, time.process_time() + seconds
        state = g.new_initial_state()
        while time.process_time() < end:
            for _ in range(200):
                if state.is_terminal():
                    state = g.new_initial_state()
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, probs)[0])
                    continue
                state.observation_tensor(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        return steps

    return run


PETTINGZOO_CLASSIC = 'pip install "pettingzoo[classic]"'


def pettingzoo_connect_four() -> Callable[[float], int] | None:
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from pettingzoo.classic import connect_four_v3
    except ImportError as e:
        print(f"(PettingZoo connect_four_v3 unavailable: {e}; {PETTINGZOO_CLASSIC} adds it)")
        return None
    return aec_loop(connect_four_v3.env())


def coworld_aec_connect_four() -> Callable[[float], int] | None:
    try:
        import coworld.pettingzoo
    except ImportError as e:
        print(f"(coworld.pettingzoo unavailable: {e}; pip install -e '.[rl]' adds it)")
        return None
    return aec_loop(coworld.pettingzoo.env("connect-four"))


def aec_loop(env: Any) -> Callable[[float], int]:
    """Random legal actions through an AEC env's own loop, reset at each end."""
    env.reset(seed=1)
    rng = np.random.default_rng(1)

    def run(seconds: float) -> int:
        steps, end = 0, time.process_time() + seconds
        while time.process_time() < end:
            for _ in range(200):
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.reset()
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                steps += 1
        return steps

    return run


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    print(f"env steps per CPU-second, one core, random legal actions (VecEnv n={N})")
    print(f"{'game':14} {'VecEnv':>12} {'pyspiel loop':>13} {'ratio':>7}")
    ours: dict[str, float] = {}
    for game in PYSPIEL:
        ours[game] = rate(vecenv(game), seconds)
        theirs = rate(pyspiel_loop(game), seconds)
        print(f"{game:14} {ours[game]:12,.0f} {theirs:13,.0f} {ours[game] / theirs:6.1f}x")
    pz = pettingzoo_connect_four()
    if pz is not None:
        theirs = rate(pz, seconds)
        ratio = ours["connect-four"] / theirs
        print(
            f"connect-four vs PettingZoo connect_four_v3: {ours['connect-four']:,.0f} vs "
            f"{theirs:,.0f} steps/s: {ratio:.0f}x"
        )
        adapter = coworld_aec_connect_four()
        if adapter is not None:
            aec = rate(adapter, seconds)
            print(
                f"AEC adapter against AEC: coworld.pettingzoo.env('connect-four') {aec:,.0f} vs "
                f"PettingZoo connect_four_v3 {theirs:,.0f} steps/s: {aec / theirs:.1f}x"
            )


if __name__ == "__main__":
    main()
