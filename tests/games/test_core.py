"""The Python face of the core: the public surface, errors, pickling, simulate."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

import coworld
from coworld import _core
from coworld.episode import Episode
from coworld.streams import aliases, draw_entropy


def test_games_lists_every_canonical_id():
    assert coworld.GAMES == (
        "phantom-ttt-3",
        "dark-hex-4",
        "dark-hex-5",
        "recon-hex-5",
        "connect-four",
        "breakthrough",
        "hex",
        "quoridor",
        "rotate",
        "hanabi",
    )


def test_apply_is_pure_and_returns_a_new_state():
    g = coworld.game("connect-four")
    s0 = g.init(seed=5)
    s1 = g.apply(s0, "d")
    assert s0.plies == 0 and s0.active_seat == 0
    assert s1.plies == 1 and s1.active_seat == 1
    assert s1.view()["stones"] == {"d1": 0}


def test_submitted_action_must_come_from_the_active_seat():
    g = coworld.game("connect-four")
    s = g.init(seed=5)
    assert g.apply(s, coworld.SubmittedAction(seat=0, action="c")).moves == ["c"]
    with pytest.raises(coworld.IllegalMove, match="it is not your turn"):
        g.apply(s, coworld.SubmittedAction(seat=1, action="c"))


def _a_position_with_hidden_state(game_id: str):
    """A few plies into `game_id` (fog: the seat to move has a stone its opponent has
    not found, so its legal set differs from the opponent's knowledge)."""
    g = coworld.game(game_id)
    s = g.init(seed=5)
    for _ in range(3):
        s = g.apply(s, s.legal_moves()[0])
    return g, s


@pytest.mark.parametrize("game_id", coworld.GAMES)
def test_a_refusal_to_the_wrong_seat_names_nothing_of_the_active_seat(game_id):
    """A refusal goes to the seat that submitted: it says "it is not your turn" and
    carries no legal set of another seat (in a hidden-information game that set is
    drawn from the active seat's private knowledge), in no attribute."""
    g, s = _a_position_with_hidden_state(game_id)
    active = s.active_seat
    legal = s.legal_moves()
    for other in range(s.num_seats):
        if other == active:
            continue
        with pytest.raises(coworld.IllegalMove) as refused:
            g.apply(s, coworld.SubmittedAction(seat=other, action=legal[0]))
        err = refused.value
        assert err.legal == [] and err.reason == "it is not your turn"
        assert "it is not your turn" in str(err)
        for text in (str(err), err.reason, err.move):
            assert not any(m in text.split() for m in legal[1:]), text
    # On its own turn, a refusal lists the seat's own legal set (from its own view).
    with pytest.raises(coworld.IllegalMove) as refused:
        g.apply(s, coworld.SubmittedAction(seat=active, action="no such move 99"))
    own = g.view_for(s, active)
    if "legalAttempts" in own:  # fog: the mover's cells, from its knowledge, never the truth
        assert refused.value.legal == own["legalAttempts"]
    else:
        assert refused.value.legal == legal


def test_illegal_move_names_the_legal_set_and_kind():
    g = coworld.game("connect-four")
    s = g.init(seed=5)
    for _ in range(6):
        s = g.apply(s, "a")
    with pytest.raises(coworld.IllegalMove) as err:
        g.apply(s, "a")
    assert err.value.kind == "illegal"
    assert err.value.legal == ["b", "c", "d", "e", "f", "g"]
    assert "file a is full" in str(err.value)
    with pytest.raises(coworld.IllegalMove) as err:
        g.apply(s, "castle kingside")
    assert err.value.kind == "unparseable"
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("bad", [None, 3, ["d"], b"d"])
def test_non_string_moves_are_refused_cleanly(bad):
    g = coworld.game("connect-four")
    with pytest.raises(coworld.IllegalMove):
        g.apply(g.init(seed=1), bad)


def test_config_errors_name_the_field():
    with pytest.raises(coworld.ConfigError) as err:
        coworld.game({"game": "connect-four", "rows": 9})
    assert err.value.field == "rows"
    with pytest.raises(coworld.ConfigError) as err:
        coworld.game("chess")
    assert err.value.field == "game" and "connect-four" in str(err.value)


def test_seed_zero_draws_and_records_a_seed():
    s = coworld.game("connect-four").init(seed=0)
    assert 1 <= s.seed <= 2**53 - 1
    assert s.config["seed"] == s.seed and s.config["first"] == 0


def test_states_pickle_by_replaying_their_moves():
    g = coworld.game("connect-four")
    s = g.apply(g.apply(g.init(seed=9), "d"), "e")
    t = pickle.loads(pickle.dumps(s))
    assert t.moves == ["d", "e"] and t.seed == 9 and t.view() == s.view()


def test_perfect_information_view_for_is_view():
    g = coworld.game("connect-four")
    s = g.apply(g.init(seed=2), "c")
    assert g.view_for(s, 0) == g.view_for(s, 1) == g.view(s)
    with pytest.raises(coworld.ConfigError):
        g.view_for(s, 2)


def test_simulate_returns_arrays_independent_of_threads():
    a = coworld.simulate("connect-four", ["tactician", "random"], 300, seed=4, threads=1)
    b = coworld.simulate("connect-four", ["tactician", "random"], 300, seed=4, threads=2)
    assert a.score.shape == (300, 2) and a.score.dtype == np.int32
    assert np.array_equal(a.score, b.score) and np.array_equal(a.plies, b.plies)
    assert np.array_equal(a.seeds, b.seeds)
    assert (a.score.sum(axis=1) == 0).all()
    assert set(a.ending_names()) <= {"line", "board-full", "ply-cap"}


def test_simulated_episode_replays_identically_in_python():
    """Episode i of a batch is the same game as a Python loop over baseline_move with its seed."""
    r = coworld.simulate("connect-four", ["tactician", "tactician"], 5, seed=8, threads=1)
    g = coworld.game("connect-four")
    for i in range(5):
        s = g.init(seed=int(r.seeds[i]))
        while not s.is_terminal:
            s = g.apply(s, g.baseline_move(s, "tactician"))
        assert s.plies == r.plies[i]
        assert s.results["score"] == list(r.score[i])


def test_simulate_rejects_unknown_policies_naming_the_choices():
    with pytest.raises(coworld.ConfigError, match="tactician"):
        coworld.simulate("connect-four", ["tactician", "claude"], 10, seed=1)


def test_aliases_come_from_the_episodes_entropy_not_its_seed():
    entropy = draw_entropy()
    a = aliases(entropy, 5)
    assert a == aliases(entropy, 5) and len(set(a)) == 5
    assert all(x.startswith("cog-") and len(x) == 8 for x in a)
    assert not hasattr(_core, "aliases")  # no alias is a function of an engine seed
    # Two episodes on one seed: different aliases (the chance of a clash is 2^-16).
    e1, e2 = Episode("hanabi", ["random"] * 4, seed=7), Episode("hanabi", ["random"] * 4, seed=7)
    assert e1.entropy != e2.entropy and e1.aliases != e2.aliases
    assert Episode("hanabi", ["random"] * 4, seed=8, entropy=e1.entropy).aliases == e1.aliases


def test_cli_help_explains_itself():
    out = subprocess.run(
        [sys.executable, "-m", "coworld.cli", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for word in ("simulate", "games", "demo", "connect-four"):
        assert word in out


def test_the_core_refuses_more_than_1024_threads():
    from coworld import _core

    with pytest.raises(coworld.ConfigError, match="at most 1024"):
        _core.simulate("hex", ["random", "random"], 4, 1, 5000, None, 0)


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ["play", "hex", "-s", "random", "-s", "random", "--seed", "9" * 20],
            "must be an integer in",
        ),
        (
            ["simulate", "hex", "-p", "random", "-p", "random", "--seed", "9" * 20],
            "must be an integer in",
        ),
        (
            ["simulate", "hex", "-p", "random", "-p", "random", "--threads", "-1"],
            "must be an integer in",
        ),
        (
            ["simulate", "hex", "-p", "random", "-p", "random", "--threads", "3000"],
            "must be an integer in",
        ),
        (["simulate", "hex", "-p", "random", "-p", "random", "-n", "0"], "must be"),
        (["simulate", "hex", "-p", "random", "-p", "random", "-n", str(2**64)], "must be"),
        (["play", "hex", "-s", "random", "-s", "random", "--budget", "nan"], "must be"),
        (["play", "hex", "-s", "random", "-s", "random", "--timeout", "inf"], "must be"),
        (["play", "hex", "-s", "random", "-s", "random", "--pace", "-1"], "must be"),
    ],
)
def test_out_of_range_numbers_are_one_line_usage_errors(args, says, capsys):
    from coworld.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err
    assert exit_.value.code == 3 and says in err and "Traceback" not in err


