"""Geometry (line of sight, fields) on square and hex grids, used as FOV policies.

Hand derivations use the module's definition: sample the centre-to-centre
segment at n + 1 points (n = grid distance), round each to a cell, once with a
tiny shift one way and once the other; in sight when either line has no
opaque cell strictly inside. Hex cells are axial (q = file, r = rank).
"""

from __future__ import annotations

import itertools

import pytest

from coworld.sdk import (
    BoardVisibilityPolicy,
    HexGrid,
    SquareGrid,
    derive_seat_view,
    field_cells,
    fov_predicate,
    line_of_sight,
    sight_lines,
)

SQUARE = SquareGrid(5, 5)
SQUARE_WALLS = ("b2", "c4")
HEX = HexGrid(5, 5)
HEX_WALLS = ("b3", "c4")


def test_cell_names_are_algebraic():
    assert SQUARE.name((2, 2)) == "c3" and SQUARE.index("c3") == (2, 2)
    assert SQUARE.cells()[:6] == ["a1", "b1", "c1", "d1", "e1", "a2"]
    for bad in ("f1", "a6", "a0", "c03", "", "3c"):
        with pytest.raises(ValueError, match="not a cell of this board; cells are a1..e5"):
            SQUARE.index(bad)
    with pytest.raises(ValueError, match="off the board"):
        SQUARE.index((5, 0))


def test_hex_adjacency_is_coworlds_rhombus():
    # gauntlet hex: c4 touches b4, d4, c3, c5, b5, d3; a1 touches only b1, a2.
    grid = HexGrid(7, 7)
    assert sorted(grid.neighbours("c4")) == ["b4", "b5", "c3", "c5", "d3", "d4"]
    assert sorted(grid.neighbours("a1")) == ["a2", "b1"]
    assert grid.distance("c4", "b5") == 1 and grid.distance("c4", "d5") == 2
    assert grid.distance("a1", "g7") == 12 and grid.distance("a7", "g1") == 6


def test_square_distance_and_neighbours():
    assert SQUARE.distance("a1", "c2") == 2
    assert SquareGrid(5, 5, diagonal=False).distance("a1", "c2") == 3
    assert sorted(SQUARE.neighbours("a1")) == ["a2", "b1", "b2"]
    assert sorted(SquareGrid(5, 5, diagonal=False).neighbours("a1")) == ["a2", "b1"]


def test_square_field_with_walls():
    # Viewer c3, walls b2 and c4. Hidden: a1 (c3-b2-a1, exactly through b2's centre) and
    # c5 (through c4's centre). b5: the sample (1.5, 3) rounds to c4 one way, b4 the
    # other, so it is seen; d5 likewise via d4.
    seen = field_cells(SQUARE, "c3", opaque=SQUARE_WALLS)
    assert set(SQUARE.cells()) - seen == {"a1", "c5"}
    assert line_of_sight(SQUARE, "c3", "b5", SQUARE_WALLS)
    assert sorted(sight_lines(SQUARE, "c3", "b5")) == [["c3", "b4", "b5"], ["c3", "c4", "b5"]]
    # Walls are seen; what is behind them is not.
    assert {"b2", "c4"} <= seen
    assert field_cells(SQUARE, "c3", radius=1, opaque=SQUARE_WALLS) == {
        "b2",
        "c2",
        "d2",
        "b3",
        "c3",
        "d3",
        "b4",
        "c4",
        "d4",
    }


def test_square_sight_needs_one_clear_line():
    # a1 -> c2 samples (1, 0.5): b2 on one line, b1 on the other.
    assert line_of_sight(SQUARE, "a1", "c2", ["b2"])
    assert line_of_sight(SQUARE, "a1", "c2", ["b1"])
    assert not line_of_sight(SQUARE, "a1", "c2", ["b1", "b2"])
    # The thin line passes a diagonal gap between two walls.
    assert line_of_sight(SQUARE, "a1", "b2", ["a2", "b1"])


def test_hex_field_with_walls():
    # Viewer c3, walls b3 and c4 (both its neighbours). Hidden, by the derivation in the
    # module doc: a3 (through b3's centre), a2 (the 1/3 sample (1.33, 1.67) rounds to b3
    # both ways), c5 (through c4's centre), d5 (the 1/3 sample (2.33, 2.67) rounds to c4
    # both ways). b5, d4, a4, b2 each have one clear line.
    seen = field_cells(HEX, "c3", opaque=HEX_WALLS)
    assert set(HEX.cells()) - seen == {"a2", "a3", "c5", "d5"}
    assert sorted(sight_lines(HEX, "c3", "d4")) == [["c3", "c4", "d4"], ["c3", "d3", "d4"]]
    assert sight_lines(HEX, "c3", "d5")[0][1] == "c4" == sight_lines(HEX, "c3", "d5")[1][1]
    assert field_cells(HEX, "c3", radius=1, opaque=HEX_WALLS) == {
        "c3",
        "b3",
        "d3",
        "c2",
        "c4",
        "d2",
        "b4",
    }


