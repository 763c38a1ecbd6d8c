"""Where a league's work runs: the `Backend` protocol and the local backend.
The Ray backend (`ray_backend.py`) is the other implementation."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from typing import Protocol

from ..errors import ConfigError
from . import work
from .storage import Chunk, EpisodeRow
from .work import ChunkJob, EpisodeJob


class Backend(Protocol):
    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        """Run scripted chunks; yield each as it finishes (any order)."""
        ...

    def map_episodes(self, jobs: Iterable[EpisodeJob], concurrency: int) -> Iterator[EpisodeRow]:
        """Run episodes, at most `concurrency` at once, pulling jobs lazily (so the
        caller can stop dispatching); yield each row as it finishes."""
        ...


class LocalBackend:
    """Chunks run one after another (each uses every thread); episodes run
    `concurrency` at a time: Claude episodes as threads (they wait on the network),
    episodes with a Python-policy seat in worker processes (they compute, and
    threads would share one interpreter lock)."""

    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        for job in jobs:
            yield work.run_chunk(job)

    def map_episodes(self, jobs: Iterable[EpisodeJob], concurrency: int) -> Iterator[EpisodeRow]:
        processes = min(concurrency, os.cpu_count() or 1)
        spawn = multiprocessing.get_context("spawn")  # no fork of a threaded driver
        with (
            ThreadPoolExecutor(max_workers=concurrency) as threads,
            ProcessPoolExecutor(max_workers=processes, mp_context=spawn) as pool,
        ):
            pending: set[Future[EpisodeRow]] = set()
            for job in jobs:
                runner = pool if work.computes(job) else threads
                pending.add(runner.submit(work.play_episode, job))
                if len(pending) >= concurrency:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        yield f.result()
            for f in pending:
                yield f.result()


def make_backend(name: str, address: str | None = None, threads: int | None = None) -> Backend:
    if name == "local":
        return LocalBackend()
    if name == "ray":
        from .ray_backend import RayBackend

        return RayBackend(address=address, threads=threads)
    raise ConfigError(f"unknown backend {name!r}; backends: local, ray", "backend")
