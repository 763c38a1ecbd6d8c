"""The ecosystem adapters pass their ecosystems' own checkers (extra `rl`)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import coworld  # noqa: E402
import coworld.gymnasium  # noqa: E402
import coworld.pettingzoo  # noqa: E402
from coworld.games import family_module  # noqa: E402

# api_test imports PettingZoo's own connect_four_v3 (when pygame is there), whose
# module warns that its creation API is deprecated: not ours to fix.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, parallel_api_test, seed_test

GAMES = list(coworld.GAMES)
#: Every game id at its default seats, plus Hanabi at its fewest and most seats.
CASES = [(g, None) for g in GAMES] + [("hanabi", {"seats": 2}), ("hanabi", {"seats": 5})]


# api_test warns, by heuristics it waives for its own classic games by name, about
# dict observations (the `observation` + `action_mask` form the classic games use)
# and about all-zero tensors (seat 0's view of an empty board is genuinely zero).
@pytest.mark.filterwarnings("ignore:Observation numpy array is all zeros")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.parametrize(("game", "config"), CASES)
def test_pettingzoo_api_and_seed_tests_pass(game, config):
    api_test(coworld.pettingzoo.env(game, config), num_cycles=200)
    seed_test(lambda: coworld.pettingzoo.env(game, config), num_cycles=100)


#: Games where a collision keeps the mover's turn: the Parallel API is refused.
KEEPS_TURN = ("phantom-ttt-3", "dark-hex-4")


@pytest.mark.parametrize(("game", "config"), [c for c in CASES if c[0] not in KEEPS_TURN])
def test_pettingzoo_parallel_api_test_passes(game, config):
    parallel_api_test(coworld.pettingzoo.parallel_env(game, config), num_cycles=300)


@pytest.mark.parametrize("game", KEEPS_TURN)
def test_pettingzoo_parallel_refuses_games_where_a_collision_keeps_the_turn(game):
    """One observation per ply would tell the waiting seat how often the opponent
    collided (b2, b2, a1 gave it three observations, b2, a1 two): refused, in one
    line that names the AEC env instead."""
    with pytest.raises(coworld.ConfigError) as err:
        coworld.pettingzoo.parallel_env(game)
    assert err.value.field == "game" and "\n" not in str(err.value)
    assert f"coworld.pettingzoo.env('{game}')" in str(err.value)
    assert [
        g for g in GAMES if coworld.pettingzoo.mover_keeps_turn(coworld.game(g).init(seed=1))
    ] == list(KEEPS_TURN)


def aec_episode(env, seed, rng_seed=0):
    """Play random legal actions from `reset(seed=seed)`: (moves, engine seed, the
    first observation of every agent)."""
    env.reset(seed=seed)
    first = {a: env.observe(a)["observation"].copy() for a in env.possible_agents}
    rng = np.random.default_rng(rng_seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        del agent
    return env.state_.moves, env.state_.seed, first


def test_pettingzoo_seeds_replay_and_unseeded_resets_continue_the_sequence():
    env = coworld.pettingzoo.env("dark-hex-5")
    a = aec_episode(env, 11)
    b = aec_episode(env, 11)
    assert a[0] == b[0] and a[1] == b[1]
    assert all((a[2][k] == b[2][k]).all() for k in a[2])
    # reset(seed=s) plays episode_seed(s, 0); each later reset() the next index,
    # in a fresh env as in this one: VecEnv's numbering.
    env.reset(seed=11)
    after = [env.state_.seed]
    for _ in range(3):
        env.reset()
        after.append(env.state_.seed)
    assert after == [coworld._core.episode_seed(11, k) for k in range(4)]
    other = coworld.pettingzoo.env("dark-hex-5")
    other.reset(seed=11)
    again = [other.state_.seed] + [other.reset() or other.state_.seed for _ in range(3)]
    assert again == after
    # Unseeded from the start: drawn at random, not a fixed seed.
    drawn = set()
    for _ in range(3):
        fresh = coworld.pettingzoo.env("dark-hex-5")
        fresh.reset()
        drawn.add(fresh.state_.seed)
    assert len(drawn) == 3


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


@pytest.mark.parametrize(("game", "config"), CASES)
def test_gymnasium_check_env_passes(game, config):
    """Warnings are errors (pyproject): check_env has nothing to warn about either
    (made through the registry, so that it checks the render modes too)."""
    env = gymnasium.make(f"coworld/{game}-v0", config=config, render_mode="ansi")
    check_env(env.unwrapped)


def gym_episode(env, seed=None):
    """Random legal learner actions from a reset: every move of the episode (the
    opponent's included) and every observation."""
    obs, info = env.reset(seed=seed)
    seen = [obs.copy()]
    rng = np.random.default_rng(0)
    done = False
    while not done:
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        seen.append(obs.copy())
    return env.state.moves, np.stack(seen)


def test_gymnasium_seeds_replay_episodes_and_their_sequence():
    env = coworld.gymnasium.make("hex", opponent="tactician?eps=0.5")
    a, b = gym_episode(env, 7), gym_episode(env, 7)
    assert a[0] == b[0] and (a[1] == b[1]).all()
    # Unseeded resets after a seeded one continue a reproducible sequence...
    env.reset(seed=7)
    first = [gym_episode(env)[0] for _ in range(3)]
    env.reset(seed=7)
    assert [gym_episode(env)[0] for _ in range(3)] == first
    # ...of different episodes (the eps-greedy opponent makes them differ).
    assert len({tuple(m) for m in first}) == 3


def test_gymnasium_takes_parameterised_opponents_and_names_a_bad_key():
    for opponent in ("tactician?eps=0.3", "mcts?sims=20"):
        env = coworld.gymnasium.make("hex", opponent=opponent, seat=1)
        obs, info = env.reset(seed=2)
        assert env.state.plies == 1 and info["action_mask"].sum() == 48
    with pytest.raises(coworld.ConfigError, match="`foo`") as err:
        coworld.gymnasium.make("hex", opponent="tactician?foo=1")
    assert err.value.field == "foo"
    with pytest.raises(coworld.ConfigError, match="probe is not|'probe' is not a baseline of"):
        coworld.gymnasium.make("rotate", opponent="probe")
    # rotate: every member of the rotation must field the opponent, whichever the
    # probe state drew.
    env = coworld.gymnasium.make("rotate", opponent="mcts?sims=5")
    env.reset(seed=3)


def test_gymnasium_hanabi_opponent_plays_every_other_seat():
    env = coworld.gymnasium.make("hanabi", opponent="conventions", seat=2, config={"seats": 5})
    obs, info = env.reset(seed=4)
    assert env.state.plies == 2 and env.state.active_seat == 2
    _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert done or (env.state.plies == 7 and env.state.active_seat == 2)


def test_gymnasium_reset_skips_episodes_the_opponents_end_alone():
    """Random Hanabi opponents can burn three fuses before seat 4's first turn; such
    an episode has no decision of the learner's, and reset draws the next seed."""
    env = coworld.gymnasium.make("hanabi", opponent="random", seat=4, config={"seats": 5})
    reducer = coworld.game({"game": "hanabi", "seats": 5})
    skipped = 0
    for seed in range(400):
        first = int(np.random.default_rng(seed).integers(1, 2**53))  # reset's first draw
        state = reducer.init(seed=first)
        while not state.is_terminal and state.active_seat != 4:
            state = state.apply(state.baseline_move("random"))
        _, info = env.reset(seed=seed)
        assert not env.state.is_terminal and info["action_mask"].any()
        skipped += state.is_terminal
        assert (env.state.seed == first) != state.is_terminal
    assert skipped  # the case arose


def test_gymnasium_registers_every_game_with_its_wrappers():
    for game in GAMES:
        env = gymnasium.make(f"coworld/{game}-v0", render_mode="ansi")
        assert env.unwrapped.state is None and env.spec.kwargs["game"] == game
        assert "PassiveEnvChecker" in str(env) and "OrderEnforcing" in str(env)
        _, info = env.reset(seed=1)
        assert env.unwrapped.state.resolved_game in (game, *coworld.catalog()[game]["rotation"])
        assert isinstance(env.render(), str)
    env = gymnasium.make("coworld/connect-four-v0", opponent="tactician?eps=0.1", seat=1)
    assert env.unwrapped.opponent == "tactician?eps=0.1" and env.unwrapped.seat == 1
    with pytest.raises(gymnasium.error.ResetNeeded):  # OrderEnforcing applies
        gymnasium.make("coworld/hex-v0").step(0)


def test_gymnasium_render_is_the_learners_own_text():
    """The learner's render is the text a Claude seat reads (its view only): a fog
    board shows its proven opponent stones and never the others; at the end, the
    result as the seat learns it (no ply count in fog)."""
    env = coworld.gymnasium.make("dark-hex-5", opponent="random", render_mode="ansi")
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    hidden_seen = 0
    while True:
        state = env.unwrapped.state
        text = env.render()
        if state.is_terminal:
            assert text.startswith("over (") and "your score" in text and "plies" not in text
            break
        assert text == family_module("dark-hex-5").observation_text(
            state, 0, notes="", operator_prompt="", aliases=["player_0", "player_1"]
        )
        board = text.split("Your board", 1)[1].split("Your referee log", 1)[0]
        proven = len(env.unwrapped.reducer.view_for(state, 0)["provenStones"])
        theirs = sum(1 for s in state.view()["stones"].values() if s == 1)
        assert board.count(" O") == proven
        hidden_seen += theirs > proven
        _, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert hidden_seen > 0  # the opponent held stones the render did not show


def test_ansi_render_shows_the_spectator_position():
    aec = coworld.pettingzoo.env("hanabi", render_mode="ansi")
    aec.reset(seed=1)
    hands = aec.state_.view()["hands"]
    assert f"seat 3: {', '.join(c['card'] for c in hands[3])}" in aec.render()
    with pytest.raises(coworld.ConfigError, match="render_mode"):
        coworld.pettingzoo.env("hex", render_mode="human")


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


def test_pettingzoo_illegal_actions_raise_and_nothing_moves():
    env = coworld.pettingzoo.env("connect-four")
    env.reset(seed=1)
    assert env.unwrapped is env and env.max_num_agents == env.num_agents == 2
    mask = env.observe(env.agent_selection)["action_mask"]
    mask[:] = 0  # a caller's copy: editing it changes nothing
    for bad in (7, -1, "d"):
        with pytest.raises(coworld.IllegalMove):
            env.step(bad)
        assert env.state_.plies == 0
    env.step(np.int64(3))
    assert env.state_.moves == ["d"]


def test_pettingzoo_parallel_steps_one_ply_and_reads_only_the_mover():
    env = coworld.pettingzoo.parallel_env("connect-four")
    obs, infos = env.reset(seed=5)
    assert set(obs) == set(infos) == {"player_0", "player_1"}
    assert obs["player_0"]["action_mask"].all() and not obs["player_1"]["action_mask"].any()
    obs, rewards, terms, truncs, _ = env.step({"player_0": 2, "player_1": 6})
    assert env.state_.moves == ["c"] and obs["player_1"]["action_mask"].all()
    assert obs["player_1"]["observation"][1, 0, 2] == 1.0  # seat 1 sees seat 0's disc
    with pytest.raises(coworld.IllegalMove, match="player_1 is to move"):
        env.step({"player_0": 0})
    rng = np.random.default_rng(0)
    while env.agents:
        mover = next(a for a in env.agents if obs[a]["action_mask"].any())
        action = int(rng.choice(np.flatnonzero(obs[mover]["action_mask"])))
        obs, rewards, terms, truncs, _ = env.step({mover: action})
    assert all(terms.values()) and not any(truncs.values())
    assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert rewards == {
        a: float(env.state_.results["score"][i]) for i, a in enumerate(env.possible_agents)
    }


NOT_IDS = [2.5, np.float32(3.0), 3.0, True, np.bool_(True), "a1", None, np.array([2])]


@pytest.mark.parametrize("action", NOT_IDS, ids=repr)
def test_adapters_refuse_actions_that_are_not_integer_ids(action):
    """A float, bool, string or None is never truncated to some id: IllegalMove,
    and nothing moves (Gymnasium too, whichever its illegal mode)."""
    aec = coworld.pettingzoo.env("hex")
    aec.reset(seed=4)
    with pytest.raises(coworld.IllegalMove, match="integer id"):
        aec.step(action)
    assert aec.state_.plies == 0
    par = coworld.pettingzoo.parallel_env("hex")
    par.reset(seed=4)
    with pytest.raises(coworld.IllegalMove, match="integer id"):
        par.step({"player_0": action, "player_1": 0})
    assert par.state_.plies == 0
    for mode in ("fallback", "raise"):
        env = coworld.gymnasium.make("hex", opponent="random", illegal=mode)
        env.reset(seed=4)
        with pytest.raises(coworld.IllegalMove, match="integer id"):
            env.step(action)
        assert env.state.plies == 0


@pytest.mark.parametrize("action", [np.int64(3), np.uint8(3), np.array(3), 3], ids=repr)
def test_adapters_take_any_integer_id(action):
    aec = coworld.pettingzoo.env("hex")
    aec.reset(seed=4)
    aec.step(action)
    env = coworld.gymnasium.make("hex", opponent="random")
    env.reset(seed=4)
    _, _, _, _, info = env.step(action)
    assert aec.state_.moves[0] == env.state.moves[0] == "d1" and not info["illegal"]
