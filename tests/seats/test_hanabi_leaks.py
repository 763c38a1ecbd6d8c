"""The leak check (the SDK's `assert_no_information_leak`, scenario mode) for
Hanabi: permuting a seat's own cards and the undrawn deck never changes that
seat's observation stream. The forced deals use the `deck` setting. Then the
revelation records a play or a discard emits.

The scenarios are honest: for the episode's horizon the observer never plays or
discards (that would reveal its cards) and is never hinted (which slots a hint
touches depends on its cards), and every card drawn inside the horizon is the
same in all scenarios (it is dealt face up to a seat the observer sees).
"""

from __future__ import annotations

import asyncio
import json
import random

import pytest

import coworld
from coworld.episode import Episode
from coworld.games.hanabi import HanabiReducer
from coworld.sdk import Scenario, Seats, assert_no_information_leak, create_information_revelation
from coworld.sdk.visibility import redact_revelation
from tests.support.leaks import SEATS, quiet_actions, shuffled_deck, variants


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("observer", range(SEATS))
def test_own_cards_and_deck_order_never_reach_the_seat(seed, observer):
    reducer = coworld.game("hanabi")
    deck = shuffled_deck(seed)
    actions = quiet_actions(reducer, deck, observer)
    decks = variants(deck, observer, seed)
    assert len({tuple(d) for d in decks}) == 4  # the permutations really differ
    compared = assert_no_information_leak(
        reducer,
        seat=observer,
        scenarios=[Scenario(f"deal {i}", {"deck": d}, 1, actions) for i, d in enumerate(decks)],
    )
    assert compared == 4


class PeekAtDeckBottom(HanabiReducer):
    """A deliberately leaky view: the seat sees the last card of the deck."""

    def view_for(self, state, seat):
        return {**super().view_for(state, seat), "deckBottom": state.view()["deck"][-1]}


class PeekAtOwnSlotOne(HanabiReducer):
    """A deliberately leaky view: the seat sees its own newest card."""

    def view_for(self, state, seat):
        return {**super().view_for(state, seat), "mySlot1": state.view()["hands"][seat][0]["card"]}


@pytest.mark.parametrize(
    "reducer_class, variant, field",
    [(PeekAtDeckBottom, 2, "deckBottom"), (PeekAtOwnSlotOne, 1, "mySlot1")],
)
def test_a_leaky_view_is_caught(reducer_class, variant, field):
    reducer = reducer_class("hanabi")
    deck = shuffled_deck(3)
    actions = quiet_actions(reducer, deck, 0)
    decks = variants(deck, 0, 3)
    scenarios = [
        Scenario("base", {"deck": decks[0]}, 1, actions),
        Scenario("permuted", {"deck": decks[variant]}, 1, actions),
    ]
    with pytest.raises(AssertionError, match=rf"at step 0, field \$\.view\.{field}"):
        assert_no_information_leak(reducer, seat=0, scenarios=scenarios)


def test_a_bad_deck_setting_names_the_field():
    with pytest.raises(coworld.ConfigError) as err:
        coworld.game({"game": "hanabi", "deck": ["red 1"] * 50})
    assert err.value.field == "deck" and "standard deck" in str(err.value)
    with pytest.raises(coworld.ConfigError, match="not a card"):
        coworld.game({"game": "hanabi", "deck": ["purple 9"] + shuffled_deck(1)[1:]})


# ---------------------------------------------------------------- revelations


def expected_revelation(entry: dict, seats: int) -> dict:
    """The SDK's record for a log entry's played or discarded card."""
    holder = entry["seat"]
    return create_information_revelation(
        what="card",
        identity=entry["card"],
        where={"seat": holder, "slot": int(entry["move"].split()[1])},
        step=entry["turn"],
        from_visibility=Seats(s for s in range(seats) if s != holder),
        from_zone=f"hand:{holder}",
        to_zone="fireworks" if entry["result"] == "played" else "discard",
        seats=range(seats),
    )


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_a_play_or_discard_reveals_its_card_to_its_holder_alone(seats):
    """Each play, misplay or discard adds exactly one record, revealing the card
    to its holder (every other seat already saw it); a hint adds none. The
    record is public, so the full view and every seat's view carry it whole."""
    state = coworld.game({"game": "hanabi", "seats": seats}).init(seed=seats)
    rng, kinds = random.Random(seats), set()
    while not state.is_terminal:
        before = state.view()["revelations"]
        move = rng.choice([state.baseline_move("conventions"), rng.choice(state.legal_moves())])
        state = state.apply(move)
        full = state.view()
        entry = full["log"][-1]
        added = full["revelations"][len(before) :]
        assert full["revelations"][: len(before)] == before
        if entry["result"] == "hinted":
            assert added == []
        else:
            assert added == [expected_revelation(entry, seats)]
            assert added[0]["revealedTo"] == [entry["seat"]]
            kinds.add(entry["result"])
        for seat in range(seats):
            assert state.view_for(seat)["revelations"] == full["revelations"]
            assert [redact_revelation(r, seat) for r in full["revelations"]] == full["revelations"]
    assert {"played", "discarded"} <= kinds


def test_replays_and_seat_transcripts_carry_the_records(tmp_path):
    """A ply event's view holds the record of that ply's play or discard, and
    every seat's transcript observation holds every record so far."""
    out = tmp_path / "h.jsonl"
    episode = Episode("hanabi", ["conventions"] * 4, seed=5, out=out, seat_transcripts=True)
    asyncio.run(episode.run())
    plies = [e for e in map(json.loads, out.read_text().splitlines()) if e.get("type") == "ply"]
    revealing = 0
    for e in plies:
        entry = e["view"]["log"][-1]
        records = [r for r in e["view"]["revelations"] if r["step"] == e["ply"]]
        if entry["result"] == "hinted":
            assert records == []
        else:
            assert records == [expected_revelation(entry, 4)]
            revealing += 1
    assert revealing > 10
    final = plies[-1]["view"]["revelations"]
    for seat in range(4):
        lines = (tmp_path / f"h.seat{seat}.jsonl").read_text().splitlines()
        observed = [e for e in map(json.loads, lines) if e.get("type") == "observation"]
        assert observed[-1]["view"]["revelations"] == final
