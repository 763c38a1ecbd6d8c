"""The Ray backend: scripted chunks and Claude episodes become Ray tasks; their
rows come back to the driver, which writes them through the same storage path
as the local backend. Ray is an optional extra (`pip install -e '.[cluster]' in a checkout).
Tasks never open the league database, nor write under the league's `out`: an
episode's files come back with its row and the driver writes them, so the nodes
need no file system in common with the driver.

What Ray episodes share with the local backend's:
- The budget and the call records (`ray_ledger`): one actor the driver owns,
  against which every task's call reserves its worst case and to which it
  reports its usage as it is answered. The driver writes those calls while it
  waits for tasks, and the run's ledger mirrors the actor's.
- The circuit breaker (`ray_breaker`): one `CircuitBreaker` in an actor the
  driver owns, through which every task's client admits each call and records
  its outcome. While most calls fail, the whole league sends one probe at a
  time; the run's own breaker (the driver's client's) mirrors it, so the runner
  holds dispatching and shows the pause as on the local backend, and gives up
  when the pause outlasts the patience. A task retries infrastructure failures
  for the league's patience and then voids its episode (never a scored
  fallback)."""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...calls import calls_path, move_prior_calls
from ...errors import ConfigError
from ...seats.budget import Ledger
from ...seats.infra import CircuitBreaker
from ..records import WORKER_DIED, Chunk, EpisodeRow, Played, now
from ..work import ChunkJob, EpisodeJob, Shared, play_episode, run_chunk, void_job
from . import ray_breaker
from .base import worker_died
from .processes import ctrl_c_ignored, ctrl_c_sets_flags
from .ray_ledger import RayLedger, TaskLedger

#: How often the driver writes the calls reported while it waits for tasks.
DRAIN_SECONDS = 0.2
#: How long one wait for a task lasts (Ctrl-C is seen between waits).
WAIT_SECONDS = 0.05


