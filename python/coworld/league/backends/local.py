"""The local backend: this machine. Scripted chunks run one after another in the
batch simulator (each uses every thread); episodes run as tasks of one event
loop in a thread of its own, sharing the run's client, except those with a
Python seat, which compute: each runs in a worker process (`processes.py`),
whose calls reserve and record through the driver (`driver_ledger.py`)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue
import threading
from collections.abc import Coroutine, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import Any, TypeVar

from ...seats.claude import ClaudeClient
from .. import work
from ..records import Chunk, Played
from ..work import ChunkJob, EpisodeJob, Shared
from .driver_ledger import LedgerService
from .processes import ctrl_c_ignored, ctrl_c_sets_flags, play_alone, quiet_worker

T = TypeVar("T")


class LocalBackend:
    """Chunks run one after another (each uses every thread); episodes run as tasks
    of one event loop (in a thread of its own), `concurrency` at a time, sharing
    the run's client."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._clients: set[ClaudeClient] = set()
        self._processes: ProcessPoolExecutor | None = None
        #: Each worker-process episode in flight: its job and the pool it runs in.
        self._in_pool: dict[Future[Played], tuple[EpisodeJob, ProcessPoolExecutor]] = {}
        #: The run's ledger and call recorder, served to worker processes (first use).
        self._ledger: LedgerService | None = None
        #: Each event-loop episode in flight: its job (for the void of one cancelled
        #: before it began).
        self._in_loop: dict[Future[Played], EpisodeJob] = {}
        self.in_driver = True
        self.interrupted = False
        #: A second Ctrl-C: episodes in flight are cancelled (worker processes ended).
        self.cancelled = False

    @classmethod
    def start(cls, address: str | None = None, threads: int | None = None) -> LocalBackend:
        """This machine (`address` names no other; the simulator takes every thread)."""
        return cls()

    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        for job in jobs:
            yield work.run_chunk(job)

    def map_episodes(
        self, jobs: Iterable[EpisodeJob], concurrency: int, shared: Shared
    ) -> Iterator[Played]:
        """Ctrl-C stops dispatching at once and lets the episodes in flight finish;
        a second Ctrl-C cancels them (each comes back void, `interrupted`). While
        episodes play, Ctrl-C only sets flags (`ctrl_c_sets_flags`): it cannot
        land in the caller's storing of a result or its progress bar."""
        if shared.client is not None:
            self._clients.add(shared.client)
        # Each episode's future puts itself here when done: one blocking get per
        # finished episode, instead of `wait` over every pending future each time
        # (which locks and unlocks all of them, twice, per episode). None: a Ctrl-C.
        done: queue.SimpleQueue[Future[Played] | None] = queue.SimpleQueue()
        pending: set[Future[Played]] = set()
        source = iter(jobs)
        with ctrl_c_sets_flags(lambda: self._ctrl_c(done)):
            while True:
                try:
                    while not self.interrupted and len(pending) < concurrency:
                        job = next(source, None)
                        if job is None:
                            break
                        future = self._start(job, shared, concurrency)
                        pending.add(future)
                        future.add_done_callback(done.put)
                    if not pending:
                        return
                    finished = done.get()
                except KeyboardInterrupt:  # off the main thread: no handler of ours
                    self._ctrl_c(done)
                    # whatever the interrupt cut short (a future taken off the queue, one
                    # not yet given its callback): each pending future is queued again
                    # when done (the check below drops one seen twice)
                    for f in pending:
                        f.add_done_callback(done.put)
                    continue
                if finished in pending:
                    pending.remove(finished)
                    yield self._outcome(finished)

    def _ctrl_c(self, done: queue.SimpleQueue[Future[Played] | None]) -> None:
        """A Ctrl-C: the first stops dispatching, the next cancels what is in flight."""
        if self.interrupted:
            self._cancel_all()
        self.interrupted = True
        done.put(None)  # wake the loop (SimpleQueue.put may be called from a handler)

    def _start(self, job: EpisodeJob, shared: Shared, concurrency: int) -> Future[Played]:
        """Claude and baseline seats wait on the network: a task of the event loop.
        A Python policy computes: its episode runs in a worker process (threads
        would share one interpreter lock)."""
        if not work.computes(job):
            future = self.submit(work.play_async(job, shared))
            self._in_loop[future] = job
            return future
        if shared.client is not None:  # its calls reserve and record through the driver
            if self._ledger is None:
                self._ledger = LedgerService(shared.client.ledger, shared.on_call)
            job = replace(job, ledger_at=self._ledger.address)
            self._ledger.track(job.key)
        for _ in range(2):
            if self._processes is None:
                spawn = multiprocessing.get_context("spawn")  # never fork a threaded driver
                workers = min(concurrency, os.cpu_count() or 1)
                self._processes = ProcessPoolExecutor(
                    max_workers=workers, mp_context=spawn, initializer=quiet_worker
                )
            pool = self._processes
            try:
                with ctrl_c_ignored():  # the pool starts its workers on submit
                    future = pool.submit(work.play_episode, job)
            except BrokenProcessPool:  # a worker died since: the next pool takes the job
                self._drop_pool(pool)
                continue
            self._in_pool[future] = (job, pool)
            return future
        raise AssertionError("a fresh process pool refused a job")  # pragma: no cover

    def _outcome(self, future: Future[Played]) -> Played:
        """A finished episode's row or void record. A worker process that ended
        (a Python policy calling `os._exit`, a crash, a kill) breaks the whole pool
        and every episode in flight in it: each is played again alone in a process
        of its own, so only one that ends its process again is void (`worker-died`,
        naming its Python policies); the others are played as if nothing happened."""
        job, pool = self._in_pool.pop(future, (None, None))
        in_loop = self._in_loop.pop(future, None)
        try:
            return future.result()
        except CancelledError:  # the second Ctrl-C, before the episode's task began
            if in_loop is None:
                raise
            return work.void_job(in_loop, "interrupted", "stopped by Ctrl-C", None)
        except BrokenProcessPool:
            if job is None or pool is None:
                raise
            self._drop_pool(pool)
            if self.cancelled:  # ended by the second Ctrl-C, not by its policy
                return work.void_job(job, "interrupted", "stopped by Ctrl-C", None)
            return play_alone(job)
        finally:
            if job is not None and self._ledger is not None:
                self._ledger.release(job.key)

    def _drop_pool(self, pool: ProcessPoolExecutor) -> None:
        if pool is self._processes:
            self._processes = None
        pool.shutdown(wait=False, cancel_futures=True)

    def _cancel_all(self) -> None:
        """The second Ctrl-C: cancel the event loop's episodes and end the worker
        processes (which ignore Ctrl-C themselves: `quiet_worker`)."""
        self.cancelled = True
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(lambda: [t.cancel() for t in asyncio.all_tasks(loop)])
        for pool in {pool for _, pool in self._in_pool.values()}:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Run a coroutine on the backend's event loop (started on first use)."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(
                target=self._loop.run_forever, name="coworld-episodes", daemon=True
            )
            self._thread.start()
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def close(self) -> None:
        if self._processes is not None:
            self._processes.shutdown()
            self._processes = None
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None
        if self._loop is None:
            return
        for client in self._clients:
            self.submit(client.close()).result()
        self._clients.clear()
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None
        self._thread.join()
        self._loop.close()
        self._loop = None


BACKEND = LocalBackend
