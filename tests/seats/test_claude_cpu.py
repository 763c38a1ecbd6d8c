"""What the CPU cuts (under 1 ms per model decision) must not change:
the request on the wire, the files a kill or a live viewer sees, the league's
garbage-collector settings once it is done."""

from __future__ import annotations

import asyncio
import gc
import json

import anthropic

from coworld.episode import play
from coworld.league import LeagueRun
from coworld.seats.claude import ClaudeClient
from tests.support.episodes import credentials, good, run  # noqa: F401 (autouse: a test key)
from tests.support.leagues import FAST, HOUSE, THREE_WAY, make_league
from tests.support.mock_anthropic import MockAnthropic


def _sent(client: anthropic.AsyncAnthropic, mock: MockAnthropic, times: int) -> None:
    async def go() -> None:
        for _ in range(times):
            await client.messages.with_raw_response.create(
                model="claude-test",
                max_tokens=64,
                system=[{"type": "text", "text": "Rules.", "cache_control": {"type": "ephemeral"}}],
                messages=[{"role": "user", "content": "Your move."}],
            )
        await client.close()

    asyncio.run(go())


def test_without_a_tracer_provider_spans_are_off_and_the_request_is_the_same():
    with MockAnthropic(lambda body, n: ("text", "{}")) as mock:
        ours = ClaudeClient(timeout=5.0, base_url=mock.base_url)
        assert ours._sdk._tracer is None  # no span attributes built per call
        _sent(ours._sdk, mock, 2)
        default = anthropic.AsyncAnthropic(  # our limits: acceptance + generation + 5 s
            timeout=15.0,
            max_retries=0,
            base_url=mock.base_url,
            http_client=anthropic.DefaultAioHttpClient(timeout=15.0),
        )
        assert default._tracer is not None  # the client's default: spans that record nothing
        _sent(default, mock, 1)
    # headers that differ between two identical requests of one client are per request
    per_request = {k for k in mock.headers[0] if mock.headers[0][k] != mock.headers[1].get(k)}
    assert per_request <= {"Idempotency-Key", "idempotency-key"}
    same = [{k: v for k, v in h.items() if k not in per_request} for h in mock.headers]
    assert same[0] == same[2] and mock.requests[0] == mock.requests[2]
    assert not any(k.lower() in ("traceparent", "tracestate") for k in mock.headers[2])


def test_a_configured_tracer_provider_keeps_the_clients_spans(monkeypatch):
    monkeypatch.setenv("OTEL_PYTHON_TRACER_PROVIDER", "sdk_tracer_provider")
    client = ClaudeClient(timeout=5.0, base_url="http://127.0.0.1:9")
    assert client._sdk._open_telemetry["traces"]["enabled"]
    asyncio.run(client.close())


def test_the_files_hold_every_event_and_call_before_each_model_call(tmp_path):
    """Lines are written out before the episode waits on the model: what a viewer
    following the replay, or a kill during the call, finds is complete."""
    seen: list[tuple[int, int, int]] = []

    def checks_the_files(episode, body, n):
        replay = (tmp_path / "episode.jsonl").read_text()
        calls = (tmp_path / "episode.calls.jsonl").read_text()
        assert replay.endswith("\n") and (not calls or calls.endswith("\n"))
        events = [json.loads(line) for line in replay.splitlines()]
        plies = [e for e in events if e["type"] == "ply"]
        assert events[0]["type"] == "header" and len(plies) == episode.state.plies
        seen.append((n, len(plies), len(calls.splitlines())))
        return good(episode, body, n)

    episode, _, mock = run("connect-four", checks_the_files, tmp_path)
    # each call finds the records of every call before it
    assert [c for _, _, c in seen] == list(range(len(mock.requests)))
    assert seen[-1][1] > 0 and len(seen) == len(mock.requests) > 2


def test_a_league_restores_the_garbage_collector_settings(tmp_path, api):
    before = gc.get_threshold()
    changed: list[tuple[int, int, int]] = []
    league = LeagueRun(
        make_league(tmp_path, THREE_WAY, house=HOUSE, episodes=1), infra=FAST, progress=False
    )
    play = league.engine._play_passes

    def during(*args: object) -> int:
        changed.append(gc.get_threshold())
        return play(*args)  # type: ignore[arg-type]

    league.engine._play_passes = during  # type: ignore[method-assign]
    league.run()
    assert changed and changed[0][0] > before[0]
    assert gc.get_threshold() == before


def test_a_python_policy_finds_every_earlier_ply_written_out(tmp_path):
    """A seat that computes (a Python policy) decides after the files are written."""
    out = tmp_path / "e.jsonl"
    policy = tmp_path / "watcher.py"
    policy.write_text(
        "import json\n"
        f"REPLAY = {str(out)!r}\n"
        "def act(view, legal_moves):\n"
        "    with open(REPLAY) as fh:\n"
        "        plies = [json.loads(x) for x in fh if json.loads(x)['type'] == 'ply']\n"
        "    assert len(plies) == view['plies'], (len(plies), view['plies'])\n"
        "    return {'move': legal_moves[0]}\n"
    )
    results = play("connect-four", [str(policy), "random"], seed=3, out=out)
    assert results["decisions"][0].get("policy", 0) > 2  # never the fallback
