"""Where a league's work runs: the `Backend` protocol and the local backend.
The Ray backend (`ray_backend.py`) is the other implementation."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any, Protocol, TypeVar

from ..errors import ConfigError
from ..seats.claude import ClaudeClient
from ..seats.python_policy import PythonPolicy
from ..seats.time_limit import HUNG_EXIT, end_hung_decisions_with
from . import work
from .driver_ledger import LedgerService
from .storage import Chunk, EpisodeRow, VoidEpisode, now
from .work import ChunkJob, EpisodeJob, Shared

T = TypeVar("T")
Played = EpisodeRow | VoidEpisode


class Backend(Protocol):
    """Every backend keeps the run's budget and writes each answered call's usage
    in the driver, as it returns (through `Shared.on_call`): the run's ledger sees
    every call, wherever its episode plays."""

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
        `shared` holds the run's client (its breaker and ledger) and call recorder."""
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
        #: Each worker-process episode in flight: its job and the pool it runs in.
        self._in_pool: dict[Future[Played], tuple[EpisodeJob, ProcessPoolExecutor]] = {}
        #: The run's ledger and call recorder, served to worker processes (first use).
        self._ledger: LedgerService | None = None
        #: Each event-loop episode in flight: its job (for the void of one cancelled
        #: before it began).
        self._in_loop: dict[Future[Played], EpisodeJob] = {}
        self.interrupted = False
        #: A second Ctrl-C: episodes in flight are cancelled (worker processes ended).
        self.cancelled = False

    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        for job in jobs:
            yield work.run_chunk(job)

    def map_episodes(
        self, jobs: Iterable[EpisodeJob], concurrency: int, shared: Shared
    ) -> Iterator[Played]:
        """Ctrl-C stops dispatching at once and lets the episodes in flight finish;
        a second Ctrl-C cancels them (each comes back void, `interrupted`). While
        episodes play, Ctrl-C only sets flags (`_ctrl_c_sets_flags`): it cannot
        land in the caller's storing of a result or its progress bar."""
        if shared.client is not None:
            self._clients.add(shared.client)
        # Each episode's future puts itself here when done: one blocking get per
        # finished episode, instead of `wait` over every pending future each time
        # (which locks and unlocks all of them, twice, per episode). None: a Ctrl-C.
        done: queue.SimpleQueue[Future[Played] | None] = queue.SimpleQueue()
        pending: set[Future[Played]] = set()
        source = iter(jobs)
        with _ctrl_c_sets_flags(lambda: self._ctrl_c(done)):
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
            self._ledger.track(job)
        for _ in range(2):
            if self._processes is None:
                spawn = multiprocessing.get_context("spawn")  # never fork a threaded driver
                workers = min(concurrency, os.cpu_count() or 1)
                self._processes = ProcessPoolExecutor(
                    max_workers=workers, mp_context=spawn, initializer=quiet_worker
                )
            pool = self._processes
            try:
                with _children_ignore_ctrl_c():  # the pool starts its workers on submit
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
                self._ledger.release(job)

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


def play_alone(job: EpisodeJob) -> Played:
    """`job` in a new process of its own: its row, or a void record naming the
    episode's Python policies when the process ends before it answers."""
    spawn = multiprocessing.get_context("spawn")
    receive, send = spawn.Pipe(duplex=False)
    process = spawn.Process(target=_play_and_send, args=(job, send), name="coworld-alone")
    started = now()
    with _children_ignore_ctrl_c():
        process.start()
    send.close()  # the child's end: recv sees EOF when the child is gone
    try:
        answer = receive.recv()
    except EOFError:
        answer = None
    except BaseException:  # Ctrl-C: the process ignores it (quiet_worker), so end it
        process.terminate()
        raise
    finally:
        receive.close()
        process.join()
    if isinstance(answer, BaseException):
        raise answer  # the episode's own error (a config error), as from the pool
    if answer is not None:
        return answer
    how = exit_status(process.exitcode)
    detail = worker_died(job, how, "also when played alone", process.exitcode)
    return work.void_job(job, WORKER_DIED, detail, started)


#: The void cause of an episode whose worker process ended before it answered.
WORKER_DIED = "worker-died"


def worker_died(job: EpisodeJob, how: str, again: str, exitcode: int | None = 0) -> str:
    """Which policy ended its worker process, and how, in one line."""
    files = [p.path or p.name for p in job.policies if isinstance(p, PythonPolicy)]
    who = {0: "the worker process", 1: f"policy {files[0]}"}.get(
        len(files), f"one of the policies {', '.join(files)}"
    )
    if exitcode == HUNG_EXIT and files:  # the watchdog ended it (time_limit._Watchdog)
        return (
            f"{who} did not return after being interrupted at its time limit (its worker "
            f"process was ended) in {job.pairing} episode {job.idx}, {again}"
        )
    if files:
        who += " ended its worker process"
    return f"{who} ({how}) in {job.pairing} episode {job.idx}, {again}"


def exit_status(exitcode: int | None) -> str:
    """A process's end in words: its exit code, or the signal that killed it."""
    if exitcode is None or exitcode >= 0:
        return f"exit code {exitcode}; os._exit or a crash"
    try:
        return f"killed by {signal.Signals(-exitcode).name}"
    except ValueError:
        return f"killed by signal {-exitcode}"


def quiet_worker() -> None:
    """A worker process's standard output and error go nowhere (Python's `sys.stdout`
    and `sys.stderr`): a policy's `print` or `logging` would write over the league's
    progress bar, once per decision (Ray's workers are not shown either; `coworld
    play` shows both). The worker's own errors travel back to the driver as
    exceptions or void records. A decision that hangs past its interrupt ends the
    process with `HUNG_EXIT`, which the stop line names."""
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the process's life)
    end_hung_decisions_with(HUNG_EXIT)
    # A terminal's Ctrl-C reaches the whole process group: the driver decides
    # (the first lets episodes in flight finish, the second ends this process).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_the_driver, args=(os.getppid(),), daemon=True).start()


@contextlib.contextmanager
def _ctrl_c_sets_flags(on_ctrl_c: Callable[[], None]) -> Iterator[None]:
    """Inside, Ctrl-C calls `on_ctrl_c` instead of raising KeyboardInterrupt
    wherever it lands (main thread only: the others cannot set handlers; there
    the interrupt stays an exception, which the caller catches)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: on_ctrl_c())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started inside inherit an ignored SIGINT (kept across exec), so a
    terminal's Ctrl-C while they import (numpy, scipy) prints no traceback of theirs;
    the driver's own handler is back at once (main thread only: the others cannot
    set handlers, and start no workers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _exit_with_the_driver(driver: int) -> None:
    """A driver killed with `kill -9` cannot end its workers: each ends itself once
    it is orphaned (re-parented), instead of waiting for a job forever."""
    while os.getppid() == driver:
        time.sleep(1.0)
    os._exit(1)


def _play_and_send(job: EpisodeJob, send: Connection) -> None:
    quiet_worker()
    try:
        answer: Any = work.play_episode(job)
    except Exception as err:
        answer = err
    send.send(answer)
    send.close()


def make_backend(name: str, address: str | None = None, threads: int | None = None) -> Backend:
    if name == "local":
        return LocalBackend()
    if name == "ray":
        from .ray_backend import RayBackend

        return RayBackend(address=address, threads=threads)
    raise ConfigError(f"unknown backend {name!r}; backends: local, ray", "backend")
