"""coworld.VecEnv: action spaces, masks, observation tensors (leak checks on the
tensors themselves), determinism across thread counts, automatic reset."""

from __future__ import annotations

import json
import random
from collections import defaultdict

import numpy as np
import pytest

import coworld
from coworld.games import of_family
from coworld.vecenv import action_names, encode
from tests.test_hanabi_leaks import HAND, quiet_actions, shuffled_deck, variants

GAMES = [g for g in coworld.GAMES if g != "rotate"]


@pytest.mark.parametrize("game", GAMES)
def test_action_ids_and_move_text_round_trip(game):
    env = coworld.VecEnv(game, 2, seed=1, threads=1)
    assert len(set(env.action_names)) == env.num_actions
    for i, name in enumerate(env.action_names):
        assert env.action_id(name) == i and env.action_name(i) == name
    state = coworld.game(game).init(seed=3)
    assert action_names(state) == env.action_names


@pytest.mark.parametrize("game", GAMES)
def test_masks_are_the_legal_moves(game):
    reducer = coworld.game(game)
    rng = random.Random(game)
    for seed in (1, 2):
        state = reducer.init(seed=seed)
        names = action_names(state)
        while not state.is_terminal:
            obs, mask = encode(state, state.active_seat)
            assert sorted(names[i] for i in np.flatnonzero(mask)) == sorted(
                reducer.legal_moves(state)
            )
            assert obs.dtype == np.float32 and np.isfinite(obs).all()
            state = reducer.apply(state, rng.choice(reducer.legal_moves(state)))


@pytest.mark.parametrize("game", of_family("fog"))
def test_fog_tensors_depend_only_on_the_seat_view(game):
    """Episodes where the observer plays `probe` (a function of its view) against
    random opponents: whenever two positions give the observer the same view_for,
    its tensors are identical. The check counts groups whose TRUE boards differ,
    so it cannot pass without comparing."""
    reducer = coworld.game(game)
    by_view: dict[str, tuple[bytes, str]] = {}
    hidden_differs = 0
    for observer in (0, 1):
        for episode in range(60):
            rng = random.Random(episode)
            state = reducer.init(seed=5)
            while not state.is_terminal:
                if state.active_seat == observer:
                    view = json.dumps(reducer.view_for(state, observer), sort_keys=True)
                    tensor = encode(state, observer)[0].tobytes()
                    truth = json.dumps(state.view()["stones"], sort_keys=True)
                    key = f"{observer}:{view}"
                    if key in by_view:
                        assert by_view[key][0] == tensor, f"{game}: equal views, tensors differ"
                        hidden_differs += by_view[key][1] != truth
                    else:
                        by_view[key] = (tensor, truth)
                    move = state.baseline_move("probe")
                else:
                    move = rng.choice(reducer.legal_moves(state))
                state = reducer.apply(state, move)
    assert hidden_differs > 20, hidden_differs


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("observer", range(4))
def test_hanabi_tensors_never_show_own_cards_or_the_deck(seed, observer):
    """The permutations of test_hanabi_leaks (own hand reordered, undrawn deck
    shuffled) keep the observer's tensor identical at every step, while another
    seat's tensor (which sees the observer's hand) changes."""
    reducer = coworld.game("hanabi")
    deck = shuffled_deck(seed)
    actions = quiet_actions(reducer, deck, observer)
    streams, others = [], []
    for d in variants(deck, observer, seed):
        state = reducer.init({"deck": d}, seed=1)
        stream, other = [], []
        for move in [None, *actions]:
            if move is not None:
                state = reducer.apply(state, move)
            stream.append(encode(state, observer)[0].tobytes())
            other.append(encode(state, (observer + 1) % 4)[0].tobytes())
        streams.append(stream)
        others.append(other)
    assert all(s == streams[0] for s in streams)
    assert others[1] != others[0]  # the own-hand permutation is visible to the others
    assert HAND == 4


def run(game, threads, n=17, steps=80, opponents=None):
    env = coworld.VecEnv(game, n, seed=3, opponents=opponents, threads=threads)
    env.reset()
    trace = []
    for _ in range(steps):
        obs, mask, rewards, term, trunc, info = env.step(env.sample_legal())
        trace.append((obs.copy(), mask.copy(), rewards.copy(), term.copy(), info["seat"].copy()))
    return trace


@pytest.mark.parametrize("game", ["hex", "dark-hex-5", "hanabi", "breakthrough"])
def test_any_thread_count_gives_the_same_batch(game):
    one, two = run(game, 1), run(game, 2)
    for a, b in zip(one, two, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


def test_finished_episodes_reset_and_report_their_score():
    env = coworld.VecEnv("connect-four", 64, seed=2, opponents=[None, "tactician"], threads=1)
    obs, mask = env.reset()
    assert (env.info["seat"] == 0).all()
    assert obs.shape == (64, 3, 6, 7) and mask.shape == (64, 7)
    finished, scores = 0, []
    for _ in range(30):
        _, mask, rewards, term, trunc, info = env.step(env.sample_legal())
        assert not trunc.any()
        assert (info["seat"] == 0).all()  # the learner is always the one to move
        for i in np.flatnonzero(term):
            finished += 1
            scores.append(rewards[i, 0])
            assert rewards[i].sum() == 0 and info["ending"][i] >= 0
            assert coworld.ENDINGS[info["ending"][i]] in ("line", "board-full")
        assert (rewards[~term] == 0).all()
        assert mask.any(axis=1).all()
    assert finished > 64
    # random vs tactician: tactician wins most.
    assert np.mean(scores) < -0.5


def test_illegal_actions_are_refused_naming_the_env():
    env = coworld.VecEnv("hex", 3, seed=1, threads=1)
    env.reset()
    env.step([0, 1, 2])
    with pytest.raises(coworld.IllegalMove, match="env 0: action 0 \\(a1\\)"):
        env.step([0, 5, 6])


def test_rotate_and_bad_opponents_are_config_errors():
    with pytest.raises(coworld.ConfigError, match="connect-four, breakthrough"):
        coworld.VecEnv("rotate", 4, seed=1)
    with pytest.raises(coworld.ConfigError, match="one entry per seat"):
        coworld.VecEnv("hanabi", 4, seed=1, opponents=[None, "conventions"])


def test_hanabi_opponents_play_inside_the_core():
    env = coworld.VecEnv(
        "hanabi", 32, seed=4, opponents=[None, "conventions", "conventions", "conventions"]
    )
    env.reset()
    totals: dict[int, list[float]] = defaultdict(list)
    for _ in range(200):
        _, _, rewards, term, _, info = env.step(env.sample_legal())
        assert (info["seat"] == 0).all()
        for i in np.flatnonzero(term):
            totals[0].append(rewards[i, 0])
            assert len(set(rewards[i])) == 1  # the shared score
    assert len(totals[0]) > 0


def test_opponents_take_baseline_parameters():
    env = coworld.VecEnv("hex", 4, seed=1, opponents=[None, "tactician?eps=0.3"], threads=1)
    env.reset()
    env.step(env.sample_legal())
    with pytest.raises(coworld.ConfigError, match="depth"):
        coworld.VecEnv("hex", 4, seed=1, opponents=[None, "tactician?depth=3"])


def test_stepping_before_reset_is_refused():
    env = coworld.VecEnv("hex", 2, seed=1)
    with pytest.raises(coworld.ConfigError, match="call reset"):
        env.sample_legal()
