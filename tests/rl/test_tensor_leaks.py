"""The leak check on the observation tensors: the SDK's
`assert_no_information_leak`, in its `run` + `variants` form, compares a seat's
tensor streams across episodes that differ only in what the seat may not know.

- Hanabi, 2-5 seats: the observer's own hand reordered and the undrawn deck
  shuffled (forced deals), while nobody hints, plays or discards the observer's
  cards. The stream holds both surfaces: `encode` at every step and the VecEnv's
  own observation row whenever the observer is to move.
- Fog variants: episodes whose opponent moves differ (random, by seed) and that
  leave the observer's `view_for` stream identical; their true boards differ.
- The batch path: every VecEnv observation and mask is `encode` of the same
  episode rebuilt through the reducer, so the checks on `encode` cover it.

Each check is shown able to fail: a tensor with one hidden fact appended is
caught by the same call.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import coworld
from coworld import _core
from coworld.games import of_family
from coworld.sdk import assert_no_information_leak
from coworld.vecenv import encode

COLOURS = ["red", "yellow", "green", "blue", "white"]
COPIES = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
HORIZON = 12


def hand_size(seats: int) -> int:
    return 5 if seats <= 3 else 4


def shuffled_deck(seed: int) -> list[str]:
    deck = [f"{c} {r}" for c in COLOURS for r, n in COPIES.items() for _ in range(n)]
    random.Random(seed).shuffle(deck)
    return deck


def hanabi(seats: int, deck: list[str]):
    return coworld.game({"game": "hanabi", "seats": seats, "deck": deck})


def quiet_actions(seats: int, deck: list[str], observer: int) -> list[str]:
    """HORIZON moves in which the observer only hints and nobody hints the observer
    (the others discard, else hint each other, else play): nothing the observer
    holds is ever revealed to it."""
    reducer = hanabi(seats, deck)
    state, moves = reducer.init(seed=1), []
    for _ in range(HORIZON):
        legal = reducer.legal_moves(state)
        if state.active_seat == observer:
            move = next(m for m in legal if m.startswith("hint"))
        else:
            others_hint = [
                m for m in legal if m.startswith("hint") and m.split()[1] != str(observer)
            ]
            discards = [m for m in legal if m.startswith("discard")]
            move = (discards or others_hint or legal)[0]
        moves.append(move)
        state = reducer.apply(state, move)
    return moves


def deals(seats: int, deck: list[str], observer: int, seed: int) -> list[list[str]]:
    """The base deal, the observer's hand reordered, the undrawn tail shuffled, both."""
    rng, hand = random.Random(seed), hand_size(seats)
    mine = slice(observer * hand, (observer + 1) * hand)
    drawn = seats * hand + HORIZON  # at most one draw a turn

    def own_permuted(d: list[str]) -> list[str]:
        d = list(d)
        cards = d[mine]
        while cards == d[mine]:
            rng.shuffle(cards)
        d[mine] = cards
        return d

    def tail_shuffled(d: list[str]) -> list[str]:
        tail = d[drawn:]
        rng.shuffle(tail)
        return d[:drawn] + tail

    return [deck, own_permuted(deck), tail_shuffled(deck), tail_shuffled(own_permuted(deck))]


def hanabi_tensors(seats: int, deck: list[str], actions: list[str], observer: int, leak=None):
    """The observer's tensors at every step: `encode`, and the VecEnv's row on its turns."""
    reducer = hanabi(seats, deck)
    env = coworld.VecEnv("hanabi", 1, seed=1, config={"seats": seats, "deck": deck}, threads=1)
    env.reset()
    state, stream = reducer.init(seed=1), []
    for move in [None, *actions]:
        if move is not None:
            env.step(np.array([env.action_id(move)]))
            state = reducer.apply(state, move)
        seen: dict[str, list] = {"encode": encode(state, observer)[0].tolist()}
        if state.active_seat == observer:
            assert int(env.info["seat"][0]) == observer
            seen["vecenv"] = env.obs[0].tolist()
        if leak is not None:
            seen["leak"] = leak(state)
        stream.append(seen)
    return stream


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", range(2))
def test_hanabi_tensors_never_show_own_cards_or_the_deck(seats, seed):
    for observer in range(seats):
        deck = shuffled_deck(seed * 10 + seats)
        actions = quiet_actions(seats, deck, observer)
        variants = deals(seats, deck, observer, seed)
        assert len({tuple(d) for d in variants}) == 4  # the deals really differ
        compared = assert_no_information_leak(
            seat=observer,
            run=lambda d, o=observer, a=actions: hanabi_tensors(seats, d, a, o),
            variants=variants,
        )
        assert compared == 4


