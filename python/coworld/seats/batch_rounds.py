"""Batch mode's round loop, on the episodes' event loop: when every open episode
waits for a call, the queue becomes one round, which the collector reserves
against the budget (it shrinks to fit); the round is split at the API's limits,
submitted, stored with every custom_id before it is polled, polled, and its
results read and handed to the collector."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..prices import Price
from ..usage import Usage
from .batch_api import BatchApi
from .batch_requests import Request, RoundStatus, RoundStore, Sent, digest, split, worst_columns
from .infra import InfraFailure


class Collector(Protocol):
    """What the loop reads and calls of its collector (`batch_client.BatchClient`)."""

    store: RoundStore
    queue: list[Request]
    waiting: dict[str, Request]
    active: int
    finished: int
    spent: float
    cancelling: bool
    stopping: Callable[[], bool]
    on_status: Callable[[RoundStatus], None] | None

    def take_round(self) -> list[Request]: ...

    def drop_queue(self) -> None: ...

    def reserve_unread(self) -> None: ...

    def fail(self, part: list[Request], err: BaseException) -> None: ...

    def price_for(self, cid: str, message: dict[str, Any]) -> Price: ...

    def deliver(
        self, cid: str, outcome: str, message: dict[str, Any] | None, usage: Usage | None
    ) -> None: ...


class RoundLoop:
    def __init__(self, collector: Collector, api: BatchApi, gather_seconds: float) -> None:
        self.c = collector
        self.api = api
        self.gather_seconds = gather_seconds
        self.round = collector.store.last_round()
        self.rounds_played: list[int] = []  # requests per round, this run
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    def poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def start(self) -> None:
        if self._task is None or self._task.done():
            self.c.reserve_unread()
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
            self.c.fail([*self.c.queue, *self.c.waiting.values()], failure)
            self.c.queue.clear()
            self.c.waiting.clear()  # the next ask starts the loop again

    async def _collect_unread(self) -> None:
        """Batches a killed run submitted: polled and read, never submitted again."""
        for batch_id, number, sent in self.c.store.unread():
            await self.await_batch(batch_id, RoundStatus(number, len(sent), "earlier"))

    async def _gather(self) -> None:
        """Return when every open episode waits for a call (and stayed so for the
        gather time, so that episodes starting now join this round); never after
        a stop (Ctrl-C): each ask is then dropped as it comes."""
        assert self._wake is not None
        while True:
            if self.c.stopping() or self.c.cancelling:  # no further round
                self.c.drop_queue()
            elif self.c.queue and len(self.c.queue) + len(self.c.waiting) >= self.c.active:
                n = len(self.c.queue)
                await asyncio.sleep(self.gather_seconds)
                settled = len(self.c.queue) == n and n + len(self.c.waiting) >= self.c.active
                if settled and not (self.c.stopping() or self.c.cancelling):
                    return
                continue
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), 0.2)
            except TimeoutError:
                pass

    async def _play_round(self) -> None:
        chosen = self.c.take_round()
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
        await asyncio.gather(*(self.await_batch(b, status) for b in batches))

    async def _submit(self, part: list[Request]) -> str | None:
        """Create one batch and store it with every custom_id before polling.
        None: its requests failed."""
        try:
            batch_id = await self.api.create(
                [{"custom_id": r.custom_id, "params": r.params} for r in part]
            )
        except InfraFailure as refused:
            self.c.fail(part, refused)
            return None
        sent = [
            Sent(r.custom_id, r.tag, r.call, r.attempt, digest(r.params), *worst_columns(r.worst))
            for r in part
        ]
        self.c.store.add_batch(batch_id, self.round, sent)
        for r in part:
            self.c.waiting[r.custom_id] = r
        return batch_id

    async def await_batch(self, batch_id: str, status: RoundStatus) -> None:
        """Wait for the batch to end (canceling it on `cancel`), then read its
        results; past the patience its episodes are void and it stays stored for
        a rerun."""
        failure = await self.api.wait(
            batch_id, lambda: self.c.cancelling, lambda counts: self._show(status, counts)
        )
        if failure is not None:
            self._fail_batch(batch_id, failure)
            return
        await self._read_results(batch_id)

    def _show(self, status: RoundStatus, counts: dict[str, int]) -> None:
        status.counts = counts
        status.finished, status.spent = self.c.finished, self.c.spent
        if self.c.on_status is not None:
            self.c.on_status(status)

    def _fail_batch(self, batch_id: str, err: InfraFailure) -> None:
        """The batch cannot be read now: its episodes are void; it stays stored as
        submitted, so a rerun reads it."""
        ids = {s.custom_id for b, _, sent in self.c.store.unread() if b == batch_id for s in sent}
        self.c.fail([r for cid, r in list(self.c.waiting.items()) if cid in ids], err)
        for cid in ids:
            self.c.waiting.pop(cid, None)

    async def _read_results(self, batch_id: str) -> None:
        results = await self.api.results(batch_id, self.c.price_for)
        self.c.store.add_results(  # with each answer's usage in the league's calls
            [
                (r.custom_id, r.outcome, json.dumps(r.message) if r.message else None, r.usage)
                for r in results
            ]
        )
        self.c.store.collected(batch_id)
        for r in results:
            self.c.deliver(r.custom_id, r.outcome, r.message, r.usage)

    async def stop(self) -> None:
        """End the loop (a later ask starts it again)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
