"""Visibility algebra, derive_seat_view (the policy matrix), bags and revelation records.

Goldens are derived by hand from the fixture's rules (see sdk_fixtures.py).
Seed 123456 deals, by its Lehmer code 3,0,3,2,4,0,0,0,0 over the sorted cards
b1 b2 b3 g1 g2 g3 r1 r2 r3: g1 b1 | g3 g2 | r3 b2 | deck b3 r1 r2.
"""

from __future__ import annotations

import pytest
from sdk_fixtures import POLICIES, SEATS, HiddenDeckGame, deal

from coworld.sdk import (
    Bag,
    BoardVisibilityPolicy,
    Hidden,
    Public,
    Seats,
    SubmittedAction,
    ZoneVisibilityPolicy,
    canonical_json,
    create_information_revelation,
    derive_seat_view,
    visibility_from_json,
)

SEED = 123456


def test_deal_is_the_lehmer_permutation_of_the_seed():
    assert deal(0) == ["b1", "b2", "b3", "g1", "g2", "g3", "r1", "r2", "r3"]
    assert deal(SEED) == ["g1", "b1", "g3", "g2", "r3", "b2", "b3", "r1", "r2"]
    # 123457 = 123456 + 1 * 1!: only the last two cards trade places.
    assert deal(SEED + 1) == ["g1", "b1", "g3", "g2", "r3", "b2", "b3", "r2", "r1"]


def _after(actions):
    game = HiddenDeckGame()
    state = game.init(None, SEED)
    for action in actions:
        state = game.apply(state, SubmittedAction(state.active_seat, action))
    return game, state


def _revelation(card, seat, zone, step, learners):
    return {
        "kind": "revelation",
        "what": "card",
        "identity": card,
        "where": None,
        "from": {"zone": f"hand:{seat}", "visibility": {"kind": "seats", "seats": [seat]}},
        "to": {"zone": zone, "visibility": {"kind": "public"}},
        "step": step,
        "revealedTo": learners,
    }


# After: seat 0 plays slot 2 (b1; draws b3: hand b3 g1; deck r1 r2); seat 1 stashes
# slot 1 (g3 into the bag; hand g2); seat 2 stashes slot 2 (b2 into the bag; hand r3).
REVELATIONS = [
    _revelation("b1", 0, "discard", 1, [1, 2]),
    _revelation("g3", 1, "bag", 2, [0, 2]),
    _revelation("b2", 2, "bag", 3, [0, 1]),
]
COMMON = {"activeSeat": 0, "step": 3, "turns": 6, "scores": [1, 0, 0]}
DISCARD = {"count": 1, "entities": ["b1"], "ordered": True}
# The bag received g3 then b2; its only order is the canonical one.
BAG = {"count": 2, "entities": ["b2", "g3"], "ordered": False}
ROCK, SHELL = {"rock": True}, {"shell": True}

GOLDEN = {
    0: {
        **COMMON,
        "zones": {
            "deck": {"count": 2},
            "hand:0": {"count": 2, "entities": ["b3", "g1"], "ordered": True},
            "hand:1": {"count": 1},
            "hand:2": {"count": 1},
            "discard": DISCARD,
            "bag": BAG,
        },
        # Scout a1, radius 2: files a-c; no line from a1 has the rock (c2) strictly inside
        # (a1-c3 runs through b2). The scouts on d1 and d3 are out of range: shells; d2 is
        # empty and fogged: absent.
        "boards": {
            "field": {
                "a1": {"scout": 0},
                "b1": None,
                "c1": None,
                "a2": None,
                "b2": None,
                "c2": ROCK,
                "a3": None,
                "b3": {"gem": "ruby"},
                "c3": None,
                "d1": SHELL,
                "d3": SHELL,
            }
        },
        "revelations": REVELATIONS,
    },
    1: {
        **COMMON,
        "zones": {
            "deck": {"count": 2},
            "hand:0": {"count": 2},
            "hand:1": {"count": 1, "entities": ["g2"], "ordered": True},
            "hand:2": {"count": 1},
            "discard": DISCARD,
            "bag": BAG,
        },
        # Scout d1: files b-d; b3 is behind the rock (d1-c2-b3 on both lines).
        "boards": {
            "field": {
                "b1": None,
                "c1": None,
                "d1": {"scout": 1},
                "b2": None,
                "c2": ROCK,
                "d2": None,
                "c3": None,
                "d3": {"scout": 2},
                "a1": SHELL,
                "b3": SHELL,
            }
        },
        "revelations": REVELATIONS,
    },
    2: {
        **COMMON,
        "zones": {
            "deck": {"count": 2},
            "hand:0": {"count": 2},
            "hand:1": {"count": 1},
            "hand:2": {"count": 1, "entities": ["r3"], "ordered": True},
            "discard": DISCARD,
            "bag": BAG,
        },
        # Scout d3: files b-d; b1 is behind the rock (d3-c2-b1), empty, so absent.
        "boards": {
            "field": {
                "c1": None,
                "d1": {"scout": 1},
                "b2": None,
                "c2": ROCK,
                "d2": None,
                "b3": {"gem": "ruby"},
                "c3": None,
                "d3": {"scout": 2},
                "a1": SHELL,
            }
        },
        "revelations": REVELATIONS,
    },
}


