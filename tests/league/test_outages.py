"""Claude leagues measure the model, not the network: outages, rate limits, patience
running out, model-side retries and refusals, at small scale against the local Messages
API server; the reliability table, the plan's estimate and the budget's stops."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest

from coworld.cli import main as cli
from coworld.league import LeagueDB, LeagueRun
from coworld.league.ranking import reliability
from tests.support.leagues import (
    FAST,
    HEAD_TO_HEAD,
    HOUSE,
    TERSE,
    THREE_WAY,
    claude_results,
    clean_run,
    league_toml,
    make_league,
)
from tests.support.mock_anthropic import first_legal, outage


def test_an_outage_pauses_the_league_and_changes_no_score(tmp_path, api):
    clean_rows, clean_table, _ = clean_run(tmp_path)
    calls_clean = len(api.requests)
    began: list[float] = []

    def down_for_a_while(body, n):  # 529 for 1.5 s, from the 10th call of the league
        if n >= calls_clean + 10 and not began:
            began.append(time.monotonic())
        return outage(first_legal, began[0], 1.5)(body, n) if began else first_legal(body, n)

    api.script = down_for_a_while
    report = LeagueRun(
        make_league(tmp_path, THREE_WAY, house=HOUSE), infra=FAST, progress=False
    ).run()
    rows, table, rel = claude_results(report.database)
    assert rows == clean_rows and table == clean_table  # no scored fallback, nothing changed
    assert rel["house"]["fallbacks"] == 0 and not report.voided
    assert report.pauses and report.pauses[0].cause == "http-529"
    assert report.pauses[-1].until is not None  # resumed
    during = len(api.requests) - 2 * calls_clean
    # paused: the breaker let a handful fail, then only probes (one per interval)
    assert 0 < during < 6 + 4 * 1.5 / FAST.probe_seconds


def test_thirty_percent_rate_limits_change_no_score(tmp_path, api):
    clean_rows, clean_table, _ = clean_run(tmp_path)
    api.script = lambda body, n: ("status", 429) if n * 7 % 10 < 3 else first_legal(body, n)
    report = LeagueRun(
        make_league(tmp_path, THREE_WAY, house=HOUSE), infra=FAST, progress=False
    ).run()
    rows, table, rel = claude_results(report.database)
    assert rows == clean_rows and table == clean_table
    assert rel["house"]["retries"] == 0 and rel["house"]["fallbacks"] == 0
    assert not any(
        "could not be used" in json.dumps(b["messages"]) for b in api.requests
    )  # the model never hears of a 429


def test_patience_out_voids_requeues_then_redo_infra_completes(tmp_path, api, capsys):
    clean_rows, clean_table, _ = clean_run(tmp_path)
    api.script = lambda body, n: ("status", 529)
    league_toml(tmp_path, THREE_WAY, infra_patience=0.3, void_retries=1)
    assert cli(["league", "run", str(tmp_path / "l.toml")]) == 4  # stopped by infrastructure
    out = capsys.readouterr().out
    assert "the league stopped: the API was unavailable (http-529)" in out
    db = LeagueDB(tmp_path / "t" / "league.db")
    voids = db.voids("t")
    assert voids and {v.cause for v in voids} == {"http-529"}
    assert f"{len({(v.pairing, v.idx) for v in voids})} episodes are void" in out
    per_episode = {}
    for v in voids:
        per_episode[(v.pairing, v.idx)] = per_episode.get((v.pairing, v.idx), 0) + 1
    assert max(per_episode.values()) <= 2  # played, re-queued at most once (void_retries)
    assert db.runner_rows("t") == []  # nothing scored, no fallback
    capsys.readouterr()
    cli(["league", "compare", str(tmp_path / "clean"), str(tmp_path / "t")])
    n_void = len({(v.pairing, v.idx) for v in voids})
    assert f"current: {n_void} void episodes are not scored" in capsys.readouterr().out
    # the API is back: a plain rerun plays what was never played, then --redo infra the rest
    api.script = first_legal
    cli(["league", "run", str(tmp_path / "l.toml")])
    assert cli(["league", "run", str(tmp_path / "l.toml"), "--redo", "infra"]) == 0
    rows, table, _ = claude_results(tmp_path / "t" / "league.db")
    assert rows == clean_rows and table == clean_table


def test_model_side_retries_are_recorded_by_cause(tmp_path, api):
    def sloppy(body, n):
        if len(body["messages"]) == 1 and n % 2 == 0:
            return ("text", "I think the centre is best.")  # unparseable, then retried
        return first_legal(body, n)

    api.script = sloppy
    report = LeagueRun(
        make_league(tmp_path, THREE_WAY, house=HOUSE), infra=FAST, progress=False
    ).run()
    _, _, rel = claude_results(report.database)
    house = rel["house"]
    assert house["retry_rate:unparseable"] > 0 and house["retry_rate:illegal"] == 0
    assert house["retries"] == round(house["retry_rate:unparseable"] * house["decisions"])
    retried = [b for b in api.requests if len(b["messages"]) == 3]
    assert retried and all("could not be used" in b["messages"][2]["content"] for b in retried)


def test_an_unknown_model_is_a_config_error_before_the_league_starts(tmp_path, api, capsys):
    api.script = lambda body, n: ("status", 404)
    path = league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE)
    assert cli(["league", "run", str(path)]) == 3
    out = capsys.readouterr().out
    assert "p.md: model 'claude-haiku-4-5' cannot be used" in out and "404" in out
    assert len(api.requests) == 1  # the pre-flight call, not a league of fallbacks


def test_a_refusal_mid_league_stops_dispatching_without_retries(tmp_path, api):
    api.script = lambda body, n: ("status", 401) if n > 0 else first_legal(body, n)
    report = LeagueRun(
        make_league(tmp_path, THREE_WAY, house=HOUSE),
        infra=replace(FAST, patience_seconds=5),
        progress=False,
    ).run()
    assert report.voided == {"http-401": 4} and report.stopped.startswith("the API refused")
    assert len(api.requests) == 5  # pre-flight, then the episodes in flight, one call each


def test_a_budget_stop_prints_partial_standings_and_both_spends(tmp_path, api, capsys):
    budget = {"max_tokens": 6000}
    path = league_toml(tmp_path, HEAD_TO_HEAD, house=TERSE, episodes=4, budget=budget)
    assert cli(["league", "run", str(path)]) == 5  # stopped by the budget
    out = capsys.readouterr().out
    assert "partial standings" in out and "pairings incomplete" in out
    assert "after raising [budget] to continue" in " ".join(out.split())  # not eaten as markup
    db = LeagueDB(tmp_path / "t" / "league.db")
    spent, scored = db.spent("t"), db.usage("t", voided=False)
    assert spent.tokens <= 6000 and len(api.requests) == spent.calls
    assert f"spent {spent.tokens:,} tokens" in out and f"scored episodes {scored.tokens:,}" in out


def test_league_plan_estimates_calls_tokens_and_cost_before_a_run(tmp_path, capsys):
    from coworld import simulate
    from coworld.league.plan import PILOT, plan
    from coworld.league.schedule import build_schedule

    config = make_league(tmp_path, THREE_WAY, house=HOUSE, policies=["random", "p.md"])
    rows = {r.pairing: r for r in plan(config)}
    for p in build_schedule(config):
        claude_seat = p.seats.index("house")
        names = ["tactician" if i == claude_seat else n for i, n in enumerate(p.seats)]
        pilot = simulate("connect-four", names, PILOT, p.base_seed)
        assert rows[p.key].calls == pytest.approx(pilot.plies.mean() / 2 * p.episodes)
        assert rows[p.key].calls_max == p.episodes * 21  # a seat's turns in 42 plies
        assert rows[p.key].output_tokens_max == rows[p.key].calls_max * 1024
    assert cli(["league", "plan", str(tmp_path / "p.md").replace("p.md", "l.toml")]) == 3
    league_toml(tmp_path, policies=["random", "p.md"])
    assert cli(["league", "plan", str(tmp_path / "l.toml")]) == 0
    assert "estimated Claude calls and cost" in capsys.readouterr().out


def test_a_league_whose_out_cannot_be_created_is_one_line(tmp_path, capsys):
    (tmp_path / "blocker").write_text("a file where the directory should go")
    league_toml(
        tmp_path, games=["hex"], policies=["random", "tactician"], episodes=1, out="blocker/out"
    )
    assert cli(["league", "run", str(tmp_path / "l.toml")]) == 3
    out = capsys.readouterr().out
    assert "blocker/out: Not a directory" in out and out.strip().count("\n") == 0


def test_league_and_clock_zero_values_are_config_errors(tmp_path):
    from coworld import ConfigError

    for key in ("llm_timeout_seconds", "play_budget_seconds"):
        with pytest.raises(ConfigError) as err:
            make_league(tmp_path, THREE_WAY, house=HOUSE, clock={key: 0})
        assert err.value.field == f"clock.{key}"
    (tmp_path / "bad.toml").write_bytes(b'name = "\xff"\n')
    with pytest.raises(ConfigError, match="not UTF-8"):
        from coworld.league import load_league

        load_league(tmp_path / "bad.toml")


def test_reliability_table_fits_80_columns_with_rates_to_a_hundredth_percent():
    from rich.console import Console

    from coworld.cli.standings import reliability_table
    from coworld.league.records import EpisodeKey, EpisodeRow
    from coworld.league.summary import reliability_rows

    origins = {"model": 9990, "retry": 7, "fallback": 3, "retried:unparseable": 8}
    origins |= {"retried:illegal": 2, "fallback:illegal": 3}
    rows = [
        EpisodeRow(
            EpisodeKey("p", 0, "hex", 1, ("a-long-policy-name", "tactician")),
            "hex",
            (1.0, -1.0),
            "complete",
            "line",
            20,
            decisions=({**origins, "tokens": 123456789, "cost_usd": 1234.5}, {"scripted": 10000}),
        )
    ]
    console = Console(width=80, record=True)
    console.print(reliability_table(reliability_rows(reliability(rows))))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "tactician" not in text  # a scripted baseline decides nothing to measure
    assert "0.08%" in text and "0.02%" in text and "0.03%" in text  # 8, 2, 3 of 10,000


def test_episodes_in_other_processes_reserve_each_call_in_the_driver(
    tmp_path, ray_cluster, ray_api, ray_script, monkeypatch
):
    """Episodes in Ray tasks, one at a time: each call reserves against the driver's
    ledger (its actor) first, and the driver writes it."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", ray_api.base_url)
    ray_script(first_legal)
    config = make_league(
        tmp_path,
        THREE_WAY,
        house=HOUSE,
        policies=["random", "p.md"],
        episodes=6,
        concurrency=1,
        budget={"max_tokens": 6000},
    )
    before = ray_api.answered
    report = LeagueRun(config, backend="ray", progress=False, infra=FAST).run()
    db = LeagueDB(config.database)
    try:
        spent = db.spent("t")
        largest = max(r.usage.tokens for r in db.runner_rows("t"))
        assert report.budget_stopped and report.missing > 0 and largest > 0
        # each call reserved its worst case first: never past the cap
        assert spent.tokens <= 6000 and spent.calls == ray_api.answered - before
        voids = [v for a in db.open_voids("t").values() for v in a]
        assert [v.cause for v in voids] == ["budget"]  # the call that did not fit
        assert db.conn.execute("SELECT COUNT(*) FROM reservations").fetchone()[0] == 0
    finally:
        db.close()
