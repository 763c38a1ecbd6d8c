"""Parameterised baselines: `tactician?eps=0.3`, `mcts?sims=100`: parsing, errors
naming the key, the eps dial's strength, and batch == runner for every form."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

import coworld
from coworld import _core
from coworld.episode import Episode
from coworld.replay import recheck
from tests.support.leagues import make_league


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("tactician?eps=2", "eps"),
        ("tactician?eps=abc", "eps"),
        ("tactician?depth=3", "depth"),
        ("tactician?sims=100", "sims"),
        ("mcts?sims=0", "sims"),
        ("mcts?sims=100&sims=200", "sims"),
        ("tactician?eps", "policy"),
    ],
)
def test_bad_parameters_are_config_errors_naming_the_key(name, field):
    with pytest.raises(coworld.ConfigError) as err:
        coworld.simulate("connect-four", [name, "random"], 1, seed=1)
    assert err.value.field == field, err.value
    with pytest.raises(coworld.ConfigError) as err:
        Episode("connect-four", [name, "random"], seed=1)
    assert err.value.field == field, err.value


def test_every_baseline_takes_eps_and_the_search_ones_take_sims():
    for game in coworld.GAMES:
        for base in _core.State(game, None, 1).policy_names:
            keys = _core.baseline_param_keys(game, base)
            assert keys[0] == "eps"
            assert ("sims" in keys) == (base in ("mcts", "ismcts")), (game, base, keys)
    with pytest.raises(coworld.ConfigError, match="tactician"):
        _core.baseline_param_keys("hex", "minimax")


def test_eps_grades_strength_monotonically():
    means = [
        coworld.simulate(
            "connect-four", [f"tactician?eps={e}", "tactician"], 600, seed=3
        ).mean_score()[0]
        + coworld.simulate(
            "connect-four", ["tactician", f"tactician?eps={e}"], 600, seed=3
        ).mean_score()[1]
        for e in (0.0, 0.3, 1.0)
    ]
    assert means[0] > means[1] > means[2], means
    # The eps side's summed score over both seat orders (-2..2). eps=1 is uniform
    # random play, which loses to the tactician in most games from either seat.
    assert means[2] < -1.4, means


def test_eps_zero_plays_exactly_the_baseline():
    a = coworld.simulate("hex", ["tactician?eps=0", "random"], 50, seed=4)
    b = coworld.simulate("hex", ["tactician", "random"], 50, seed=4)
    assert np.array_equal(a.score, b.score) and np.array_equal(a.plies, b.plies)


@pytest.mark.parametrize(
    ("game", "policies"),
    [
        ("connect-four", ["tactician?eps=0.3", "mcts?sims=50&eps=0.1"]),
        ("dark-hex-4", ["probe?eps=0.2", "sweep?eps=0.5"]),
        ("recon-hex-5", ["sweep?eps=0.3", "random?eps=0.9"]),
        ("hanabi", ["conventions?eps=0.2", "cautious", "conventions", "random?eps=0"]),
    ],
)
def test_batch_episodes_replay_through_the_runner_and_recheck(game, policies, tmp_path):
    sim = coworld.simulate(game, policies, 3, seed=17, threads=1)
    for i in range(3):
        out = tmp_path / f"{i}.jsonl"
        episode = Episode(game, policies, seed=int(sim.seeds[i]), out=out)
        results = asyncio.run(episode.run())
        assert results["score"] == sim.score[i].tolist()
        assert results["plies"] == int(sim.plies[i])
        assert recheck(out) == results


def test_a_league_fields_parameterised_names_as_their_own_policies(tmp_path):
    from coworld.league.schedule import build_schedule

    config = make_league(
        tmp_path,
        episodes=40,
        seed=3,
        policies=["tactician", "tactician?eps=0.5", "probe?eps=0.1"],
        games=["connect-four", "dark-hex-4"],
    )
    seats = {(p.game, p.seats) for p in build_schedule(config)}
    assert ("connect-four", ("tactician", "tactician?eps=0.5")) in seats
    assert ("dark-hex-4", ("probe?eps=0.1", "probe?eps=0.1")) in seats
    with pytest.raises(coworld.ConfigError) as err:
        build_schedule(make_league(tmp_path, policies=["tactician?eps=7", "random"]))
    assert err.value.field == "eps"
