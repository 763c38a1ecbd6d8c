"""Batch mode's requests and results: the batch rate, one request's params, a
request waiting for its round, the API's limits on a batch, and an `Answer` from
a succeeded result."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..prices import Price, usage_of
from ..usage import Usage
from .claude import Answer
from .policy import ClaudePolicy

#: The API's limits on one batch (requests, and bytes with some room for the envelope).
MAX_REQUESTS = 100_000
MAX_BYTES = 256 * 1024 * 1024 - 1024 * 1024

#: Error types no retry fixes (the realtime client's refusals), as its status causes.
ERROR_CAUSES = {
    "invalid_request_error": ("http-400", False),
    "authentication_error": ("http-401", False),
    "billing_error": ("http-402", False),
    "permission_error": ("http-403", False),
    "not_found_error": ("http-404", False),
    "request_too_large": ("http-413", False),
    "rate_limit_error": ("http-429", True),
    "api_error": ("http-500", True),
    "timeout_error": ("http-504", True),
    "overloaded_error": ("http-529", True),
}


def request_params(policy: ClaudePolicy, system: str, messages: list[dict[str, Any]]) -> dict:
    """One request's `params`: the realtime call's body (prompt caching on)."""
    params: dict[str, Any] = {
        "model": policy.model,
        "max_tokens": policy.max_tokens,
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
    }
    if policy.effort:
        params["output_config"] = {"effort": policy.effort}
    if policy.temperature is not None:
        params["temperature"] = policy.temperature
    if policy.thinking_param is not None:
        params["thinking"] = policy.thinking_param
    return params


@dataclass
class Request:
    """A call waiting for its round (or for the batch it was submitted in)."""

    tag: str
    call: int
    attempt: int
    params: dict[str, Any]
    price: Price
    worst: Usage
    entered: float
    future: asyncio.Future[Answer]
    first_failure: float | None = None
    reserved: bool = False

    @property
    def custom_id(self) -> str:
        return custom_id(self.tag, self.call, self.attempt)


@dataclass
class RoundStatus:
    """What the progress line shows of the round in flight."""

    number: int
    requests: int
    submitted: str
    counts: dict[str, int] = field(default_factory=dict)
    finished: int = 0
    spent: float = 0.0

    def line(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in self.counts.items() if v)
        return (
            f"batch round {self.number}: {self.requests} requests, submitted {self.submitted}"
            f" UTC; {counts or 'submitting'}; {self.finished} episodes finished; "
            f"spent ${self.spent:.4f} this run"
        )


def worst_columns(worst: Usage) -> tuple[int, float]:
    return worst.tokens, worst.cost_usd


def worst_of(sent: Sent) -> Usage:
    """The reservation a stored request made."""
    return Usage(input_tokens=sent.worst_tokens, cost_usd=sent.worst_cost, calls=1)


def split(requests: list[Request]) -> list[list[Request]]:
    """Batches within the API's limits on requests and bytes."""
    parts: list[list[Request]] = [[]]
    size = 0
    for r in requests:
        n = len(json.dumps(r.params)) + 100
        if parts[-1] and (len(parts[-1]) >= MAX_REQUESTS or size + n > MAX_BYTES):
            parts.append([])
            size = 0
        parts[-1].append(r)
        size += n
    return parts


def answer_of(message: dict[str, Any], price: Price, latency: float, waited: float) -> Answer:
    """An `Answer` from a succeeded result's message. `waited`: the whole wait for
    the round, none of it the episode's clock."""
    content = message.get("content") or []
    thinking = [b["thinking"] for b in content if b.get("type") == "thinking"]
    return Answer(
        text="".join(b.get("text", "") for b in content if b.get("type") == "text"),
        usage=usage_of(message.get("usage") or {}, price),
        latency=latency,
        stop_reason=message.get("stop_reason"),
        extra={"thinking": "\n".join(thinking)} if thinking else {},
        waited=waited,
    )


@dataclass(frozen=True)
class Sent:
    """One request as submitted: where its answer goes and what it reserved."""

    custom_id: str
    tag: str
    call: int
    attempt: int
    digest: str
    worst_tokens: int
    worst_cost: float


def custom_id(tag: str, call: int, attempt: int) -> str:
    """The request's id in its batch: the episode's tag, the call's number in the
    episode, the attempt (a re-queued request is a new attempt)."""
    return f"{tag}-{call}-{attempt}"


def digest(params: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:32]


class RoundStore(Protocol):
    """Where batch mode keeps its episodes, batches, requests and results, so that
    nothing is paid twice (the league's `BatchStore`)."""

    def last_round(self) -> int: ...

    def episode(self, pairing: str, idx: int, entropy: str) -> tuple[str, str]: ...

    def episode_of(self, tag: str) -> tuple[str, int]: ...

    def history(self, tag: str, call: int) -> list[tuple[str, int, str | None, str | None]]: ...

    def unread(self) -> list[tuple[str, int, list[Sent]]]: ...

    def add_batch(self, batch_id: str, round_no: int, sent: Iterable[Sent]) -> None: ...

    def add_results(self, rows: list[tuple[str, str, str | None, Usage | None]]) -> None: ...

    def collected(self, batch_id: str) -> None: ...
