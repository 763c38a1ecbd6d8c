"""Batch mode: the Claude calls of many episodes, answered in rounds through the
Message Batches API at half the list price.

Each episode asks through its own `EpisodeCalls`; an ask first looks for the
call's answer in the store (a resumed episode replays what was paid for), else
joins the queue. When every open episode is waiting, the queue becomes one round:
its worst case reserved against the budget (the round shrinks to fit), split at
the API's limits, submitted, written to the store with every custom_id before it
is polled, polled with backoff, and its results handed back. A result that is
`errored`, `expired` or `canceled` is never a move: the request goes into a later
round and its episode is void once the patience has passed.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..prices import Price, batch_price, price_of, usage_of
from ..usage import Usage
from .batch_requests import (
    ERROR_CAUSES,
    Request,
    RoundStatus,
    answer_of,
    request_params,
    split,
    worst_columns,
    worst_of,
)
from .budget import BudgetExhausted, worst_case
from .claude import Answer
from .infra import InfraFailure, InfraPolicy, classify, retry_after
from .policy import ClaudePolicy

if TYPE_CHECKING:
    from ..league.batch_store import BatchStore, Sent
    from .budget import Budget


class EpisodeCalls:
    """One episode's side of the collector: what `Episode` asks through."""

    mode = "batch"
    #: A round has no per-call timeout (it may take hours).
    timeout = math.inf

    def __init__(self, collector: BatchClient, tag: str, entropy: str) -> None:
        self.collector = collector
        self.tag = tag
        self.entropy = entropy
        self.calls = 0

    async def ask(
        self,
        policy: ClaudePolicy,
        system: str,
        messages: list[dict[str, Any]],
        on_usage: Callable[[Usage], None] | None = None,
    ) -> Answer:
        """The answer to this episode's next call. Usage is recorded by the collector
        as results are read (`on_usage` is not used)."""
        call = self.calls
        self.calls += 1
        return await self.collector.ask(self.tag, call, policy, system, messages)

    async def close(self) -> None:
        self.collector.leave()


