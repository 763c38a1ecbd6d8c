"""coworld.VecEnv: action spaces, masks, observation tensors (leak checks on the
tensors themselves), determinism across thread counts, automatic reset."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import defaultdict

import numpy as np
import pytest

import coworld
from coworld import _core
from coworld.games import of_family
from coworld.vecenv import action_names, encode
from tests.support.leaks import HAND, quiet_actions, shuffled_deck, variants

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
    one = run(game, 1)
    for other in (run(game, 2), run(game, None)):  # None: every core
        for a, b in zip(one, other, strict=True):
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


def legal_set(env, i):
    """Env `i`'s legal ids as a refusal lists them: `id (move text)`, from its mask."""
    return [f"{a} ({env.action_names[a]})" for a in np.flatnonzero(env.mask[i])]


def test_illegal_actions_are_refused_naming_the_env():
    env = coworld.VecEnv("hex", 3, seed=1, threads=1)
    env.reset()
    env.step([0, 1, 2])
    with pytest.raises(coworld.IllegalMove, match="env 0: action 0 \\(a1\\) is not legal"):
        env.step([0, 5, 6])


@pytest.mark.parametrize("game", ["hex", "recon-hex-5", "hanabi", "rotate"])
def test_an_illegal_id_names_the_envs_legal_ids(game):
    """Out of range, illegal here, or (rotate) another game's: the refusal lists
    the env's legal ids with their move text (the live game's only), the valid
    id range, and no env moves."""
    env = coworld.VecEnv(game, 4, seed=3, threads=1)
    env.reset()
    for _ in range(2):
        env.step(env.sample_legal())
    top = env.num_actions - 1
    live = env.info["game"][3]
    mine = env.action_games == live
    illegal = np.flatnonzero(~env.mask[3] & mine)
    others = np.flatnonzero(~mine)
    for bad in [env.num_actions, -1, 10**6, *illegal[:1], *others[:1]]:
        actions = env.sample_legal()
        actions[3] = bad
        before = env.obs.copy()
        with pytest.raises(coworld.IllegalMove) as e:
            env.step(actions)
        message = str(e.value)
        assert "game is over" not in message and f"env 3: action {bad} " in message
        assert e.value.move == str(bad)
        assert e.value.legal == legal_set(env, 3) and e.value.legal
        assert message.endswith("legal moves: " + ", ".join(e.value.legal))
        np.testing.assert_array_equal(env.obs, before)
        if not 0 <= bad <= top:
            assert f"(ids are 0..{top})" in message
    assert others.size == 0 or f"is a {env.games[env.action_games[others[0]]]} id" in message


BAD_ACTIONS = {
    "floats": np.array([0.5, 1, 2, 3]),
    "integral floats": np.array([0.0, 1.0, 2.0, 3.0]),
    "float list": [0.0, 1, 2, 3],
    "2-D": np.zeros((4, 1), dtype=np.int64),
    "2-D list": [[0], [1], [2], [3]],
    "bools": np.array([True, False, True, False]),
    "bool list": [True, False, True, False],
    "short": [0, 1, 2],
    "long": np.arange(5),
    "scalar": 3,
    "empty": [],
    "strings": ["a1", "b1", "c1", "d1"],
    "None": None,
    "objects": [0, 1, None, 3],
    "ragged": [0, [1, 2], 3, 4],
    "huge": [2**70, 0, 0, 0],
}


@pytest.mark.parametrize("kind", BAD_ACTIONS)
def test_actions_must_be_one_integer_id_per_env(kind):
    env = coworld.VecEnv("hex", 4, seed=1, threads=1)
    env.reset()
    before = env.obs.copy()
    with pytest.raises(
        coworld.ConfigError, match=r"one integer action id per env: shape \(4,\)"
    ) as e:
        env.step(BAD_ACTIONS[kind])
    assert e.value.field == "actions"
    np.testing.assert_array_equal(env.obs, before)


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("form", [*INT_DTYPES, list, tuple])
def test_actions_of_any_integer_dtype_or_a_list_of_ints_step_alike(form):
    ref, env = (coworld.VecEnv("hex", 4, seed=1, threads=1) for _ in range(2))
    ref.reset()
    env.reset()
    for _ in range(5):
        actions = ref.sample_legal()
        ref.step(actions)
        given = form(actions.tolist()) if form in (list, tuple) else actions.astype(form)
        env.step(given)
        np.testing.assert_array_equal(env.obs, ref.obs)
        np.testing.assert_array_equal(env.mask, ref.mask)


