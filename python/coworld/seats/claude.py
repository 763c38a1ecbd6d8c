"""Claude seats: one Messages API call per decision through the real `anthropic`
client (its aiohttp backend), with prompt caching on the system prompt, and usage
and cost accounting."""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .infra import (
    CircuitBreaker,
    InfraFailure,
    InfraPolicy,
    ModelTimeout,
    RequestRejected,
    classify,
    retry_after,
    retryable_cause,
)
from .policy import ClaudePolicy
from .stream import Unusable, first_line, read_answer, text_lines

if TYPE_CHECKING:
    from .budget import Budget

#: Cache writes (5-minute) cost 1.25x the input price on every model listed here.
CACHE_WRITE = 1.25
#: Cache reads where a row or an override does not give their price: 0.1x input.
CACHE_READ = 0.1


@dataclass(frozen=True)
class Price:
    """USD per million tokens. `long`: (prompt tokens, price) for a model billed
    at another tier when a request's prompt (input plus cache reads and writes)
    is longer than that, on every token of the request."""

    input: float
    output: float
    cache_read: float | None = None
    long: tuple[int, Price] | None = None

    def tier(self, prompt_tokens: int) -> Price:
        if self.long is not None and prompt_tokens > self.long[0]:
            return self.long[1]
        return self

    def cost(self, u: Usage) -> float:
        """The cost of one call's usage."""
        p = self.tier(u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens)
        read = p.input * CACHE_READ if p.cache_read is None else p.cache_read
        return (
            u.input_tokens * p.input
            + u.output_tokens * p.output
            + u.cache_creation_input_tokens * p.input * CACHE_WRITE
            + u.cache_read_input_tokens * read
        ) / 1e6

    def worst(self, tokens_in: int, tokens_out: int) -> float:
        """The most a call of `tokens_in` prompt tokens (all written to the cache)
        and `tokens_out` output can cost."""
        p = self.tier(tokens_in)
        return (tokens_in * p.input * CACHE_WRITE + tokens_out * p.output) / 1e6


#: Published list prices by model id (a row also prices the id's dated snapshots,
#: `ID-YYYYMMDD`; never a longer id: `claude-opus-5` does not price `claude-opus-5-5`).
#: Sources (December 2026): https://platform.claude.com/docs/en/about-claude/pricing
#: and each model's page, https://platform.claude.com/docs/en/models/<model>/overview
#: (cache writes 1.25x input; cache reads as the page gives them, else 0.1x).
#: Ids the installed client lists without a published price here (claude-fable-5-2,
#: claude-mythos-5-2, claude-mythos-preview) need a `price` in the policy file or
#: the league's [prices] table: loading fails otherwise, rather than billing a guess.
PRICES: dict[str, Price] = {
    "claude-fable-5-1": Price(10.0, 50.0, cache_read=0.25),
    "claude-mythos-5-1": Price(10.0, 50.0, cache_read=0.25),
    "claude-fable-5": Price(10.0, 50.0, cache_read=1.0),
    "claude-mythos-5": Price(10.0, 50.0, cache_read=1.0),
    "claude-opus-5-5": Price(4.0, 20.0, cache_read=0.20),
    "claude-opus-5": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-8": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-7": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-6": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-5": Price(5.0, 25.0, cache_read=0.50),
    "claude-opus-4-1": Price(15.0, 75.0, cache_read=1.50),
    "claude-opus-4": Price(15.0, 75.0, cache_read=1.50),
    # the model page gives cache reads $0.20; later reports of a cut to $0.10 are
    # not on it, and a budget is a cap: the higher figure stays
    "claude-sonnet-5-5": Price(2.0, 10.0, cache_read=0.20),
    "claude-sonnet-5": Price(2.0, 10.0),
    "claude-sonnet-4-6": Price(3.0, 15.0),
    "claude-sonnet-4-5": Price(3.0, 15.0),
    "claude-sonnet-4": Price(3.0, 15.0),
    # "from $0.10 / $0.50": prompts over 100,000 tokens are billed at the second tier
    "claude-haiku-5-5": Price(0.10, 0.50, long=(100_000, Price(0.50, 2.50))),
    "claude-haiku-4-5": Price(1.0, 5.0),
    "claude-3-5-haiku": Price(0.8, 4.0),
}
#: Prices the league file's [prices] table added (see `add_prices`), by model id or prefix.
_EXTRA_PRICES: dict[str, tuple[float, float]] = {}
_DATED = re.compile(r"-\d{8}$")


def user_price(model: str) -> tuple[float, float] | None:
    """The league's [prices] row whose name is the longest prefix of `model`, if any."""
    best = max((k for k in _EXTRA_PRICES if model.startswith(k)), key=len, default=None)
    return None if best is None else _EXTRA_PRICES[best]


def price_of(model: str, override: tuple[float, float] | None = None) -> Price:
    """The override, else the league's [prices] row, else the published price of
    the model id (or the id it is a dated snapshot of)."""
    given = override or user_price(model)
    if given is not None:
        return Price(*given)
    row = PRICES.get(model) or PRICES.get(_DATED.sub("", model))
    if row is None:
        raise ConfigError(
            f"no price for model {model!r}: give `price = [input, output]` (USD per "
            "million tokens) in the policy file or the league's [prices] table",
            "price",
        )
    return row


