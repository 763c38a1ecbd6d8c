"""Where a league's work runs: the `Backend` protocol and the local backend.
The Ray backend (`ray_backend.py`) is the other implementation."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue
import threading
from collections.abc import Coroutine, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Protocol, TypeVar

from ..errors import ConfigError
from ..seats.claude import ClaudeClient
from . import work
from .storage import Chunk, EpisodeRow, VoidEpisode
from .work import ChunkJob, EpisodeJob, Shared

T = TypeVar("T")
Played = EpisodeRow | VoidEpisode


class Backend(Protocol):
    #: True when episodes use `Shared` (one client, each call's usage recorded at once).
    shares: bool
    #: True when each answered call's usage reaches the database as it returns
    #: (through `Shared.on_call`, or `Shared.calls_to` from worker processes).
    records_calls: bool
    #: Set when Ctrl-C stopped `map_episodes` early.
    interrupted: bool

    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        """Run scripted chunks; yield each as it finishes (any order)."""
        ...

    def map_episodes(
        self, jobs: Iterable[EpisodeJob], concurrency: int, shared: Shared
    ) -> Iterator[Played]:
        """Run episodes, at most `concurrency` at once, pulling jobs lazily (so the
        caller can stop dispatching); yield each row (or void record) as it finishes.
        `shared` holds the run's client and call recorder where the backend can share
        them (`shares` says whether it does)."""
        ...

    def close(self) -> None:
        """Release the backend's loop and clients."""
        ...


class LocalBackend:
    """Chunks run one after another (each uses every thread); episodes run as tasks
    of one event loop (in a thread of its own), `concurrency` at a time, sharing
    the run's client."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._clients: set[ClaudeClient] = set()
        self._processes: ProcessPoolExecutor | None = None
        self.shares = True
        self.records_calls = True
        self.interrupted = False

    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        for job in jobs:
            yield work.run_chunk(job)

    def map_episodes(
        self, jobs: Iterable[EpisodeJob], concurrency: int, shared: Shared
    ) -> Iterator[Played]:
        """Ctrl-C stops dispatching at once and lets the episodes in flight finish;
        a second Ctrl-C cancels them (each comes back void, `interrupted`)."""
        if shared.client is not None:
            self._clients.add(shared.client)
        # Each episode's future puts itself here when done: one blocking get per
        # finished episode, instead of `wait` over every pending future each time
        # (which locks and unlocks all of them, twice, per episode).
        done: queue.SimpleQueue[Future[Played]] = queue.SimpleQueue()
        pending: set[Future[Played]] = set()
        source = iter(jobs)
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
            except KeyboardInterrupt:
                if self.interrupted:
                    self._cancel_all()
                self.interrupted = True
                # whatever the interrupt cut short (a future taken off the queue, one
                # not yet given its callback): each pending future is queued again
                # when done (the check below drops one seen twice)
                for f in pending:
                    f.add_done_callback(done.put)
                continue
            if finished in pending:
                pending.remove(finished)
                yield finished.result()

    def _start(self, job: EpisodeJob, shared: Shared, concurrency: int) -> Future[Played]:
        """Claude and baseline seats wait on the network: a task of the event loop.
        A Python policy computes: its episode runs in a worker process (threads
        would share one interpreter lock)."""
        if not work.computes(job):
            return self.submit(work.play_async(job, shared))
        if self._processes is None:
            spawn = multiprocessing.get_context("spawn")  # never fork a threaded driver
            workers = min(concurrency, os.cpu_count() or 1)
            self._processes = ProcessPoolExecutor(max_workers=workers, mp_context=spawn)
        return self._processes.submit(work.play_episode, job)

    def _cancel_all(self) -> None:
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(lambda: [t.cancel() for t in asyncio.all_tasks(loop)])

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


def make_backend(name: str, address: str | None = None, threads: int | None = None) -> Backend:
    if name == "local":
        return LocalBackend()
    if name == "ray":
        from .ray_backend import RayBackend

        return RayBackend(address=address, threads=threads)
    raise ConfigError(f"unknown backend {name!r}; backends: local, ray", "backend")
