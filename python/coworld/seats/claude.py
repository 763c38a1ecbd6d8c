"""Claude seats: one Messages API call per decision through the real `anthropic`
client, with prompt caching on the system prompt, and usage and cost accounting."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .policy import ClaudePolicy

#: USD per million tokens: (input, output). Cache writes cost 1.25x input, reads 0.1x.
PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4": (15.0, 75.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
}
DEFAULT_PRICE = (3.0, 15.0)


def price_of(model: str) -> tuple[float, float]:
    """The price row whose name is the longest prefix of `model` (dated ids included)."""
    best = max((k for k in PRICES if model.startswith(k)), key=len, default=None)
    return PRICES[best] if best else DEFAULT_PRICE


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def add(self, other: Usage) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def tokens(self) -> int:
        """Every token billed: input, output, cache writes and cache reads."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )

    @classmethod
    def total(cls, parts: Iterable[Usage]) -> Usage:
        out = cls()
        for u in parts:
            out.add(u)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Usage:
        """Usage from `as_dict` output (missing fields are zero)."""
        return cls(**{k: d.get(k, 0) for k in cls.__dataclass_fields__})

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["cost_usd"] = round(self.cost_usd, 6)
        return d


def usage_of(model: str, raw: Any) -> Usage:
    """Usage (with cost) from a Messages API `usage` object."""
    u = Usage(
        input_tokens=getattr(raw, "input_tokens", 0) or 0,
        output_tokens=getattr(raw, "output_tokens", 0) or 0,
        cache_creation_input_tokens=getattr(raw, "cache_creation_input_tokens", 0) or 0,
        cache_read_input_tokens=getattr(raw, "cache_read_input_tokens", 0) or 0,
        calls=1,
    )
    pin, pout = price_of(model)
    u.cost_usd = (
        u.input_tokens * pin
        + u.output_tokens * pout
        + u.cache_creation_input_tokens * pin * 1.25
        + u.cache_read_input_tokens * pin * 0.1
    ) / 1e6
    return u


@dataclass
class Answer:
    text: str
    usage: Usage
    latency: float
    stop_reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def has_credentials() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


class ClaudeClient:
    """One async `anthropic` client shared by every Claude seat of a run.

    Transport errors, rate limits and overloads are retried by the client's own
    backoff (`max_retries`) inside the caller's timeout; what still fails
    surfaces as an `anthropic.APIError`, which the runner records as `api-error`.
    """

    def __init__(
        self, *, timeout: float, max_retries: int = 2, base_url: str | None = None
    ) -> None:
        import anthropic

        self._client = anthropic.AsyncAnthropic(
            timeout=timeout, max_retries=max_retries, base_url=base_url
        )

    async def ask(
        self, policy: ClaudePolicy, system: str, messages: list[dict[str, Any]]
    ) -> Answer:
        started = time.monotonic()
        options: dict[str, Any] = {}
        if policy.effort:
            options["output_config"] = {"effort": policy.effort}
        if policy.temperature is not None:
            options["extra_body"] = {"temperature": policy.temperature}
        response = await self._client.messages.create(
            model=policy.model,
            max_tokens=policy.max_tokens,
            system=[{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            messages=messages,  # type: ignore[arg-type]
            **options,
        )
        text = "".join(getattr(block, "text", "") for block in response.content)
        return Answer(
            text=text,
            usage=usage_of(policy.model, response.usage),
            latency=time.monotonic() - started,
            stop_reason=response.stop_reason,
        )

    async def close(self) -> None:
        await self._client.close()
