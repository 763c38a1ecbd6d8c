"""Answers that lie, hang or refuse, against the local Messages API server: a 200
the client cannot read and an API that accepts and answers nothing are outages
(never moves), a request the API rejects stops the league, and the model's own
refusals and cut replies are recorded as such."""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest

from coworld import ConfigError
from coworld.calls import expand_calls
from coworld.cli import main as cli
from coworld.episode import Episode
from coworld.league import LeagueDB, LeagueRun, load_league
from coworld.league.schedule import build_schedule
from coworld.seats.claude import ClaudeClient
from coworld.seats.policy import load_policy
from tests.support.leagues import (
    FAST,
    HEAD_TO_HEAD,
    HOUSE,
    THREE_WAY,
    claude_results,
    clean_run,
    league_toml,
    make_league,
)
from tests.support.mock_anthropic import first_legal

HTML = "<html><body><h1>502 Bad Gateway</h1></body></html>"
#: Bodies a proxy or a broken API can send with status 200, and whether each
#: reports usage the API would bill.
BAD_BODIES = [
    (("raw", HTML, "text/html"), False),
    (
        (
            "raw",
            '{"type": "error", "error": {"type": "api_error", "message": "x"}}',
            "application/json",
        ),
        False,
    ),  # noqa: E501
    (("raw", '{"type": "message", "content": []}', "application/json"), False),
    (("raw", "data: {not json\n\n", "text/event-stream"), False),
    (("usage", None, '{"move": "d"}'), False),
    (("cut", '{"move": "d"}'), True),  # the stream ends early: message_start's usage
    (("reset", '{"move": "d"}'), True),  # the connection breaks after message_start
]