@pytest.mark.parametrize("seats", [2, 5])
def test_the_hanabi_check_catches_a_tensor_that_shows_the_own_hand(seats):
    deck = shuffled_deck(1)
    actions = quiet_actions(seats, deck, 0)
    variants = deals(seats, deck, 0, 1)[:2]  # base and own hand reordered

    def own_hand(state):
        return [card["card"] for card in state.view()["hands"][0]]

    with pytest.raises(AssertionError, match=r"information leak: seat 0 .* step 0, field \$\.leak"):
        assert_no_information_leak(
            seat=0,
            run=lambda d: hanabi_tensors(seats, d, actions, 0, leak=own_hand),
            variants=variants,
        )


# ---------------------------------------------------------------------- fog

DECISIONS = 4  # the observer's decisions per compared episode


def fog_episode(game: str, observer: int, opponent_seed: int):
    """The observer plays `probe` (a function of its view) for DECISIONS decisions
    against a random opponent: (its view stream, its tensor stream, the true board)."""
    reducer, rng = coworld.game(game), random.Random(opponent_seed)
    state = reducer.init(seed=1)
    views, tensors, decisions = [], [], 0
    while not state.is_terminal and decisions < DECISIONS:
        if state.active_seat == observer:
            views.append(json.dumps(reducer.view_for(state, observer), sort_keys=True))
            tensors.append(encode(state, observer)[0].tolist())
            move, decisions = state.baseline_move("probe"), decisions + 1
        else:
            move = rng.choice(reducer.legal_moves(state))
        state = reducer.apply(state, move)
    return views, tensors, json.dumps(state.view()["stones"], sort_keys=True)


def same_view_episodes(game: str, observer: int) -> list[int]:
    """Opponent seeds whose episodes give the observer the view stream of seed 0's."""
    base = fog_episode(game, observer, 0)[0]
    return [s for s in range(120) if fog_episode(game, observer, s)[0] == base]


@pytest.mark.parametrize("game", of_family("fog"))
@pytest.mark.parametrize("observer", [0, 1])
def test_fog_tensors_never_show_unproven_stones(game, observer):
    seeds = same_view_episodes(game, observer)
    truths = {fog_episode(game, observer, s)[2] for s in seeds}
    assert len(truths) >= 3, f"{game}: only {len(truths)} hidden boards compared"
    compared = assert_no_information_leak(
        seat=observer,
        run=lambda s: fog_episode(game, observer, s)[1],
        variants=seeds,
    )
    assert compared == len(seeds)


def test_the_fog_check_catches_a_tensor_that_shows_the_true_board():
    seeds = same_view_episodes("dark-hex-5", 1)

    def leaky(seed: int):
        views, tensors, truth = fog_episode("dark-hex-5", 1, seed)
        return [*tensors, truth]

    with pytest.raises(AssertionError, match="information leak"):
        assert_no_information_leak(seat=1, run=leaky, variants=seeds)


# ---------------------------------------------------------------- batch path


@pytest.mark.parametrize("game", coworld.GAMES)
def test_vecenv_observations_are_encode_of_the_same_episode(game):
    """Every row the VecEnv writes equals `encode` of its episode rebuilt through
    the reducer from its documented seed (`episode_seed(seed, k * n + i)`)."""
    n, seed = 6, 11
    env = coworld.VecEnv(game, n, seed=seed, threads=1)
    obs, mask = env.reset()
    reducer = coworld.game(game)
    started = [0] * n
    states = [reducer.init(seed=_core.episode_seed(seed, i)) for i in range(n)]
    checked = 0
    for _ in range(150):
        for i, state in enumerate(states):
            seat = state.active_seat
            assert int(env.info["seat"][i]) == seat
            want_obs, want_mask = encode(state, seat)
            assert np.array_equal(obs[i], want_obs), f"{game} env {i}: observation"
            assert np.array_equal(mask[i], want_mask), f"{game} env {i}: mask"
            checked += 1
        actions = env.sample_legal()
        obs, mask, _, terminated, _, _ = env.step(actions)
        for i in range(n):
            states[i] = reducer.apply(states[i], env.action_names[actions[i]])
            if terminated[i]:
                assert states[i].is_terminal
                started[i] += 1
                states[i] = reducer.init(seed=_core.episode_seed(seed, started[i] * n + i))
            else:
                assert not states[i].is_terminal
    assert checked == 150 * n
