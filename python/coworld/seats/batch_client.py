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

from ..prices import Price, batch_price, price_of
from ..usage import Usage
from .batch_api import BatchApi
from .batch_requests import (
    ERROR_CAUSES,
    Request,
    RoundStatus,
    RoundStore,
    Sent,
    answer_of,
    request_params,
    worst_of,
)
from .batch_rounds import RoundLoop
from .budget import BudgetExhausted, worst_case
from .claude import Answer
from .infra import InfraFailure, InfraPolicy
from .policy import ClaudePolicy

if TYPE_CHECKING:
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
    """The collector of one league run (on the episodes' event loop): the episodes'
    calls, the budget's reservations and each result's delivery; its `loop` plays
    the rounds (`batch_rounds.py`)."""

    def __init__(
        self,
        store: RoundStore,
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
        self.api = BatchApi(self.infra, poll_seconds, base_url)
        self.loop = RoundLoop(self, self.api, gather_seconds)
        self.queue: list[Request] = []
        #: Requests submitted and not yet answered, by custom_id.
        self.waiting: dict[str, Request] = {}
        self.active = 0
        self.finished = 0
        self.spent = 0.0
        #: Set by `cancel`: the batch in flight is canceled and no round follows.
        self.cancelling = False
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
        self.loop.poke()

    async def ask(
        self, tag: str, call: int, policy: ClaudePolicy, system: str, messages: list[dict]
    ) -> Answer:
        self.loop.start()
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
        self.loop.poke()
        return await request.future

    def reserve_unread(self) -> None:
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

    def drop_queue(self) -> None:
        """Ctrl-C: no further round; each waiting episode ends as interrupted."""
        for r in self.queue:
            r.future.cancel()
        self.queue.clear()

    def take_round(self) -> list[Request]:
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

    def fail(self, part: list[Request], err: BaseException) -> None:
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

    def price_for(self, cid: str, message: dict[str, Any]) -> Price:
        request = self.waiting.get(cid)
        if request is not None:
            return request.price
        return batch_price(price_of(str(message.get("model")), None))

    def deliver(
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
        self.loop.poke()

    # ---- stopping -----------------------------------------------------------

    async def stop(self, cancel: bool = False) -> None:
        """End the round loop (a later ask starts it again); with `cancel`, cancel
        every batch in flight and read what each had answered."""
        await self.loop.stop()
        if cancel:
            self.cancelling = True
            self.drop_queue()
            for batch_id, number, sent in self.store.unread():
                await self.loop.await_batch(batch_id, RoundStatus(number, len(sent), "earlier"))
        await self.api.close()
