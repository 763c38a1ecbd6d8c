"""solve_level: Nim values from the XOR rule, a hand-analysed connect-four position, a
differential check against plain minimax, and the open-information boundary."""

from __future__ import annotations

import random

import pytest
from sdk_fixtures import HiddenDeckGame, Nim

import coworld
from coworld.sdk import (
    OpenInformationRequired,
    SearchTooLarge,
    SubmittedAction,
    defines_view_for,
    seat_view,
    solve_level,
)


def test_nim_with_nonzero_xor_is_won_by_the_unique_xor_zeroing_move():
    # 1 ^ 2 ^ 4 = 7. Only heap c can be lowered to make the XOR 0 (4 ^ 7 = 3 < 4):
    # take 1 from c. For a, 1 ^ 7 = 6 > 1; for b, 2 ^ 7 = 5 > 2.
    # (Nim's view leaves the winner out: empty heaps look alike whoever took the last
    # object. The solver must score finished games from the state, not the memo.)
    solution = solve_level(Nim(), {"heaps": [1, 2, 4]})
    assert solution.seat == 0 and solution.value == 1 and solution.scores == (1, -1)
    assert solution.best_moves == ("take 1 from c",)
    assert solution.principal_variation[0] == "take 1 from c"


def test_nim_with_zero_xor_is_lost_whatever_the_mover_does():
    # 1 ^ 2 ^ 3 = 0: every move hands the opponent a nonzero XOR.
    solution = solve_level(Nim(), {"heaps": [1, 2, 3]})
    assert solution.value == -1 and solution.scores == (-1, 1)
    assert solution.best_moves == tuple(Nim().legal_moves(Nim().init({"heaps": [1, 2, 3]})))
    # Heaps a in 0..1, b in 0..2, c in 0..3, either seat to move: at most 48 positions.
    assert solution.positions <= 48
    # The principal variation is a complete game the second seat wins.
    state = Nim().init({"heaps": [1, 2, 3]})
    for move in solution.principal_variation:
        state = Nim().apply(state, SubmittedAction(state.active_seat, move))
    assert state.results == {"score": [-1, 1], "winner": 1}


# Connect-four after the moves below, seat 0 (X) to move, empty cells a5 a6 c6 d4 d5 d6:
#   6 . X . . O O X
#   5 . O O . X O X
#   4 O X X . O X O
#   3 X X O X X O X
#   2 X O O O X O X
#   1 O O O X X O X
#     a b c d e f g
# d4 is the key cell. O threatens it (a1 b2 c3 d4 diagonal), so X must take it now: after
# X a5 or X c6, O plays d4 and wins. X d4 blocks and makes two threats stacked in file d:
# d5 (a2 b3 c4 d5) and d6 (g3 f4 e5 d6). O has no win of its own, so whatever O plays
# (first in order: a5), X completes d5 (or d6 after O d5). Value +1, best move d only.
C4_MOVES = "ebdbgcbdgaecggbfgcefgedfffcbacafeabe"


def test_connect_four_position_analysed_by_hand():
    game = coworld.game("connect-four")
    solution = solve_level(game, moves=list(C4_MOVES), seed=1)
    assert solution.seat == 0 and solution.value == 1 and solution.scores == (1, -1)
    assert solution.best_moves == ("d",)
    assert solution.principal_variation == ("d", "a", "d")
    # The alternatives lose: from the opponent's side they are wins (value +1 for seat 1).
    state = game.init(seed=1)
    for move in C4_MOVES:
        state = game.apply(state, move)
    for wrong in ("a", "c"):
        reply = solve_level(game, state=game.apply(state, wrong))
        assert reply.seat == 1 and reply.value == 1 and "d" in reply.best_moves


def _minimax(game, state):
    """Plain minimax without memo or views: the score vector under perfect play."""
    if state.is_terminal:
        return tuple(state.results["score"])
    seat = state.active_seat
    return max(
        (_minimax(game, game.apply(state, m)) for m in game.legal_moves(state)),
        key=lambda scores: scores[seat],
    )


def test_solver_agrees_with_plain_minimax_on_random_connect_four_endgames():
    game = coworld.game("connect-four")
    rng = random.Random(2026)
    checked = 0
    while checked < 12:
        state = game.init(seed=1)
        while state.plies < 36 and not state.is_terminal:
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        if state.is_terminal:
            continue
        assert solve_level(game, state=state).scores == _minimax(game, state)
        checked += 1


def test_connect_four_is_open_information_so_seat_view_is_view():
    game = coworld.game("connect-four")
    assert game.perfect_information and not defines_view_for(game)
    state = game.init(seed=3)
    for move in "dcdc":
        state = game.apply(state, move)
        for seat in (0, 1):
            assert seat_view(game, state, seat) == game.view(state) == game.view_for(state, seat)


def test_hidden_information_reducers_are_refused():
    assert defines_view_for(HiddenDeckGame())
    with pytest.raises(OpenInformationRequired, match="defined for open-information games only"):
        solve_level(HiddenDeckGame(), seed=123456)


class BareNim:
    """Nim without legal_moves and without results: the solver needs callables."""

    def __init__(self):
        self.nim = Nim()

    def init(self, level=None, seed=0):
        return self.nim.init(level, seed)

    def apply(self, state, action):
        return self.nim.apply(state, action)

    def view(self, state):
        return self.nim.view(state)


def test_callables_stand_in_for_missing_reducer_methods():
    with pytest.raises(TypeError, match="needs legal moves"):
        solve_level(BareNim(), {"heaps": [2, 2]})
    solution = solve_level(
        BareNim(),
        {"heaps": [2, 2]},
        legal_moves=Nim().legal_moves,
        outcome=lambda s: None if s.results is None else s.results["score"],
    )
    # Equal heaps: the second player mirrors and wins.
    assert solution.value == -1


def test_limits_and_finished_positions():
    with pytest.raises(SearchTooLarge, match="more than 5 distinct positions"):
        solve_level(Nim(), {"heaps": [3, 4, 5]}, max_positions=5)
    with pytest.raises(ValueError, match="already over"):
        solve_level(Nim(), {"heaps": [1]}, moves=["take 1 from a"])
