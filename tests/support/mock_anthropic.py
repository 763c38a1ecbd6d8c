"""A local stand-in for the Anthropic Messages API, on 127.0.0.1.

Tests point the real `anthropic` client at it through `base_url`. Each POST to
/v1/messages is answered by the test's script: a function of the request body
(and the call number) returning one of
  ("text", str)                    a normal reply
  ("thinking", thought, str)       a reply with a thinking block before the text
  ("sleep", seconds, str)          a reply that arrives late
  ("status", code)                 an HTTP error (404, 429, 500, 529, ...), retry-after 0
  ("status", code, retry_after)    the same with the given `retry-after` seconds
  ("drop",)                        the connection closes without an answer
  ("hang", seconds)                the request is read, then nothing is sent for
                                   `seconds` (an API that accepts and answers nothing)
  ("raw", body, content_type)      status 200 with this body (HTML, an error object...)
  ("usage", usage, str)            a reply whose `usage` is the given object (or None)
  ("stop", stop_reason, str)       a reply with that stop_reason (refusal, max_tokens)
  ("cut", str)                     a stream that ends after its first text delta
  ("reset", str)                   the connection closes after the stream's first event
  ("status", 400, 0, message)      an HTTP error with the API's message
Usage: input tokens 100 + n, 20 output, cache 50 (written on call 0, read after);
or what the mock's `usage(body, n, text)` returns (`billed_by_size`: a token per 3
bytes of prompt and reply; `billed_at_worst`: every call at its `max_tokens`).
A request with `"stream": true` is answered as the API streams: events, the
first at once, the rest after a "sleep". Every request is recorded (body and
headers) for the test to inspect.
"""

from __future__ import annotations

import json
import math
import random
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any], int], tuple]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def outage(script: Script, start: float, seconds: float, status: int = 529) -> Script:
    """`script`, except that every request from `start` (time.monotonic) for
    `seconds` is answered with `status`."""

    def scripted(body: dict[str, Any], n: int) -> tuple:
        if start <= time.monotonic() < start + seconds:
            return ("status", status)
        return script(body, n)

    return scripted


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # a league at concurrency 64 connects in bursts


Billing = Callable[[dict[str, Any], int, str], dict[str, int]]


def _prompt_bytes(body: dict[str, Any]) -> int:
    system = "".join(b.get("text", "") for b in body.get("system") or [])
    return len(system.encode()) + len(json.dumps(body.get("messages") or []).encode())


def billed_by_size(body: dict[str, Any], n: int, text: str) -> dict[str, int]:
    """A token per 3 bytes of prompt (all plain input) and of reply."""
    return {
        "input_tokens": math.ceil(_prompt_bytes(body) / 3),
        "output_tokens": max(1, math.ceil(len(text.encode()) / 3)),
    }


def billed_at_worst(body: dict[str, Any], n: int, text: str) -> dict[str, int]:
    """Every call billed its whole `max_tokens` of output."""
    return {**billed_by_size(body, n, text), "output_tokens": int(body["max_tokens"])}


def random_legal(body: dict[str, Any], n: int) -> tuple:
    """A model that plays a random legal move of any game, read from the prompt (or
    from its retry message): Hanabi's numbered JSON lines, the fog games' legal
    attempts (recon-hex-5 also senses at one of them), the gauntlet's legal moves."""
    text = user_text(body)
    rng = random.Random(n)
    options = re.findall(r"^\s*\d+\. (\{.*\})\s*$", text, re.M)
    if options:
        return ("text", rng.choice(options))
    listed = re.search(r"[Ll]egal (?:moves|attempts)(?: \(\d+\))?:?\s*\n?(.*)", text)
    moves = re.findall(r"[a-z]+\d*[a-z]?(?:[+-][a-z]\d+)?", listed.group(1)) if listed else []
    reply: dict[str, str] = {"move": rng.choice(moves) if moves else "d"}
    if "sense" in text and moves:
        reply["sense"] = rng.choice(moves)
    return ("text", json.dumps(reply))


def first_legal(body: dict[str, Any], n: int) -> tuple:
    """A deterministic connect-four model: the first legal column named in the prompt."""
    legal = re.search(r"[Ll]egal moves?:?\s*\n?(.*)", body["messages"][-1]["content"])
    move = re.findall(r"\b[a-g]\b", legal.group(1))[0] if legal else "d"
    return ("text", json.dumps({"move": move}))


