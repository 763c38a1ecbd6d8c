"""Adaptive schedules: where the episodes go, determinism, kill -9 and resume, the
episode budget, a Claude policy (local Messages API server), bad league files."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coworld.errors import ConfigError
from coworld.league import LeagueDB, LeagueRun, load_league
from coworld.league.ranking import standings
from tests.support.leagues import HOUSE, THREE_WAY, league_toml, make_league

# probe and sweep split every seed pair of phantom-ttt-3 1-1 (a Bradley-Terry tie that
# no amount of head-to-head settles); random is far below both
TIE = {
    "name": "a",
    "games": ["phantom-ttt-3"],
    "policies": ["probe", "sweep", "random"],
    "episodes": 10,
    "schedule": "adaptive",
    "confidence": 0.95,
    "threads": 1,
    "out": "out",
}


def done(path: Path) -> dict[str, int]:
    db = LeagueDB.open_existing(path / "out" / "league.db")
    try:
        return {
            p.key: len(db.done("a", p.key))
            for p in LeagueRun(load_league(path / "a.toml")).schedule
        }
    finally:
        db.close()


def test_episodes_go_where_the_order_is_in_doubt(tmp_path):
    report = LeagueRun(load_league(league_toml(tmp_path, TIE, file="a.toml")), progress=False).run()
    n = done(tmp_path)
    # random's pairings were settled by the first round; the doubtful neighbours grew
    # until the cap (64 x the first round) since their tie never resolves
    assert n["phantom-ttt-3|probe/random"] == n["phantom-ttt-3|random/sweep"] == 10
    assert n["phantom-ttt-3|probe/sweep"] == n["phantom-ttt-3|sweep/probe"] == 640
    assert report.episodes == sum(n.values())


def test_adaptive_is_deterministic_given_the_seed(tmp_path):
    a = LeagueRun(
        load_league(league_toml(tmp_path / "a", TIE, file="a.toml")), progress=False
    ).run()
    b = LeagueRun(
        load_league(league_toml(tmp_path / "b", TIE, file="a.toml")), progress=False
    ).run()
    assert a.episodes == b.episodes
    assert done(tmp_path / "a") == done(tmp_path / "b")
    sa = standings(LeagueDB(a.database).blocks("a"))
    sb = standings(LeagueDB(b.database).blocks("a"))
    assert sa == sb


def test_kill_minus_nine_then_resume_gives_the_clean_league(tmp_path):
    path = league_toml(tmp_path / "killed", TIE, file="a.toml")
    env = {**os.environ, "COWORLD_LEAGUE_CHUNK": "5"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "league", "run", "a.toml"],
        cwd=path.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db_path = path.parent / "out" / "league.db"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # kill once a few rounds are in (poll tightly:
        time.sleep(0.01)  # the whole league takes well under a second on a quiet machine)
        if db_path.exists():
            with_db = LeagueDB(db_path)
            try:
                if with_db.count("a") >= 200:
                    break
            finally:
                with_db.close()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = LeagueDB(db_path).count("a")
    assert 200 <= partial < 1320  # killed mid-league
    resumed = LeagueRun(load_league(path), progress=False).run()
    clean = LeagueRun(
        load_league(league_toml(tmp_path / "clean", TIE, file="a.toml")), progress=False
    ).run()
    assert resumed.played_now == clean.episodes - partial
    assert done(path.parent) == done(tmp_path / "clean")
    assert standings(LeagueDB(resumed.database).blocks("a")) == standings(
        LeagueDB(clean.database).blocks("a")
    )


def test_the_episode_budget_stops_it(tmp_path):
    path = league_toml(tmp_path, TIE, file="a.toml", budget={"max_episodes": 200})
    report = LeagueRun(load_league(path), progress=False).run()
    assert 120 <= report.episodes <= 200  # the first round (120) and growth up to the cap
    assert done(tmp_path)["phantom-ttt-3|probe/sweep"] > 10


def test_a_claude_policy_in_an_adaptive_league(tmp_path, mock_api):
    def model(body, n):  # the first legal file: stacks file a
        legal = re.search(r"[Ll]egal moves?:?\s*\n?(.*)", body["messages"][-1]["content"])
        move = re.findall(r"\b[a-g]\b", legal.group(1))[0] if legal else "a"
        return ("text", json.dumps({"move": move}))

    path = league_toml(
        tmp_path,
        THREE_WAY,
        house=HOUSE,
        name="a",
        seed=5,
        schedule="adaptive",
        out="out",
        concurrency=2,
        budget={"max_episodes": 60},
    )
    mock = mock_api(model)
    report = LeagueRun(load_league(path), progress=False).run()
    assert len(mock.requests) > 0
    db = LeagueDB(report.database)
    rows = db.runner_rows("a")
    assert rows and all("house" in r.seats for r in rows)
    assert 12 <= report.episodes <= 60
    ratings = json.loads(report.exports["json"].read_text())["ratings"]
    assert {r["policy"] for r in ratings} == {"tactician", "random", "house"}


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"schedule": "swiss"}, "schedule"),
        ({"confidence": 1.5}, "confidence"),
        ({"confidence": "high"}, "confidence"),
        ({"budget": {"max_episodes": 0}}, "budget.max_episodes"),
    ],
)
def test_bad_adaptive_fields_name_the_field(tmp_path, fields, field):
    with pytest.raises(ConfigError) as err:
        make_league(tmp_path, name="x", games=["hex"], **fields)
    assert err.value.field == field


def test_hanabi_grows_the_doubtful_policies_tables():
    import numpy as np

    from coworld.league.adaptive import plan_round
    from coworld.league.records import Block

    rng = np.random.default_rng(3)
    idx = np.arange(6)

    def table(seats, mean):  # a shared score per episode, copied to every seat
        score = np.clip(np.round(rng.normal(mean, 3, 6)), 0, 25)
        return Block("hanabi", seats, np.repeat(score[:, None], len(seats), axis=1), index=idx)

    a, b, c = ("a",) * 4, ("b",) * 4, ("c",) * 4
    blocks = [
        table(a, 15.0),
        table(b, 14.5),  # a and b: close, in doubt after 6 seeds
        table(c, 1.0),  # c: far below
        table(("a", "b", "a", "b"), 14.8),
        table(("b", "a", "b", "a"), 14.8),
        table(("a", "c", "a", "c"), 8.0),
        table(("c", "a", "c", "a"), 8.0),
        table(("b", "c", "b", "c"), 7.8),
        table(("c", "b", "c", "b"), 7.8),
    ]
    targets = {("hanabi", k): 6 for k in ("a", "b", "c", "a/b", "a/c", "b/c")}
    orders = {k: (1 if "/" not in k[1] else 2) for k in targets}
    conf, grown, chosen = plan_round(
        blocks, targets, orders, seed=1, number=1, confidence=0.95, first=6
    )
    assert conf["hanabi"] < 0.95
    assert set(chosen) == {("hanabi", "a/b"), ("hanabi", "a"), ("hanabi", "b")}
    assert all(grown[k] == 12 for k in chosen) and grown[("hanabi", "c")] == 6