def test_unreadable_answers_are_retried_as_outages_and_billed_as_reported(tmp_path, api):
    clean_rows, clean_table, _ = clean_run(tmp_path)
    base = len(api.requests)
    billed = {"bad": 0}

    def lying(body, n):  # the start-up check's call too (the first of the run)
        k = n - base
        if k % 3 == 0 and k < 60:
            action, reports = BAD_BODIES[(k // 3) % len(BAD_BODIES)]
            billed["bad"] += reports
            return action
        return first_legal(body, n)

    api.script = lying
    report = LeagueRun(
        make_league(tmp_path, THREE_WAY, house=HOUSE), infra=FAST, progress=False
    ).run()
    rows, table, rel = claude_results(report.database)
    assert rows == clean_rows and table == clean_table  # no crash, no move, nothing scored
    assert rel["house"]["fallbacks"] == 0 and rel["house"]["retries"] == 0
    assert not report.voided and report.stopped is None
    db = LeagueDB(report.database)
    try:
        sent = len(api.requests) - base
        good = sent - sum(1 for k in range(min(sent, 60)) if k % 3 == 0)
        # every readable answer and every cut stream that reported usage is billed
        assert db.spent("t").calls == good + billed["bad"] and billed["bad"] > 0
    finally:
        db.close()
    assert not any("could not be used" in json.dumps(b["messages"]) for b in api.requests)


def test_the_start_up_check_outlasts_unreadable_answers(tmp_path, api, capsys):
    api.script = lambda body, n: ("raw", HTML, "text/html") if n < 2 else first_legal(body, n)
    path = league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE, episodes=2)
    path.write_text(path.read_text() + "infra_patience = 20\n")
    assert cli(["league", "run", str(path)]) == 0
    printed = capsys.readouterr()
    assert "Traceback" not in printed.out + printed.err
    assert "Task was destroyed" not in printed.out + printed.err


def test_a_hung_api_pauses_the_league_and_scores_no_timeout(tmp_path, api):
    clean = make_league(
        tmp_path, THREE_WAY, house=HOUSE, name="clean", clock={"llm_timeout_seconds": 0.5}
    )
    LeagueRun(clean, infra=FAST, progress=False).run()
    clean_rows, clean_table, _ = claude_results(clean.database, "clean")
    calls_clean = len(api.requests)
    began: list[float] = []

    def hangs_for_a_while(body, n):  # accepted and never answered, for 2 s
        if n >= calls_clean + 10 and not began:
            began.append(time.monotonic())
        if began and time.monotonic() < began[0] + 2.0:
            return ("hang", 1.5)
        return first_legal(body, n)

    api.script = hangs_for_a_while
    config = make_league(tmp_path, THREE_WAY, house=HOUSE, clock={"llm_timeout_seconds": 0.5})
    report = LeagueRun(config, infra=FAST, progress=False).run()
    rows, table, rel = claude_results(report.database)
    assert rows == clean_rows and table == clean_table  # no timeout became a move
    assert rel["house"]["retries"] == 0 and rel["house"]["fallbacks"] == 0
    assert report.pauses and report.pauses[0].cause == "hung"  # the breaker counted them


def test_a_model_slower_than_the_timeout_is_still_its_own_timeout(tmp_path, api):
    """The API accepted (its first event came at once); the model did not finish."""
    api.script = lambda body, n: ("sleep", 1.0, first_legal(body, n)[1])
    (tmp_path / "p.md").write_text("---\nmodel: claude-haiku-4-5\n---\nWin.\n")

    async def go():
        client = ClaudeClient(timeout=0.3, infra=FAST, base_url=api.base_url)
        try:
            episode = Episode("connect-four", [str(tmp_path / "p.md"), "random"], seed=2,
                              client=client)  # fmt: skip
            await episode.run()
            return episode
        finally:
            await client.close()

    episode = asyncio.run(go())
    assert episode.origins[0].get("fallback:timeout", 0) > 0
    assert episode.origins[0]["fallback"] == episode.moves[0]


@pytest.mark.parametrize(
    "front, fields",
    [
        ("temperature: 0.2\nthinking: 2048\nmax_tokens: 4000", ("`temperature`", "`thinking`")),
        ("temperature: 0.5\nthinking: adaptive", ("`temperature`", "`thinking`")),
        ("model: claude-opus-4-7\nthinking: 2048\nmax_tokens: 4000", ("`thinking`", "adaptive")),
    ],
)
def test_parameters_the_api_rejects_are_refused_when_the_policy_is_read(tmp_path, front, fields):
    if "model" not in front:
        front += "\nmodel: claude-sonnet-4-5"
    (tmp_path / "x.md").write_text(f"---\n{front}\n---\nWin.\n")
    with pytest.raises(ConfigError) as err:
        load_policy(str(tmp_path / "x.md"))
    assert str(tmp_path / "x.md") in str(err.value)
    assert all(f in str(err.value) for f in fields), err.value
    (tmp_path / "ok.md").write_text("---\nmodel: claude-sonnet-4-5\ntemperature: 1\n"
                                    "thinking: adaptive\n---\nWin.\n")  # fmt: skip
    assert load_policy(str(tmp_path / "ok.md")).thinking == "adaptive"


REFUSAL = "max_tokens: 99999 > 64000, which is the maximum allowed for this model"


def test_a_rejected_request_stops_the_league_in_one_line_exit_4(tmp_path, api, capsys):
    api.script = lambda body, n: ("status", 400, 0, REFUSAL) if n > 0 else first_legal(body, n)
    path = league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE)
    assert cli(["league", "run", str(path)]) == 4
    out = capsys.readouterr().out.strip()
    last = out.splitlines()[-1]  # after the progress bar: one line, and only that
    assert last.startswith("stopped:") and "p.md" in last and REFUSAL in last, out
    assert out.count(REFUSAL) == 1 and "void" not in out and "--redo" not in out
    db = LeagueDB(tmp_path / "t" / "league.db")
    try:
        cut = [v for a in db.open_voids("t").values() for v in a]
        assert cut and {v.cause for v in cut} == {"rejected"}  # in flight: recorded, not void
    finally:
        db.close()
    api.script = first_legal  # the request fixed: a plain rerun plays them
    assert cli(["league", "run", str(path)]) == 0
    scheduled = sum(p.episodes for p in build_schedule(load_league(path)))
    assert LeagueDB(tmp_path / "t" / "league.db").count("t") == scheduled