def test_the_envs_own_seat_array_is_a_valid_actions_argument():
    """`info["seat"]` is int64 of shape (n,) and the core rewrites it during the
    step: passing it (or a view of it) as actions steps, it does not crash."""
    env = coworld.VecEnv("hex", 4, seed=1, threads=1)
    env.reset()
    assert (env.info["seat"] == 0).all()  # id 0 (a1) is legal everywhere
    env.step(env.info["seat"])
    assert (env.obs[:, 1, 0, 0] == 1).all()  # seat 1 to move sees a1 as the opponent's
    env.step(env.info["seat"][:])  # id 1 (b1)
    assert (env.obs[:, 1, 0, 1] == 1).all() and (env.info["seat"] == 0).all()


CONSTRUCTOR_ERRORS = [
    ({"n": -1}, "n", "integer in 1..16777216, not -1"),
    ({"n": 0}, "n", "integer in 1..16777216, not 0"),
    ({"n": 1.5}, "n", "must be an integer, not 1.5"),
    ({"n": "4"}, "n", "must be an integer, not '4'"),
    ({"n": True}, "n", "must be an integer, not True"),
    ({"n": 2**24 + 1}, "n", "integer in 1..16777216, not 16777217"),
    ({"threads": 0}, "threads", "integer in 1..1024, not 0"),
    ({"threads": -2}, "threads", "integer in 1..1024, not -2"),
    ({"threads": 1.0}, "threads", "must be an integer, not 1.0"),
    ({"seed": 2**63}, "seed", f"in {-(2**63)}..{2**63 - 1}, not {2**63}"),
    ({"seed": -(2**63) - 1}, "seed", f"not {-(2**63) - 1}"),
    ({"seed": None}, "seed", "must be an integer, not None"),
    ({"seed": 1.5}, "seed", "must be an integer, not 1.5"),
    ({"game": 3}, "game", "a game id (a string), not 3"),
    ({"opponents": "tactician"}, "opponents", "a list with one entry per seat"),
    ({"opponents": [None, 3]}, "opponents", "opponents[1] must be None or a baseline name"),
    ({"opponents": [None, "nobody"]}, "opponents", 'opponents[1] = "nobody" (hex)'),
    ({"opponents": [None, "mcts?foo=20"]}, "foo", 'opponents[1] = "mcts?foo=20" (hex)'),
    ({"opponents": [None, "tactician?eps=2"]}, "eps", 'opponents[1] = "tactician?eps=2"'),
    ({"opponents": [None, "mcts?sims=lots"]}, "sims", 'opponents[1] = "mcts?sims=lots"'),
    ({"config": [1]}, "config", "a mapping of settings, not [1]"),
    ({"config": {"x": object()}}, "config", "JSON-serialisable"),
    ({"config": {"size": 9}}, "size", "not a setting of this game"),
]


@pytest.mark.parametrize(("change", "field", "says"), CONSTRUCTOR_ERRORS)
def test_constructor_arguments_are_config_errors_naming_the_field(change, field, says):
    args = {"game": "hex", "n": 2, "seed": 1, "threads": 1} | change
    with pytest.raises(coworld.ConfigError, match=f"`{field}`") as e:
        coworld.VecEnv(**args)
    assert e.value.field == field
    assert says in str(e.value)


