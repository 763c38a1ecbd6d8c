"""LLM leagues measure the model, not the network: each row of the
issue's table reproduced at small scale against the local Messages API server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from coworld.calls import expand_calls
from coworld.cli import main as cli
from coworld.league import LeagueDB, LeagueRun, parse_league, standings, work
from coworld.league.backend import LocalBackend
from coworld.league.ranking import reliability
from coworld.seats.infra import InfraPolicy
from tests.support.mock_anthropic import MockAnthropic, outage

#: Infrastructure retries at test speed (the league default waits minutes).
FAST = InfraPolicy(
    patience_seconds=20.0, base_delay=0.01, max_delay=0.2, min_calls=6, probe_seconds=0.05
)


def first_legal(body, n):
    """A deterministic model: the first legal column named in the prompt."""
    text = body["messages"][-1]["content"]
    legal = re.search(r"[Ll]egal moves?:?\s*\n?(.*)", text)
    move = re.findall(r"\b[a-g]\b", legal.group(1))[0] if legal else "d"
    return ("text", json.dumps({"move": move}))


def league_file(tmp_path: Path, name: str = "t", **fields):
    (tmp_path / "p.md").write_text("---\nname: house\nmodel: claude-haiku-4-5\n---\nPlay well.\n")
    raw = {
        "name": name,
        "games": ["connect-four"],
        "policies": ["tactician", "random", "p.md"],
        "episodes": 2,
        "seed": 4,
        "replays": 0,
        "concurrency": 4,
        "out": str(tmp_path / name),
        **fields,
    }
    return parse_league(raw, base_dir=tmp_path)


def claude_results(db_path: Path, league: str = "t"):
    db = LeagueDB(db_path)
    try:
        rows = db.runner_rows(league)
        return (
            sorted((r.pairing, r.idx, r.score, r.plies) for r in rows),
            standings(rows),
            reliability(rows),
        )
    finally:
        db.close()


@pytest.fixture
def api(monkeypatch):
    """Point the real client at a mock whose script the test sets."""
    state = {"script": first_legal}

    def dispatch(body, n):
        return state["script"](body, n)

    with MockAnthropic(dispatch) as mock:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
        mock.state = state  # type: ignore[attr-defined]
        yield mock


def clean_run(tmp_path: Path):
    report = LeagueRun(league_file(tmp_path, "clean"), infra=FAST, progress=False).run()
    return claude_results(report.database, "clean")


def test_an_outage_pauses_the_league_and_changes_no_score(tmp_path, api):
    clean_rows, clean_table, _ = clean_run(tmp_path)
    calls_clean = len(api.requests)
    began: list[float] = []

    def down_for_a_while(body, n):  # 529 for 1.5 s, from the 10th call of the league
        if n >= calls_clean + 10 and not began:
            began.append(time.monotonic())
        return outage(first_legal, began[0], 1.5)(body, n) if began else first_legal(body, n)

    api.state["script"] = down_for_a_while
    report = LeagueRun(league_file(tmp_path), infra=FAST, progress=False).run()
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
    api.state["script"] = lambda body, n: (
        ("status", 429) if n * 7 % 10 < 3 else first_legal(body, n)
    )
    report = LeagueRun(league_file(tmp_path), infra=FAST, progress=False).run()
    rows, table, rel = claude_results(report.database)
    assert rows == clean_rows and table == clean_table
    assert rel["house"]["retries"] == 0 and rel["house"]["fallbacks"] == 0
    assert not any(
        "could not be used" in json.dumps(b["messages"]) for b in api.requests
    )  # the model never hears of a 429


def test_patience_out_voids_requeues_then_redo_infra_completes(tmp_path, api, capsys):
    clean_rows, clean_table, _ = clean_run(tmp_path)
    api.state["script"] = lambda body, n: ("status", 529)
    (tmp_path / "l.toml").write_text(
        'name = "t"\ngames = ["connect-four"]\npolicies = ["tactician", "random", "p.md"]\n'
        'episodes = 2\nseed = 4\nreplays = 0\nconcurrency = 4\nout = "t"\n'
        "infra_patience = 0.3\nvoid_retries = 1\n"
    )
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
    api.state["script"] = first_legal
    cli(["league", "run", str(tmp_path / "l.toml")])
    assert cli(["league", "run", str(tmp_path / "l.toml"), "--redo", "infra"]) == 0
    rows, table, _ = claude_results(tmp_path / "t" / "league.db")
    assert rows == clean_rows and table == clean_table


def test_model_side_retries_are_recorded_by_cause(tmp_path, api):
    def sloppy(body, n):
        if len(body["messages"]) == 1 and n % 2 == 0:
            return ("text", "I think the centre is best.")  # unparseable, then retried
        return first_legal(body, n)

    api.state["script"] = sloppy
    report = LeagueRun(league_file(tmp_path), infra=FAST, progress=False).run()
    _, _, rel = claude_results(report.database)
    house = rel["house"]
    assert house["retry_rate:unparseable"] > 0 and house["retry_rate:illegal"] == 0
    assert house["retries"] == round(house["retry_rate:unparseable"] * house["decisions"])
    retried = [b for b in api.requests if len(b["messages"]) == 3]
    assert retried and all("could not be used" in b["messages"][2]["content"] for b in retried)


def test_an_unknown_model_is_a_config_error_before_the_league_starts(tmp_path, api, capsys):
    api.state["script"] = lambda body, n: ("status", 404)
    path = _league_toml(tmp_path)
    assert cli(["league", "run", str(path)]) == 3
    out = capsys.readouterr().out
    assert "p.md: model 'claude-haiku-4-5' cannot be used" in out and "404" in out
    assert len(api.requests) == 1  # the pre-flight call, not a league of fallbacks


def test_a_refusal_mid_league_stops_dispatching_without_retries(tmp_path, api):
    api.state["script"] = lambda body, n: ("status", 401) if n > 0 else first_legal(body, n)
    report = LeagueRun(
        league_file(tmp_path), infra=replace(FAST, patience_seconds=5), progress=False
    ).run()
    assert report.voided == {"http-401": 4} and report.stopped.startswith("the API refused")
    assert len(api.requests) == 5  # pre-flight, then the episodes in flight, one call each


def test_thinking_is_sent_as_the_client_expects_and_kept_in_the_sidecar_only(tmp_path, api):
    from coworld.episode import Episode
    from coworld.seats.claude import ClaudeClient
    from coworld.seats.policy import load_policy

    (tmp_path / "t.md").write_text(
        "---\nname: deep\nmodel: claude-haiku-4-5\nmax_tokens: 3000\nthinking: 2048\n---\nWin.\n"
    )
    api.state["script"] = lambda body, n: ("thinking", "SECRET PLAN", first_legal(body, n)[1])
    policy = load_policy(str(tmp_path / "t.md"))

    async def go():
        client = ClaudeClient(timeout=5, infra=FAST, base_url=api.base_url)
        try:
            await Episode(
                "connect-four", [policy, "random"], seed=2, client=client, out=tmp_path / "e.jsonl"
            ).run()
        finally:
            await client.close()

    import asyncio

    asyncio.run(go())
    assert api.requests[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "SECRET PLAN" not in (tmp_path / "e.jsonl").read_text()
    calls = [json.loads(x) for x in (tmp_path / "e.calls.jsonl").read_text().splitlines()]
    assert calls and all(c["thinking"] == "SECRET PLAN" for c in calls)
    (tmp_path / "a.md").write_text("---\nmodel: claude-haiku-4-5\nthinking: adaptive\n---\nW\n")
    assert load_policy(str(tmp_path / "a.md")).thinking_param == {"type": "adaptive"}


@pytest.mark.parametrize(
    "front, message",
    [
        ("thinking: 2048", "less than `max_tokens` (1024)"),
        ("thinking: 100\nmax_tokens: 4000", "at least 1024"),
        ("thinking: lots", "adaptive"),
        ("model: claude-unknown-9", "no price for model 'claude-unknown-9'"),
        ("price: [1, -2]", "`price` must be [input, output]"),
    ],
)
def test_policy_knobs_are_checked_at_load(tmp_path, front, message):
    from coworld import ConfigError
    from coworld.seats.policy import load_policy

    (tmp_path / "x.md").write_text(f"---\n{front}\n---\nWin.\n")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_policy(str(tmp_path / "x.md"))


def test_prices_come_from_the_policy_or_the_league_file(tmp_path):
    from coworld.seats.policy import load_policy

    (tmp_path / "x.md").write_text("---\nmodel: claude-new-1\nprice: [2, 8]\n---\nWin.\n")
    assert load_policy(str(tmp_path / "x.md")).price == (2.0, 8.0)
    (tmp_path / "y.md").write_text("---\nname: y\nmodel: claude-newer-2\n---\nWin.\n")
    config = parse_league(
        {
            "name": "p",
            "games": ["hex"],
            "policies": ["random", "y.md"],
            "episodes": 1,
            "prices": {"claude-newer": [4, 20]},
        },
        base_dir=tmp_path,
    )
    assert [p.price for p in config.policies if p.name == "y"] == [(4.0, 20.0)]


def test_oversized_prompts_and_non_utf8_files_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "big.md").write_text("---\nname: big\n---\n" + "x" * 70_000)
    (tmp_path / "bin.md").write_bytes(b"---\nname: b\n---\n\xff\xfe play\n")
    for name, message in (("big.md", "the prompt is 70,000 bytes"), ("bin.md", "not UTF-8")):
        assert cli(["play", "hex", "-s", str(tmp_path / name), "-s", "random"]) == 3
        out = capsys.readouterr().out
        assert message in out and "Traceback" not in out


def test_play_with_a_misspelt_model_is_one_line_not_a_feed_of_fallbacks(tmp_path, api, capsys):
    api.state["script"] = lambda body, n: ("status", 404)
    # priced, so that it passes loading (an unpriced misspelt id fails there)
    (tmp_path / "p.md").write_text(
        "---\nname: h\nmodel: claude-sonnet-4-5-typo\nprice: [3, 15]\n---\nWin.\n"
    )
    out = tmp_path / "e.jsonl"
    assert (
        cli(["play", "hex", "-s", str(tmp_path / "p.md"), "-s", "random", "--out", str(out)])
        == 4  # a rejected request: infrastructure
    )
    printed = capsys.readouterr().out
    assert "the API did not answer (http-404)" in printed and "plays" not in printed


def test_play_shows_fallback_markers_literally(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    (tmp_path / "p.md").write_text("---\nname: house\n---\nWin.\n")
    out = tmp_path / "e.jsonl"
    assert (
        cli(["play", "hex", "-s", str(tmp_path / "p.md"), "-s", "random", "--out", str(out)]) == 0
    )
    assert "[fallback: no-credentials]" in capsys.readouterr().out


def _league_toml(tmp_path: Path, episodes: int = 6) -> Path:
    (tmp_path / "p.md").write_text("---\nname: house\nmodel: claude-haiku-4-5\n---\nPlay well.\n")
    path = tmp_path / "l.toml"
    path.write_text(
        'name = "t"\ngames = ["connect-four"]\npolicies = ["tactician", "p.md"]\n'
        f'episodes = {episodes}\nseed = 4\nreplays = 0\nconcurrency = 3\nout = "t"\n'
    )
    return path


def _start(tmp_path: Path, mock) -> subprocess.Popen:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": mock.base_url}
    return subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "league", "run", "l.toml"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _slow(body, n):
    time.sleep(0.05)
    return first_legal(body, n)


def _wait_for(predicate, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_ctrl_c_stores_what_finished_records_the_rest_and_exits_130(tmp_path, api):
    api.state["script"] = _slow
    _league_toml(tmp_path)
    proc = _start(tmp_path, api)
    _wait_for(lambda: api.answered >= 12)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in out + err
    assert out.strip().splitlines()[-1].startswith("interrupted: stopped by Ctrl-C")
    db = LeagueDB(tmp_path / "t" / "league.db")
    # the episodes in flight finished; every answered call is in the database
    assert db.spent("t").calls == api.answered == len(api.requests)
    assert 0 < db.count("t") < 12 and db.usage("t", voided=False).calls <= api.answered


def test_kill_minus_nine_loses_no_recorded_token(tmp_path, api):
    def hangs_after_twelve(body, n):
        if n >= 12:
            time.sleep(30)  # calls in flight when the league is killed
        return _slow(body, n)

    api.state["script"] = hangs_after_twelve
    _league_toml(tmp_path)
    proc = _start(tmp_path, api)
    _wait_for(lambda: api.answered >= 12 and len(api.requests) > 12)
    time.sleep(0.3)
    proc.kill()
    proc.communicate(timeout=30)
    db = LeagueDB(tmp_path / "t" / "league.db")
    spent, scored = db.spent("t"), db.usage("t", voided=False)
    assert spent.calls == api.answered == 12  # every answered call, scored or not
    unscored = [
        r
        for r in db.conn.execute("SELECT pairing, idx, calls FROM calls WHERE league='t'")
        if r[1] not in db.done("t", r[0])
    ]
    assert spent.calls == scored.calls + sum(r[2] for r in unscored)
    assert sum(r[2] for r in unscored) > 0  # the killed episodes had answered calls
    # a rerun completes the league and keeps counting
    api.state["script"] = first_legal
    assert cli(["league", "run", str(tmp_path / "l.toml")]) == 0
    assert db.count("t") == 12
    assert db.spent("t").calls == api.answered
    # the killed episodes' calls sidecars were moved aside, not overwritten
    sidecars = list((tmp_path / "t" / "replays").rglob("*.calls.jsonl"))
    assert any(".prior-1." in p.name for p in sidecars)
    answered = [c for p in sidecars for c in expand_calls(p) if c.get("usage")]
    pings = db.conn.execute("SELECT COUNT(*) FROM calls WHERE pairing='preflight'").fetchone()[0]
    assert pings == 2 and len(answered) == api.answered - pings  # one pre-flight per run


def test_a_budget_stop_prints_partial_standings_and_both_spends(tmp_path, api, capsys):
    path = _league_toml(tmp_path, episodes=4)
    (tmp_path / "p.md").write_text(
        "---\nname: house\nmodel: claude-haiku-4-5\nmax_tokens: 40\n---\nPlay well.\n"
    )
    path.write_text(path.read_text() + "[budget]\nmax_tokens = 6000\n")
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

    config = league_file(tmp_path, policies=["random", "p.md"])
    rows = {r.pairing: r for r in plan(config)}
    for p in build_schedule(config):
        claude_seat = p.seats.index("house")
        names = ["tactician" if i == claude_seat else n for i, n in enumerate(p.seats)]
        pilot = simulate("connect-four", names, PILOT, p.base_seed)
        assert rows[p.key].calls == pytest.approx(pilot.plies.mean() / 2 * p.episodes)
        assert rows[p.key].calls_max == p.episodes * 21  # a seat's turns in 42 plies
        assert rows[p.key].output_tokens_max == rows[p.key].calls_max * 1024
    assert cli(["league", "plan", str(tmp_path / "p.md").replace("p.md", "l.toml")]) == 3
    (tmp_path / "l.toml").write_text(
        'name = "t"\ngames = ["connect-four"]\npolicies = ["random", "p.md"]\nepisodes = 2\n'
    )
    assert cli(["league", "plan", str(tmp_path / "l.toml")]) == 0
    assert "estimated Claude calls and cost" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "No such file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not UTF-8 text"),
        (b"this is not json\n", "line 1: not a JSON line"),
        (b'{"type": "header", "config": {"ga\n', "line 1: not a JSON line"),
        (b'{"type": "header"}\n', "line 1: an event lacks the field 'config'"),
        (b"[1, 2]\n", "line 1: not a JSON object"),
    ],
)
def test_recheck_of_a_bad_file_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "r.jsonl"
    if content is not None:
        path.write_bytes(content)
    assert cli(["recheck", str(path)]) == 3
    out = capsys.readouterr().out
    assert message in out and str(path) in out and out.strip().count("\n") == 0


def test_a_league_whose_out_cannot_be_created_is_one_line(tmp_path, capsys):
    (tmp_path / "blocker").write_text("a file where the directory should go")
    (tmp_path / "l.toml").write_text(
        'name = "t"\ngames = ["hex"]\npolicies = ["random", "tactician"]\nepisodes = 1\n'
        'out = "blocker/out"\n'
    )
    assert cli(["league", "run", str(tmp_path / "l.toml")]) == 3
    out = capsys.readouterr().out
    assert "blocker/out: Not a directory" in out and out.strip().count("\n") == 0


def test_league_and_clock_zero_values_are_config_errors(tmp_path):
    from coworld import ConfigError

    for key in ("llm_timeout_seconds", "play_budget_seconds"):
        with pytest.raises(ConfigError) as err:
            league_file(tmp_path, clock={key: 0})
        assert err.value.field == f"clock.{key}"
    (tmp_path / "bad.toml").write_bytes(b'name = "\xff"\n')
    with pytest.raises(ConfigError, match="not UTF-8"):
        from coworld.league import load_league

        load_league(tmp_path / "bad.toml")


def test_the_viewer_refuses_a_garbage_replay_with_a_reason(tmp_path):
    from starlette.testclient import TestClient

    from coworld.viewer import create_app

    (tmp_path / "g.jsonl").write_bytes(b"garbage\n")
    client = TestClient(create_app(tmp_path))
    response = client.get("/api/replay", params={"path": "g.jsonl"})
    assert response.status_code == 400 and "not a JSON line" in response.json()["error"]


def test_a_cut_replay_is_not_shown_as_live(tmp_path):
    from coworld.viewer.server import LIVE_IDLE_SECONDS, _in_progress

    cut = tmp_path / "cut.jsonl"
    cut.write_text('{"type": "header"}\n')
    assert _in_progress(tmp_path) == [cut]
    old = time.time() - LIVE_IDLE_SECONDS - 1
    os.utime(cut, (old, old))
    assert _in_progress(tmp_path) == []


def test_reliability_table_fits_80_columns_with_rates_to_a_hundredth_percent():
    from rich.console import Console

    from coworld.cli import _reliability_table
    from coworld.league.storage import EpisodeRow

    origins = {"model": 9990, "retry": 7, "fallback": 3, "retried:unparseable": 8}
    origins |= {"retried:illegal": 2, "fallback:illegal": 3}
    rows = [
        EpisodeRow(
            "p",
            0,
            "hex",
            "hex",
            1,
            ("a-long-policy-name", "tactician"),
            (1.0, -1.0),
            "complete",
            "line",
            20,
            decisions=({**origins, "tokens": 123456789, "cost_usd": 1234.5}, {"scripted": 10000}),
        )
    ]
    console = Console(width=80, record=True)
    console.print(_reliability_table(reliability(rows)))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "tactician" not in text  # a scripted baseline decides nothing to measure
    assert "0.08%" in text and "0.02%" in text and "0.03%" in text  # 8, 2, 3 of 10,000


def test_play_refuses_a_zero_timeout(capsys):
    with pytest.raises(SystemExit) as exit_:  # a usage error, before anything runs
        cli(["play", "hex", "-s", "random", "-s", "random", "--timeout", "0"])
    assert exit_.value.code == 3
    assert "--timeout: must be a number of seconds above 0" in capsys.readouterr().err


class _OwnClients(LocalBackend):
    """Episodes the way Ray runs them: no shared client or ledger; each episode builds
    its own client and writes its calls to the league database (one at a time here)."""

    def __init__(self) -> None:
        super().__init__()
        self.shares = False

    def map_episodes(self, jobs, concurrency, shared):
        for job in jobs:
            yield work.play_episode(replace(job, calls_to=shared.calls_to, budget=shared.budget))


def test_episodes_in_other_processes_reserve_each_call_in_the_database(tmp_path, api):
    config = league_file(
        tmp_path, policies=["random", "p.md"], episodes=6, budget={"max_tokens": 6000}
    )
    run = LeagueRun(config, progress=False, infra=FAST)
    run.backend = _OwnClients()
    report = run.run()
    db = LeagueDB(config.database)
    try:
        spent = db.spent("t")
        largest = max(r.usage.tokens for r in db.runner_rows("t"))
        assert report.budget_stopped and report.missing > 0 and largest > 0
        # each call reserved its worst case in the database first: never past the cap
        assert spent.tokens <= 6000 and spent.calls == api.answered
        voids = [v for a in db.open_voids("t").values() for v in a]
        assert [v.cause for v in voids] == ["budget"]  # the call that did not fit
        assert db.conn.execute("SELECT COUNT(*) FROM reservations").fetchone()[0] == 0
    finally:
        db.close()


def test_the_aiohttp_backend_is_used_unless_a_proxy_applies(monkeypatch):
    """aiohttp ignores proxies from the environment: with one that applies to the
    API's host the client keeps the SDK's default (proxy-aware) backend."""
    import asyncio

    import anthropic

    from coworld.seats.claude import ClaudeClient

    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
                 "all_proxy", "NO_PROXY", "no_proxy"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)

    def backend() -> type:
        client = ClaudeClient(timeout=5, base_url="https://api.example.test")
        kind = type(client._sdk._client)
        asyncio.run(client.close())
        return kind

    assert issubclass(backend(), anthropic.DefaultAioHttpClient)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    assert not issubclass(backend(), anthropic.DefaultAioHttpClient)
    monkeypatch.setenv("NO_PROXY", "api.example.test")
    assert issubclass(backend(), anthropic.DefaultAioHttpClient)
