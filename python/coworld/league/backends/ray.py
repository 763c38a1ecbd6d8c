"""The Ray backend: scripted chunks and Claude episodes become Ray tasks; their
rows come back to the driver, which writes them through the same storage path
as the local backend. Ray is an optional extra (`pip install -e '.[cluster]'` in a checkout).

What Ray episodes share with the local backend's:
- The budget. Each task reserves each call's worst case in the league database,
  against the calls every task has written and every reservation in flight
  (`the league database`), so the budget is overshot by no more than calls
  in flight cost beyond their worst case; the driver also reads the spend back
  before each dispatch and stops at the cap.
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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from ...errors import ConfigError
from ...seats.infra import CircuitBreaker
from ..records import WORKER_DIED, Chunk, Played, now
from ..work import ChunkJob, EpisodeJob, Shared, play_episode, run_chunk, void_job
from . import ray_breaker
from .base import worker_died


class RayBackend:
    def __init__(self, address: str | None = None, threads: int | None = None) -> None:
        try:
            import ray
        except ImportError as err:
            raise ConfigError(
                "the ray backend needs Ray: pip install -e '.[cluster]' in a checkout", "backend"
            ) from err
        self.ray = ray
        self.shares = False
        self.in_driver = False
        self.interrupted = False
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        # Ray workers do not set RAYON_NUM_THREADS: pass the thread count to each task.
        self.threads = threads or 1
        self._chunk: Any = ray.remote(num_cpus=self.threads)(run_chunk)
        # One retry, as the local backend plays a broken pool's episode once more
        # alone (Ray's default is three, each a wait of its own).
        self._episode: Any = ray.remote(num_cpus=1, max_retries=1)(play_episode)
        #: The run's breaker (the driver's client's), mirroring the actor's.
        self._breaker: CircuitBreaker | None = None
        self._actor: Any = None
        self._tasks_breaker: CircuitBreaker | None = None

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
        """Each task builds (and closes) its own client and writes each answered
        call's usage to the league database (`shared.calls_to`) as it returns, so
        the calls of a killed task are counted; the database must be on a file
        system the workers share with the driver. Their calls go through the
        run's breaker, which lives in an actor (started on first use)."""
        breaker = self._share_breaker(shared, concurrency)
        pending: list[Any] = []
        jobs_of: dict[Any, tuple[EpisodeJob, str]] = {}
        for job in jobs:
            job = replace(job, calls_to=shared.calls_to, budget=shared.budget)
            ref = self._episode.remote(job, breaker)
            jobs_of[ref] = (job, now())
            pending.append(ref)
            if len(pending) >= concurrency:
                done, pending = self.ray.wait(pending, num_returns=1)
                yield self._outcome(done[0], *jobs_of.pop(done[0]))
        while pending:
            done, pending = self.ray.wait(pending, num_returns=1)
            yield self._outcome(done[0], *jobs_of.pop(done[0]))
        if self._breaker is not None and self._actor is not None:
            self._breaker.refresh()  # the report's pauses: the last one's end too

    def _outcome(self, ref: Any, job: EpisodeJob, started: str) -> Played:
        """The task's row, or a void record when its worker process ended, also on
        Ray's retry (a Python policy calling `os._exit`, a crash, a kill, or a
        decision that did not return after its time limit: Ray does not say which)."""
        try:
            result: Played = self.ray.get(ref)
        except self.ray.exceptions.WorkerCrashedError:
            how = (
                "a Ray worker; Ray does not report why: os._exit, a crash, a kill, or a "
                "decision that did not return after its time limit"
            )
            detail = worker_died(job, how, "also when Ray ran it again")
            return void_job(job, WORKER_DIED, detail, started)
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

    def close(self) -> None:
        """End the breaker's actor; the run's breaker keeps what it mirrored last."""
        if self._actor is None:
            return
        if self._breaker is not None:
            # an actor already gone leaves the run's breaker with its last view
            with contextlib.suppress(self.ray.exceptions.RayError):
                self._breaker.refresh()
            self._breaker.shared = None
        self.ray.kill(self._actor)
        self._actor = None


BACKEND = RayBackend
