"""The league's wire to the Messages API (seats/transport.py): keep-alive reuse,
chunked and length-delimited answers, the SDK's headers and error types."""

from __future__ import annotations

import asyncio
import json

import anthropic
import pytest

from coworld.seats.claude import ClaudeClient
from coworld.seats.infra import InfraFailure, InfraPolicy
from coworld.seats.policy import ClaudePolicy

from .mock_anthropic import MockAnthropic

POLICY = ClaudePolicy(name="p", prompt="Win.", model="claude-haiku-4-5")
ASK = [{"role": "user", "content": "ping"}]


def message(text: str) -> bytes:
    return json.dumps(
        {
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 7, "output_tokens": 3},
        }
    ).encode()


class Server:
    """An HTTP/1.1 server on 127.0.0.1 answering each POST as `mode` says
    ("length", "chunked" or "close": no length, then the connection closes),
    counting connections and keeping each request's head."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.connections = 0
        self.heads: list[bytes] = []

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                self.heads.append(head)
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                await reader.readexactly(length)
                body = message(f"answer {len(self.heads)}")
                if self.mode == "chunked":
                    half = len(body) // 2
                    chunks = b"".join(
                        b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:half], body[half:])
                    )
                    writer.write(
                        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                        + chunks
                        + b"0\r\n\r\n"
                    )
                elif self.mode == "length":
                    writer.write(
                        b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body) + body
                    )
                else:
                    writer.write(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n" + body)
                    await writer.drain()
                    writer.close()
                    return
                await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client closed the connection, or the test ended
        finally:
            writer.close()


@pytest.mark.parametrize(("mode", "connections"), [("length", 1), ("chunked", 1), ("close", 5)])
def test_answers_are_read_whole_and_connections_reused_when_the_server_keeps_them(
    monkeypatch, mode, connections
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-transport")
    server = Server(mode)

    async def five_calls() -> tuple[list[str], dict]:
        async with server as url:
            client = ClaudeClient(timeout=5, base_url=url)
            sdk = anthropic.AsyncAnthropic(base_url=url)  # what the SDK itself would send
            try:
                texts = [(await client.ask(POLICY, "rules", ASK)).text for _ in range(5)]
                return texts, dict(sdk.default_headers)
            finally:
                await client.close()
                await sdk.close()

    texts, headers = asyncio.run(five_calls())
    assert texts == [f"answer {n}" for n in range(1, 6)]
    assert server.connections == connections
    # every request carries the SDK's own headers: version, client and the key
    head = server.heads[0].decode().lower()
    for name, value in headers.items():
        if isinstance(value, str) and name.lower() != "content-type":
            assert f"{name.lower()}: {value.lower()}" in head
    assert "sk-transport" in head and head.startswith("post /v1/messages http/1.1")


def test_http_errors_are_the_sdks_exceptions_with_the_servers_retry_after(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-transport")
    calls = []

    def script(body, n):
        calls.append(n)
        return ("status", 429, 0.2) if n == 0 else ("text", "ok")

    async def ask(url: str) -> tuple[str, float]:
        client = ClaudeClient(timeout=5, base_url=url, infra=InfraPolicy(patience_seconds=10))
        try:
            answer = await client.ask(POLICY, "rules", ASK)
            return answer.text, answer.waited
        finally:
            await client.close()

    with MockAnthropic(script, keep_alive=True) as mock:
        text, waited = asyncio.run(ask(mock.base_url))
    assert text == "ok" and calls == [0, 1]
    assert waited >= 0.2  # the retry waited out the server's retry-after


def test_a_refused_model_is_fatal_and_a_dropped_connection_is_retried(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-transport")

    def script(body, n):
        if body["model"] == "claude-missing":
            return ("status", 404)
        return ("drop",) if n == 0 else ("text", "ok")

    async def ask(url: str, policy: ClaudePolicy) -> str:
        client = ClaudeClient(timeout=5, base_url=url, infra=InfraPolicy(patience_seconds=10))
        try:
            return (await client.ask(policy, "rules", ASK)).text
        finally:
            await client.close()

    with MockAnthropic(script) as mock:
        assert asyncio.run(ask(mock.base_url, POLICY)) == "ok"
        missing = ClaudePolicy(name="m", prompt="Win.", model="claude-missing", price=(1, 1))
        with pytest.raises(InfraFailure) as err:
            asyncio.run(ask(mock.base_url, missing))
    assert err.value.fatal and err.value.cause == "http-404"


def test_through_a_proxy_from_the_environment_the_sdk_sends(monkeypatch):
    """This wire speaks no proxy protocol: with HTTP_PROXY set for the API's host the
    SDK's own client sends (here the mock is the proxy: it answers any target)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-transport")
    targets = []

    async def ask(url: str, proxy: str | None) -> tuple[str, bool]:
        if proxy:
            monkeypatch.setenv("HTTP_PROXY", proxy)
        client = ClaudeClient(timeout=5, base_url=url)
        try:
            return (await client.ask(POLICY, "rules", ASK)).text, client._wire is None
        finally:
            await client.close()

    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    with MockAnthropic(lambda body, n: targets.append(n) or ("text", "proxied")) as proxy:
        # the API's host (TEST-NET-1: never reached) goes through the proxy
        assert asyncio.run(ask("http://192.0.2.1:9", proxy.base_url)) == ("proxied", True)
    assert targets == [0]
