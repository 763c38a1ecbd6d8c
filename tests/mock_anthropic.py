"""A local stand-in for the Anthropic Messages API, on 127.0.0.1.

Tests point the real `anthropic` client at it through `base_url`. Each POST to
/v1/messages is answered by the test's script: a function of the request body
(and the call number) returning one of
  ("text", str)            a normal reply
  ("sleep", seconds, str)  a reply that arrives late
  ("status", code)         an HTTP error (429, 500, 529, ...)
Every request is recorded (body and headers) for the test to inspect.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any], int], tuple]

ERROR_TYPES = {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


class MockAnthropic:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
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
                if action[0] == "sleep":
                    time.sleep(action[1])
                    action = ("text", action[2])
                if action[0] == "status":
                    code = action[1]
                    payload = {
                        "type": "error",
                        "error": {
                            "type": ERROR_TYPES.get(code, "api_error"),
                            "message": f"scripted {code}",
                        },
                    }
                    self._send(code, payload, {"retry-after": "0"})
                    return
                text = action[1]
                self._send(
                    200,
                    {
                        "id": f"msg_{n:04d}",
                        "type": "message",
                        "role": "assistant",
                        "model": body.get("model", "claude-test"),
                        "content": [{"type": "text", "text": text}],
                        "stop_reason": "end_turn",
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": 100 + n,
                            "output_tokens": 20,
                            "cache_creation_input_tokens": 50 if n == 0 else 0,
                            "cache_read_input_tokens": 0 if n == 0 else 50,
                        },
                    },
                )

            def _send(
                self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler


def user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a request."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)