@pytest.mark.parametrize("seat", SEATS)
def test_policy_matrix_golden_seat_views(seat):
    game, state = _after(["play 2", "stash 1", "stash 2"])
    assert game.view_for(state, seat) == GOLDEN[seat]


def test_full_view_keeps_everything():
    game, state = _after(["play 2", "stash 1", "stash 2"])
    zones = game.view(state)["zones"]
    assert zones == {
        "deck": ["r1", "r2"],
        "hand:0": ["b3", "g1"],
        "hand:1": ["g2"],
        "hand:2": ["r3"],
        "discard": ["b1"],
        "bag": ["b2", "g3"],
    }


# A literal full view for the independence of identity and order.
LITERAL = {
    "activeSeat": 1,
    "zones": {
        "pool": ["r2", "b1", "g3"],  # identity: seats 0 and 1; order: seat 0 only
        "tableau": ["g1", "r1"],  # identity hidden; order public (still just a count)
        "bag": ["r3", "b3", "b3"],  # identity public; order nobody's
    },
    "revelations": [
        create_information_revelation(
            what="card",
            identity="g2",
            step=4,
            from_visibility=Hidden(),
            to_visibility=Seats([2]),
            from_zone="deck",
            where="top",
        )
    ],
}
LITERAL_POLICIES = {
    "pool": ZoneVisibilityPolicy(Seats([0, 1]), Seats([0])),
    "tableau": ZoneVisibilityPolicy(Hidden(), Public()),
    "bag": ZoneVisibilityPolicy.bag(),
}
PEEK = {
    "kind": "revelation",
    "what": "card",
    "identity": "g2",
    "where": "top",
    "from": {"zone": "deck", "visibility": {"kind": "hidden"}},
    "to": {"zone": None, "visibility": {"kind": "seats", "seats": [2]}},
    "step": 4,
    "revealedTo": [2],
}
PEEK_WITHOUT_IDENTITY = {k: v for k, v in PEEK.items() if k != "identity"}


def test_identity_and_order_are_independent():
    views = {s: derive_seat_view(LITERAL, LITERAL_POLICIES, s) for s in SEATS}
    bag = {"count": 3, "entities": ["b3", "b3", "r3"], "ordered": False}
    assert views[0] == {
        "activeSeat": 1,
        "zones": {
            "pool": {"count": 3, "entities": ["r2", "b1", "g3"], "ordered": True},
            "tableau": {"count": 2},
            "bag": bag,
        },
        "revelations": [PEEK_WITHOUT_IDENTITY],
    }
    assert views[1]["zones"]["pool"] == {
        "count": 3,
        "entities": ["b1", "g3", "r2"],
        "ordered": False,
    }
    assert views[1]["revelations"] == [PEEK_WITHOUT_IDENTITY]
    assert views[2]["zones"] == {"pool": {"count": 3}, "tableau": {"count": 2}, "bag": bag}
    assert views[2]["revelations"] == [PEEK]


def test_masked_order_does_not_depend_on_the_real_order():
    reordered = {**LITERAL, "zones": {**LITERAL["zones"], "pool": ["g3", "r2", "b1"]}}
    for seat in (1, 2):
        assert canonical_json(derive_seat_view(LITERAL, LITERAL_POLICIES, seat)) == (
            canonical_json(derive_seat_view(reordered, LITERAL_POLICIES, seat))
        )
    # ...while seat 0, who may see the order, sees the difference.
    assert derive_seat_view(reordered, LITERAL_POLICIES, 0)["zones"]["pool"]["entities"] == [
        "g3",
        "r2",
        "b1",
    ]


def test_policy_rules_may_depend_on_the_looking_seat():
    policy = ZoneVisibilityPolicy(lambda seat: Public() if seat == 2 else Hidden(), Hidden())
    view = {"zones": {"z": ["b2", "a1"]}}
    assert derive_seat_view(view, {"z": policy}, 2)["zones"]["z"]["entities"] == ["a1", "b2"]
    assert derive_seat_view(view, {"z": policy}, 0)["zones"]["z"] == {"count": 2}


def test_derive_seat_view_does_not_share_structure_with_the_full_view():
    game, state = _after(["play 2"])
    full = game.view(state)
    seen = derive_seat_view(full, POLICIES, 0)
    seen["zones"]["hand:0"]["entities"].append("x9")
    seen["boards"]["field"]["a1"]["scout"] = 7
    assert full["zones"]["hand:0"] == ["b3", "g1"]
    assert full["boards"]["field"]["a1"] == {"scout": 0}


