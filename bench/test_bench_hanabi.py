"""Hanabi benchmarks (pytest-benchmark; `make bench`). Ratios against OpenSpiel
are printed by bench/versus_openspiel.py; nothing here asserts a time."""

from __future__ import annotations

import pytest

import coworld

pyspiel = pytest.importorskip("pyspiel")

EPISODES = 2000


def test_random_self_play(benchmark):
    """Uniformly random 4-seat games, one thread (the OpenSpiel comparison)."""
    result = benchmark(coworld.simulate, "hanabi", ["random"] * 4, EPISODES, seed=1, threads=1)
    assert result.episodes == EPISODES


def test_conventions_self_play(benchmark):
    """`conventions` recomputes every receiver's candidate sets for every legal hint."""
    result = benchmark(coworld.simulate, "hanabi", ["conventions"] * 4, 200, seed=1, threads=1)
    assert result.score.mean() > 10


def test_cautious_self_play(benchmark):
    result = benchmark(coworld.simulate, "hanabi", ["cautious"] * 4, 200, seed=1, threads=1)
    assert result.episodes == 200


def test_view_for_with_candidate_sets(benchmark):
    """One seat's view: its candidate sets, remainingCopies and flags, as JSON."""
    g = coworld.game("hanabi")
    s = g.init(seed=3)
    for _ in range(20):
        s = g.apply(s, s.baseline_move("conventions"))
    view = benchmark(s.view_for, s.active_seat)
    assert len(view["hands"][s.active_seat]) == 4


def test_openspiel_random_games(benchmark):
    """OpenSpiel's own C++ loop (`evaluate_bots`) on the same number of random games."""
    game = pyspiel.load_game("hanabi", {"players": 4})
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(4)]

    def run() -> None:
        for i in range(EPISODES):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, i)

    benchmark(run)
