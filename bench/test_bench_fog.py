"""Fog-of-War Boards benchmarks (pytest-benchmark; off by default, `make bench` runs them).

Whole batches of episodes in the Rust simulator on one thread, for each variant:
random vs random (the side-by-side workload of bench/versus_openspiel.py) and
probe vs sweep (the two scripted baselines). Plus the per-ply Python path an
LLM episode takes: view_for, the observation text and one reply parsed and applied.
"""

from __future__ import annotations

import json

import pytest

import coworld
from coworld.games import fog, of_family

VARIANTS = list(of_family("fog"))
EPISODES = 2000


@pytest.mark.parametrize("game_id", VARIANTS)
@pytest.mark.parametrize("policies", [("random", "random"), ("probe", "sweep")], ids="-".join)
def test_simulate(benchmark, game_id, policies):
    result = benchmark(coworld.simulate, game_id, list(policies), EPISODES, 7, threads=1)
    assert result.episodes == EPISODES


@pytest.mark.parametrize("game_id", VARIANTS)
def test_one_llm_ply(benchmark, game_id):
    reducer = coworld.game(game_id)
    state = reducer.init(seed=5)
    for _ in range(6):
        state = reducer.apply(state, state.baseline_move("random"))
    seat = state.active_seat
    move = state.baseline_move("probe")
    sense, _, cell = move.rpartition("+")
    reply = json.dumps({"move": cell, "sense": sense, "notes": "map", "guess": ["c3"]})

    def ply():
        fog.observation_text(state, seat, notes="map", operator_prompt="", aliases=["a", "b"])
        parsed = fog.parse_reply(reply, state, seat, ["a", "b"])
        return reducer.apply(reducer.with_guess(state, list(parsed.guess)), parsed.move)

    assert benchmark(ply).plies == state.plies + 1