@pytest.mark.parametrize("grid", [SquareGrid(6, 5), HexGrid(5, 6)], ids=["square", "hex"])
def test_sight_is_symmetric(grid):
    cells = grid.cells()
    for walls in (cells[7::5], cells[3::4], cells[1::3]):
        for a, b in itertools.combinations(cells, 2):
            assert line_of_sight(grid, a, b, walls) == line_of_sight(grid, b, a, walls), (a, b)


@pytest.mark.parametrize("grid", [SquareGrid(6, 5), HexGrid(5, 6)], ids=["square", "hex"])
def test_sight_lines_are_connected_paths(grid):
    # Consecutive cells of a sight line are neighbours: it skips nothing it passes.
    for a, b in itertools.product(grid.cells(), repeat=2):
        for line in sight_lines(grid, a, b):
            assert line[0] == a and line[-1] == b
            assert len(line) == grid.distance(a, b) + 1
            for here, there in itertools.pairwise(line):
                assert there in grid.neighbours(here), (a, b, line)


# A square board: seat 0's unit on c3 sees the whole board by line of sight; seat 1's
# unit on a1 sees one king step around it.
SQUARE_BOARD = {cell: None for cell in SQUARE.cells()} | {
    "c3": {"unit": 0},
    "b2": {"wall": True},
    "c4": {"wall": True},
    "a1": {"unit": 1},
    "c5": {"coin": 5},
    "e5": {"coin": 1},
}


def _square_policy(mode, shell=None):
    eyes = {
        0: fov_predicate(SQUARE, {0: ["c3"]}, None, SQUARE_WALLS),
        1: fov_predicate(SQUARE, {1: ["a1"]}, 1, SQUARE_WALLS),
    }
    return BoardVisibilityPolicy(lambda seat, cell: eyes[seat](seat, cell), mode, shell)


def test_square_fov_absent_and_shell_goldens():
    seat0_visible = {c: SQUARE_BOARD[c] for c in SQUARE.cells() if c not in ("a1", "c5")}
    full = {"boards": {"board": SQUARE_BOARD}}
    absent = derive_seat_view(full, {"board": _square_policy("absent")}, 0)
    assert absent == {"boards": {"board": seat0_visible}}
    shell = derive_seat_view(full, {"board": _square_policy("shell")}, 0)
    assert shell == {
        "boards": {"board": seat0_visible | {"a1": {"shell": True}, "c5": {"shell": True}}}
    }
    assert derive_seat_view(full, {"board": _square_policy("shell")}, 1) == {
        "boards": {
            "board": {
                "a1": {"unit": 1},
                "b1": None,
                "a2": None,
                "b2": {"wall": True},
                "c3": {"shell": True},
                "c4": {"shell": True},
                "c5": {"shell": True},
                "e5": {"shell": True},
            }
        }
    }
    assert derive_seat_view(full, {"board": _square_policy("absent")}, 1) == {
        "boards": {"board": {"a1": {"unit": 1}, "b1": None, "a2": None, "b2": {"wall": True}}}
    }


def test_shell_function_keeps_what_the_product_declares_public():
    def kind_only(entity):
        return {"kind": next(iter(entity))}

    full = {"boards": {"board": SQUARE_BOARD}}
    view = derive_seat_view(full, {"board": _square_policy("shell", kind_only)}, 0)
    assert view["boards"]["board"]["a1"] == {"kind": "unit"}
    assert view["boards"]["board"]["c5"] == {"kind": "coin"}


def test_hex_fov_shell_golden():
    board = {cell: None for cell in HEX.cells()} | {
        "c3": {"stone": 0},
        "b3": {"rock": True},
        "c4": {"rock": True},
        "a3": {"stone": 1},
        "d5": {"stone": 1},
        "e5": {"stone": 1},
    }
    visible = fov_predicate(HEX, {0: ["c3"]}, opaque=HEX_WALLS)
    policy = BoardVisibilityPolicy(visible, "shell")
    view = derive_seat_view({"boards": {"hex": board}}, {"hex": policy}, 0)["boards"]["hex"]
    # Fogged: a2 (empty: absent), a3 (stone: shell), c5 (empty: absent), d5 (stone: shell).
    expected = {c: board[c] for c in HEX.cells() if c not in ("a2", "a3", "c5", "d5")}
    assert view == expected | {"a3": {"shell": True}, "d5": {"shell": True}}
    # A seat without viewpoints sees only shells.
    blind = derive_seat_view({"boards": {"hex": board}}, {"hex": policy}, 1)["boards"]["hex"]
    assert blind == {c: {"shell": True} for c, e in board.items() if e is not None}


def test_fov_predicate_unions_viewpoints_and_accepts_a_function():
    two_eyes = fov_predicate(SQUARE, lambda seat: ["a1", "e5"], radius=1)
    assert two_eyes(0, "b2") and two_eyes(0, "d4") and not two_eyes(0, "c3")
