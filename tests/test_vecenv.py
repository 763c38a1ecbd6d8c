"""coworld.VecEnv: action spaces, masks, observation tensors (leak checks on the
tensors themselves), determinism across thread counts, automatic reset."""

from __future__ import annotations

import json
import random
from collections import defaultdict

import numpy as np
import pytest

import coworld
from coworld import _core
from coworld.games import of_family
from coworld.vecenv import action_names, encode
from tests.test_hanabi_leaks import HAND, quiet_actions, shuffled_deck, variants

GAMES = list(coworld.GAMES)
SINGLE = [g for g in GAMES if g != "rotate"]
ROTATION = coworld.catalog()["rotate"]["rotation"]


@pytest.mark.parametrize("game", SINGLE)
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
        trace.append(
            (obs.copy(), mask.copy(), rewards.copy(), term.copy(), info["seat"].copy())
            + (info["game"].copy(),)
        )
    return trace


@pytest.mark.parametrize("game", ["hex", "dark-hex-5", "hanabi", "breakthrough", "rotate"])
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


def test_bad_opponents_are_config_errors():
    with pytest.raises(coworld.ConfigError, match="tactician"):
        coworld.VecEnv("rotate", 4, seed=1, opponents=[None, "probe"])
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


def member_state(state):
    """The member game's own state of a `rotate` state (same seed, same moves)."""
    member = coworld.game(state.resolved_game).init(seed=state.seed)
    for move in state.moves:
        member = member.apply(move)
    return member


def test_rotate_tensors_embed_the_member_game_and_name_it():
    """Along random `rotate` episodes of every member: the padded tensor holds the
    member's own tensor in its low corner, zeros elsewhere, and the game's plane;
    the mask is the member's, shifted to the member's ids."""
    reducer = coworld.game("rotate")
    offsets = [0, 7, 167, 216, 425]
    assert ROTATION == ["connect-four", "breakthrough", "hex", "quoridor"]
    for seed in range(1, 9):
        rng = random.Random(seed)
        state = reducer.init(seed=seed)
        g = ROTATION.index(state.resolved_game)
        assert g == seed % 4
        while not state.is_terminal:
            seat = state.active_seat
            obs, mask = encode(state, seat)
            own, own_mask = encode(member_state(state), seat)
            p, r, f = own.shape
            assert obs.shape == (11, 9, 9)
            np.testing.assert_array_equal(obs[:p, :r, :f], own)
            rest = obs[:7].copy()
            rest[:p, :r, :f] = 0
            assert not rest.any()
            assert (obs[7 + g] == 1).all() and not np.delete(obs[7:], g, axis=0).any()
            expected = np.zeros(425, bool)
            expected[offsets[g] : offsets[g + 1]] = own_mask
            np.testing.assert_array_equal(mask, expected)
            state = reducer.apply(state, rng.choice(reducer.legal_moves(state)))


def test_rotate_tensors_depend_only_on_the_seat_view():
    """Equal `view_for` (which names the game) gives equal tensors; positions of
    different games never share a tensor."""
    reducer = coworld.game("rotate")
    by_view: dict[str, bytes] = {}
    by_tensor: dict[bytes, str] = {}
    repeats = 0
    for seed in range(1, 13):
        rng = random.Random(seed % 4)  # the same moves in repeated games: equal views recur
        state = reducer.init(seed=seed)
        while not state.is_terminal:
            seat = state.active_seat
            view = json.dumps([state.resolved_game, reducer.view_for(state, seat)], sort_keys=True)
            tensor = encode(state, seat)[0].tobytes()
            repeats += view in by_view
            assert by_view.setdefault(view, tensor) == tensor
            assert by_tensor.setdefault(tensor, state.resolved_game) == state.resolved_game
            state = reducer.apply(state, rng.choice(reducer.legal_moves(state)))
    assert repeats > 50 and len(set(by_tensor.values())) == 4


def test_rotate_vecenv_plays_the_game_each_episode_seed_draws():
    n, seed = 6, 11
    env = coworld.VecEnv("rotate", n, seed=seed, opponents=[None, "tactician"], threads=1)
    assert env.games == ROTATION and env.num_actions == 425 and env.obs_shape == (11, 9, 9)
    assert [int((env.action_games == g).sum()) for g in range(4)] == [7, 160, 49, 209]
    env.reset()
    episodes = [0] * n
    seen = set()

    def drawn(i):
        k = episodes[i] * n + i
        state = coworld.game("rotate").init(seed=_core.episode_seed(seed, k))
        return ROTATION.index(state.resolved_game)

    for _ in range(150):
        for i in range(n):
            g = int(env.info["game"][i])
            assert g == drawn(i)
            seen.add(g)
            assert (env.obs[i, 7 + g] == 1).all()
            legal = np.flatnonzero(env.mask[i])
            assert (env.action_games[legal] == g).all()
            for a in legal:  # ids <-> move text in the env's live game
                assert env.action_id(env.action_name(a), env=i) == a
        _, _, rewards, term, _, _ = env.step(env.sample_legal())
        for i in np.flatnonzero(term):
            assert rewards[i].sum() == 0
            episodes[i] += 1
    assert seen == {0, 1, 2, 3}
    with pytest.raises(ValueError, match="env="):
        env.action_id("a1")
    assert env.action_names[167] == env.action_names[216] == "a1"  # hex's and quoridor's
    assert (env.action_games[167], env.action_games[216]) == (2, 3)


def test_rotate_refuses_another_games_action():
    env = coworld.VecEnv("rotate", 4, seed=2, threads=1)  # envs 0..3 draw their seeds' games
    env.reset()
    actions = env.sample_legal()
    games = env.info["game"]
    i = 0
    other = int(np.flatnonzero(env.action_games != games[i])[0])
    actions[i] = other
    with pytest.raises(coworld.IllegalMove, match="env 0"):
        env.step(actions)
