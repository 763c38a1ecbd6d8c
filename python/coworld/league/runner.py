"""Running a league: scripted pairings through the Rust batch simulator, Claude
pairings through the async episode runner, every result through one storage
path, on the local machine or fanned out over Ray."""

from __future__ import annotations

import asyncio
import gc
import os
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from .. import _core
from ..errors import ConfigError, InfrastructureStop
from ..seats.budget import BudgetExhausted, Ledger
from ..seats.claude import ClaudeClient, Usage, has_credentials
from ..seats.infra import (
    REJECTED,
    CircuitBreaker,
    InfraFailure,
    InfraPolicy,
    ModelTimeout,
    Pause,
    RequestRejected,
    retryable_cause,
)
from ..seats.policy import BaselinePolicy, ClaudePolicy
from .admission import Admission
from .backend import WORKER_DIED, LocalBackend, make_backend
from .config import LeagueConfig
from .db_faults import database_failure
from .human_host import HUMAN_PLAY_BUDGET_SECONDS, HumanHost, fields_a_human
from .plan import episode_bounds
from .schedule import Pairing, build_schedule
from .storage import EpisodeRow, LeagueDB
from .work import DISK, ChunkJob, EpisodeJob, Shared, play_episode

if TYPE_CHECKING:
    from .adaptive import Round

#: Scripted episodes per stored batch: the most a kill can lose (resume redoes it).
#: COWORLD_LEAGUE_CHUNK overrides it (smaller: finer progress and resume; larger: less overhead).
CHUNK = int(os.environ.get("COWORLD_LEAGUE_CHUNK", "10000"))


def missing_ranges(done: set[int], total: int, chunk: int) -> Iterator[tuple[int, int]]:
    """(start, count) runs of indices not yet done, each at most `chunk` long."""
    i = 0
    while i < total:
        if i in done:
            i += 1
            continue
        j = i
        while j < total and j not in done and j - i < chunk:
            j += 1
        yield i, j - i
        i = j


#: Allocations between young garbage collections while Claude episodes play.
YOUNG_GC_THRESHOLD = 20_000

PING: list[dict[str, Any]] = [{"role": "user", "content": "ping"}]
CHECK_PROMPT = "Reply with one word."

#: Episodes cut short by the league itself, or by a request the API rejected (the
#: policy must change): a plain rerun plays them.
CUT_CAUSES = ("budget", "interrupted", REJECTED, DISK)


class LeagueInterrupted(KeyboardInterrupt):
    """Ctrl-C: what completed is stored, the rest recorded; the message says so."""


#: The progress callback: (episodes, tokens, cost, batch) just finished.
Advance = Callable[..., None]


@dataclass
class LeagueReport:
    league: str
    database: Path
    episodes: int
    played_now: int
    seconds: float
    budget_stopped: bool = False
    exports: dict[str, Path] = field(default_factory=dict)
    #: Time spent playing and storing episodes (the rest: schedule, replays, exports).
    playing_seconds: float = 0.0
    #: Scheduled episodes still void (not scored) when the run ended, by cause.
    voided: dict[str, int] = field(default_factory=dict)
    #: Times the API was unavailable and dispatching paused.
    pauses: list[Pause] = field(default_factory=list)
    #: Why the league stopped before its schedule was played (None: it did not).
    stopped: str | None = None
    #: Scheduled episodes not in the database (not played, or void).
    missing: int = 0
    #: (pairing, scored, scheduled) of every pairing not complete: partial standings.
    incomplete: list[tuple[str, int, int]] = field(default_factory=list)
    #: True when the stop was a policy's doing (it ended its worker process), not the API's.
    policy_stopped: bool = False


def _league_seed(config: LeagueConfig, fresh: bool) -> int:
    """`seed = 0`: the seed the league drew when it started (stored with it, so a
    resume plays on the same seeds), else a fresh 53-bit draw."""
    if not fresh and Path(config.database).exists():
        db = LeagueDB(config.database)
        try:
            stored = int(db.config(config.name).get("seed", 0))
        finally:
            db.close()
        if stored:
            return stored
    return _core.draw_seed()


