"""Differential tests: our fog engine against OpenSpiel, ply by ply.

Both engines are driven with the same uniformly random attempts (drawn from
OpenSpiel's legal actions, which are the mover's own-view legal set) for
thousands of games. At every ply the mover, the mover's legal attempts and the
result of the attempt (placed / occupied) must agree; after every ply what each
seat knows must agree (OpenSpiel's `observation_string(player)` against our
`view_for(seat)`: own stones and proven opponent stones); at the end the
outcome (returns) must agree.

Peers and mapping:

- phantom-ttt-3 vs `phantom_ttt` (classical, reveal-nothing). OpenSpiel action
  `row * 3 + col` with row 0 printed on top; our cell (file f, rank r) is
  action `(2 - r) * 3 + f` (a reflection: lines map to lines). X (player 0) is
  our seat 0.
- dark-hex-4 vs `dark_hex` num_rows = num_cols = 4, gameversion "cdh" (classical).
- dark-hex-5 vs `dark_hex` 5x5, gameversion "adh" (abrupt).
  OpenSpiel action `row * n + col`; its player 0 ('x', moves first) connects
  row 0 to row n-1, and (row, col) touches (row, col±1), (row±1, col),
  (row-1, col+1), (row+1, col-1). Our seat 0 (moves first) connects file a to
  the last file with the same adjacency in (rank, file). So our cell (file f,
  rank r) is OpenSpiel (row f, col r), action `f * n + r`: the transpose, which
  maps the adjacency onto itself and our seat 0's edges onto its player 0's.

OpenSpiel has no ply cap; ours (2 x cells) can never bind, because a seat can
neither re-attempt a cell it knows nor collide more often than the opponent has
stones, so the outcomes compare one to one. recon-hex-5 is an original variant
with no OpenSpiel peer.

The "result" of an OpenSpiel attempt is read from its true board (`str(state)`):
a placement adds one stone, a collision none.
"""

from __future__ import annotations

import random

import pytest

import coworld

pyspiel = pytest.importorskip("pyspiel")

GAMES = 3000


def _ttt_action(cell: str) -> int:
    f, r = ord(cell[0]) - ord("a"), int(cell[1:]) - 1
    return (2 - r) * 3 + f


def _ttt_cell(action: int) -> str:
    row, col = divmod(action, 3)
    return f"{'abc'[col]}{3 - row}"


def _hex_action(n: int):
    def to_action(cell: str) -> int:
        f, r = ord(cell[0]) - ord("a"), int(cell[1:]) - 1
        return f * n + r

    return to_action


def _hex_cell(n: int):
    def to_cell(action: int) -> str:
        f, r = divmod(action, n)
        return f"{'abcde'[f]}{r + 1}"

    return to_cell


PEERS = {
    "phantom-ttt-3": (
        lambda: pyspiel.load_game("phantom_ttt"),
        _ttt_action,
        _ttt_cell,
    ),
    "dark-hex-4": (
        lambda: pyspiel.load_game("dark_hex", {"num_rows": 4, "num_cols": 4, "gameversion": "cdh"}),
        _hex_action(4),
        _hex_cell(4),
    ),
    "dark-hex-5": (
        lambda: pyspiel.load_game("dark_hex", {"num_rows": 5, "num_cols": 5, "gameversion": "adh"}),
        _hex_action(5),
        _hex_cell(5),
    ),
}


def _stones(state) -> int:
    return sum(ch in "xo" for ch in str(state))


def _knowledge(peer, player: int, to_cell) -> tuple[set[str], set[str]]:
    """(own stones, opponent stones it has seen) from OpenSpiel's observation string,
    a grid of `x` (player 0), `o` (player 1) and `.`, one line per row, row 0 first."""
    mine, theirs = ("x", "o") if player == 0 else ("o", "x")
    rows = peer.observation_string(player).split("\n")
    own, seen = set(), set()
    for i, row in enumerate(rows):
        for j, ch in enumerate(row):
            cell = to_cell(i * len(rows) + j)
            if ch == mine:
                own.add(cell)
            elif ch == theirs:
                seen.add(cell)
    return own, seen


def test_the_cell_mappings_are_bijections():
    for game_id, (_, to_action, to_cell) in PEERS.items():
        n = coworld.game(game_id).init(seed=1).view()["size"]
        cells = [f"{f}{r}" for f in "abcde"[:n] for r in range(1, n + 1)]
        assert sorted(to_action(c) for c in cells) == list(range(n * n))
        assert all(to_cell(to_action(c)) == c for c in cells)


def test_orientation_matches_openspiel_hex():
    """Our seat 0 connecting file a to file d is OpenSpiel's player 0 connecting rows."""
    _, to_action, _ = PEERS["dark-hex-4"]
    peer = PEERS["dark-hex-4"][0]().new_initial_state()
    ours = coworld.game("dark-hex-4").init(seed=1)
    for red, blue in [("a1", "a4"), ("b1", "b4"), ("c1", "c4"), ("d1", None)]:
        for cell in (red, blue):
            if cell is None:
                continue
            peer.apply_action(to_action(cell))
            ours = ours.apply(cell)
    assert peer.is_terminal() and peer.returns() == [1.0, -1.0]
    assert ours.results["winner"] == 0 and ours.results["ending"] == "connection"


@pytest.mark.parametrize("game_id", list(PEERS))
def test_random_games_agree_ply_by_ply(game_id):
    load, to_action, to_cell = PEERS[game_id]
    peer_game = load()
    reducer = coworld.game(game_id)
    rng = random.Random(f"fog-differential-{game_id}")
    collisions = 0
    for game in range(GAMES):
        peer = peer_game.new_initial_state()
        ours = reducer.init(seed=game + 1)
        while not peer.is_terminal():
            seat = ours.active_seat
            where = f"{game_id} game {game} ply {ours.plies}"
            assert seat == peer.current_player(), where
            legal = sorted(peer.legal_actions())
            assert sorted(to_action(c) for c in ours.legal_moves()) == legal, where
            action = rng.choice(legal)
            before = _stones(peer)
            peer.apply_action(action)
            peer_result = "placed" if _stones(peer) == before + 1 else "occupied"
            ours = reducer.apply(ours, to_cell(action))
            log = ours.view_for(seat)["log"]
            assert log[-1]["cell"] == to_cell(action), where
            assert log[-1]["result"] == peer_result, where
            collisions += peer_result == "occupied"
            for player in (0, 1):
                view = ours.view_for(player)
                own, seen = _knowledge(peer, player, to_cell)
                assert set(view["ownStones"]) == own, f"{where} seat {player}"
                assert set(view["provenStones"]) == seen, f"{where} seat {player}"
        assert ours.is_terminal, f"{game_id} game {game}: OpenSpiel ended, we did not"
        assert ours.results["score"] == [int(x) for x in peer.returns()], f"{game_id} {game}"
    # The comparison exercised collisions, not only clean placements.
    assert collisions > GAMES
