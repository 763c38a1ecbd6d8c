"""The Message Batches API as batch mode uses it, through the real `anthropic`
client: create a batch (retried with backoff within the patience), poll it until
it ends (canceling it when asked), and read its results, priced. What the
results mean for episodes and the budget is the collector's (`batch_client.py`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..prices import Price, usage_of
from ..usage import Usage
from .infra import InfraFailure, InfraPolicy, classify, retry_after


@dataclass(frozen=True)
class Result:
    """One request's result: its outcome (succeeded, errored:<type>, expired,
    canceled), and for a succeeded one its message and usage."""

    custom_id: str
    outcome: str
    message: dict[str, Any] | None = None
    usage: Usage | None = None


class BatchApi:
    def __init__(
        self,
        infra: InfraPolicy,
        poll_seconds: tuple[float, float] = (1.0, 60.0),
        base_url: str | None = None,
    ) -> None:
        self.infra = infra
        self.poll_seconds = poll_seconds
        self.base_url = base_url
        self._client: Any = None

    @property
    def sdk(self) -> Any:
        """The `anthropic` client (made on the episodes' loop, closed by `close`)."""
        if self._client is None:
            import anthropic

            self._client = anthropic.AsyncAnthropic(
                max_retries=0, base_url=self.base_url, timeout=600.0
            )
        return self._client

    async def create(self, body: list[dict[str, Any]]) -> str:
        """A new batch's id. Refused for good, or unavailable past the patience:
        `InfraFailure` naming the cause."""
        import anthropic

        began = time.monotonic()
        tries = 0
        while True:
            try:
                batch = await self.sdk.messages.batches.create(requests=body)
                return str(batch.id)
            except anthropic.APIError as err:
                cause, retryable = classify(err) or ("timeout", True)
                delay = self.infra.backoff(tries, retry_after(err))
                if not retryable or time.monotonic() + delay - began > self.infra.patience_seconds:
                    raise InfraFailure(
                        cause, f"batch not accepted: {err}", fatal=not retryable
                    ) from None
                tries += 1
                await asyncio.sleep(delay)

    async def wait(
        self,
        batch_id: str,
        cancel: Callable[[], bool],
        show: Callable[[dict[str, int]], None],
    ) -> InfraFailure | None:
        """Poll until the batch ends (canceling it once `cancel()` says so), showing
        its request counts at each poll. Failures to reach the API are waited out
        with backoff; past the patience, the failure (the batch stays unread)."""
        import anthropic

        delay, longest = self.poll_seconds
        canceled = False
        failing_since: float | None = None
        while True:
            try:
                if cancel() and not canceled:
                    await self.sdk.messages.batches.cancel(batch_id)
                    canceled = True
                batch = await self.sdk.messages.batches.retrieve(batch_id)
                show(batch.request_counts.to_dict())
                if batch.processing_status == "ended":
                    return None
                failing_since = None
            except anthropic.AnthropicError as err:
                failing_since = failing_since or time.monotonic()
                if time.monotonic() - failing_since > self.infra.patience_seconds:
                    cause = (classify(err) or ("batch-unread", True))[0]
                    return InfraFailure(cause, "batch unavailable")
                await asyncio.sleep(self.infra.backoff(0, retry_after(err)))
                continue
            await asyncio.sleep(delay)
            delay = min(longest, delay * 1.5)

    async def results(
        self, batch_id: str, price: Callable[[str, dict[str, Any]], Price]
    ) -> list[Result]:
        """Every result of an ended batch; a succeeded one's usage at `price(custom_id,
        message)`."""
        out = []
        decoder = await self.sdk.messages.batches.results(batch_id)
        async for line in decoder:
            cid, result = line.custom_id, line.result
            if result.type == "succeeded":
                message = result.message.to_dict()
                usage = usage_of(message.get("usage") or {}, price(cid, message))
                out.append(Result(cid, "succeeded", message, usage))
            elif result.type == "errored":
                out.append(Result(cid, f"errored:{result.error.error.type}"))
            else:
                out.append(Result(cid, result.type))
        return out

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