def check_price(model: str, override: tuple[float, float] | None, where: str = "") -> None:
    try:
        price_of(model, override)
    except ConfigError as err:
        raise ConfigError(where + str(err), "price") from err


def add_prices(prices: Mapping[str, tuple[float, float]]) -> None:
    """Prices for model ids (or prefixes) from a league file's [prices] table."""
    _EXTRA_PRICES.update(prices)


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def add(self, other: Usage) -> None:
        # field by field, not by a loop over the fields: five times a decision
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_creation_input_tokens += other.cache_creation_input_tokens
        self.cache_read_input_tokens += other.cache_read_input_tokens
        self.cost_usd += other.cost_usd
        self.calls += other.calls

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


def usage_of(raw: Mapping[str, Any], price: Price) -> Usage:
    """Usage (with cost at `price`) from a Messages API answer's `usage` object."""
    u = Usage(
        input_tokens=raw.get("input_tokens") or 0,
        output_tokens=raw.get("output_tokens") or 0,
        cache_creation_input_tokens=raw.get("cache_creation_input_tokens") or 0,
        cache_read_input_tokens=raw.get("cache_read_input_tokens") or 0,
        calls=1,
    )
    u.cost_usd = price.cost(u)
    return u


@dataclass
class Answer:
    text: str
    usage: Usage
    #: The model's answering time (the successful request only).
    latency: float
    stop_reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: Seconds spent waiting out infrastructure failures before this answer, and how many.
    waited: float = 0.0
    infra_retries: list[str] = field(default_factory=list)


def has_credentials() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY"))


