"""LLM leagues measure the model, not the network (issue 13): each row of the
issue's table reproduced at small scale against the local Messages API server."""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace
from pathlib import Path

import pytest

from coworld.cli import main as cli
from coworld.league import LeagueDB, LeagueRun, parse_league, standings
from coworld.league.ranking import reliability
from coworld.seats.infra import InfraPolicy

from .mock_anthropic import MockAnthropic, outage

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
    start = time.monotonic() + 0.3
    api.state["script"] = outage(first_legal, start, 1.5)
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
    assert cli(["league", "run", str(tmp_path / "l.toml")]) == 3
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


def test_a_refused_key_or_unknown_model_is_not_retried(tmp_path, api):
    api.state["script"] = lambda body, n: ("status", 404)
    report = LeagueRun(
        league_file(tmp_path), infra=replace(FAST, patience_seconds=5), progress=False
    ).run()
    assert report.voided == {"http-404": 4} and report.stopped.startswith("the API refused")
    assert len(api.requests) == 4  # the episodes in flight, one call each, no retry