class RayBackend:
    def __init__(self, address: str | None = None, threads: int | None = None) -> None:
        try:
            import ray
        except ImportError as err:
            raise ConfigError(
                "the ray backend needs Ray: pip install -e '.[cluster]' in a checkout", "backend"
            ) from err
        self.ray = ray
        self.interrupted = False
        self.in_driver = False
        #: A second Ctrl-C: episodes in flight are cancelled.
        self.cancelled = False
        #: This backend connected the process to Ray (and disconnects it at `close`).
        self._connected = not ray.is_initialized()
        if self._connected:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        # Ray workers do not set RAYON_NUM_THREADS: pass the thread count to each task.
        self.threads = threads or 1
        self._chunk: Any = ray.remote(num_cpus=self.threads)(run_chunk)
        # One retry, as the local backend plays a broken pool's episode once more
        # alone (Ray's default is three, each a wait of its own).
        self._episode: Any = ray.remote(num_cpus=1, max_retries=1)(play_in_task)
        #: The run's breaker (the driver's client's), mirroring the actor's.
        self._breaker: CircuitBreaker | None = None
        self._actor: Any = None
        self._tasks_breaker: CircuitBreaker | None = None
        #: The run's budget and call records, for its tasks (started on first use).
        self._ledger: RayLedger | None = None

    @classmethod
    def start(cls, address: str | None = None, threads: int | None = None) -> RayBackend:
        """Join the cluster at `address` (None: start one on this machine)."""
        return cls(address, threads)

    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        pending = [self._chunk.remote(replace(job, threads=self.threads)) for job in jobs]
        while pending:
            done, pending = self.ray.wait(pending, num_returns=1)
            yield self.ray.get(done[0])

    def map_episodes(
        self, jobs: Iterable[EpisodeJob], concurrency: int, shared: Shared
    ) -> Iterator[Played]:
        """Each task builds (and closes) its own client; its calls reserve and report
        through the run's ledger actor and go through the run's breaker (both started
        on first use). While it waits, the driver writes the calls reported so far.
        Ctrl-C as on the local backend: the first stops dispatching and lets the
        episodes in flight finish, the next cancels them (each comes back void,
        `interrupted`); inside, Ctrl-C only sets flags."""
        breaker = self._share_breaker(shared, concurrency)
        ledger = self._share_ledger(shared, concurrency)
        pending: list[Any] = []
        jobs_of: dict[Any, tuple[EpisodeJob, str]] = {}
        source = iter(jobs)
        with ctrl_c_sets_flags(self._ctrl_c):
            while True:
                while not self.interrupted and len(pending) < concurrency:
                    job = next(source, None)
                    if job is None:
                        break
                    task = ledger.task(job.key) if ledger else None
                    ref = self._episode.remote(job, breaker, task)
                    jobs_of[ref] = (job, now())
                    pending.append(ref)
                if not pending:
                    break
                done, pending = self._wait(pending)
                yield self._outcome(done, *jobs_of.pop(done))
        if self._breaker is not None and self._actor is not None:
            self._breaker.refresh()  # the report's pauses: the last one's end too

    def _ctrl_c(self) -> None:
        """A Ctrl-C: the first stops dispatching, the next cancels what is in flight
        (`_wait` does, outside the signal handler)."""
        self.cancelled = self.interrupted
        self.interrupted = True

    def _wait(self, pending: list[Any]) -> tuple[Any, list[Any]]:
        """The next task to finish, and the others; the calls reported meanwhile
        are written (also the finished task's own: each waits for its report).
        Waits in short slices: a Ctrl-C's handler runs between them (two presses
        within one wait would count as one)."""
        cancelled, drained = False, time.monotonic()
        while True:
            if self.cancelled and not cancelled:
                cancelled = True
                for ref in pending:
                    self.ray.cancel(ref, force=True)
            done, pending = self.ray.wait(pending, num_returns=1, timeout=WAIT_SECONDS)
            if self._ledger is not None and (done or time.monotonic() - drained > DRAIN_SECONDS):
                self._ledger.drain()
                drained = time.monotonic()
            if done:
                return done[0], pending

    def _outcome(self, ref: Any, job: EpisodeJob, started: str) -> Played:
        """The task's row, or a void record when its worker process ended, also on
        Ray's retry (a Python policy calling `os._exit`, a crash, a kill, or a
        decision that did not return after its time limit: Ray does not say which),
        or when a second Ctrl-C cancelled it."""
        try:
            result, files = self.ray.get(ref)
        except self.ray.exceptions.RayError as err:
            if self.cancelled:
                return void_job(job, "interrupted", "stopped by Ctrl-C", started)
            if not isinstance(err, self.ray.exceptions.WorkerCrashedError):
                raise
            how = (
                "a Ray worker; Ray does not report why: os._exit, a crash, a kill, or a "
                "decision that did not return after its time limit"
            )
            detail = worker_died(job, how, "also when Ray ran it again")
            return void_job(job, WORKER_DIED, detail, started)
        finally:
            if self._ledger is not None:
                self._ledger.finished(job.key)
        if job.out is not None:
            keep_files(Path(job.out), files)
        return result

    def _share_breaker(self, shared: Shared, concurrency: int) -> CircuitBreaker | None:
        """The tasks' breaker, forwarding to the actor; the run's breaker (the
        driver's client's) becomes a mirror of it."""
        if shared.client is None:
            return None
        if self._actor is None:
            self._breaker = shared.client.breaker
            policy = self._breaker.policy
            self._actor = ray_breaker.start(policy, concurrency)
            state = ray_breaker.ActorState(self._actor)
            self._tasks_breaker = ray_breaker.task_breaker(state, policy)
            self._breaker.shared = state
        return self._tasks_breaker

    def _share_ledger(self, shared: Shared, concurrency: int) -> RayLedger | None:
        """The run's ledger actor, started from the run's ledger (its spend so far)."""
        if shared.client is None or shared.client.ledger is None:
            return None
        if self._ledger is None:
            assert isinstance(shared.client.ledger, Ledger)
            self._ledger = RayLedger(shared.client.ledger, shared.on_call, concurrency)
        return self._ledger

    def close(self) -> None:
        """End the actors (the ledger's after a last drain; the run's breaker keeps
        what it mirrored last), and the connection to Ray this backend made."""
        if self._ledger is not None:
            ledger, self._ledger = self._ledger, None
            ledger.close()
        if self._actor is not None:
            if self._breaker is not None:
                # an actor already gone leaves the run's breaker with its last view
                with contextlib.suppress(self.ray.exceptions.RayError):
                    self._breaker.refresh()
                self._breaker.shared = None
            self.ray.kill(self._actor)
            self._actor = None
        if self._connected:  # now, not at exit, where a late Ctrl-C prints Ray's traceback
            self._connected = False
            with ctrl_c_ignored():
                self.ray.shutdown()


def play_in_task(
    job: EpisodeJob, breaker: CircuitBreaker | None, ledger: TaskLedger | None
) -> tuple[Played, dict[str, bytes]]:
    """A Ray task: the episode, its files (the replay, its calls sidecar, the seat
    transcripts) written in a temporary directory of the worker's and returned with
    its row, by name, for the driver to keep under the league's `out`: the nodes
    need no file system in common with the driver."""
    if job.out is None:
        return play_episode(job, breaker, ledger), {}
    with tempfile.TemporaryDirectory(prefix="coworld-episode-") as tmp:
        here = Path(tmp) / Path(job.out).name
        result = play_episode(replace(job, out=str(here)), breaker, ledger)
        files = {p.name: p.read_bytes() for p in Path(tmp).iterdir()}
    if isinstance(result, EpisodeRow):
        result = replace(result, replay=job.out)  # as the league named it
    return result, files


def keep_files(replay: Path, files: dict[str, bytes]) -> None:
    """Write an episode's files beside `replay`, as the episode would have: an
    earlier attempt's calls sidecar is moved aside first (never overwritten)."""
    if not files:
        return
    replay.parent.mkdir(parents=True, exist_ok=True)
    if calls_path(replay).name in files:
        move_prior_calls(replay)
    for name, data in files.items():
        (replay.parent / name).write_bytes(data)


BACKEND = RayBackend
