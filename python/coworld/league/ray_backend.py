"""The Ray backend: scripted chunks and Claude episodes become Ray tasks; their
rows come back to the driver, which writes them through the same storage path
as the local backend. Ray is an optional extra (`pip install coworld[cluster]`).

What Ray episodes share with the local backend's: the budget. Each task reserves
each call's worst case in the league database, against the calls every task has
written and every reservation in flight (`shared_budget.SharedLedger`), so the
budget is overshot by no more than calls in flight cost beyond their worst case;
the driver also reads the spend back before each dispatch and stops at the cap.
What they do not share: the league-wide circuit breaker (each task's client has
its own). A task retries infrastructure failures for the league's patience and
then voids its episode (never a scored fallback), but an outage does not pause
dispatching: new episodes keep starting, wait out the patience and come back
void."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

from ..errors import ConfigError
from .storage import Chunk, EpisodeRow, VoidEpisode
from .work import ChunkJob, EpisodeJob, Shared, play_episode, run_chunk


class RayBackend:
    def __init__(self, address: str | None = None, threads: int | None = None) -> None:
        try:
            import ray
        except ImportError as err:
            raise ConfigError(
                "the ray backend needs Ray: pip install 'coworld[cluster]'", "backend"
            ) from err
        self.ray = ray
        self.shares = False
        self.records_calls = True  # each task writes its calls to the league database
        self.interrupted = False
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        # Ray workers do not set RAYON_NUM_THREADS: pass the thread count to each task.
        self.threads = threads or 1
        self._chunk: Any = ray.remote(num_cpus=self.threads)(run_chunk)
        self._episode: Any = ray.remote(num_cpus=1)(play_episode)

    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        pending = [self._chunk.remote(replace(job, threads=self.threads)) for job in jobs]
        while pending:
            done, pending = self.ray.wait(pending, num_returns=1)
            yield self.ray.get(done[0])

    def map_episodes(
        self, jobs: Iterable[EpisodeJob], concurrency: int, shared: Shared
    ) -> Iterator[EpisodeRow | VoidEpisode]:
        """Each task builds (and closes) its own client and writes each answered
        call's usage to the league database (`shared.calls_to`) as it returns, so
        the calls of a killed task are counted; the database must be on a file
        system the workers share with the driver."""
        pending: list[Any] = []
        for job in jobs:
            job = replace(job, calls_to=shared.calls_to, budget=shared.budget)
            pending.append(self._episode.remote(job))
            if len(pending) >= concurrency:
                done, pending = self.ray.wait(pending, num_returns=1)
                yield self.ray.get(done[0])
        while pending:
            done, pending = self.ray.wait(pending, num_returns=1)
            yield self.ray.get(done[0])

    def close(self) -> None:
        pass
