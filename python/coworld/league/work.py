"""The league's units of work, as typed jobs: a chunk of scripted episodes for the
batch simulator, or one episode for the async runner. Every backend (local, Ray)
imports them from here; they import no backend."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from ..clock import Clock
from ..episode import Episode
from ..seats.batch_client import BatchClient
from ..seats.budget import BudgetExhausted
from ..seats.claude import ClaudeClient, has_credentials
from ..seats.human import HumanPolicy
from ..seats.infra import CircuitBreaker, InfraFailure, InfraPolicy
from ..seats.policy import ClaudePolicy, Policy
from ..seats.python_policy import PythonPolicy
from ..simulate import simulate
from ..streams import draw_entropy
from ..usage import Usage
from .backends.driver_ledger import Address, EpisodeLedger, RemoteLedger
from .human_host import fields_a_human
from .records import DISK, Chunk, EpisodeKey, EpisodeRow, Keyed, Played, VoidEpisode, now

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
    #: Random legal plies each episode opens with (drawn from its seed alone).
    openings: int = 0


@dataclass(frozen=True)
class EpisodeJob(Keyed):
    """One episode of a pairing through the async runner."""

    key: EpisodeKey
    policies: tuple[Policy, ...]
    clock: Clock
    settings: Settings = None
    #: The replay path (its calls sidecar sits beside it), or None for no files.
    out: str | None = None
    #: Retrying infrastructure failures (for a client the episode builds itself).
    infra: InfraPolicy = InfraPolicy()
    #: The driver's ledger service (`backends.driver_ledger`), through which an episode
    #: in a local worker process reserves and records each call, or None.
    ledger_at: Address | None = None
    #: Random legal plies the episode opens with (drawn from its seed alone).
    openings: int = 0


@dataclass(frozen=True)
class Shared:
    """What the episodes of a run share where a backend can share it: the client
    (with its breaker and ledger) and the writer of each call's usage."""

    client: ClaudeClient | None = None
    on_call: Callable[[EpisodeKey, Usage], None] | None = None
    #: Batch mode: the collector the driver's Claude episodes ask through (None: realtime).
    batch: BatchClient | None = None


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
        openings=job.openings,
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
    """True when a seat runs Python code (a Python policy): CPU work, not waiting.
    An episode with a human seat stays in the driver, where its link is served."""
    return any(isinstance(p, PythonPolicy) for p in job.policies) and not fields_a_human(
        job.policies
    )


def play_episode(
    job: EpisodeJob, breaker: CircuitBreaker | None = None, ledger: EpisodeLedger | None = None
) -> Played:
    """One episode on its own event loop and client (a worker process, a Ray task, a
    replay); its calls go through `breaker` (the run's, shared across processes) and
    reserve and record through `ledger` (the driver's), if given."""
    return asyncio.run(_play_with_own_client(job, breaker, ledger))


async def _play_with_own_client(
    job: EpisodeJob, breaker: CircuitBreaker | None = None, ledger: EpisodeLedger | None = None
) -> Played:
    claude = any(isinstance(p, ClaudePolicy) for p in job.policies) and has_credentials()
    if not claude:
        ledger = None
    elif ledger is None and job.ledger_at is not None:  # a local worker process
        ledger = RemoteLedger(job.ledger_at, (job.pairing, job.idx))
    on_call = None
    if ledger is not None:  # the driver keeps the budget and writes each call
        recorder = ledger
        on_call = lambda key, usage: recorder.record(usage)  # noqa: E731
    client = (
        ClaudeClient(
            timeout=job.clock.llm_timeout_seconds, infra=job.infra, breaker=breaker, ledger=ledger
        )
        if claude
        else None
    )
    try:
        return await play_async(job, Shared(client, on_call))
    finally:
        if client is not None:
            await client.close()


async def play_async(job: EpisodeJob, shared: Shared) -> Played:
    """One episode through the async runner with the run's shared client: its row,
    or a void record when it cannot finish cleanly (never a scored fallback)."""
    spec = {"game": job.game, **(job.settings or {})}
    started = now()
    on_call = shared.on_call
    batch = None
    if shared.batch is not None and any(isinstance(p, ClaudePolicy) for p in job.policies):
        batch = shared.batch.open(job.pairing, job.idx, draw_entropy())  # records its usage
        on_call = None
    episode = Episode(
        spec,
        list(job.policies),
        seed=job.seed,
        clock=job.clock,
        out=job.out,
        client=cast(ClaudeClient, batch) if batch else shared.client,
        on_usage=(lambda usage: on_call(job.key, usage)) if on_call else None,
        openings=job.openings,
        entropy=batch.entropy if batch else None,
    )
    for policy in job.policies:  # a person at a seat: deal this episode's links
        if isinstance(policy, HumanPolicy) and policy.table is not None:
            policy.table.attach(episode)
            break
    try:
        results = await episode.run()
    except InfraFailure as err:
        return void_of(job, episode, err.cause, str(err), started)
    except BudgetExhausted as err:
        return void_of(job, episode, "budget", str(err), started)
    except asyncio.CancelledError:
        return void_of(job, episode, "interrupted", "stopped by Ctrl-C", started)
    except OSError as err:  # a full disk: its replay could not be written
        return void_of(
            job, episode, DISK, f"the episode's files could not be written: {err}", started
        )
    finally:
        if batch is not None:
            await batch.close()
    return row_from_results(job, results, started)


def void_of(
    job: EpisodeJob, episode: Episode, cause: str, detail: str, started: str
) -> VoidEpisode:
    """The void record of an episode that ran: its plies and usage so far."""
    return void_job(job, cause, detail, started, episode.state.plies, Usage.total(episode.usage))


def void_job(
    job: EpisodeJob,
    cause: str,
    detail: str,
    started: str | None,
    plies: int = 0,
    usage: Usage | None = None,
) -> VoidEpisode:
    """The void record of `job`, finished now (without an episode object: one whose
    worker process ended reports nothing of its own)."""
    return VoidEpisode(
        job.key,
        cause=cause,
        detail=detail,
        plies=plies,
        usage=usage or Usage(),
        started=started,
        finished=now(),
    )


def row_from_results(job: EpisodeJob, results: dict[str, Any], started: str) -> EpisodeRow:
    """The stored row of a finished episode: scores, origins and usage per seat."""
    seats = job.seats
    usage = [Usage.from_dict(u) for u in results.get("usage") or [{} for _ in seats]]
    decisions = tuple(
        {**d, "tokens": u.tokens, "cost_usd": u.cost_usd}
        for d, u in zip(results.get("decisions") or [{} for _ in seats], usage, strict=True)
    )
    return EpisodeRow(
        job.key,
        played=results.get("game", job.game),
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