def test_batch_sizes_past_their_limits_are_config_errors():
    with pytest.raises(coworld.ConfigError, match="episodes"):
        coworld.simulate("hex", ["random", "random"], 2**63 - 1, seed=1, threads=1)
    with pytest.raises(coworld.ConfigError, match="`n`"):
        coworld.VecEnv("hex", 2**64, seed=1)


def test_league_clock_fields_must_be_finite(tmp_path):
    from coworld.league.config import load_league

    for field in ("play_budget_seconds = nan", "llm_timeout_seconds = inf"):
        (tmp_path / "l.toml").write_text(
            f'name = "l"\ngames = ["hex"]\npolicies = ["random", "tactician"]\n'
            f"episodes = 1\n[clock]\n{field}\n"
        )
        with pytest.raises(coworld.ConfigError, match="finite"):
            load_league(tmp_path / "l.toml")


def test_league_table_names_the_leagues_a_database_holds(tmp_path, capsys):
    from coworld.cli import main
    from tests.support.leagues import league_toml

    drawn = {"seed": None, "replays": None}  # the config's own defaults
    league_toml(tmp_path, drawn, name="l", games=["hex"], out=str(tmp_path / "out"))
    assert main(["league", "run", str(tmp_path / "l.toml")]) == 0
    capsys.readouterr()
    assert main(["league", "table", str(tmp_path / "out"), "--league", "nosuch"]) == 3
    assert "no league named 'nosuch'; it holds l" in capsys.readouterr().out