class BatchClient:
    """The collector and round loop of one league run (on the episodes' event loop)."""

    def __init__(
        self,
        store: BatchStore,
        *,
        ledger: Budget | None = None,
        infra: InfraPolicy | None = None,
        on_call: Callable[[str, int, Usage], None] | None = None,
        stopping: Callable[[], bool] = lambda: False,
        on_status: Callable[[RoundStatus], None] | None = None,
        gather_seconds: float = 0.5,
        poll_seconds: tuple[float, float] = (1.0, 60.0),
        base_url: str | None = None,
    ) -> None:
        self.store = store
        self.ledger = ledger
        self.infra = infra or InfraPolicy()
        self.on_call = on_call
        self.stopping = stopping
        self.on_status = on_status
        self.gather_seconds = gather_seconds
        self.poll_seconds = poll_seconds
        self.base_url = base_url
        self._sdk_client: Any = None
        self.queue: list[Request] = []
        #: Requests submitted and not yet answered, by custom_id.
        self.waiting: dict[str, Request] = {}
        self.active = 0
        self.finished = 0
        self.spent = 0.0
        self.round = store.last_round()
        #: Set by `cancel`: the batch in flight is canceled and no round follows.
        self.cancelling = False
        self.rounds_played: list[int] = []  # requests per round, this run
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        #: Requests of batches an earlier run submitted, until their results are read.
        self._unread: dict[str, Sent] = {}
        self._unread_reserved: set[str] = set()

    # ---- the episodes' side -------------------------------------------------

    def open(self, pairing: str, idx: int, entropy: str) -> EpisodeCalls:
        tag, entropy = self.store.episode(pairing, idx, entropy)
        self.active += 1
        return EpisodeCalls(self, tag, entropy)

    def leave(self) -> None:
        self.active -= 1
        self.finished += 1
        self._poke()

    async def ask(
        self, tag: str, call: int, policy: ClaudePolicy, system: str, messages: list[dict]
    ) -> Answer:
        self._start()
        entered = time.monotonic()
        price = batch_price(price_of(policy.model, policy.price))
        attempt = 0
        unread = None
        for cid, tried, outcome, result in self.store.history(tag, call):
            if outcome == "succeeded" and result is not None:  # paid for: replay it
                return answer_of(json.loads(result), price, 0.0, 0.0)
            attempt = tried + 1
            if outcome is None:
                unread = cid
        params = request_params(policy, system, messages)
        worst = worst_case(policy, system, messages)
        worst.cost_usd = price.worst(worst.input_tokens, worst.output_tokens)
        loop = asyncio.get_running_loop()
        request = Request(tag, call, attempt, params, price, worst, entered, loop.create_future())
        if unread is not None:  # in a batch submitted before: its result comes from there
            sent = self._unread.get(unread)
            if sent is None:
                raise InfraFailure("batch-unread", "a batch of this run could not be read")
            request.attempt -= 1
            request.worst = worst_of(sent)
            request.reserved = unread in self._unread_reserved
            self._unread_reserved.discard(unread)
            self.waiting[unread] = request
        else:
            self.queue.append(request)
        self._poke()
        return await request.future

    # ---- the round loop -----------------------------------------------------

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    @property
    def _sdk(self) -> Any:
        """The `anthropic` client (made on the episodes' loop, closed by `stop`)."""
        if self._sdk_client is None:
            import anthropic

            self._sdk_client = anthropic.AsyncAnthropic(
                max_retries=0, base_url=self.base_url, timeout=600.0
            )
        return self._sdk_client

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._reserve_unread()
            self._wake = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            await self._collect_unread()
            while True:
                await self._gather()
                await self._play_round()
        except Exception as err:  # no episode may wait for a loop that ended
            failure = InfraFailure("batch-error", f"{type(err).__name__}: {err}")
            self._fail([*self.queue, *self.waiting.values()], failure)
            self.queue.clear()
            self.waiting.clear()  # the next ask starts the loop again

    def _reserve_unread(self) -> None:
        """Requests of batches an earlier run submitted and did not read: their
        worst case is committed money, reserved before any new round."""
        for _, _, sent in self.store.unread():
            for s in sent:
                self._unread[s.custom_id] = s
                try:
                    if self.ledger is not None:
                        self.ledger.reserve(worst_of(s))
                        self._unread_reserved.add(s.custom_id)
                except BudgetExhausted:
                    pass

    async def _collect_unread(self) -> None:
        """Batches a killed run submitted: polled and read, never submitted again."""
        for batch_id, number, sent in self.store.unread():
            await self._await_batch(batch_id, RoundStatus(number, len(sent), "earlier"))

    async def _gather(self) -> None:
        """Return when every open episode waits for a call (and stayed so for the
        gather time, so that episodes starting now join this round); never after
        a stop (Ctrl-C): each ask is then dropped as it comes."""
        assert self._wake is not None
        while True:
            if self.stopping() or self.cancelling:  # no further round
                self._drop_queue()
            elif self.queue and len(self.queue) + len(self.waiting) >= self.active:
                n = len(self.queue)
                await asyncio.sleep(self.gather_seconds)
                settled = len(self.queue) == n and n + len(self.waiting) >= self.active
                if settled and not (self.stopping() or self.cancelling):
                    return
                continue
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), 0.2)
            except TimeoutError:
                pass

    def _drop_queue(self) -> None:
        """Ctrl-C: no further round; each waiting episode ends as interrupted."""
        for r in self.queue:
            r.future.cancel()
        self.queue.clear()

    def _take_round(self) -> list[Request]:
        """The queue's head that the budget covers (each request reserved at its worst).
        None fits: every queued episode is cut by the budget."""
        chosen: list[Request] = []
        for r in self.queue:
            if self.ledger is not None:
                try:
                    self.ledger.reserve(r.worst)
                except BudgetExhausted:
                    break
                r.reserved = True
            chosen.append(r)
        if not chosen:
            for r in self.queue:
                r.future.set_exception(BudgetExhausted())
        self.queue = self.queue[len(chosen) :] if chosen else []
        return chosen

    async def _play_round(self) -> None:
        chosen = self._take_round()
        if not chosen:
            return
        self.round += 1
        self.rounds_played.append(len(chosen))
        status = RoundStatus(self.round, len(chosen), time.strftime("%H:%M:%S", time.gmtime()))
        batches = []
        for part in split(chosen):
            batch_id = await self._submit(part)
            if batch_id is not None:
                batches.append(batch_id)
        await asyncio.gather(*(self._await_batch(b, status) for b in batches))

    async def _submit(self, part: list[Request]) -> str | None:
        """Create one batch (retried with backoff within the patience) and store it
        with every custom_id before polling. None: its requests failed."""
        import anthropic

        from ..league.batch_store import Sent, digest

        began = time.monotonic()
        tries = 0
        body = [{"custom_id": r.custom_id, "params": r.params} for r in part]
        while True:
            try:
                batch = await self._sdk.messages.batches.create(requests=body)  # type: ignore[arg-type]
                break
            except anthropic.APIError as err:
                cause, retryable = classify(err) or ("timeout", True)
                delay = self.infra.backoff(tries, retry_after(err))
                if not retryable or time.monotonic() + delay - began > self.infra.patience_seconds:
                    refused = InfraFailure(cause, f"batch not accepted: {err}", fatal=not retryable)
                    self._fail(part, refused)
                    return None
                tries += 1
                await asyncio.sleep(delay)
        sent = [
            Sent(r.custom_id, r.tag, r.call, r.attempt, digest(r.params), *worst_columns(r.worst))
            for r in part
        ]
        self.store.add_batch(batch.id, self.round, sent)
        for r in part:
            self.waiting[r.custom_id] = r
        return batch.id

    def _fail(self, part: list[Request], err: BaseException) -> None:
        for r in part:
            self._release(r, None)
            if not r.future.done():
                r.future.set_exception(err)

    def _release(self, r: Request, usage: Usage | None) -> None:
        if r.reserved and self.ledger is not None:
            self.ledger.settle(r.worst, usage)
            r.reserved = False
        if usage is not None:
            self.spent += usage.cost_usd

    async def _await_batch(self, batch_id: str, status: RoundStatus) -> None:
        """Poll until the batch ends (canceling it on `cancel`), then read its
        results. Failures to reach the API are waited out with backoff; past the
        patience the batch's episodes are void and it stays stored for a rerun."""
        import anthropic

        delay, longest = self.poll_seconds
        canceled = False
        failing_since: float | None = None
        while True:
            try:
                if self.cancelling and not canceled:
                    await self._sdk.messages.batches.cancel(batch_id)
                    canceled = True
                batch = await self._sdk.messages.batches.retrieve(batch_id)
                if batch.processing_status == "ended":
                    self._show(status, batch.request_counts.to_dict())
                    await self._read_results(batch_id)
                    return
                failing_since = None
            except anthropic.AnthropicError as err:
                failing_since = failing_since or time.monotonic()
                if time.monotonic() - failing_since > self.infra.patience_seconds:
                    cause = (classify(err) or ("batch-unread", True))[0]
                    self._fail_batch(batch_id, InfraFailure(cause, "batch unavailable"))
                    return
                await asyncio.sleep(self.infra.backoff(0, retry_after(err)))
                continue
            self._show(status, batch.request_counts.to_dict())
            await asyncio.sleep(delay)
            delay = min(longest, delay * 1.5)

    def _show(self, status: RoundStatus, counts: dict[str, int]) -> None:
        status.counts = counts
        status.finished, status.spent = self.finished, self.spent
        if self.on_status is not None:
            self.on_status(status)

    def _fail_batch(self, batch_id: str, err: InfraFailure) -> None:
        """The batch cannot be read now: its episodes are void; it stays stored as
        submitted, so a rerun reads it."""
        ids = {s.custom_id for b, _, sent in self.store.unread() if b == batch_id for s in sent}
        self._fail([r for cid, r in list(self.waiting.items()) if cid in ids], err)
        for cid in ids:
            self.waiting.pop(cid, None)

    async def _read_results(self, batch_id: str) -> None:
        rows: list[tuple[str, str, str | None, Usage | None]] = []
        answers: list[tuple[str, str, dict[str, Any] | None, Usage | None]] = []
        decoder = await self._sdk.messages.batches.results(batch_id)
        async for line in decoder:
            cid, result = line.custom_id, line.result
            request = self.waiting.get(cid)
            if result.type == "succeeded":
                message = result.message.to_dict()
                price = request.price if request else self._price_of(message)
                usage = usage_of(message.get("usage") or {}, price)
                rows.append((cid, "succeeded", json.dumps(message), usage))
                answers.append((cid, "succeeded", message, usage))
            else:
                outcome = result.type
                if result.type == "errored":
                    outcome = f"errored:{result.error.error.type}"
                rows.append((cid, outcome, None, None))
                answers.append((cid, outcome, None, None))
        self.store.add_results(rows)  # with each answer's usage in the league's calls
        self.store.collected(batch_id)
        for cid, outcome, message, answered in answers:
            self._deliver(cid, outcome, message, answered)

    def _price_of(self, message: dict[str, Any]) -> Price:
        return batch_price(price_of(str(message.get("model")), None))

    def _deliver(
        self, cid: str, outcome: str, message: dict[str, Any] | None, usage: Usage | None
    ) -> None:
        request = self.waiting.pop(cid, None)
        sent = self._unread.pop(cid, None)
        if request is not None and request.future.done():  # its episode was cancelled
            self._release(request, usage)
            return
        if request is None:  # a resumed episode that has not asked yet: it will replay
            if cid in self._unread_reserved and sent is not None and self.ledger is not None:
                self._unread_reserved.discard(cid)
                self.ledger.settle(worst_of(sent), usage)
            if usage is not None:
                self.spent += usage.cost_usd
                if self.on_call is not None and sent is not None:
                    self.on_call(*self.store.episode_of(sent.tag), usage)
            return
        self._release(request, usage)
        if message is not None and usage is not None:
            if self.on_call is not None:
                self.on_call(*self.store.episode_of(request.tag), usage)
            now = time.monotonic()
            request.future.set_result(answer_of(message, request.price, 0.0, now - request.entered))
            return
        self._requeue(request, outcome)

    def _requeue(self, request: Request, outcome: str) -> None:
        """Not a move: into a later round, or void after the patience (or at once
        for an error no retry fixes, or our own cancel)."""
        if outcome == "canceled" and self.cancelling:
            request.future.cancel()
            return
        cause, retryable = ERROR_CAUSES.get(outcome.removeprefix("errored:"), ("", True))
        cause = cause or f"batch-{outcome.replace(':', '-')}"
        now = time.monotonic()
        request.first_failure = request.first_failure or now
        if not retryable or now - request.first_failure > self.infra.patience_seconds:
            request.future.set_exception(
                InfraFailure(cause, f"batch request {outcome}", fatal=not retryable)
            )
            return
        request.attempt += 1
        self.queue.append(request)
        self._poke()

    # ---- stopping -----------------------------------------------------------

    async def stop(self, cancel: bool = False) -> None:
        """End the round loop (a later ask starts it again); with `cancel`, cancel
        every batch in flight and read what each had answered."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        if cancel:
            self.cancelling = True
            self._drop_queue()
            for batch_id, number, sent in self.store.unread():
                await self._await_batch(batch_id, RoundStatus(number, len(sent), "earlier"))
        if self._sdk_client is not None:
            await self._sdk_client.close()
            self._sdk_client = None
