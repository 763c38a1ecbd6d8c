"""Leagues: schedules, ranking maths, resume after a kill, budget stops, bad league
files, the regression gate, and the Ray backend."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import coworld
from coworld.cli import main as cli
from coworld.league import LeagueDB, LeagueRun, load_league
from coworld.league.ranking import Standing, compare, standings, summarize, t_quantile
from coworld.league.records import EpisodeKey, EpisodeRow
from coworld.league.schedule import build_schedule
from coworld.league.scripted import missing_ranges
from tests.support.leagues import TERSE, league_toml, make_league

#: This module's leagues: 40 episodes a pairing, stored under `out`.
LEAGUE = {"episodes": 40, "seed": 3, "out": "out"}


# ---- schedules --------------------------------------------------------------


def test_round_robin_seats_each_policy_in_both_slots_with_the_same_seeds(tmp_path):
    sched = build_schedule(make_league(tmp_path, LEAGUE, policies=["tactician", "random"]))
    assert [p.seats for p in sched] == [("tactician", "random"), ("random", "tactician")]
    a, b = sched
    assert [a.seed(i) for i in range(20)] == [b.seed(i) for i in range(20)]
    assert a.seed(0) == coworld._core.episode_seed(a.base_seed, 0)


def test_every_ordered_pair_of_three_policies(tmp_path):
    sched = build_schedule(
        make_league(tmp_path, LEAGUE, games=["dark-hex-4"], policies=["probe", "sweep", "random"])
    )
    assert len(sched) == 6 and len({p.seats for p in sched}) == 6
    assert all(p.seats[0] != p.seats[1] for p in sched)


def test_hanabi_has_self_play_and_mixed_tables(tmp_path):
    sched = build_schedule(
        make_league(tmp_path, LEAGUE, games=["hanabi"], policies=["conventions", "cautious"])
    )
    seats = [p.seats for p in sched]
    assert ("conventions",) * 4 in seats and ("cautious",) * 4 in seats
    assert ("conventions", "cautious", "conventions", "cautious") in seats
    assert ("cautious", "conventions", "cautious", "conventions") in seats


def test_baselines_are_fielded_only_where_the_game_has_them(tmp_path):
    sched = build_schedule(
        make_league(
            tmp_path,
            LEAGUE,
            games=["connect-four", "dark-hex-4"],
            policies=["tactician", "probe", "random"],
        )
    )
    assert {p.seats for p in sched if p.game == "connect-four"} == {
        ("tactician", "random"),
        ("random", "tactician"),
    }
    assert {p.seats for p in sched if p.game == "dark-hex-4"} == {
        ("probe", "random"),
        ("random", "probe"),
    }


def test_missing_ranges_chunks_the_gaps():
    assert list(missing_ranges({0, 1, 5}, 12, 4)) == [(2, 3), (6, 4), (10, 2)]
    assert list(missing_ranges(set(range(5)), 5, 4)) == []


# ---- ranking maths ----------------------------------------------------------


def test_t_quantiles_match_tables():
    # Standard two-sided 95% critical values (Student's t tables).
    for dof, table in [
        (1, 12.7062),
        (2, 4.3027),
        (3, 3.1824),
        (5, 2.5706),
        (10, 2.2281),
        (30, 2.0423),
        (1000, 1.9623),
    ]:
        assert t_quantile(0.975, dof) == pytest.approx(table, abs=5e-3)


def test_summary_against_hand_computed_values():
    s = summarize([1, -1, 0, 1])
    # mean 1/4; squared deviations 9/16 + 25/16 + 1/16 + 9/16 = 44/16, /3 -> sd = sqrt(11/12)
    assert s.mean == 0.25
    assert s.sd == pytest.approx(math.sqrt(11 / 12))
    assert s.se == pytest.approx(math.sqrt(11 / 12) / 2)
    # mean +/- t * se would be [-1.27, +1.77], past both ends of -1..1; the interval is
    # Wilson's on p = (mean + 1) / 2 with n = p(1 - p) / (se / 2)^2 and the same t
    q, p = t_quantile(0.975, 3), 0.625
    n = p * (1 - p) / (math.sqrt(11 / 12) / 4) ** 2
    centre = (p + q * q / (2 * n)) / (1 + q * q / n)
    half = q / (1 + q * q / n) * math.sqrt(p * (1 - p) / n + q * q / (4 * n * n))
    assert (s.lo, s.hi) == (
        pytest.approx(2 * max(centre - half, 0) - 1),
        pytest.approx(2 * min(centre + half, 1) - 1),
    )
    assert -1 <= s.lo < s.mean < s.hi <= 1


def row(game, seats, score, idx=0):
    return EpisodeRow(
        EpisodeKey("/".join(seats), idx, game, idx + 1, tuple(seats)),
        played=game,
        score=tuple(score),
        reason="complete",
        ending="line",
        plies=9,
    )


def test_standings_per_game_overall_and_hanabi_samples():
    rows = [
        row("hex", ["a", "b"], [1, -1], 0),
        row("hex", ["b", "a"], [1, -1], 1),
        row("hex", ["a", "b"], [1, -1], 2),
        # a Hanabi table counts once per episode for each policy at it
        row("hanabi", ["a", "a", "b", "b"], [20, 20, 20, 20], 0),
        row("hanabi", ["a", "a", "b", "b"], [10, 10, 10, 10], 1),
    ]
    table = {(s.policy, s.game): s for s in standings(rows)}
    assert table[("a", "hex")].n == 3 and table[("a", "hex")].mean == pytest.approx(1 / 3)
    assert table[("b", "hex")].mean == pytest.approx(-1 / 3)
    assert table[("a", "hanabi")].n == 2 and table[("a", "hanabi")].mean == 15
    # overall: equal-weight mean of per-game means, Hanabi scaled by 1/25
    assert table[("a", "overall")].mean == pytest.approx((1 / 3 + 15 / 25) / 2)


def test_compare_flags_only_significant_drops():
    def st(policy, mean, se):
        return Standing(policy, "hex", 400, mean, mean - 2 * se, mean + 2 * se, se * 20, se)

    base = [st("a", 0.5, 0.03), st("b", 0.0, 0.03), st("c", 0.2, 0.03)]
    cur = [st("a", 0.3, 0.03), st("b", -0.05, 0.03), st("c", 0.4, 0.03)]
    verdict = {d.policy: d.worse for d in compare(base, cur)}
    # a: -0.2 / sqrt(2)*0.03 = z -4.7 -> worse; b: z -1.18 -> not; c: better
    assert verdict == {"a": True, "b": False, "c": False}


def test_compare_cli_exit_codes(tmp_path):
    def doc(mean):
        return {
            "league": "x",
            "standings": [
                {
                    "policy": "p",
                    "game": "hex",
                    "n": 500,
                    "mean": mean,
                    "lo": mean - 0.05,
                    "hi": mean + 0.05,
                    "sd": 0.6,
                    "se": 0.025,
                }
            ],
        }

    (tmp_path / "base.json").write_text(json.dumps(doc(0.4)))
    (tmp_path / "same.json").write_text(json.dumps(doc(0.38)))
    (tmp_path / "worse.json").write_text(json.dumps(doc(0.2)))
    assert cli(["league", "compare", str(tmp_path / "base.json"), str(tmp_path / "same.json")]) == 0
    assert (
        cli(["league", "compare", str(tmp_path / "base.json"), str(tmp_path / "worse.json")]) == 1
    )


# ---- running, storage, resume -----------------------------------------------


def test_a_league_runs_stores_and_exports(tmp_path):
    report = LeagueRun(make_league(tmp_path, LEAGUE, episodes=300), progress=False).run()
    assert report.episodes == 600 and report.played_now == 600
    for kind in ("csv", "json", "png"):
        assert report.exports[kind].stat().st_size > 0
    table = {(s.policy, s.game): s for s in standings(LeagueDB(report.database).episodes("t"))}
    assert table[("tactician", "connect-four")].lo > 0 > table[("random", "connect-four")].hi
    # a rerun finds everything done
    again = LeagueRun(make_league(tmp_path, LEAGUE, episodes=300), progress=False).run()
    assert again.played_now == 0 and again.episodes == 600


def test_league_rows_match_the_batch_simulator(tmp_path):
    LeagueRun(make_league(tmp_path, LEAGUE, episodes=50), progress=False).run()
    rows = [
        r
        for r in LeagueDB(tmp_path / "out" / "league.db").episodes("t")
        if r.seats == ("tactician", "random")
    ]
    base = build_schedule(make_league(tmp_path, LEAGUE))[0].base_seed
    sim = coworld.simulate("connect-four", ["tactician", "random"], 50, seed=base)
    assert [r.score[0] for r in sorted(rows, key=lambda r: r.idx)] == list(sim.score[:, 0])


def test_resume_after_a_crash_loses_nothing_and_duplicates_nothing(tmp_path, monkeypatch):
    import coworld.league.work as work

    real, calls = work.run_chunk, {"n": 0}

    def crashing(job):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt  # the user hits ^C mid-league
        return real(job)

    monkeypatch.setattr(work, "run_chunk", crashing)
    config = make_league(tmp_path, LEAGUE, episodes=500)
    with pytest.raises(KeyboardInterrupt):
        LeagueRun(config, progress=False, chunk=100).run()
    db = LeagueDB(config.database)
    assert len(db.episodes("t")) == 300  # three whole chunks, nothing half-written
    monkeypatch.setattr(work, "run_chunk", real)
    report = LeagueRun(config, progress=False, chunk=100).run()
    assert report.played_now == 700 and report.episodes == 1000
    clean = LeagueRun(make_league(tmp_path / "clean", LEAGUE, episodes=500), progress=False).run()
    assert standings(db.episodes("t")) == standings(LeagueDB(clean.database).episodes("t"))


def test_kill_minus_nine_mid_league_then_resume(tmp_path):
    league_toml(tmp_path, name="k", episodes=200000, seed=9, threads=1, out="out")
    env = {**os.environ, "COWORLD_LEAGUE_CHUNK": "500"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "league", "run", "l.toml"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db_path = tmp_path / "out" / "league.db"
    deadline = time.monotonic() + 60
    count = 0
    while time.monotonic() < deadline and count < 2000:
        time.sleep(0.05)
        if db_path.exists():
            try:
                count = (
                    sqlite3.connect(db_path)
                    .execute("SELECT COALESCE(SUM(count), 0) FROM batches")
                    .fetchone()[0]
                )
            except sqlite3.OperationalError:
                count = 0
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    db = LeagueDB(db_path)
    stored = db.count("k")
    assert 0 < stored < 400000 and stored % 500 == 0  # whole chunks only
    assert len(db.episodes("k")) == stored
    config = load_league(tmp_path / "l.toml")
    report = LeagueRun(config, progress=False).run()
    assert report.episodes == 400000
    assert report.played_now == 400000 - stored


def test_rerunning_with_a_changed_prompt_is_refused(tmp_path):
    (tmp_path / "p.md").write_text("---\nname: house\n---\nPlay fast.\n")
    config = make_league(tmp_path, LEAGUE, policies=["tactician", "p.md"], episodes=1)
    LeagueRun(config, progress=False).run()
    (tmp_path / "p.md").write_text("---\nname: house\n---\nPlay slow.\n")
    with pytest.raises(coworld.ConfigError, match="changed since"):
        LeagueRun(
            make_league(tmp_path, LEAGUE, policies=["tactician", "p.md"], episodes=1),
            progress=False,
        ).run()


# ---- bad league files -------------------------------------------------------


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"games": ["chess"]}, "games"),
        ({"policies": ["tactician", "grandmaster"]}, "policies"),
        ({"policies": ["tactician", "missing.md"]}, "policies"),
        ({"episodes": 0}, "episodes"),
        ({"episodes": "many"}, "episodes"),
        ({"concurrency": -1}, "concurrency"),
        ({"budget": {"max_cost_usd": "lots"}}, "budget.max_cost_usd"),
        ({"budget": {"max_dollars": 3}}, "budget.max_dollars"),
        ({"hanabi": {"seats": 6}}, "hanabi.seats"),
        ({"games": {"hanabi": {"seats": 6}}}, "games.hanabi.seats"),
        ({"games": {"hanabi": {"players": 3}}}, "games.hanabi.players"),
        ({"games": {"hex": {"seats": 3}}}, "games.hex.seats"),
        ({"games": {"hex": 3}}, "games"),
        ({"games": {"hanabi": {"seats": 3}}, "hanabi": {"seats": 3}}, "hanabi"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_league_files_name_the_field(tmp_path, fields, field):
    with pytest.raises(coworld.ConfigError) as err:
        config = make_league(tmp_path, LEAGUE, **fields)
        build_schedule(config)
    assert err.value.field == field


def test_per_game_settings_tables_and_the_deprecated_hanabi_table(tmp_path, capsys):
    (tmp_path / "new.toml").write_text(
        'name = "n"\npolicies = ["random"]\nepisodes = 2\nout = "o"\n'
        "[games.hex]\n[games.hanabi]\nseats = 3\n"
    )
    new = load_league(tmp_path / "new.toml")
    assert new.games == ("hex", "hanabi") and new.notices == ()
    assert new.settings_for("hanabi") == {"seats": 3} and new.settings_for("hex") is None
    assert {p.seats for p in build_schedule(new) if p.game == "hanabi"} == {("random",) * 3}
    (tmp_path / "old.toml").write_text(
        'name = "o"\ngames = ["hanabi"]\npolicies = ["random"]\nepisodes = 2\nout = "o"\n'
        "[hanabi]\nseats = 5\n"
    )
    old = load_league(tmp_path / "old.toml")
    assert old.settings_for("hanabi") == {"seats": 5}
    assert len(old.notices) == 1 and "[games.hanabi]" in old.notices[0]
    assert cli(["league", "run", str(tmp_path / "old.toml")]) == 0
    assert "[hanabi] table is deprecated" in capsys.readouterr().out
    # a league without a Hanabi table plays the default table size
    assert make_league(tmp_path, LEAGUE, games=["hanabi"]).settings_for("hanabi") == {"seats": 4}


def test_missing_league_file_and_bad_toml(tmp_path):
    with pytest.raises(coworld.ConfigError, match="does not exist"):
        load_league(tmp_path / "nope.toml")
    (tmp_path / "bad.toml").write_text("name = \n")
    with pytest.raises(coworld.ConfigError, match="not valid TOML"):
        load_league(tmp_path / "bad.toml")


# ---- the Ray backend ---------------------------------------------------------


# the cluster and its Messages API server: tests/conftest.py (ray_cluster, ray_api)


def test_ray_backend_gives_the_local_standings(tmp_path, ray_cluster):
    games = ["connect-four", "rotate"]
    local = LeagueRun(
        make_league(tmp_path / "local", LEAGUE, games=games, episodes=300),
        progress=False,
        chunk=100,
    ).run()
    remote = LeagueRun(
        make_league(tmp_path / "ray", LEAGUE, games=games, episodes=300),
        backend="ray",
        progress=False,
        chunk=100,
    ).run()
    assert remote.episodes == local.episodes == 1200
    a = LeagueDB(local.database).episodes("t")
    b = LeagueDB(remote.database).episodes("t")

    def strip(rows):
        return sorted((r.pairing, r.idx, r.seed, r.score, r.ending, r.plies) for r in rows)

    assert strip(a) == strip(b)
    assert standings(a) == standings(b)


def test_ray_episodes_write_each_calls_usage_as_it_returns(tmp_path, ray_cluster, ray_api, ray_env):
    (tmp_path / "p.md").write_text("---\nname: house\nmodel: claude-haiku-4-5\n---\nWin.\n")
    before = len(ray_api.requests)
    config = make_league(
        tmp_path, LEAGUE, policies=["tactician", "p.md"], episodes=2, concurrency=2
    )
    report = LeagueRun(config, backend="ray", progress=False).run()
    assert report.episodes == 4
    db = LeagueDB(report.database)
    rows = db.conn.execute(
        "SELECT calls FROM calls WHERE league='t' AND pairing != 'preflight'"
    ).fetchall()
    # one row per answered call, written by the Ray worker as the call returned (a
    # killed task's calls are in the database too), not one per finished episode
    scored = db.usage("t", voided=False)
    assert len(rows) == scored.calls > 4 and all(r[0] == 1 for r in rows)
    assert len(ray_api.requests) - before == db.spent("t").calls == scored.calls + 1  # + ping


def test_ray_episodes_reserve_each_call_against_one_budget(tmp_path, ray_cluster, ray_api, ray_env):
    (tmp_path / "p.md").write_text(
        "---\nname: house\nmodel: claude-haiku-4-5\nmax_tokens: 200\n---\nWin.\n"
    )
    config = make_league(
        tmp_path,
        LEAGUE,
        policies=["tactician", "p.md"],
        episodes=6,
        concurrency=2,
        budget={"max_tokens": 6000},  # the whole league spends over 8,000
    )
    report = LeagueRun(config, backend="ray", progress=False).run()
    db = LeagueDB(report.database)
    spent = db.spent("t")
    # the tasks reserved every call in the database: the spend never passed the cap
    assert report.budget_stopped and report.missing > 0
    assert 0 < spent.tokens <= 6000
    assert db.conn.execute("SELECT COUNT(*) FROM reservations").fetchone()[0] == 0


# ---- claims and budgets -------------------------------------------------------


def test_conventions_beats_cautious_in_a_real_hanabi_league(tmp_path):
    report = LeagueRun(
        make_league(
            tmp_path, LEAGUE, games=["hanabi"], policies=["conventions", "cautious"], episodes=300
        ),
        progress=False,
    ).run()
    table = {
        s.policy: s
        for s in standings(LeagueDB(report.database).episodes("t"))
        if s.game == "hanabi"
    }
    assert table["conventions"].lo > table["cautious"].hi, table


def test_a_budget_stops_the_league_cleanly_and_a_bigger_one_resumes(tmp_path, api, capsys):
    from coworld.league.runner import LeagueRun as Run

    cap = 6_000
    config = make_league(
        tmp_path,
        LEAGUE,
        house=TERSE,
        policies=["tactician", "p.md"],
        episodes=4,
        concurrency=2,
        budget={"max_tokens": cap},
    )
    report = Run(config, progress=False).run()
    assert report.budget_stopped
    db = LeagueDB(report.database)
    spent = db.spent("t")
    # every call reserved its worst case first: the cap is never crossed
    assert 0 < spent.tokens <= cap and spent.calls == len(api.requests)
    assert 0 < report.episodes < 8  # stopped early, nothing half-written
    scored = db.usage("t", voided=False)
    assert scored.tokens <= spent.tokens  # the rest: episodes cut short by the budget
    bigger = make_league(
        tmp_path,
        LEAGUE,
        policies=["tactician", "p.md"],
        episodes=4,
        concurrency=2,
        budget={"max_tokens": 10_000_000},
    )
    again = Run(bigger, console=None, progress=False).run()
    assert not again.budget_stopped and again.episodes == 8
    assert f"{spent.tokens:,} spent" in capsys.readouterr().out
    assert LeagueDB(report.database).spent("t").calls == len(api.requests)
    rel = json.loads(again.exports["json"].read_text())["reliability"]
    assert rel["house"]["tokens"] > 0