def test_any_64_bit_seed_is_deterministic():
    """Negative seeds (and the extremes) are kept, not refused: each is its own
    deterministic batch. 0 draws a base seed, kept in `seed`, which replays it."""
    traces = {}
    for seed in (-5, 5, -(2**63), 2**63 - 1, 0):
        env = coworld.VecEnv("hex", 8, seed=seed, threads=1)
        assert env.seed == seed or (seed == 0 and 1 <= env.seed < 2**53)
        env.reset()
        again = coworld.VecEnv("hex", 8, seed=env.seed, threads=2)
        again.reset()
        trace = []
        for _ in range(30):
            actions = env.sample_legal()
            np.testing.assert_array_equal(actions, again.sample_legal())
            env.step(actions)
            again.step(actions)
            np.testing.assert_array_equal(env.obs, again.obs)
            trace.append(env.obs.tobytes())
        traces[seed] = trace
    assert len({tuple(t) for t in traces.values()}) == len(traces)


def test_ids_names_and_endings_refuse_out_of_range_values():
    env = coworld.VecEnv("hex", 4, seed=1, threads=1)
    env.reset()
    assert env.action_name(48) == "g7" and env.action_name(np.int16(7)) == "a2"
    for bad in (1000, 49, -1, -49):
        with pytest.raises(IndexError, match="hex has ids 0..48"):
            env.action_name(bad)
    with pytest.raises(IndexError, match="integer"):
        env.action_name(1.0)
    with pytest.raises(KeyError, match="'z9' is not a move of hex; env.action_names") as e:
        env.action_id("z9")
    assert isinstance(e.value, ValueError) and isinstance(e.value, coworld.CoworldError)
    assert str(e.value).startswith("'z9' is not")  # not KeyError's quoted repr
    for env_index in (4, -1):
        with pytest.raises(IndexError, match="envs 0..3"):
            env.action_id("a1", env=env_index)
    assert env.action_id("a1", env=3) == 0
    assert env.ending_name(0) == coworld.ENDINGS[0]
    for code in (-1, len(coworld.ENDINGS)):
        with pytest.raises(IndexError, match=f"codes are 0..{len(coworld.ENDINGS) - 1}"):
            env.ending_name(code)


def test_rotate_action_id_needs_a_live_game():
    env = coworld.VecEnv("rotate", 4, seed=2, threads=1)
    with pytest.raises(coworld.ConfigError, match="call reset"):
        env.action_id("a1", env=0)
    env.reset()
    game = env.games[env.info["game"][1]]
    with pytest.raises(KeyError, match=f"not a move of {game} \\(env 1's live game\\)"):
        env.action_id("z9", env=1)


def test_bad_opponents_are_config_errors():
    with pytest.raises(coworld.ConfigError, match="tactician"):
        coworld.VecEnv("rotate", 4, seed=1, opponents=[None, "probe"])
    with pytest.raises(coworld.ConfigError, match="one entry per seat"):
        coworld.VecEnv("hanabi", 4, seed=1, opponents=[None] + ["conventions"] * 5)


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_hanabi_opponents_set_the_seat_count_unless_config_does(seats):
    opponents = [None] + ["tracker"] * (seats - 1)
    env = coworld.VecEnv("hanabi", 3, seed=2, opponents=opponents, threads=1)
    same = coworld.VecEnv("hanabi", 3, seed=2, opponents=opponents, config={"seats": seats})
    state = coworld.game("hanabi").init({"seats": seats}, seed=1)
    assert env.num_seats == seats and env.num_actions == 10 + 10 * seats
    assert env.obs_shape == encode(state, 0)[0].shape
    env.reset()
    same.reset()
    for _ in range(20):
        actions = env.sample_legal()
        env.step(actions)
        same.step(actions)
        np.testing.assert_array_equal(env.obs, same.obs)
    other = 3 if seats != 3 else 4
    with pytest.raises(coworld.ConfigError, match=f"config=\\{{'seats': {seats}\\}}"):
        coworld.VecEnv("hanabi", 3, seed=2, opponents=opponents, config={"seats": other})


