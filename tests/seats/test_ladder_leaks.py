"""The ladder's new rungs see only what their seat sees: two positions the seat
cannot tell apart get the same move (a baseline sees what its seat sees).

- Hanabi `tracker`: the permuted deals of test_hanabi_leaks (the observer's own
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

import pytest

import coworld
from coworld.games import ROTATION, of_family
from tests.seats.test_fog_leaks import what_the_seat_may_know
from tests.seats.test_hanabi_leaks import SEATS, quiet_actions, shuffled_deck, variants


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
