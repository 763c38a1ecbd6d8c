"""pytest-benchmark cases for the gauntlet kernels and whole random games.

Run with `make bench` (benchmarks are disabled in the normal test run). Each kernel
is reached through the public surface, so a case measures the kernel plus one
Python-to-Rust call (a few hundred nanoseconds); the random-game cases run whole
games inside Rust. bench/versus_openspiel.py compares random games with OpenSpiel.
"""

from __future__ import annotations

import random

import pytest

import coworld
from coworld.games import ROTATION


def _random_state(game_id: str, plies: int, seed: int):
    rng = random.Random(seed)
    s = coworld.game(game_id).init(seed=seed)
    for _ in range(plies):
        s = s.apply(rng.choice(s.legal_moves()))
    assert not s.is_terminal
    return s


def _hex_one_move_from_connecting():
    """Red holds b4..g4 (blue answers on rank 7): a4 would join file a to file g."""
    s = coworld.game("hex").init(seed=1)
    for red, blue in zip("b4 c4 d4 e4 f4 g4".split(), "a7 b7 c7 d7 e7 f7".split(), strict=True):
        s = s.apply(red).apply(blue)
    return s


def test_hex_connectivity(benchmark) -> None:
    """The connection check: applying the stone that joins file a to file g."""
    s = _hex_one_move_from_connecting()
    result = benchmark(s.apply, "a4")
    assert result.results["ending"] == "connection"


def test_hex_dist_to_win_7x7(benchmark) -> None:
    """The 0-1 BFS `distToWin` behind hex `standing`, on a half-full board."""
    s = _random_state("hex", 24, 3)
    value = benchmark(s.standing, 0)
    assert value == 1000 - 10 * s.view()["distToWin"][0]


def test_quoridor_wall_legality_all_anchors(benchmark) -> None:
    """Rule 3 for all 64 anchors x 2 orientations, path invariant for both pawns,
    in a position with 12 walls down."""
    rng = random.Random(5)
    s = coworld.game("quoridor").init(seed=5)
    while len(s.view()["walls"]) < 12:
        walls = [m for m in s.legal_moves() if len(m) == 3]
        s = s.apply(rng.choice(walls))
    moves = benchmark(s.legal_moves)
    assert any(len(m) == 3 for m in moves)


@pytest.mark.parametrize("game_id", ROTATION)
def test_random_game(benchmark, game_id: str) -> None:
    """100 whole uniformly random games in Rust on one thread."""
    seeds = iter(range(1, 1 << 30))
    result = benchmark(
        lambda: coworld.simulate(game_id, ["random", "random"], 100, next(seeds), threads=1)
    )
    assert result.episodes == 100