def test_hanabi_opponents_outside_two_to_five_name_the_seats_setting():
    with pytest.raises(coworld.ConfigError, match="hanabi takes 2 to 5 seats") as e:
        coworld.VecEnv("hanabi", 2, seed=1, opponents=[None] + ["tracker"] * 5)
    assert e.value.field == "opponents" and "config={'seats'" in str(e.value)


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
    for opponent in ("tactician?eps=0.3", "mcts?sims=20", "mcts?sims=20&eps=0.1"):
        env = coworld.VecEnv("hex", 4, seed=1, opponents=[None, opponent], threads=1)
        env.reset()
        for _ in range(3):
            env.step(env.sample_legal())
        assert (env.info["seat"] == 0).all()
    with pytest.raises(coworld.ConfigError, match="depth") as e:
        coworld.VecEnv("hex", 4, seed=1, opponents=[None, "tactician?depth=3"])
    assert e.value.field == "depth" and "tactician?depth=3" in str(e.value)


def test_stepping_before_reset_is_refused():
    env = coworld.VecEnv("hex", 2, seed=1)
    with pytest.raises(coworld.ConfigError, match="call reset"):
        env.sample_legal()
    with pytest.raises(coworld.ConfigError, match="call reset") as e:
        env.step([0, 0])
    assert e.value.field == "reset"


def test_buffers_are_rewritten_in_place_and_samples_are_new_arrays():
    env = coworld.VecEnv("breakthrough", 5, seed=1, threads=1)
    obs, mask = env.reset()
    first = obs.copy()
    samples = [env.sample_legal() for _ in range(2)]
    assert samples[0] is not samples[1]
    for a in samples:
        assert a.dtype == np.int64 and a.shape == (5,) and env.mask[np.arange(5), a].all()
    out = env.step(samples[0])
    assert out[0] is obs and out[1] is mask and out[5] is env.info
    assert out[2] is env.rewards and out[3] is env.terminated and out[4] is env.truncated
    assert not np.array_equal(obs, first)  # the same array, rewritten


def test_step_releases_the_gil():
    """While one thread is inside a long step, another Python thread keeps
    running: its timestamps cover most of the step, not just its first switch
    interval (as they would if the step held the GIL)."""
    env = coworld.VecEnv("hex", 16, seed=1, opponents=[None, "mcts?sims=10000"], threads=1)
    env.reset()
    actions = env.sample_legal()
    window: list[float] = []
    ready = threading.Event()

    def step():
        ready.wait()
        window.append(time.perf_counter())
        env.step(actions)
        window.append(time.perf_counter())

    worker = threading.Thread(target=step)
    worker.start()
    stamps = []
    ready.set()
    while worker.is_alive():
        stamps.append(time.perf_counter())
    worker.join()
    start, end = window
    inside = [t for t in stamps if start < t < end]
    assert end - start > 0.05, "the step must be long enough to tell"
    assert inside and inside[-1] - inside[0] > 0.5 * (end - start)


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


def test_encode_refuses_a_seat_that_does_not_exist():
    state = coworld.game("hex").init(seed=1)
    assert encode(state, np.int64(1))[0].shape == (3, 7, 7)
    for seat, says in [(-1, "integer >= 0, not -1"), (2, "hex has seats 0..1"), (None, "None")]:
        with pytest.raises(coworld.ConfigError, match=says) as e:
            encode(state, seat)
        assert e.value.field == "seat"


def test_a_huge_unsigned_id_is_reported_out_of_range_not_negative():
    env = coworld.VecEnv("hex", 2, seed=1, threads=1)
    env.reset()
    with pytest.raises(coworld.IllegalMove, match="env 0: action 9223372036854775807 is not"):
        env.step(np.array([2**64 - 1, 0], dtype=np.uint64))


