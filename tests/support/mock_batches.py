"""A local stand-in for the Message Batches API (and the Messages API beside it),
on 127.0.0.1, answering with `mock_anthropic`'s scripted models.

  POST /v1/messages/batches               create: each request answered by the script
  GET  /v1/messages/batches/{id}          in_progress until `delay` seconds passed, then ended
  GET  /v1/messages/batches/{id}/results  the results as JSON Lines (once ended)
  POST /v1/messages/batches/{id}/cancel   ends the batch at once: every request canceled

The first `refuse_creates` creates are answered 529 (overloaded).

`outcome(custom_id, params, n)` may turn a request into ("errored", error_type) or
("expired",) instead of an answer. Every request a batch carried is recorded as
(custom_id, params) in `received`; `created` counts the batches.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.mock_anthropic import ERROR_TYPES, Billing, MockAnthropic, Script

Outcome = Callable[[str, dict[str, Any], int], tuple | None]
_BATCH = re.compile(r"^/v1/messages/batches/([\w-]+)(/results|/cancel)?$")


class MockBatches(MockAnthropic):
    def __init__(
        self,
        script: Script,
        delay: float = 0.2,
        outcome: Outcome | None = None,
        usage: Billing | None = None,
    ) -> None:
        super().__init__(script, keep_alive=True, usage=usage)
        self.delay = delay
        self.outcome = outcome
        self.received: list[tuple[str, dict[str, Any]]] = []
        self.batches: dict[str, dict[str, Any]] = {}
        self.created = 0
        self.sizes: list[int] = []
        #: Creates answered 529 before the next is accepted (a batch not accepted).
        self.refuse_creates = 0
        self.canceled: list[str] = []
        self._batch_lock = threading.Lock()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        mock = self
        base = super()._handler()

        class Handler(base):  # type: ignore[valid-type,misc]
            def _json(
                self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                self._send(code, json.dumps(payload).encode(), headers)

            def do_POST(self) -> None:  # noqa: N802
                if self.path == "/v1/messages/batches":
                    length = int(self.headers.get("content-length", 0))
                    body = json.loads(self.rfile.read(length))
                    if mock.refuse_creates > 0:
                        mock.refuse_creates -= 1
                        error = {"type": "overloaded_error", "message": "scripted 529"}
                        self._json(529, {"type": "error", "error": error}, {"retry-after": "0"})
                        return
                    self._json(200, mock._create(body["requests"]))
                    return
                m = _BATCH.match(self.path)
                if m and m.group(2) == "/cancel":
                    self._json(200, mock._cancel(m.group(1)))
                    return
                super().do_POST()

            def do_GET(self) -> None:  # noqa: N802
                m = _BATCH.match(self.path.split("?")[0])
                batch = mock.batches.get(m.group(1)) if m else None
                if m is None or batch is None:
                    self._json(404, {"type": "error", "error": {"type": "not_found_error"}})
                    return
                if m.group(2) == "/results":
                    lines = "".join(json.dumps(r) + "\n" for r in batch["results"]).encode()
                    head = (
                        f"{self.protocol_version} 200 OK\r\ncontent-type: application/binary"
                        f"\r\ncontent-length: {len(lines)}\r\n\r\n"
                    )
                    self.wfile.write(head.encode() + lines)
                    return
                self._json(200, mock._status(batch, self.headers.get("host", "")))

        return Handler

    def _create(self, requests: list[dict[str, Any]]) -> dict[str, Any]:
        with self._batch_lock:
            self.created += 1
            batch_id = f"msgbatch_{self.created:05d}"
            self.sizes.append(len(requests))
        results = []
        for r in requests:
            with self._lock:
                n = len(self.received)
                self.received.append((r["custom_id"], r["params"]))
            results.append({"custom_id": r["custom_id"], "result": self._result(r, n)})
        batch = {"id": batch_id, "results": results, "created": time.time(), "ended": None}
        self.batches[batch_id] = batch
        return self._status(batch, "")

    def _result(self, request: dict[str, Any], n: int) -> dict[str, Any]:
        params = request["params"]
        special = self.outcome(request["custom_id"], params, n) if self.outcome else None
        if special is not None and special[0] == "errored":
            error = {"type": special[1], "message": f"scripted {special[1]}"}
            return {"type": "errored", "error": {"type": "error", "error": error}}
        if special is not None:
            return {"type": special[0]}
        action = self.script(params, n)
        if action[0] == "status":
            error = {"type": ERROR_TYPES.get(action[1], "api_error"), "message": "scripted"}
            return {"type": "errored", "error": {"type": "error", "error": error}}
        text = action[-1]
        usage = (
            self.usage(params, n, text)
            if self.usage
            else {
                "input_tokens": 100 + n % 50,
                "output_tokens": 20,
                "cache_creation_input_tokens": 50 if n == 0 else 0,
                "cache_read_input_tokens": 0 if n == 0 else 50,
            }
        )
        message = {
            "id": f"msg_b{n:05d}",
            "type": "message",
            "role": "assistant",
            "model": params.get("model", "claude-test"),
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
        return {"type": "succeeded", "message": message}

    def _cancel(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        self.canceled.append(batch_id)
        if batch["ended"] is None:
            batch["ended"] = time.time()
            batch["results"] = [
                {"custom_id": r["custom_id"], "result": {"type": "canceled"}}
                for r in batch["results"]
            ]
        return self._status(batch, "")

    def _status(self, batch: dict[str, Any], host: str) -> dict[str, Any]:
        if batch["ended"] is None and time.time() - batch["created"] >= self.delay:
            batch["ended"] = time.time()
        ended = batch["ended"] is not None
        counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled", "expired"), 0)
        for r in batch["results"]:
            counts[r["result"]["type"] if ended else "processing"] += 1
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch["created"]))
        return {
            "id": batch["id"],
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": stamp,
            "expires_at": stamp,
            "ended_at": stamp if ended else None,
            "results_url": f"{self.base_url}/v1/messages/batches/{batch['id']}/results"
            if ended
            else None,
        }


def serve(delay: float) -> None:
    """`python -m tests.support.mock_batches DELAY`: a batch server answering every request
    with a random legal move, each batch DELAY seconds after it is created (for
    measurements: the server's CPU is not billed to the league's process)."""
    from tests.support.mock_anthropic import random_legal

    mock = MockBatches(random_legal, delay=delay)
    with mock:
        print(mock.base_url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    import sys

    serve(float(sys.argv[1]))