class LeagueRun:
    def __init__(
        self,
        config: LeagueConfig,
        *,
        backend: str = "local",
        address: str | None = None,
        fresh: bool = False,
        redo_infra: bool = False,
        infra: InfraPolicy | None = None,
        progress: bool = True,
        console: Console | None = None,
        chunk: int = CHUNK,
    ) -> None:
        self.config = config if config.seed else replace(config, seed=_league_seed(config, fresh))
        self.backend = make_backend(backend, address, config.threads)
        self.fresh = fresh
        self.redo_infra = redo_infra
        self.infra = infra or InfraPolicy(patience_seconds=config.infra_patience)
        self.breaker: CircuitBreaker | None = None
        #: The cause of an API refusal (401, 404, ...): the league stops dispatching.
        self.refused: str | None = None
        #: A request the API rejected as invalid (its policy and message): the league stops.
        self.rejected: str | None = None
        #: The league database or the disk failed while episodes played: the league stops.
        self.db_failed: InfrastructureStop | None = None
        #: The pause that outlasted the patience: the league stopped dispatching.
        self.gave_up: Pause | None = None
        #: Why a Python policy's episode ended its worker process (even when played
        #: alone): the league stops dispatching; the episode is void.
        self.worker_died: str | None = None
        self.ledger: Ledger | None = None
        self.admission: Admission | None = None
        self.spent_before: Usage | None = None
        self.interrupted = False
        self.cut_short = 0
        self.console = console or Console()
        self.show_progress = progress
        self.chunk = chunk
        self.schedule = build_schedule(config)
        self.policies = {p.name: p for p in config.policies}
        self._pairings = {p.key: p for p in self.schedule}
        self.budget_stopped = False
        #: Serves the links of human seats while the league plays (None: no human).
        self.humans: HumanHost | None = None
        #: The run's client, ledger and call writer, made by the first Claude episodes.
        self._shared_once: Shared | None = None

    @property
    def halted(self) -> bool:
        """The run stopped dispatching (budget, outage, refusal, Ctrl-C, a dead
        worker): a gate or an adaptive schedule plays no further round."""
        return self._stopping

    @property
    def halt_reason(self) -> str | None:
        """Why the run stopped dispatching, in words (None: it did not)."""
        if self.budget_stopped and not self._stop_reason():
            return "the budget cannot cover another episode"
        return self._stop_reason()

    def is_scripted(self, pairing: Pairing) -> bool:
        return all(isinstance(self.policies[n], BaselinePolicy) for n in pairing.seats)

    def run(self) -> LeagueReport:
        started = time.monotonic()
        db = LeagueDB(self.config.database)
        try:
            if self.fresh:
                db.forget(self.config.name)
            db.register(self.config.name, self.config.describe(), self.config.policies)
            adaptive = self.config.schedule == "adaptive"  # its total is not known ahead
            total = None if adaptive else sum(p.episodes for p in self.schedule)
            already = (
                db.count(self.config.name)
                if adaptive
                else sum(len(db.done(self.config.name, p.key)) for p in self.schedule)
            )
            with self._progress(total, already) as advance:
                playing = time.monotonic()
                if adaptive:
                    from .adaptive import play_adaptive

                    played = play_adaptive(self, db, self._show_round, advance)
                else:
                    played = self._run_scripted(db, advance) + self._run_claude(db, advance)
                playing = time.monotonic() - playing
                if not self.interrupted and not self.db_failed:
                    self._write_replays(db)
            self.backend.close()
            if self.interrupted:
                raise LeagueInterrupted(
                    f"stopped by Ctrl-C: {played} episodes stored now, {self.cut_short} in "
                    "flight recorded as void with their usage; rerun the same command to resume"
                )
            if self.rejected:
                raise InfrastructureStop(f"league {self.config.name}: {self.rejected}")
            if self.db_failed:
                raise self.db_failed
            from .flags import alike_pairings
            from .ranking import export

            name = self.config.name
            exports = export(
                db.blocks(name), name, self.config.out, self.config.seed, alike_pairings(db, name)
            )
            return LeagueReport(
                self.config.name,
                self.config.database,
                db.count(self.config.name),
                played,
                time.monotonic() - started,
                self.budget_stopped,
                exports,
                playing,
                self._open_void_causes(db),
                list(self.breaker.pauses) if self.breaker else [],
                self._stop_reason(),
                0 if total is None else total - db.count(self.config.name),
                self._incomplete(db),
                policy_stopped=bool(self.worker_died),
            )
        except sqlite3.Error as err:  # locked past the wait, full, damaged: one line
            raise database_failure(db.path, err) from None
        finally:
            self.backend.close()
            db.close()
            if self.humans is not None:
                self.humans.close()

    def _incomplete(self, db: LeagueDB) -> list[tuple[str, int, int]]:
        out = []
        for p in self.schedule:
            scored = len(db.done(self.config.name, p.key))
            if scored < p.episodes:
                out.append((p.key, scored, p.episodes))
        return out

    def _stop_reason(self) -> str | None:
        if self.worker_died:
            return f"{self.worker_died}: fix the policy"
        if self.refused:
            return f"the API refused the calls ({self.refused}); check the key and the models"
        if self.gave_up:
            return (
                f"the API was unavailable ({self.gave_up.cause}) for longer than the "
                f"patience ({self.infra.patience_seconds:g} s)"
            )
        return None

    def _open_void_causes(self, db: LeagueDB) -> dict[str, int]:
        causes: dict[str, int] = {}
        for attempts in db.open_voids(self.config.name).values():
            cause = attempts[-1].cause
            if cause not in CUT_CAUSES and cause != WORKER_DIED:  # the stop reason names it
                causes[cause] = causes.get(cause, 0) + 1
        return causes

    def play(
        self, db: LeagueDB, schedule: list[Pairing], advance: Callable[..., None] | None = None
    ) -> int:
        """Play what `schedule` (per-pairing targets) lacks in the registered league,
        without exports: the step of gates and adaptive schedules."""
        self.schedule = schedule

        def quiet(*_: object, **__: object) -> None:
            return None

        return self._run_scripted(db, advance or quiet) + self._run_claude(db, advance or quiet)

    def _show_round(self, r: Round) -> None:
        if self.show_progress:
            conf = ", ".join(f"{g} {c:.3f}" for g, c in r.confidence.items())
            nxt = ", ".join(f"{k[1]} ({k[0]})" for k in r.next) or "done"
            self.console.print(
                f"round {r.number}: {r.episodes} episodes; order confidence {conf}; next: {nxt}"
            )

    # ---- progress -----------------------------------------------------------

    def _progress(self, total: int | None, already: int) -> AbstractContextManager[Advance]:
        run = self

        class _Ctx:
            def __enter__(self) -> Advance:
                self.progress = Progress(
                    PauseColumn(lambda: run.breaker),
                    TextColumn("[bold]{task.description}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TextColumn("{task.fields[rate]} ep/s"),
                    TimeRemainingColumn(),
                    TextColumn("tokens {task.fields[tokens]}  ${task.fields[cost]}"),
                    console=run.console,
                    disable=not run.show_progress,
                    transient=False,
                )
                self.progress.start()
                self.task = self.progress.add_task(
                    f"league {run.config.name}",
                    total=total,
                    completed=already,
                    rate="-",
                    tokens=0,
                    cost="0.00",
                )
                self.t0: float | None = None
                self.n, self.tokens, self.cost = 0, 0, 0.0
                return self.advance

            def advance(
                self, episodes: int, tokens: int = 0, cost: float = 0.0, batch: bool = False
            ) -> None:
                """The rate counts runner episodes only, from the first one's start:
                a batch of scripted chunks would make it meaningless."""
                if not batch and self.t0 is None:
                    self.t0 = time.monotonic()
                self.n += 0 if batch else episodes
                self.tokens += tokens
                self.cost += cost
                rate = self.n / max(time.monotonic() - (self.t0 or 0.0), 1e-9)
                self.progress.update(
                    self.task,
                    advance=episodes,
                    rate=f"{rate:,.1f}" if self.n else "-",
                    tokens=f"{self.tokens:,}",
                    cost=f"{self.cost:.2f}",
                )

            def __exit__(self, *exc: object) -> None:
                self.progress.stop()

        return _Ctx()

    # ---- scripted -----------------------------------------------------------

    def _run_scripted(self, db: LeagueDB, advance: Callable[..., None]) -> int:
        jobs = [
            ChunkJob(
                p.key,
                p.game,
                p.seats,
                p.base_seed,
                start,
                count,
                self.config.settings_for(p.game),
                self.config.threads,
                self.config.openings_for(p.game),
            )
            for p in self.schedule
            if self.is_scripted(p)
            for start, count in missing_ranges(
                db.done(self.config.name, p.key), p.episodes, self.chunk
            )
        ]
        played = 0
        for chunk in self.backend.map_chunks(jobs):
            played += db.add_chunk(self.config.name, chunk)
            advance(chunk.count, batch=True)
        return played

    def _write_replays(self, db: LeagueDB) -> None:
        """The first `replays` episodes of each scripted pairing, replayed through the
        episode runner to a replay file; the runner must agree with the batch."""
        if self.config.replays == 0:
            return
        listed = {(r.pairing, r.idx) for r in db.runner_rows(self.config.name, "replay")}
        chunks = {c.pairing: c for c in db.chunks(self.config.name) if c.start == 0}
        for p in self.schedule:
            if not self.is_scripted(p) or p.key not in chunks:
                continue
            chunk = chunks[p.key]
            for idx in range(min(self.config.replays, chunk.count)):
                if (p.key, idx) in listed:
                    continue
                out = self._replay_path(p, idx)
                row = play_episode(
                    EpisodeJob(
                        p.key,
                        idx,
                        p.game,
                        tuple(self.policies[n] for n in p.seats),
                        int(chunk.seed[idx]),
                        self.config.clock,
                        self.config.settings_for(p.game),
                        str(out),
                        openings=self.config.openings_for(p.game),
                    )
                )
                assert isinstance(row, EpisodeRow)  # scripted seats: nothing to void
                if row.score != tuple(float(x) for x in chunk.score[idx]) or row.plies != int(
                    chunk.plies[idx]
                ):
                    raise RuntimeError(
                        f"the episode runner disagrees with the batch simulator on {p.key} "
                        f"episode {idx} (seed {row.seed}): {row.score} in {row.plies} plies vs "
                        f"{chunk.score[idx]} in {chunk.plies[idx]}"
                    )
                db.add(self.config.name, [row], source="replay")

    def _replay_file(self, p: Pairing, idx: int) -> str | None:
        """Where a runner episode writes its replay: always with a Claude seat (its
        calls are the record of what was paid for), else only the first `replays`
        episodes of the pairing, as for scripted pairings."""
        claude = any(isinstance(self.policies[n], ClaudePolicy) for n in p.seats)
        if claude or idx < self.config.replays:
            return str(self._replay_path(p, idx))
        return None

    def _replay_path(self, p: Pairing, idx: int) -> Path:
        safe = "-vs-".join(n.replace("/", "_") for n in p.seats)
        return self.config.out / "replays" / p.game / f"{safe}-{idx:05d}.jsonl"

    # ---- Claude -------------------------------------------------------------

    def _run_claude(self, db: LeagueDB, advance: Callable[..., None]) -> int:
        """Claude episodes, in passes: the schedule's missing episodes, then those that
        came back void (same seed), up to `void_retries` more times each. An episode
        already void that often waits for `--redo infra`."""
        name = self.config.name
        voids = {  # the API's voids count toward the re-queue limit; budget and Ctrl-C cuts not
            k: sum(v.cause not in CUT_CAUSES for v in attempts)
            for k, attempts in db.open_voids(name).items()
        }
        queue = [
            (p, idx)
            for p in self.schedule
            if not self.is_scripted(p)
            for idx in sorted(set(range(p.episodes)) - db.done(name, p.key))
            if self.redo_infra or voids.get((p.key, idx), 0) <= self.config.void_retries
        ]
        if not queue:
            return 0
        if fields_a_human(self.config.policies) and self.humans is None:
            if not isinstance(self.backend, LocalBackend):  # the link is served here
                raise ConfigError(
                    "a league that fields `human` runs on the local backend", "backend"
                )
            self.humans = HumanHost(self.config.out, self.console)
            self.policies = {n: self.humans.seated(p) for n, p in self.policies.items()}
        if self._shared_once is None:  # once per run: not once per round of a gate or adaptive
            self._shared_once = self._shared(db)
        shared = self._shared_once
        if self._stopping:  # the start-up check found no budget for a single call
            return 0
        # What exists now (modules, the client's tables) lives as long as the run:
        # full collections need not scan it again while episodes play. Nearly every
        # object a call makes is freed by its reference count, so young collections
        # every 700 allocations (the default) find little and cost ~5% of the CPU
        # per decision: every 20,000 is enough.
        gc.freeze()
        thresholds = gc.get_threshold()
        gc.set_threshold(max(thresholds[0], YOUNG_GC_THRESHOLD), *thresholds[1:])
        try:
            return self._play_passes(db, queue, voids, shared, advance)
        finally:
            if shared.batch is not None:
                from .batch import finish

                finish(self, shared.batch)
            gc.set_threshold(*thresholds)
            gc.unfreeze()

    def _play_passes(
        self,
        db: LeagueDB,
        queue: list[tuple[Pairing, int]],
        voids: dict[tuple[str, int], int],
        shared: Shared,
        advance: Callable[..., None],
    ) -> int:
        name = self.config.name
        advance(0)  # the rate starts with the first runner episode
        played = 0
        waiting = deque(queue)  # what a pass held back near the budget stays for the next
        while waiting and not self._stopping:
            again = []
            # a person plays one episode at a time
            concurrency = 1 if self.humans is not None else self.config.concurrency
            for result in self.backend.map_episodes(self._jobs(waiting, db), concurrency, shared):
                if self.admission is not None:
                    self.admission.finished(result)
                scored = isinstance(result, EpisodeRow)
                advance(int(scored), result.usage.tokens, result.usage.cost_usd)
                try:
                    if isinstance(result, EpisodeRow):
                        played += db.add(name, [result])
                        continue
                    db.add_void(name, result)
                except sqlite3.Error as err:  # its calls are kept; a rerun plays it again
                    self.db_failed = self.db_failed or database_failure(db.path, err)
                    continue
                key = (result.pairing, result.idx)
                voids[key] = voids.get(key, 0) + 1
                if result.cause == "budget":
                    self.budget_stopped = True
                elif result.cause == "interrupted":
                    self.cut_short += 1
                elif result.cause == DISK:
                    self.db_failed = self.db_failed or InfrastructureStop(result.detail)
                elif result.cause == REJECTED:
                    self.rejected = result.detail  # the policy's parameters: no retry helps
                elif result.cause == WORKER_DIED:
                    self.worker_died = result.detail  # it would again: the policy must change
                elif not retryable_cause(result.cause):
                    self.refused = result.cause  # a bad key or model: no retry helps
                elif voids[key] <= self.config.void_retries:
                    again.append((self._pairings[result.pairing], result.idx))
            waiting.extend(again)
            self.interrupted = self.interrupted or self.backend.interrupted
        return played

    @property
    def _stopping(self) -> bool:
        return bool(
            self.gave_up
            or self.refused
            or self.rejected
            or self.db_failed
            or self.interrupted
            or self.budget_stopped
            or self.worker_died
        )

    def _shared(self, db: LeagueDB) -> Shared:
        """The run's one client (None without credentials: the fallback plays), its
        ledger (spend so far from the database), and the writer of each call."""
        if not has_credentials():
            return Shared()
        name, c = self.config.name, self.config
        before = db.spent(name)
        if before.tokens < db.usage(name).tokens:  # a database from before per-call records
            before = db.usage(name)
        self.ledger = Ledger(c.max_tokens, c.max_cost_usd, spent=before)
        self.spent_before = before
        if self._capped and before.calls:
            self.console.print(self._budget_line(before))
        self.breaker = CircuitBreaker(self.infra)
        client = ClaudeClient(
            timeout=c.clock.llm_timeout_seconds,
            infra=self.infra,
            breaker=self.breaker,
            ledger=self.ledger,
        )
        self._preflight(db)
        self.admission = Admission(self.ledger, live=True)
        admission = self.admission

        def on_call(job: EpisodeJob, usage: Usage) -> None:
            db.add_call(name, job.pairing, job.idx, usage)
            admission.on_call(job.pairing, job.idx, usage)

        batch = None
        if c.mode == "batch":
            from .batch import batch_client

            batch = batch_client(self, admission.on_call)
        return Shared(client, on_call, batch=batch)

    @property
    def _capped(self) -> bool:
        return self.config.max_tokens is not None or self.config.max_cost_usd is not None

    def _preflight(self, db: LeagueDB) -> None:
        """One call per distinct request (model and parameters) before the league
        starts, with the policy's real parameters: an unknown model or a refused key
        is a config error naming the policy file, a rejected request stops the
        league, not a league of void episodes."""
        requests = {
            (p.model, p.max_tokens, p.temperature, p.effort, p.thinking): p
            for p in self.config.policies
            if isinstance(p, ClaudePolicy)
        }
        if not requests:
            return

        def record(usage: Usage) -> None:  # every billed answer, readable or not
            db.add_call(self.config.name, "preflight", 0, usage)

        async def ping() -> None:
            client = ClaudeClient(
                timeout=self.config.clock.llm_timeout_seconds, infra=self.infra, ledger=self.ledger
            )
            try:
                for policy in requests.values():
                    try:  # the check is a call like any other: within the budget
                        await client.ask(policy, CHECK_PROMPT, PING, record)
                    except BudgetExhausted:
                        self.budget_stopped = True
                        return
                    except RequestRejected as err:
                        raise InfrastructureStop(f"league {self.config.name}: {err}") from None
                    except InfraFailure as err:
                        if err.fatal:
                            raise ConfigError(
                                f"{policy.path or policy.name}: model {policy.model!r} cannot "
                                f"be used: {err}",
                                "model",
                            ) from err
                        continue  # unavailable for now: the breaker handles it in the run
                    except ModelTimeout:
                        continue
            finally:
                await client.close()

        asyncio.run(ping())

    def _budget_line(self, spent: Usage) -> str:
        c, parts = self.config, []
        if c.max_tokens is not None:
            parts.append(
                f"{c.max_tokens:,} tokens ({spent.tokens:,} spent, "
                f"{max(0, c.max_tokens - spent.tokens):,} remain)"
            )
        if c.max_cost_usd is not None:
            parts.append(
                f"${c.max_cost_usd:.2f} ({spent.cost_usd:.2f} spent, "
                f"{max(0.0, c.max_cost_usd - spent.cost_usd):.2f} remain)"
            )
        return f"resuming league {c.name}: budget " + " and ".join(parts)

    def _budget_exhausted(self, db: LeagueDB) -> bool:
        """No further call fits the budget (episodes in other processes, also on
        Ray, reserve against this ledger or one it mirrors)."""
        if self.ledger is None:
            return False
        return self.ledger.exhausted

    def _admits(self, p: Pairing) -> bool:
        """Whether the budget left covers finishing every episode in flight and one
        more of `p` (`admission`). With none in flight one episode may always try
        (its first call must still fit): at most it is lost, and it measures."""
        if self.admission is None:
            return True
        if p.key not in self.admission.pairings:
            self.admission.know(p.key, *episode_bounds(self.config, p))
        return self.admission.in_flight == 0 or self.admission.admits(p.key)

    def _wait_while_paused(self) -> bool:
        """Hold dispatching while the API is unavailable. With no call left to probe
        it, let one episode through (its first call is the probe). False: the pause
        outlasted the patience, and the league stops (a rerun resumes it)."""
        b = self.breaker
        while b is not None and (pause := b.paused) is not None and not self.backend.interrupted:
            if time.time() - pause.since > self.infra.patience_seconds:
                self.gave_up = pause
                return False
            if b.waiting == 0:
                return True
            time.sleep(0.02)
        return True

    def _jobs(self, queue: deque[tuple[Pairing, int]], db: LeagueDB) -> Iterator[EpisodeJob]:
        """Jobs, taken from `queue` one by one: none while the API is unavailable, none
        once the budget cannot cover another call. Near the cap, an episode the budget
        left cannot finish beside those in flight waits for them (this pass ends and
        the next takes it up)."""
        while queue:
            p, idx = queue[0]
            if db.failure is not None:  # a call's usage went beside the database
                self.db_failed = self.db_failed or database_failure(db.path, db.failure)
            if not self._wait_while_paused() or self._stopping:
                return
            if self._budget_exhausted(db):
                self.budget_stopped = True
                return
            if not self._admits(p):
                return
            queue.popleft()
            if self.admission is not None:
                self.admission.started(p.key, idx)
            policies = tuple(self.policies[n] for n in p.seats)
            clock = self.config.clock
            if fields_a_human(policies):
                clock = replace(clock, play_budget_seconds=HUMAN_PLAY_BUDGET_SECONDS)
            yield EpisodeJob(
                p.key,
                idx,
                p.game,
                policies,
                p.seed(idx),
                clock,
                self.config.settings_for(p.game),
                self._replay_file(p, idx),
                self.infra,
                openings=self.config.openings_for(p.game),
            )


class PauseColumn(ProgressColumn):
    """ "paused: API unavailable (529) since 12:01:07" while the breaker is open."""

    def __init__(self, breaker: Callable[[], CircuitBreaker | None]) -> None:
        super().__init__()
        self.breaker = breaker

    def render(self, task: Task) -> Text:
        b = self.breaker()
        pause = b.paused if b else None
        if pause is None:
            return Text("")
        since = time.strftime("%H:%M:%S", time.localtime(pause.since))
        return Text(
            f"paused: API unavailable ({pause.cause.removeprefix('http-')}) since {since}",
            style="yellow",
        )


__all__ = ["LeagueInterrupted", "LeagueReport", "LeagueRun", "missing_ranges"]
