"""What a Claude seat sends and how `coworld play` reports the API: extended thinking
as the client expects it (kept in the calls sidecar only), the HTTP backend, a misspelt
model, fallback markers, a zero timeout."""

from __future__ import annotations

import json

import pytest

from coworld.cli import main as cli
from tests.support.leagues import FAST
from tests.support.mock_anthropic import first_legal


def test_thinking_is_sent_as_the_client_expects_and_kept_in_the_sidecar_only(tmp_path, api):
    from coworld.episode import Episode
    from coworld.seats.claude import ClaudeClient
    from coworld.seats.policy import load_policy

    (tmp_path / "t.md").write_text(
        "---\nname: deep\nmodel: claude-haiku-4-5\nmax_tokens: 3000\nthinking: 2048\n---\nWin.\n"
    )
    api.script = lambda body, n: ("thinking", "SECRET PLAN", first_legal(body, n)[1])
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


def test_play_with_a_misspelt_model_is_one_line_not_a_feed_of_fallbacks(tmp_path, api, capsys):
    api.script = lambda body, n: ("status", 404)
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


def test_play_refuses_a_zero_timeout(capsys):
    with pytest.raises(SystemExit) as exit_:  # a usage error, before anything runs
        cli(["play", "hex", "-s", "random", "-s", "random", "--timeout", "0"])
    assert exit_.value.code == 3
    assert "--timeout: must be a number of seconds above 0" in capsys.readouterr().err


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