def test_every_zone_and_board_needs_a_policy():
    with pytest.raises(ValueError, match=r"zone 'hand:3' has no visibility policy"):
        derive_seat_view({"zones": {"hand:3": []}}, {}, 0)
    with pytest.raises(TypeError, match=r"board 'b' needs a BoardVisibilityPolicy"):
        derive_seat_view({"boards": {"b": {}}}, {"b": ZoneVisibilityPolicy.public()}, 0)
    with pytest.raises(ValueError, match=r"policies name zones or boards the view does not have"):
        derive_seat_view({"zones": {}}, {"dekc": ZoneVisibilityPolicy.deck()}, 0)
    with pytest.raises(ValueError, match="hidden_entity_mode is 'absent' or 'shell'"):
        BoardVisibilityPolicy(lambda seat, cell: True, "ghost")  # type: ignore[arg-type]
    bad = ZoneVisibilityPolicy(lambda seat: True, Public())  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match=r"identity\(0\) returned True"):
        derive_seat_view({"zones": {"z": [1]}}, {"z": bad}, 0)


def test_visibility_algebra():
    assert Public().admits("anyone") and not Hidden().admits(0)
    assert Seats([1, 2]).admits(2) and not Seats([1, 2]).admits(0)
    assert Seats(["north"]).admits("north")  # seats may be strings; coworld's are ints
    assert Seats([1, 1, 2]) == Seats((1, 2))
    with pytest.raises(TypeError, match="collection of seats"):
        Seats("north")
    for vis in (Public(), Hidden(), Seats([0, 2])):
        assert visibility_from_json(vis.to_json()) == vis
    with pytest.raises(ValueError, match="unknown visibility kind 'open'"):
        visibility_from_json({"kind": "open"})


def test_bag_has_no_observable_order():
    filled_one_way = Bag(["r3", "b3"]).add("g1").add("b3")
    filled_other_way = Bag(["b3"]).add("g1", "b3", "r3")
    assert filled_one_way == filled_other_way
    assert list(filled_one_way) == ["b3", "b3", "g1", "r3"]
    assert hash(filled_one_way) == hash(filled_other_way)
    assert filled_one_way.counts() == {'"b3"': 2, '"g1"': 1, '"r3"': 1}
    assert "g1" in filled_one_way and "g2" not in filled_one_way
    assert filled_one_way.remove("b3") == Bag(["g1", "r3", "b3"])
    drawn, rest = filled_one_way.draw(2)
    assert drawn == "g1" and rest == Bag(["b3", "b3", "r3"])
    with pytest.raises(ValueError, match="the bag holds no"):
        filled_one_way.remove("g2")
    with pytest.raises(ValueError, match=r"draw index 4 is outside 0..3"):
        filled_one_way.draw(4)
    with pytest.raises(ValueError, match="empty bag"):
        Bag().draw(0)


def test_bags_filled_in_different_orders_give_identical_views():
    policy = {"bag": ZoneVisibilityPolicy.bag()}
    views = [
        derive_seat_view({"zones": {"bag": list(bag)}}, policy, 0)
        for bag in (Bag(["g1"]).add("b1"), Bag(["b1"]).add("g1"))
    ]
    assert canonical_json(views[0]) == canonical_json(views[1])
    assert views[0]["zones"]["bag"]["entities"] == ["b1", "g1"]


def test_revelation_names_who_learns():
    record = create_information_revelation(
        what="stone",
        identity={"stone": 1},
        where="c3",
        step=7,
        from_visibility=Seats([1]),
        seats=[0, 1],
    )
    assert record == {
        "kind": "revelation",
        "what": "stone",
        "identity": {"stone": 1},
        "where": "c3",
        "from": {"zone": None, "visibility": {"kind": "seats", "seats": [1]}},
        "to": {"zone": None, "visibility": {"kind": "public"}},
        "step": 7,
        "revealedTo": [0],
    }
    with pytest.raises(ValueError, match="needs `seats`"):
        create_information_revelation(
            what="card", identity="r1", step=1, from_visibility=Seats([0])
        )
    with pytest.raises(ValueError, match="nothing is revealed"):
        create_information_revelation(
            what="card",
            identity="r1",
            step=1,
            from_visibility=Seats([0, 1]),
            to_visibility=Seats([1]),
        )
    with pytest.raises(ValueError, match="reveals it to nobody"):
        create_information_revelation(
            what="card", identity="r1", step=1, from_visibility=Seats([0]), to_visibility=Hidden()
        )


def test_revelations_must_be_standard_records():
    with pytest.raises(ValueError, match="needs to.visibility; make records with"):
        derive_seat_view({"revelations": [{"kind": "revelation", "identity": "r1"}]}, {}, 0)
