"""The league engine: plays a schedule into the league database. Scripted
pairings go through the batch simulator in chunks (`scripted.py`); every other
episode through the episode runner on a backend, in passes: the schedule's
missing episodes, then those that came back void (same seed), up to
`void_retries` more times each. What the episodes' calls cost and whether the
API lets them start is the session's business (`Session`: the Claude session in
a league run); the engine asks it before each episode and tells it each result."""

from __future__ import annotations

import gc
import sqlite3
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Protocol

from rich.console import Console

from ..errors import ConfigError, InfrastructureStop
from ..seats.policy import Policy
from .backends import Backend
from .config import LeagueConfig
from .db_faults import database_failure
from .human_host import HUMAN_PLAY_BUDGET_SECONDS, HumanHost, fields_a_human
from .progress import Advance, quiet
from .records import CUT_CAUSES, DISK, WORKER_DIED, EpisodeRow, Played, VoidEpisode
from .schedule import Pairing
from .scripted import CHUNK, is_scripted, play_chunks, replay_path
from .storage import LeagueDB
from .work import EpisodeJob, Shared

#: Allocations between young garbage collections while runner episodes play.
YOUNG_GC_THRESHOLD = 20_000


class Session(Protocol):
    """What the engine asks of whoever pays for the episodes' calls."""

    @property
    def halted(self) -> bool:
        """The session stopped dispatching (the budget, the API)."""
        ...

    def open(self, db: LeagueDB) -> Shared:
        """What the episodes share (once per run)."""
        ...

    def may_start(self, p: Pairing, idx: int, db: LeagueDB) -> bool:
        """Whether episode `idx` of `p` may start now (False ends this pass)."""
        ...

    def finished(self, result: Played) -> None: ...

    def retryable(self, void: VoidEpisode) -> bool:
        """Whether `void` may be played again (its cause may halt the session)."""
        ...

    def records_every_episode(self, policies: tuple[Policy, ...]) -> bool:
        """Whether each episode with these seats writes its replay."""
        ...

    def prepare(self, job: EpisodeJob) -> EpisodeJob:
        """`job` with what its seats' clients need (built in another process)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Halt:
    """Why a league stopped dispatching before its schedule was played: `kind` is
    budget, api (an outage past the patience, refused calls), policy (a Python
    policy ended its worker process) or other (Ctrl-C, the database)."""

    kind: str
    reason: str | None


@dataclass(frozen=True)
class Step:
    """What one `play` of a schedule did: the episodes it stored, and why it
    stopped early (None: it did not)."""

    played: int
    halt: Halt | None


class LeagueEngine:
    def __init__(
        self,
        config: LeagueConfig,
        backend: Backend,
        session: Session,
        *,
        console: Console,
        redo_infra: bool = False,
        chunk: int = CHUNK,
    ) -> None:
        self.config = config
        self.backend = backend
        self.session = session
        self.console = console
        self.redo_infra = redo_infra
        self.chunk = chunk
        self.policies: dict[str, Policy] = {p.name: p for p in config.policies}
        #: Serves the links of human seats while the league plays (None: no human).
        self.humans: HumanHost | None = None
        self.interrupted = False
        #: Episodes in flight that Ctrl-C cut short (void, recorded with their usage).
        self.cut_short = 0
        #: The league database or the disk failed while episodes played: the league stops.
        self.db_failed: InfrastructureStop | None = None
        #: Why a Python policy's episode ended its worker process (even when played
        #: alone): the league stops dispatching; the episode is void.
        self.worker_died: str | None = None

    @property
    def halted(self) -> bool:
        """The engine or the session stopped dispatching: a gate or an adaptive
        schedule plays no further round."""
        return self._stopped or self.session.halted

    @property
    def _stopped(self) -> bool:
        return bool(self.db_failed or self.interrupted or self.worker_died)

    def play(self, db: LeagueDB, schedule: list[Pairing], advance: Advance = quiet) -> int:
        """Play what `schedule` (per-pairing targets) lacks in the registered league."""
        scripted = [p for p in schedule if is_scripted(p, self.policies)]
        played = play_chunks(self.backend, db, self.config, scripted, self.chunk, advance)
        others = [p for p in schedule if not is_scripted(p, self.policies)]
        return played + self._play_runner(db, others, advance)

    def close(self) -> None:
        self.backend.close()
        if self.humans is not None:
            self.humans.close()

    # ---- runner episodes ------------------------------------------------------

    def _play_runner(self, db: LeagueDB, pairings: list[Pairing], advance: Advance) -> int:
        name = self.config.name
        voids = {  # the API's voids count toward the re-queue limit; budget and Ctrl-C cuts not
            k: sum(v.cause not in CUT_CAUSES for v in attempts)
            for k, attempts in db.open_voids(name).items()
        }
        queue = [
            (p, idx)
            for p in pairings
            for idx in sorted(set(range(p.episodes)) - db.done(name, p.key))
            if self.redo_infra or voids.get((p.key, idx), 0) <= self.config.void_retries
        ]
        if not queue:
            return 0
        self._seat_humans()
        shared = self.session.open(db)
        if self.halted:  # the start-up check found no budget for a single call
            return 0
        with _young_collections_rarer():
            try:
                return self._play_passes(db, queue, voids, shared, advance)
            finally:
                self.session.close()

    def _seat_humans(self) -> None:
        if not fields_a_human(self.config.policies) or self.humans is not None:
            return
        if not self.backend.in_driver:  # the link is served here
            raise ConfigError("a league that fields `human` runs on the local backend", "backend")
        self.humans = HumanHost(self.config.out, self.console)
        self.policies = {n: self.humans.seated(p) for n, p in self.policies.items()}

    def _play_passes(
        self,
        db: LeagueDB,
        queue: list[tuple[Pairing, int]],
        voids: dict[tuple[str, int], int],
        shared: Shared,
        advance: Advance,
    ) -> int:
        advance(0)  # the rate starts with the first runner episode
        pairings = {p.key: p for p, _ in queue}
        played = 0
        waiting = deque(queue)  # what a pass held back near the budget stays for the next
        while waiting and not self.halted:
            again = []
            # a person plays one episode at a time
            concurrency = 1 if self.humans is not None else self.config.concurrency
            for result in self.backend.map_episodes(self._jobs(waiting, db), concurrency, shared):
                self.session.finished(result)
                scored = isinstance(result, EpisodeRow)
                advance(int(scored), result.usage.tokens, result.usage.cost_usd)
                stored = self._store(db, result)
                if stored is None or isinstance(result, EpisodeRow):
                    played += stored or 0
                    continue
                key = (result.pairing, result.idx)
                voids[key] = voids.get(key, 0) + 1
                if self._retryable(result) and voids[key] <= self.config.void_retries:
                    again.append((pairings[result.pairing], result.idx))
            waiting.extend(again)
            self.interrupted = self.interrupted or self.backend.interrupted
        return played

    def _store(self, db: LeagueDB, result: Played) -> int | None:
        """Write `result`: the episodes scored now (0 for a void), or None when the
        database failed (its calls are kept; a rerun plays it again)."""
        try:
            if isinstance(result, EpisodeRow):
                return db.add(self.config.name, [result])
            db.add_void(self.config.name, result)
            return 0
        except sqlite3.Error as err:
            self.db_failed = self.db_failed or database_failure(db.path, err)
            return None

    def _retryable(self, void: VoidEpisode) -> bool:
        """Whether `void` may be played again; the league's own causes stop it here,
        the others are the session's to judge."""
        if void.cause == "interrupted":
            self.cut_short += 1
        elif void.cause == DISK:
            self.db_failed = self.db_failed or InfrastructureStop(void.detail)
        elif void.cause == WORKER_DIED:
            self.worker_died = void.detail  # it would again: the policy must change
        else:
            return self.session.retryable(void)
        return False

    def _jobs(self, queue: deque[tuple[Pairing, int]], db: LeagueDB) -> Iterator[EpisodeJob]:
        """Jobs, taken from `queue` one by one while the engine and the session let
        them start (a job the session holds back stays for the next pass)."""
        while queue:
            p, idx = queue[0]
            if db.failure is not None:  # a call's usage went beside the database
                self.db_failed = self.db_failed or database_failure(db.path, db.failure)
            if self._stopped or not self.session.may_start(p, idx, db):
                return
            queue.popleft()
            yield self._job(p, idx)

    def _job(self, p: Pairing, idx: int) -> EpisodeJob:
        policies = tuple(self.policies[n] for n in p.seats)
        clock = self.config.clock
        if fields_a_human(policies):
            clock = replace(clock, play_budget_seconds=HUMAN_PLAY_BUDGET_SECONDS)
        # every episode with a paid seat writes its replay (its calls are the record of
        # what was paid for), else only the first `replays` of the pairing
        keep = self.session.records_every_episode(policies) or idx < self.config.replays
        job = EpisodeJob(
            p.episode(idx),
            policies,
            clock,
            self.config.settings_for(p.game),
            str(replay_path(self.config, p, idx)) if keep else None,
            openings=self.config.openings_for(p.game),
        )
        return self.session.prepare(job)


@contextmanager
def _young_collections_rarer() -> Iterator[None]:
    """What exists now (modules, the client's tables) lives as long as the run:
    full collections need not scan it again while episodes play. Nearly every
    object a call makes is freed by its reference count, so young collections
    every 700 allocations (the default) find little and cost ~5% of the CPU per
    decision: every 20,000 is enough."""
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], YOUNG_GC_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
