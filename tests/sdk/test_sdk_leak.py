"""assert_no_information_leak: permutations of hidden regions, scenarios, leaky reducers.

The base episode (seed 123456: hands g1 b1 | g3 g2 | r3 b2, deck b3 r1 r2) runs
four steps with every seat playing its lowest card (rank, then name): seat 0
plays b1 and draws b3, seat 1 plays g2 and draws r1, seat 2 plays b2 and draws
r2, seat 0 plays g1 (the lowest of b3 g1) with the deck empty. Seat 0 never sees deck cards 2
and 3 (r1, r2: they go to seats 1 and 2), and the order of seat 1's hand does
not change which card it plays, so both permutations below are honest.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from sdk_fixtures import HiddenDeckGame, deal, lowest_card

import coworld
from coworld.sdk import (
    Scenario,
    assert_no_information_leak,
    observation_stream,
)

SEED = 123456
RUN = {"level": None, "seed": SEED, "behaviours": lowest_card, "max_steps": 4}


def swap_undrawn_deck(state):
    """Swap deck cards 2 and 3 (seat 0 never holds either)."""
    deck = state.deck
    return replace(state, deck=(deck[0], deck[2], deck[1], *deck[3:]))


def reverse_opponent_hand(state):
    """Reverse seat 1's hand: its order is seat 1's alone."""
    hands = list(state.hands)
    hands[1] = tuple(reversed(hands[1]))
    return replace(state, hands=tuple(hands))


def test_base_episode_is_what_the_docstring_says():
    stream = observation_stream(HiddenDeckGame(), 0, Scenario("base", **RUN))
    assert len(stream) == 5
    assert [r["identity"] for r in stream[-1]["view"]["revelations"]] == ["b1", "g2", "b2", "g1"]
    assert stream[-1]["view"]["zones"]["hand:0"]["entities"] == ["b3"]
    assert stream[0]["legalMoves"] == ["play 1", "play 2", "stash 1", "stash 2"]
    assert "legalMoves" not in stream[1]  # seat 1's turn


def test_permuting_deck_order_and_an_opponent_hand_leaks_nothing():
    compared = assert_no_information_leak(
        HiddenDeckGame(),
        seat=0,
        permutations=[swap_undrawn_deck, reverse_opponent_hand],
        **RUN,
    )
    assert compared == 3


def test_permutations_are_real_changes_seen_by_the_seats_that_may_see_them():
    # The same permutations ARE visible to the seats that hold the permuted cards:
    # seat 1 draws deck card 2 at step 2; seat 1 sees its own hand order at step 0.
    with pytest.raises(AssertionError, match=r"at step 2, field \$\.view\.zones\[\"hand:1\"\]"):
        assert_no_information_leak(
            HiddenDeckGame(), seat=1, permutations=[swap_undrawn_deck], **RUN
        )
    with pytest.raises(
        AssertionError,
        match=r"'base' and 'reverse_opponent_hand' at step 0, field "
        r"\$\.view\.zones\[\"hand:1\"\]\.entities\[0\]: \"g3\" vs \"g2\"",
    ):
        assert_no_information_leak(
            HiddenDeckGame(), seat=1, permutations=[reverse_opponent_hand], **RUN
        )


class LeaksDeckTop(HiddenDeckGame):
    """A product bug: a 'next card' hint for the UI that shows the deck's top card."""

    def view_for(self, state, seat):
        view = super().view_for(state, seat)
        view["nextCard"] = state.deck[0] if state.deck else None
        return view


class LeaksHandOrder(HiddenDeckGame):
    """A product bug: opponents' card backs show their ranks, slot by slot."""

    def view_for(self, state, seat):
        view = super().view_for(state, seat)
        for other in (0, 1, 2):
            if other != seat:
                view["zones"][f"hand:{other}"]["ranks"] = [int(c[1]) for c in state.hands[other]]
        return view


def test_catches_a_deck_leak_naming_field_and_step():
    # Step 0: both decks start with b3. Step 1: seat 0 drew b3, the top is r1 vs r2.
    with pytest.raises(AssertionError) as caught:
        assert_no_information_leak(LeaksDeckTop(), seat=0, permutations=[swap_undrawn_deck], **RUN)
    message = str(caught.value)
    assert "seat 0 observes differently in 'base' and 'swap_undrawn_deck'" in message
    assert 'at step 1, field $.view.nextCard: "r1" vs "r2"' in message


def test_catches_a_hand_order_leak_naming_field_and_step():
    # Seat 1's hand g3 g2 has ranks [3, 2]; reversed [2, 3].
    with pytest.raises(AssertionError) as caught:
        assert_no_information_leak(
            LeaksHandOrder(), seat=0, permutations=[reverse_opponent_hand], **RUN
        )
    assert 'at step 0, field $.view.zones["hand:1"].ranks[0]: 3 vs 2' in str(caught.value)


def test_scenario_mode_with_seeds_that_agree_on_what_the_seat_knows():
    # deal(SEED + 1) swaps deck cards 2 and 3: the scenario form of swap_undrawn_deck,
    # the way a Rust-backed game (no state editing) is checked.
    base = deal(SEED)
    assert deal(SEED + 1) == [*base[:7], base[8], base[7]]
    scenarios = [
        Scenario("seed 123456", seed=SEED, behaviours=lowest_card, max_steps=4),
        Scenario("seed 123457", seed=SEED + 1, behaviours=lowest_card, max_steps=4),
    ]
    assert assert_no_information_leak(HiddenDeckGame(), seat=0, scenarios=scenarios) == 2
    with pytest.raises(AssertionError, match=r"nextCard"):
        assert_no_information_leak(LeaksDeckTop(), seat=0, scenarios=scenarios)


def test_scenario_mode_on_a_rust_backed_game():
    """connect-four is perfect information: the opponent's move is part of every view, so
    two scenarios that differ in it must differ at the step it is played (step 2)."""
    game = coworld.game("connect-four")
    scenarios = [
        Scenario("opponent plays d", seed=5, actions=["d", "d", "c"]),
        Scenario("opponent plays e", seed=5, actions=["d", "e", "c"]),
    ]
    with pytest.raises(AssertionError) as caught:
        assert_no_information_leak(game, seat=0, scenarios=scenarios)
    assert "at step 2, field $.view.history[1]" in str(caught.value)
    # The seed is not observable: episodes from different seeds give identical streams.
    same_moves = [Scenario(f"seed {s}", seed=s, actions=["d", "d", "c"]) for s in (5, 6, 99)]
    assert assert_no_information_leak(game, seat=1, scenarios=same_moves) == 3


def test_generic_run_and_variants():
    def run(variant):
        return [{"count": 3}, {"count": 2, "top": variant}]

    with pytest.raises(AssertionError, match=r"'x' and 'y' at step 1, field \$\.top"):
        assert_no_information_leak(run=run, variants=["x", "y"])
    assert assert_no_information_leak(run=lambda v: [1, 2], variants=[1, 2, 3]) == 3

    def uneven(variant):
        return [0] * variant

    with pytest.raises(AssertionError, match=r"at step 2, field \$: the episode in 'variant 1'"):
        assert_no_information_leak(run=uneven, variants=[2, 3])


def test_needs_two_variants():
    with pytest.raises(ValueError, match="at least two variants"):
        assert_no_information_leak(HiddenDeckGame(), seat=0, **RUN)
    with pytest.raises(TypeError, match="give a reducer and a seat"):
        assert_no_information_leak(permutations=[swap_undrawn_deck])
