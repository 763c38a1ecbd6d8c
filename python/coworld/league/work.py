"""The league's units of work, as typed jobs: a chunk of scripted episodes for the
batch simulator, or one episode for the async runner. Every backend (local, Ray)
imports them from here; they import no backend."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..episode import Clock, Episode
from ..seats.claude import Usage
from ..seats.policy import Policy
from ..seats.python_policy import PythonPolicy
from ..simulate import simulate
from .storage import Chunk, EpisodeRow, now

#: A game's settings as the core takes them (`{"seats": 4}` for Hanabi), or None.
Settings = dict[str, Any] | None


@dataclass(frozen=True)
class ChunkJob:
    """Scripted episodes start..start+count of one pairing."""

    pairing: str
    game: str
    seats: tuple[str, ...]
    base_seed: int
    start: int
    count: int
    settings: Settings = None
    #: Batch-simulator threads (None: every core; Ray passes its per-task share).
    threads: int | None = None


@dataclass(frozen=True)
class EpisodeJob:
    """One episode of a pairing through the async runner."""

    pairing: str
    idx: int
    game: str
    policies: tuple[Policy, ...]
    seed: int
    clock: Clock
    settings: Settings = None
    #: The replay path (its calls sidecar sits beside it), or None for no files.
    out: str | None = None

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.policies)


def run_chunk(job: ChunkJob) -> Chunk:
    """A chunk of scripted episodes as columns (local or on a Ray worker)."""
    r = simulate(
        job.game,
        list(job.seats),
        job.count,
        job.base_seed,
        job.threads,
        job.settings,
        start=job.start,
    )
    return Chunk(
        pairing=job.pairing,
        game=job.game,
        seats=job.seats,
        start=job.start,
        seed=r.seeds,
        score=r.score,
        plies=r.plies,
        ending=r.ending,
        played=r.played,
    )


def computes(job: EpisodeJob) -> bool:
    """True when a seat runs Python code (a Python policy): CPU work, not waiting."""
    return any(isinstance(p, PythonPolicy) for p in job.policies)


def play_episode(job: EpisodeJob) -> EpisodeRow:
    """One episode on its own event loop, as a row (runs anywhere: local or Ray)."""
    spec = {"game": job.game, **(job.settings or {})}
    started = now()
    episode = Episode(spec, list(job.policies), seed=job.seed, clock=job.clock, out=job.out)
    return row_from_results(job, asyncio.run(episode.run()), started)


def row_from_results(job: EpisodeJob, results: dict[str, Any], started: str) -> EpisodeRow:
    """The stored row of a finished episode: scores, origins and usage per seat."""
    seats = job.seats
    usage = [Usage.from_dict(u) for u in results.get("usage") or [{} for _ in seats]]
    decisions = tuple(
        {**d, "tokens": u.tokens, "cost_usd": u.cost_usd}
        for d, u in zip(results.get("decisions") or [{} for _ in seats], usage, strict=True)
    )
    return EpisodeRow(
        pairing=job.pairing,
        idx=job.idx,
        game=job.game,
        played=results.get("game", job.game),
        seed=job.seed,
        seats=seats,
        score=tuple(float(x) for x in results["score"]),
        reason=results["reason"],
        ending=results["ending"],
        plies=results["plies"],
        replay=job.out,
        usage=Usage.total(usage),
        decisions=decisions,
        started=started,
        finished=now(),
    )