def test_the_start_up_check_sends_the_policys_own_parameters(tmp_path, api, capsys):
    path = league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE, episodes=1)
    (tmp_path / "p.md").write_text(
        "---\nname: house\nmodel: claude-haiku-4-5\nmax_tokens: 3000\nthinking: 2048\n"
        "effort: low\n---\nPlay well.\n"
    )
    api.script = lambda body, n: ("status", 400, 0, "thinking is not supported")
    assert cli(["league", "run", str(path)]) == 4
    out = capsys.readouterr().out
    assert "thinking is not supported" in out and "p.md" in out and len(api.requests) == 1
    sent = api.requests[0]
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert sent["max_tokens"] == 3000 and sent["output_config"] == {"effort": "low"}


def _episode(tmp_path, api, script, max_tokens: int = 1024):
    api.script = script
    (tmp_path / "p.md").write_text(f"---\nmodel: claude-haiku-4-5\nmax_tokens: {max_tokens}\n"
                                   "---\nWin.\n")  # fmt: skip
    out = tmp_path / "e.jsonl"

    async def go():
        client = ClaudeClient(timeout=5, infra=FAST, base_url=api.base_url)
        try:
            episode = Episode("connect-four", [str(tmp_path / "p.md"), "random"], seed=2,
                              client=client, out=out)  # fmt: skip
            await episode.run()
            return episode
        finally:
            await client.close()

    return asyncio.run(go()), out


def test_refusals_cut_replies_and_empty_replies_have_causes_of_their_own(tmp_path, api):
    def script(body, n):
        first = len(body["messages"]) == 1
        kind = n % 3
        if first and kind == 0:
            return ("stop", "refusal", "")
        if first and kind == 1:
            return ("stop", "max_tokens", '{"move": "')
        if first and kind == 2:
            return ("text", "  ")
        return first_legal(body, n)

    episode, out = _episode(tmp_path, api, script)
    origins = episode.origins[0]
    for cause in ("refusal", "truncated", "empty"):
        assert origins.get(f"retried:{cause}", 0) > 0, origins
    assert "retried:unparseable" not in origins
    calls = [c for c in expand_calls(out.with_suffix(".calls.jsonl")) if c["type"] == "call"]
    reasons = {c["stopReason"] for c in calls}
    assert {"refusal", "max_tokens", "end_turn"} <= reasons
    cut = next(c for c in calls if c["cause"] == "truncated")
    assert "1024 tokens" in cut["reason"]


def test_the_reliability_table_names_refusals_and_truncation(tmp_path, api, capsys):
    def script(body, n):
        if len(body["messages"]) == 1 and n % 2:
            return ("stop", "refusal", "I can't help with that.")
        return first_legal(body, n)

    api.script = script
    path = league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE, episodes=2)
    assert cli(["league", "run", str(path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"refusal\W+\d+\.\d\d%", out), out
    standings = json.loads((tmp_path / "t" / "standings.json").read_text())
    assert standings["reliability"]["house"]["retry_rate:refusal"] > 0


def test_a_huge_reply_is_cut_in_the_replay_and_kept_in_the_sidecar(tmp_path, api):
    chatter = "Let me think about this position carefully. " * 2000  # ~90 kB a reply
    episode, out = _episode(
        tmp_path, api, lambda body, n: ("text", chatter + first_legal(body, n)[1])
    )
    events = [json.loads(x) for x in out.read_text().splitlines()]
    attempts = [a for e in events if e["type"] == "ply" for a in e["attempts"] or []]
    calls = [c for c in expand_calls(out.with_suffix(".calls.jsonl")) if c["type"] == "call"]
    whole = {(c["ply"], c["attempt"]): c["raw"] for c in calls}
    assert attempts and len(whole) == len(attempts)
    for a in attempts:  # cut where the replay says, the whole text in the sidecar
        full = whole[(a["ply"], a["attempt"])]
        assert full.startswith(chatter) and a["rawChars"] == len(full)
        assert a["raw"] == full[:4096]
    assert out.stat().st_size < len(attempts) * 30_000  # the views, not the replies
