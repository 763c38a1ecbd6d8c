"""The ecosystem adapters pass their ecosystems' own checkers (extra `rl`)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import coworld  # noqa: E402
import coworld.gymnasium  # noqa: E402
import coworld.pettingzoo  # noqa: E402

# api_test imports PettingZoo's own connect_four_v3 (when pygame is there), whose
# module warns that its creation API is deprecated: not ours to fix.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test

GAMES = list(coworld.GAMES)


# api_test warns, by heuristics it waives for its own classic games by name, about
# dict observations (the `observation` + `action_mask` form the classic games use)
# and about all-zero tensors (seat 0's view of an empty board is genuinely zero).
@pytest.mark.filterwarnings("ignore:Observation numpy array is all zeros")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test_passes(game):
    api_test(coworld.pettingzoo.env(game), num_cycles=200)


def test_pettingzoo_episode_scores_and_masks():
    env = coworld.pettingzoo.env("connect-four")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            other = env.observe(env.possible_agents[1 - env.possible_agents.index(agent)])
            assert not other["action_mask"].any()  # only the seat to move has actions
        env.step(action)
    assert sorted(total.values()) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("game", ["hex", "dark-hex-5", "hanabi", "quoridor", "rotate"])
def test_gymnasium_check_env_passes(game):
    check_env(coworld.gymnasium.make(game), skip_render_check=True)


def test_gymnasium_learner_against_tactician():
    env = coworld.gymnasium.make("connect-four", opponent="tactician", seat=1)
    obs, info = env.reset(seed=5)
    assert obs.shape == (3, 6, 7) and (obs[2] == 1.0).all()  # the seat plane says seat 1
    assert obs[1].sum() == 1  # tactician (seat 0) has moved once
    rng = np.random.default_rng(1)
    done, reward = False, 0.0
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, done, truncated, info = env.step(action)
        assert not info["illegal"] and not truncated
    assert reward in (-1.0, 0.0, 1.0)


def position_with_a_full_file(env, seed):
    """Play the lowest legal file until some file is full; return its id, or None."""
    _, info = env.reset(seed=seed)
    while info["action_mask"].all():
        _, _, done, _, info = env.step(int(np.argmax(info["action_mask"])))
        if done:
            return None
    return int(np.argmin(info["action_mask"]))


def test_gymnasium_illegal_action_plays_the_fallback_or_raises():
    for illegal in ("fallback", "raise"):
        env = coworld.gymnasium.make("connect-four", opponent="random", illegal=illegal)
        full = next(
            f for seed in range(20) if (f := position_with_a_full_file(env, seed)) is not None
        )
        plies = env.state.plies
        if illegal == "raise":
            with pytest.raises(coworld.IllegalMove):
                env.step(full)
            assert env.state.plies == plies
        else:
            _, _, _, _, info = env.step(full)
            assert info["illegal"] and env.state.plies > plies


def test_adapters_serve_rotate_in_its_padded_space():
    """Each reset's seed draws the game; another game's id is illegal even where its
    text is a legal move here (hex's `a1` vs quoridor's `a1`)."""
    aec = coworld.pettingzoo.env("rotate")
    assert aec.action_space("player_0").n == 425
    games = set()
    for seed in range(8):
        aec.reset(seed=seed)
        games.add(aec.state_.resolved_game)
        obs = aec.observe(aec.agent_selection)
        assert obs["observation"].shape == (11, 9, 9)
        if aec.state_.resolved_game == "hex":
            assert obs["action_mask"][167] and not obs["action_mask"][216]
            with pytest.raises(coworld.IllegalMove, match="action 216"):
                aec.step(216)
            aec.step(167)
            assert aec.state_.moves == ["a1"]
    assert games == {"connect-four", "breakthrough", "hex", "quoridor"}
    gym_env = coworld.gymnasium.make("rotate", illegal="raise")
    played = set()
    for seed in range(12):
        obs, info = gym_env.reset(seed=seed)
        played.add(gym_env.state.resolved_game)
        g = int(np.flatnonzero(obs[7:, 0, 0])[0])
        assert coworld.catalog()["rotate"]["rotation"][g] == gym_env.state.resolved_game
        legal = np.flatnonzero(info["action_mask"])
        wrong = int(np.flatnonzero(~np.isin(np.arange(425), legal))[0])
        with pytest.raises(coworld.IllegalMove):
            gym_env.step(wrong)
        gym_env.step(int(legal[0]))
    assert len(played) > 1


def test_adapters_refuse_unknown_opponents():
    with pytest.raises(coworld.ConfigError, match="baselines: probe"):
        coworld.gymnasium.make("dark-hex-5", opponent="tactician")
