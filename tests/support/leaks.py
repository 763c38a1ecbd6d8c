"""Positions a seat cannot tell apart, shared by the leak checks of every surface a
seat reads (views, prompts, links, tensors, baselines): Hanabi deals whose only
differences are the observer's own cards and the undrawn deck, with moves that keep
them hidden; and what a fog seat may know of an episode."""

from __future__ import annotations

import random

from coworld.sdk.canonical import canonical_json as canonical

COLOURS = ["red", "yellow", "green", "blue", "white"]
COPIES = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
#: Seats, cards in a hand, and the moves over which no seat reveals its own cards.
SEATS, HAND, HORIZON = 4, 4, 12


def shuffled_deck(seed: int | random.Random) -> list[str]:
    deck = [f"{c} {r}" for c in COLOURS for r, n in COPIES.items() for _ in range(n)]
    (seed if isinstance(seed, random.Random) else random.Random(seed)).shuffle(deck)
    return deck


def quiet_actions(reducer, deck: list[str], observer: int) -> list[str]:
    """HORIZON moves where the observer only hints and nobody hints the observer."""
    state = reducer.init({"deck": deck}, seed=1)
    moves = []
    for _ in range(HORIZON):
        legal = reducer.legal_moves(state)
        if state.active_seat == observer:
            move = next(m for m in legal if m.startswith("hint"))
        else:
            move = next((m for m in legal if m.startswith("discard")), None) or next(
                m for m in legal if m.startswith("hint") and int(m.split()[1]) != observer
            )
        moves.append(move)
        state = reducer.apply(state, move)
    return moves


def variants(deck: list[str], observer: int, seed: int) -> list[list[str]]:
    """The base deal, the observer's hand reordered, the undrawn tail shuffled, and both."""
    rng = random.Random(seed)
    mine = slice(observer * HAND, (observer + 1) * HAND)
    drawn_in_horizon = SEATS * HAND + HORIZON  # at most one draw per turn

    def own_permuted(d):
        d = list(d)
        hand = d[mine]
        while hand == d[mine] and len(set(hand)) > 1:
            rng.shuffle(hand)
        d[mine] = hand
        return d

    def tail_shuffled(d):
        d = list(d)
        tail = d[drawn_in_horizon:]
        rng.shuffle(tail)
        return d[:drawn_in_horizon] + tail

    return [deck, own_permuted(deck), tail_shuffled(deck), tail_shuffled(own_permuted(deck))]


def what_the_seat_may_know(state, seat: int) -> str:
    """From the spectator truth: the seat's own plies (ply, sense, cell, result), the
    ply counter, whose turn it is and the public outcome."""
    full = state.view()
    own = [
        {k: e.get(k) for k in ("ply", "sense", "cell", "result")}
        for e in full["events"]
        if e["seat"] == seat
    ]
    results = state.results
    public = results and {k: results[k] for k in ("ending", "score", "winner")}
    return canonical([own, full["plies"], full["activeSeat"], public])