@pytest.mark.parametrize(("game", "public"), [("dark-hex-4", False), ("hex", True)])
def test_finished_episodes_report_only_a_ply_count_the_learner_may_know(game, public):
    """A fog seat is never told the ply count (it counts the opponent's collisions,
    results_for leaves it out): the batch reports the learner's own decisions.
    Where the count is public it is the episode's length. Each episode is rebuilt
    through the reducer, the opponent from its per-decision stream."""
    n, seed = 8, 2
    env = coworld.VecEnv(game, n, seed=seed, opponents=[None, "random"], threads=1)
    env.reset()
    reducer = coworld.game(game)
    started = [0] * n

    def fresh(i: int):
        state = reducer.init(seed=_core.episode_seed(seed, started[i] * n + i))
        while not state.is_terminal and state.active_seat == 1:
            state = reducer.apply(state, state.baseline_move("random"))
        return state

    states, mine = [fresh(i) for i in range(n)], [0] * n
    finished = 0
    while finished < 40:
        actions = env.sample_legal()
        _, _, _, terminated, _, info = env.step(actions)
        for i in range(n):
            states[i] = reducer.apply(states[i], env.action_names[actions[i]])
            mine[i] += 1
            while not states[i].is_terminal and states[i].active_seat == 1:
                states[i] = reducer.apply(states[i], states[i].baseline_move("random"))
            if terminated[i]:
                assert states[i].is_terminal
                want = states[i].plies if public else mine[i]
                assert info["plies"][i].tolist() == [want, states[i].plies if public else 0]
                assert states[i].plies > mine[i]  # the opponent moved too
                finished += 1
                started[i] += 1
                states[i], mine[i] = fresh(i), 0


@pytest.mark.parametrize("game", ["phantom-ttt-3", "dark-hex-4", "dark-hex-5", "recon-hex-5"])
def test_self_play_reports_each_seat_only_its_own_decisions(game):
    """With both seats learners, a finished fog episode reports per seat that seat's
    own decisions, never the global ply count (which counts the other seat's
    collisions): rebuilt move by move through the reducer."""
    n = 6
    env = coworld.VecEnv(game, n, seed=3, threads=1)
    env.reset()
    reducer = coworld.game(game)
    started = [1] * n
    states = [reducer.init(seed=_core.episode_seed(3, i)) for i in range(n)]
    own = [[0, 0] for _ in range(n)]
    finished = 0
    while finished < 24:
        actions = env.sample_legal()
        movers = env.info["seat"].copy()
        _, _, _, terminated, _, info = env.step(actions)
        for i in range(n):
            own[i][int(movers[i])] += 1
            states[i] = reducer.apply(states[i], env.action_names[actions[i]])
            if terminated[i]:
                assert states[i].is_terminal
                assert info["plies"][i].tolist() == own[i]
                assert max(own[i]) < states[i].plies  # the global count, never reported
                finished += 1
                states[i] = reducer.init(seed=_core.episode_seed(3, started[i] * n + i))
                started[i] += 1
                own[i] = [0, 0]
            else:
                assert info["plies"][i].tolist() == [0, 0]


def cell(name: str) -> tuple[int, int]:
    """(rank - 1, file) of a cell name such as `c5`."""
    return int(name[1:]) - 1, ord(name[0]) - ord("a")


def documented_planes(state, seat: int) -> np.ndarray:
    """The observation docs/vecenv.md describes, built from the game's views in
    Python (a reference independent of the Rust writer)."""
    v = state.view()
    files, ranks = v["files"], v["ranks"]
    if state.resolved_game == "quoridor":
        out = np.zeros((7, 9, 9), np.float32)
        for p, who in ((0, seat), (1, 1 - seat)):
            out[(p, *cell(v["pawns"][who]))] = 1.0
        for w in v["walls"]:
            out[(2 if w["wall"][-1] == "h" else 3, *cell(w["wall"][:-1]))] = 1.0
        out[4], out[5] = v["wallsLeft"][seat] / 10, v["wallsLeft"][1 - seat] / 10
        out[6] = seat
        return out
    if "ownStones" in (mine := state.view_for(seat)):  # fog: the seat's knowledge
        out = np.zeros((4, ranks, files), np.float32)
        for p, key in ((0, "ownStones"), (1, "provenStones")):
            for c in mine[key]:
                out[(p, *cell(c))] = 1.0
        out[3] = seat
        return out
    out = np.zeros((3, ranks, files), np.float32)
    for c, who in (v["stones"] if "stones" in v else v["pieces"]).items():
        out[(0 if who == seat else 1, *cell(c))] = 1.0
    out[2] = seat
    return out


