"""Baselines see what their seat sees: every Hanabi baseline, and so
every fallback move, is a function of the mover's `view_for`.

Positions the mover cannot tell apart are built with the forced-deal `deck`
setting and a replayed history: the mover's own cards and the undrawn deck are
rearranged, a card moving into the mover's hand only where it answers every
hint that slot heard exactly as the original card did (it matches the slot's
positive hints and none of its negative ones), so the same moves replay to the
same `view_for(mover)`. Every baseline must then play the same move.

The ladder's rungs too:

- Hanabi `tracker`: the permuted deals of the Hanabi leak check (the observer's own
  hand reordered, the undrawn deck shuffled) give the observer identical moves
  at each of its turns.
- Fog `ismcts`: episodes with random opponents, grouped by what the observer may
  know (its own plies and their results, the public counters); within a group
  the observer's `ismcts` move is the same, whatever the opponent's hidden
  stones. Both forms with and without eps.
- Gauntlet `mcts`: perfect information, so the check is determinism: the same
  state and stream give the same move in the runner and the batch simulator.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest

import coworld
from coworld.games import ROTATION, of_family
from tests.support.leaks import (
    COLOURS,
    COPIES,
    SEATS,
    quiet_actions,
    shuffled_deck,
    variants,
    what_the_seat_may_know,
)

BASELINES = ("conventions", "cautious", "random")
SEED = 1  # the decision stream (random's draws) is a function of the seed and the turn


def hand_size(seats: int) -> int:
    return 5 if seats <= 3 else 4


class History:
    """A game from a forced deal, tracking which deck position each slot holds."""

    def __init__(self, deck: list[str], seats: int) -> None:
        self.deck, self.seats, self.moves = deck, seats, []
        self.state = self._start(deck)
        h = hand_size(seats)
        # Each dealt card enters slot 1, so a hand lists its deck positions newest first.
        self.slots = [list(reversed(range(s * h, (s + 1) * h))) for s in range(seats)]
        self.next_draw = seats * h

    def _start(self, deck: list[str]) -> Any:
        return coworld.game({"game": "hanabi", "seats": self.seats, "deck": deck}).init(seed=SEED)

    def apply(self, move: str) -> None:
        seat, before = self.state.active_seat, self.state.view()["deckCount"]
        self.state = self.state.apply(move)
        self.moves.append(move)
        verb, *rest = move.split()
        if verb in ("play", "discard"):
            self.slots[seat].pop(int(rest[0]) - 1)
            if self.state.view()["deckCount"] < before:
                self.slots[seat].insert(0, self.next_draw)
                self.next_draw += 1

    def replay(self, deck: list[str]) -> Any:
        state = self._start(deck)
        for move in self.moves:
            state = state.apply(move)
        return state


def answers_like(card: str, knowledge: dict[str, Any]) -> bool:
    """True when `card` answers every hint this slot heard as its own card did."""
    colour, rank = card.split()[0], int(card.split()[1])
    return (
        knowledge["colour"] in (None, colour)
        and knowledge["rank"] in (None, rank)
        and colour not in knowledge["notColours"]
        and rank not in knowledge["notRanks"]
    )


def indistinguishable_deal(h: History, rng: random.Random) -> list[str]:
    """The deal with the mover's own cards and the undrawn deck rearranged by
    random swaps that keep every slot consistent with the hints it heard."""
    mover = h.state.active_seat
    own = h.state.view_for(mover)["hands"][mover]
    heard = {pos: own[k]["knowledge"] for k, pos in enumerate(h.slots[mover])}
    pool = list(heard) + list(range(h.next_draw, len(h.deck)))
    deck = list(h.deck)
    for _ in range(4 * len(pool)):
        p, q = rng.sample(pool, 2)
        fits = all(
            pos not in heard or answers_like(card, heard[pos])
            for pos, card in ((p, deck[q]), (q, deck[p]))
        )
        if fits:
            deck[p], deck[q] = deck[q], deck[p]
    return deck


def random_history(
    seats: int, rng: random.Random, turns: int, movers: tuple[str, ...] = BASELINES
) -> History:
    """A forced deal played forward by a mix of baselines and uniform moves."""
    h = History(shuffled_deck(rng), seats)
    for _ in range(turns):
        choice = rng.choice([*movers, "uniform"])
        legal = h.state.legal_moves()
        move = rng.choice(legal) if choice == "uniform" else h.state.baseline_move(choice)
        if h.state.apply(move).is_terminal:
            break  # a position where someone still has to move
        h.apply(move)
    return h


def redeals(seats, rng, movers=BASELINES):
    """40 random histories, each replayed on 3 deals its mover cannot tell apart:
    (history, replayed state, deck, whether the mover's own cards changed)."""
    for _ in range(40):
        h = random_history(seats, rng, turns=rng.randrange(0, 70), movers=movers)
        mover = h.state.active_seat
        for _ in range(3):
            deck = indistinguishable_deal(h, rng)
            other = h.replay(deck)
            assert other.view_for(mover) == h.state.view_for(mover)
            yield h, other, deck, other.view()["hands"][mover] != h.state.view()["hands"][mover]


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_every_baseline_is_a_function_of_the_movers_view(seats):
    compared, hand_changed = 0, 0
    for h, other, deck, changed in redeals(seats, random.Random(seats)):
        hand_changed += changed
        for name in BASELINES:
            moves = h.state.baseline_move(name), other.baseline_move(name)
            assert moves[0] == moves[1], (name, h.moves, h.deck, deck)
            compared += 1
    assert compared == 40 * 3 * len(BASELINES)
    assert hand_changed > compared / len(BASELINES) / 2, "the mover's own cards must change"


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_tracker_is_a_function_of_the_movers_view(seats):
    """The same check for `tracker`, whose move replays the whole public log
    (play hints, warnings, discard finesses): histories mostly of its own moves,
    so its conventions are in play, and hints to the mover that it must read."""
    compared, hand_changed, moves_seen = 0, 0, set()
    for h, other, deck, changed in redeals(seats, random.Random(100 + seats), ("tracker",) * 3):
        hand_changed += changed
        moves = h.state.baseline_move("tracker"), other.baseline_move("tracker")
        assert moves[0] == moves[1], (h.moves, h.deck, deck)
        moves_seen.add(moves[0].split()[0])
        compared += 1
    assert compared == 40 * 3
    assert hand_changed > compared / 2, "the mover's own cards must change"
    assert moves_seen == {"play", "discard", "hint"}, moves_seen


# A worked example, dealt by hand (4 seats; a hand lists slot 1 first, so the
# last card dealt to a seat is its slot 1). Seat 0's slot 1 is a red 1 or a white 5.
HANDS = [
    ["red 1", "yellow 2", "blue 4", "green 3"],
    ["red 1", "green 2", "blue 3", "yellow 4"],
    ["red 1", "yellow 1", "green 4", "blue 2"],
    ["white 4", "yellow 3", "red 3", "green 2"],
]
DRAWS = ["white 2", "white 3"]  # seat 1's and seat 2's replacements
# Seat 0 hints seat 3, seat 1 plays its red 1, seat 2 discards its red 1, seat 3 hints seat 1.
MOVES = ["hint 3 rank 4", "play 1", "discard 1", "hint 1 rank 3"]


def hidden_red_one_deals() -> tuple[list[str], list[str]]:
    """Two deals seat 0 cannot tell apart after MOVES: its slot 1 holds the
    third red 1, or the white 5 (the red 1 then waits in the deck)."""
    dealt = [card for hand in HANDS for card in reversed(hand)] + DRAWS
    rest = [f"{c} {r}" for c in COLOURS for r, n in COPIES.items() for _ in range(n)]
    for card in dealt:
        rest.remove(card)
    red_one = dealt + rest
    white_five = list(red_one)
    five = white_five.index("white 5")
    white_five[3], white_five[five] = white_five[five], white_five[3]
    return red_one, white_five


def test_a_hidden_third_red_one_gets_one_move():
    """Seat 2 sees the third red 1 only when seat 0 holds it, so only then would
    a rank-1 hint tell seat 2 that its yellow 1 plays. Seat 0 cannot see which
    deal it is in, so it must not hint on that ground: with nothing it can
    prove playable for anyone, it discards its chop (rule 4) in both."""
    states = []
    for deck in hidden_red_one_deals():
        state = coworld.game({"game": "hanabi", "deck": deck}).init(seed=SEED)
        for move in MOVES:
            state = state.apply(move)
        states.append(state)
    assert states[0].view_for(0) == states[1].view_for(0)
    assert [s.view()["hands"][0][0]["card"] for s in states] == ["red 1", "white 5"]
    moves = [s.baseline_move("conventions") for s in states]
    assert moves == ["discard 4", "discard 4"], moves


@pytest.mark.parametrize("policy", ["tracker", "tracker?eps=0.5"])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("observer", range(SEATS))
def test_tracker_moves_ignore_own_cards_and_deck_order(policy, seed, observer):
    reducer = coworld.game("hanabi")
    deck = shuffled_deck(seed)
    actions = quiet_actions(reducer, deck, observer)
    moves = []
    for d in variants(deck, observer, seed):
        state = reducer.init({"deck": d}, seed=1)
        mine = []
        for action in actions:
            if state.active_seat == observer:
                mine.append(state.baseline_move(policy))
            state = reducer.apply(state, action)
        moves.append(mine)
    assert moves[0] and all(m == moves[0] for m in moves), moves


@pytest.mark.parametrize("game_id", of_family("fog"))
def test_ismcts_moves_depend_only_on_the_seats_knowledge(game_id):
    reducer = coworld.game(game_id)
    policy = "ismcts?sims=60&eps=0.2"
    groups: dict[str, set[str]] = defaultdict(set)
    sizes: dict[str, int] = defaultdict(int)
    for episode in range(120):
        rng = random.Random(episode)
        state = reducer.init(seed=7)
        while not state.is_terminal and state.plies < 6:
            if state.active_seat == 0:
                key = what_the_seat_may_know(state, 0)
                groups[key].add(state.baseline_move(policy))
                sizes[key] += 1
                move = state.baseline_move("probe")
            else:
                move = rng.choice(state.legal_moves())
            state = reducer.apply(state, move)
    # The check has teeth only where different hidden positions share a key.
    shared = [k for k in groups if sizes[k] > 1]
    assert len(shared) >= 3, game_id
    assert all(len(groups[k]) == 1 for k in groups), {k: groups[k] for k in shared}


@pytest.mark.parametrize("game_id", ROTATION)
def test_mcts_in_the_runner_replays_the_batch(game_id):
    policies = ["mcts?sims=40", "mcts?sims=20&eps=0.1"]
    sim = coworld.simulate(game_id, policies, 2, seed=5, threads=1)
    for i in range(2):
        g = coworld.game(game_id)
        s = g.init(seed=int(sim.seeds[i]))
        while not s.is_terminal:
            s = g.apply(s, s.baseline_move(policies[s.active_seat]))
        assert s.results["score"] == sim.score[i].tolist()
        assert s.results["plies"] == int(sim.plies[i])
