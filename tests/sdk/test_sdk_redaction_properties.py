"""Properties of derive_seat_view over generated views and policies: whatever a policy
hides from a seat can change without changing that seat's view, and what it shows
cannot."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from coworld.sdk import (
    BoardVisibilityPolicy,
    Hidden,
    Public,
    Seats,
    SquareGrid,
    ZoneVisibilityPolicy,
    canonical_json,
    derive_seat_view,
)

SEATS = (0, 1, 2)
GRID = SquareGrid(3, 3)
visibilities = st.one_of(
    st.just(Public()),
    st.just(Hidden()),
    st.lists(st.sampled_from(SEATS), max_size=3).map(Seats),
)
entities = st.lists(st.sampled_from(["b1", "b2", "g1", "r3", "r1"]), max_size=5)


def _view_of(zone, policy, seat):
    return canonical_json(derive_seat_view({"zones": {"z": zone}}, {"z": policy}, seat))


@given(entities, visibilities, visibilities, st.sampled_from(SEATS), st.randoms())
def test_hidden_order_never_shows(zone, identity, order, seat, rng):
    policy = ZoneVisibilityPolicy(identity, order)
    shuffled = list(zone)
    rng.shuffle(shuffled)
    same = _view_of(zone, policy, seat) == _view_of(shuffled, policy, seat)
    sees_order = identity.admits(seat) and order.admits(seat)
    assert same or sees_order
    if sees_order and shuffled != zone:
        assert not same


@given(entities, entities, visibilities, visibilities, st.sampled_from(SEATS))
def test_hidden_identity_never_shows(zone, other, identity, order, seat):
    other = (other * 5)[: len(zone)] if other else ["x"] * len(zone)
    policy = ZoneVisibilityPolicy(identity, order)
    same = _view_of(zone, policy, seat) == _view_of(other, policy, seat)
    if not identity.admits(seat):
        assert same
    elif sorted(zone) != sorted(other):
        assert not same


cells = st.sampled_from(GRID.cells())
occupants = st.one_of(st.none(), st.sampled_from([{"unit": 0}, {"unit": 1}, {"coin": 3}]))
boards = st.fixed_dictionaries({cell: occupants for cell in GRID.cells()})


@given(boards, boards, st.frozensets(cells), st.sampled_from(["absent", "shell"]))
def test_fogged_cells_show_at_most_presence(board, other, visible, mode):
    policy = BoardVisibilityPolicy(lambda seat, cell: cell in visible, mode)  # type: ignore[arg-type]
    # `other` agrees with `board` on visible cells and, in shell mode, on presence.
    merged = {}
    for cell in GRID.cells():
        if cell in visible:
            merged[cell] = board[cell]
        elif mode == "shell" and (board[cell] is None) != (other[cell] is None):
            merged[cell] = board[cell]
        else:
            merged[cell] = other[cell]

    def seen(b):
        return canonical_json(derive_seat_view({"boards": {"f": b}}, {"f": policy}, 0))

    assert seen(board) == seen(merged)
    shown = derive_seat_view({"boards": {"f": board}}, {"f": policy}, 0)["boards"]["f"]
    assert {c for c in shown if c in visible} == set(visible)
    hidden_shown = {c for c in shown if c not in visible}
    occupied_hidden = {c for c in GRID.cells() if c not in visible and board[c] is not None}
    assert hidden_shown == (occupied_hidden if mode == "shell" else set())