class MockAnthropic:
    def __init__(
        self, script: Script, keep_alive: bool = False, usage: Billing | None = None
    ) -> None:
        self.script = script
        self.keep_alive = keep_alive
        self.usage = usage
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        #: Replies (status 200) written out in full.
        self.answered = 0
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> MockAnthropic:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            # keep-alive (as the real API) for benchmarks: a connection per call
            # would bill the client a TCP connect and teardown the service does not
            protocol_version = "HTTP/1.1" if mock.keep_alive else "HTTP/1.0"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with mock._lock:
                    n = len(mock.requests)
                    mock.requests.append(body)
                    mock.headers.append(dict(self.headers))
                action = mock.script(body, n)
                if action[0] == "hang":
                    time.sleep(action[1])
                    self.close_connection = True
                    return
                if action[0] == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if action[0] == "status":
                    code = action[1]
                    payload = {
                        "type": "error",
                        "error": {
                            "type": ERROR_TYPES.get(code, "api_error"),
                            "message": action[3] if len(action) > 3 else f"scripted {code}",
                        },
                    }
                    wait = action[2] if len(action) > 2 else 0
                    self._send(code, json.dumps(payload).encode(), {"retry-after": str(wait)})
                    return
                if action[0] == "raw":
                    self._send(200, action[1].encode(), {"content-type": action[2]})
                    return
                delay = action[1] if action[0] == "sleep" else 0.0
                message = _message(body, n, action, mock.usage)
                if not body.get("stream"):
                    time.sleep(delay)
                    self._send(200, json.dumps(message).encode())
                    return
                start, rest = _events(message, cut=action[0] == "cut")
                if action[0] == "reset":  # the head promises the whole body; half comes
                    self._send(
                        200,
                        start + rest,
                        {"content-type": "text/event-stream"},
                        0.2,
                        len(start),
                        reset=True,
                    )
                    return
                self._send(
                    200, start + rest, {"content-type": "text/event-stream"}, delay, len(start)
                )

            def _send(
                self,
                code: int,
                data: bytes,
                headers: dict[str, str] | None = None,
                delay: float = 0.0,
                split: int = 0,
                reset: bool = False,
            ) -> None:
                """Head and body; with `delay`, the first `split` bytes of the body
                go out at once and the rest after the delay (the model's time)."""
                fields = {"content-type": "application/json", "content-length": str(len(data))}
                fields.update(headers or {})
                head = (
                    f"{self.protocol_version} {code} {self.responses.get(code, ('Error',))[0]}\r\n"
                    + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
                ).encode() + b"\r\n"
                try:
                    if delay:
                        self.wfile.write(head + data[:split])
                        self.wfile.flush()
                        time.sleep(delay)
                        if reset:
                            self.close_connection = True
                            self.connection.shutdown(2)
                            return
                        self.wfile.write(data[split:])
                    else:  # head and body in one write, as a real server sends a small answer
                        self.wfile.write(head + data)
                    if code == 200:
                        with mock._lock:
                            mock.answered += 1
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler


def _message(
    body: dict[str, Any], n: int, action: tuple, billing: Billing | None = None
) -> dict[str, Any]:
    """The reply message a scripted action stands for (billed by `billing` if given)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": action[-1]}]
    if action[0] == "thinking":
        content.insert(0, {"type": "thinking", "thinking": action[1], "signature": "sig"})
    usage: Any = {
        "input_tokens": 100 + n,
        "output_tokens": 20,
        "cache_creation_input_tokens": 50 if n == 0 else 0,
        "cache_read_input_tokens": 0 if n == 0 else 50,
    }
    if action[0] == "usage":
        usage = action[1]
    elif billing is not None:
        usage = billing(body, n, action[-1])
    return {
        "id": f"msg_{n:04d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-test"),
        "content": content,
        "stop_reason": action[1] if action[0] == "stop" else "end_turn",
        "stop_sequence": None,
        "usage": usage,
    }


def _events(message: dict[str, Any], cut: bool = False) -> tuple[bytes, bytes]:
    """The message as the API streams it: (message_start, every later event);
    `cut`: the stream ends after the first text delta."""

    def event(data: dict[str, Any]) -> bytes:
        return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()

    usage = message["usage"]
    first = dict(usage, output_tokens=1) if isinstance(usage, dict) else usage
    start = event(
        {
            "type": "message_start",
            "message": {**message, "content": [], "usage": first, "stop_reason": None},
        }  # fmt: skip
    )
    rest = b""
    for i, block in enumerate(message["content"]):
        key = block["type"]
        rest += event({"type": "content_block_start", "index": i,
                       "content_block": {**block, key: ""}})  # fmt: skip
        rest += event({"type": "content_block_delta", "index": i,
                       "delta": {"type": f"{key}_delta", key: block[key]}})  # fmt: skip
        if cut and key == "text":
            return start, rest
        rest += event({"type": "content_block_stop", "index": i})
    out = {"output_tokens": usage["output_tokens"]} if isinstance(usage, dict) else usage
    rest += event(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": out,
        }  # fmt: skip
    )
    return start, rest + event({"type": "message_stop"})


def user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a request."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


def serve_with_latency(latency: float) -> None:
    """`python -m tests.support.mock_anthropic LATENCY`: a mock answering every request
    with the first legal column after LATENCY seconds (for benchmarks: the
    server's CPU is not billed to the league's process)."""
    import re

    def first_legal(body: dict[str, Any], n: int) -> tuple:
        legal = re.search(r"[Ll]egal moves?(?: \(\d+\))?:?\s*\n?(.*)", user_text(body))
        moves = re.findall(r"[\w-]+", legal.group(1)) if legal else []
        return ("sleep", latency, json.dumps({"move": moves[0] if moves else "d"}))

    mock = MockAnthropic(first_legal, keep_alive=True)
    with mock:
        print(mock.base_url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    import sys

    serve_with_latency(float(sys.argv[1]))