class ClaudeClient:
    """One async `anthropic` client shared by every Claude seat of a run.

    The client's own retries are off: infrastructure failures (transport errors,
    429, 5xx, 529, answers it cannot read, an API that accepts a request and
    sends nothing) are retried here with backoff and jitter under the run's
    patience and its circuit breaker (`seats.infra`), and never reach the model.
    Answers stream in: the API has `timeout` seconds to send the first event (its
    acceptance; past that the call is `hung`, an outage), then the model has
    `timeout` seconds to finish (past that, `ModelTimeout`: the model's own).
    """

    def __init__(
        self,
        *,
        timeout: float,
        infra: InfraPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        base_url: str | None = None,
        ledger: Budget | None = None,
    ) -> None:
        import anthropic

        self.timeout = timeout
        self.infra = infra or (breaker.policy if breaker else InfraPolicy())
        self.breaker = breaker or CircuitBreaker(self.infra)
        self.ledger = ledger
        self._prices: dict[tuple[str, tuple[float, float] | None], Price] = {}
        # The transport's own limit stays clear of ours: acceptance plus generation.
        limit = 2 * timeout + 5.0
        # The SDK's aiohttp backend (the `anthropic[aiohttp]` extra) costs about half
        # the CPU per call of its default httpx one; a proxy from the environment is
        # honoured by the default client only, so that case keeps it.
        http = anthropic.DefaultAioHttpClient(timeout=limit) if _direct(base_url) else None
        # Without an OpenTelemetry tracer provider the client's spans record nothing and
        # send no header, yet it builds each call's span attributes (~7% of its CPU);
        # `open_telemetry=False` skips them. A configured provider keeps its spans.
        self._sdk = anthropic.AsyncAnthropic(
            timeout=limit,
            max_retries=0,
            base_url=base_url,
            http_client=http,
            open_telemetry=None if _tracing_configured() else False,
        )

    async def ask(
        self,
        policy: ClaudePolicy,
        system: str,
        messages: list[dict[str, Any]],
        on_usage: Callable[[Usage], None] | None = None,
    ) -> Answer:
        """One answer, after as many infrastructure retries as the patience allows.
        With a ledger, each request reserves its worst case first (BudgetExhausted
        when it does not fit); `on_usage` hears each billed request's usage at once
        (the answer's, and any an unreadable answer reported)."""
        worst = None
        if self.ledger is not None:
            from .budget import worst_case

            worst = worst_case(policy, system, messages)
            self.ledger.reserve(worst)
        spent = Usage()

        def billed(usage: Usage) -> None:
            spent.add(usage)
            if on_usage is not None:
                on_usage(usage)

        try:
            answer = await self._ask(policy, system, messages, billed)
            billed(answer.usage)
            return answer
        finally:
            if self.ledger is not None and worst is not None:
                self.ledger.settle(worst, spent if spent.calls else None)

    async def _ask(
        self,
        policy: ClaudePolicy,
        system: str,
        messages: list[dict[str, Any]],
        billed: Callable[[Usage], None],
    ) -> Answer:
        import anthropic

        entered = time.monotonic()
        deadline = entered + self.infra.patience_seconds
        retries: list[str] = []
        while True:
            probe = await self.breaker.admit(deadline)
            accepted: list[float] = []
            wait_at_least = None
            try:
                response = await self._send(policy, system, messages, accepted)
            except (TimeoutError, anthropic.APITimeoutError) as err:
                if accepted:  # the API answered and the model did not finish: its own
                    self.breaker.release_probe(probe)
                    raise ModelTimeout(accepted[0] - entered) from err
                cause, detail = "hung", f"no answer began within {self.timeout:g} s"
            except anthropic.APIError as err:
                cause = (classify(err) or ("error", False))[0]
                detail, wait_at_least = _safe_error(err), retry_after(err)
            except Unusable as err:
                if err.usage is not None:
                    billed(self._usage(policy, err.usage))
                cause, detail = err.cause, err.detail
            except BaseException:
                self.breaker.release_probe(probe)
                raise
            else:
                self.breaker.record(True, probe=probe)
                return self._answer(policy, response, accepted[0], entered, retries)
            self.breaker.record(False, cause, probe)
            if cause == "http-400":  # the request itself: every retry would be refused
                raise RequestRejected(policy.path or policy.name, detail)
            if not retryable_cause(cause):
                raise InfraFailure(cause, detail, fatal=True)
            delay = self.infra.backoff(len(retries), wait_at_least)
            if time.monotonic() + delay > deadline:
                raise InfraFailure(cause, f"{cause} for longer than the patience: {detail}")
            retries.append(cause)
            await asyncio.sleep(delay)

    def _answer(
        self,
        policy: ClaudePolicy,
        response: dict[str, Any],
        accepted: float,
        entered: float,
        retries: list[str],
    ) -> Answer:
        content = response["content"]
        thinking = [b.get("thinking", "") for b in content if b.get("type") == "thinking"]
        return Answer(
            text="".join(b.get("text", "") for b in content if b.get("type") == "text"),
            extra={"thinking": "\n".join(thinking)} if thinking else {},
            usage=self._usage(policy, response["usage"]),
            latency=time.monotonic() - accepted,
            stop_reason=response.get("stop_reason"),
            waited=accepted - entered,
            infra_retries=retries,
        )

    def _usage(self, policy: ClaudePolicy, raw: Mapping[str, Any]) -> Usage:
        """`usage_of`, with each policy's price looked up once per client."""
        key = (policy.model, policy.price)
        price = self._prices.get(key)
        if price is None:
            price = self._prices[key] = price_of(policy.model, policy.price)
        return usage_of(raw, price)

    async def _send(
        self,
        policy: ClaudePolicy,
        system: str,
        messages: list[dict[str, Any]],
        accepted: list[float],
    ) -> dict[str, Any]:
        """The answer as the API's message JSON, assembled from its stream; the time
        its first event arrived is appended to `accepted`. An HTTP or connection
        error raises as the SDK's exception, an unreadable answer as `Unusable`,
        and `TimeoutError` ends a wait longer than the timeout (for acceptance,
        then again for the model's answer)."""
        async with asyncio.timeout(self.timeout) as limit:  # no task per call, as wait_for
            stream = self._sdk.messages.with_streaming_response.create(
                **request(policy, system, messages)
            )
            async with stream as raw:
                lines = text_lines(raw.http_response.aiter_bytes())
                first = await first_line(lines)
                accepted.append(time.monotonic())
                limit.reschedule(accepted[0] + self.timeout)
                return await read_answer(first, lines)

    async def close(self) -> None:
        await self._sdk.close()


def request(policy: ClaudePolicy, system: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The Messages API request of one call, as the installed client takes it."""
    body: dict[str, Any] = {
        "model": policy.model,
        "max_tokens": policy.max_tokens,
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
        "stream": True,
    }
    if policy.effort:
        body["output_config"] = {"effort": policy.effort}
    if policy.temperature is not None:  # the 2.x client has no `temperature` argument
        body["extra_body"] = {"temperature": policy.temperature}
    if policy.thinking_param is not None:
        body["thinking"] = policy.thinking_param
    return body


def _tracing_configured() -> bool:
    """Whether OpenTelemetry has a tracer provider to give the client's spans to (set
    by the application, or named by `OTEL_PYTHON_TRACER_PROVIDER`)."""
    try:
        from opentelemetry import trace
    except ImportError:
        return False
    if os.environ.get("OTEL_PYTHON_TRACER_PROVIDER"):
        return True
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _direct(base_url: str | None) -> bool:
    """Whether no proxy from the environment applies to the API's host."""
    import urllib.parse
    import urllib.request

    url = urllib.parse.urlsplit(
        base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
    )
    proxies = urllib.request.getproxies()
    proxy = proxies.get(url.scheme) or proxies.get("all")
    return not proxy or bool(urllib.request.proxy_bypass(url.hostname or ""))


def _safe_error(err: Exception) -> str:
    """An API error's message (the API's own words when its body gives them),
    without anything that could carry a credential."""
    status = getattr(err, "status_code", None)
    body = getattr(err, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        text = f"{error.get('type', 'error')}: {error['message']}"
    else:
        text = str(getattr(err, "message", "") or err)
    return (f"HTTP {status}: " if status else "") + text[:200]