@pytest.mark.parametrize(
    "game", ["connect-four", "hex", "breakthrough", "quoridor", "phantom-ttt-3", "dark-hex-5"]
)
def test_observations_are_the_documented_planes(game):
    """Random playthroughs: every ply, both seats' tensors equal the docs' planes
    rebuilt from the views (recon's sensed-empty plane is checked elsewhere)."""
    reducer, checked = coworld.game(game), 0
    for episode in range(20):
        rng, state = random.Random(episode), reducer.init(seed=episode + 1)
        while not state.is_terminal:
            for seat in (0, 1):
                want = documented_planes(state, seat)
                assert np.array_equal(encode(state, seat)[0], want), (game, state.moves, seat)
                checked += 1
            state = reducer.apply(state, rng.choice(reducer.legal_moves(state)))
    assert checked > 200


def test_a_three_seat_hanabi_episode_is_rebuilt_by_coworld_play_from_episode_seed(tmp_path):
    """docs/vecenv.md: env i's k-th episode is played on episode_seed(seed, k * n + i),
    and `coworld play --seed` (one -s per seat) rebuilds it. The learner (seat 0)
    plays what `conventions` would, read from a shadow state of the same engine seed,
    so the whole episode is conventions / cautious / tracker."""
    from coworld.cli import main as cli

    assert coworld.episode_seed is coworld.vecenv.episode_seed
    assert coworld.episode_seed(9, 3) == _core.episode_seed(9, 3)
    with pytest.raises(coworld.ConfigError) as e:
        coworld.episode_seed(9, -1)
    assert e.value.field == "index"
    n, seed, seats = 2, 9, ["conventions", "cautious", "tracker"]
    env = coworld.VecEnv("hanabi", n, seed=seed, opponents=[None, *seats[1:]], threads=1)
    assert env.num_seats == 3
    episodes = [0] * n

    def shadow(i):
        """The engine state of env i's current episode, moved on to seat 0's turn."""
        engine = coworld.episode_seed(seed, episodes[i] * n + i)
        return engine, coworld.game({"game": "hanabi", "seats": 3}).init(seed=engine)

    def to_learner(state):
        while not state.is_terminal and state.active_seat != 0:
            state = state.apply(state.baseline_move(seats[state.active_seat]))
        return state

    shadows = [shadow(i) for i in range(n)]
    shadows = [(s, to_learner(st)) for s, st in shadows]
    finished: list[tuple[int, list[float]]] = []
    env.reset()
    while len(finished) < 3:
        moves = [st.baseline_move(seats[0]) for _, st in shadows]
        _, _, rewards, term, _, _ = env.step(
            np.array([env.action_id(m, env=i) for i, m in enumerate(moves)])
        )
        for i in range(n):
            engine, st = shadows[i]
            st = to_learner(st.apply(moves[i]))
            assert bool(term[i]) == st.is_terminal
            if term[i]:
                finished.append((engine, rewards[i].tolist()))
                episodes[i] += 1
                engine, st = shadow(i)
                st = to_learner(st)
            shadows[i] = (engine, st)
    for engine, score in finished:
        out = tmp_path / f"{engine}.jsonl"
        argv = ["play", "hanabi", *[a for s in seats for a in ("-s", s)], "--seed", str(engine)]
        assert cli([*argv, "--out", str(out)]) == 0
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert lines[0]["config"]["seats"] == 3 and lines[0]["config"]["seed"] == engine
        assert lines[-1]["type"] == "results"
        assert lines[-1]["results"]["score"] == score
        assert cli(["recheck", str(out)]) == 0


@pytest.mark.parametrize("threads", [0, -1, 5000, 2**40])
def test_thread_counts_outside_1_to_1024_are_refused(threads):
    """Each pool is kept for reuse: thousands of threads took seconds to start."""
    with pytest.raises(coworld.ConfigError, match="threads") as err:
        coworld.VecEnv("hex", 2, seed=1, threads=threads)
    assert err.value.field == "threads"
    with pytest.raises(coworld.ConfigError, match="threads"):
        coworld.simulate("hex", ["random", "random"], 4, seed=1, threads=threads)
