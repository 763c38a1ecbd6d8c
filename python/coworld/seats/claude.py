"""Claude seats: one Messages API call per decision through the real `anthropic`
client (its aiohttp backend), with prompt caching on the system prompt, and usage
and cost accounting."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..prices import Price, price_of, usage_of
from ..usage import Usage
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
