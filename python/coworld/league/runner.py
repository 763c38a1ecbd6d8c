"""Running a league: `LeagueRun` puts the rooms together and reports. The engine
(`engine.py`) plays the schedule into the database on a backend (`backends/`),
consulting the Claude session (`session.py`) before each episode; the progress
display (`progress.py`) shows it; adaptive schedules (`adaptive.py`) and gates
(`gate.py`) call `play(schedule)` round after round. At the end: the scripted
pairings' replays, the exports and a `LeagueReport`."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console

from .. import _core
from ..errors import InfrastructureStop
from ..seats.infra import InfraPolicy, Pause
from .adaptive import Round, play_adaptive
from .backends import make_backend
from .config import LeagueConfig
from .db_faults import database_failure
from .engine import Halt, LeagueEngine, Step
from .flags import alike_pairings
from .progress import Advance, LeagueProgress, quiet
from .ranking import export
from .records import CUT_CAUSES, WORKER_DIED
from .schedule import Pairing, build_schedule
from .scripted import CHUNK, is_scripted, write_replays
from .session import ClaudeSession
from .storage import LeagueDB


class LeagueInterrupted(KeyboardInterrupt):
    """Ctrl-C: what completed is stored, the rest recorded; the message says so."""


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


def league_seed(config: LeagueConfig, fresh: bool) -> int:
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
        self.config = config if config.seed else replace(config, seed=league_seed(config, fresh))
        self.fresh = fresh
        self.console = console or Console()
        self.show_progress = progress
        infra = infra or InfraPolicy(patience_seconds=config.infra_patience)
        self.backend = make_backend(backend, address, config.threads)
        self.session = ClaudeSession(
            self.config, self.backend, infra, self.console, fresh=fresh, show_progress=progress
        )
        self.engine = LeagueEngine(
            self.config,
            self.backend,
            self.session,
            console=self.console,
            redo_infra=redo_infra,
            chunk=chunk,
        )
        self.schedule = build_schedule(self.config)
        #: The schedule last asked for (an adaptive round's targets): what the report
        #: counts as scheduled.
        self.asked: list[Pairing] = self.schedule
        #: Hears each adaptive round (prints its line while progress is shown).
        self.on_round = self._show_round

    def play(self, db: LeagueDB, schedule: list[Pairing], advance: Advance = quiet) -> Step:
        """Play what `schedule` (per-pairing targets) lacks in the registered league,
        without exports: the step of gates and adaptive schedules."""
        self.asked = schedule
        return Step(self.engine.play(db, schedule, advance), self.halt())

    def halt(self) -> Halt | None:
        """Why the run stopped dispatching (None: it did not)."""
        if not self.engine.halted:
            return None
        reason = self._stop_reason()
        if self.session.budget_stopped:
            return Halt("budget", reason or "the budget cannot cover another episode")
        if self.session.gave_up or self.session.refused:
            return Halt("api", reason)
        return Halt("policy" if self.engine.worker_died else "other", reason)

    def close(self) -> None:
        """Release the backend (its loop, clients and worker pools) and human links."""
        self.engine.close()

    def run(self) -> LeagueReport:
        started = time.monotonic()
        name = self.config.name
        db = LeagueDB(self.config.database)
        try:
            if self.fresh:
                db.forget(name)
            db.register(name, self.config.describe(), self.config.policies)
            adaptive = self.config.schedule == "adaptive"  # its total is not known ahead
            total = None if adaptive else sum(p.episodes for p in self.schedule)
            already = (
                db.count(name)
                if adaptive
                else sum(len(db.done(name, p.key)) for p in self.schedule)
            )
            progress = LeagueProgress(
                name, total, already, self.console, self.show_progress, self.session.pause
            )
            with progress as advance:
                playing = time.monotonic()
                if adaptive:
                    played = play_adaptive(
                        lambda s: self.play(db, s, advance),
                        self.schedule,
                        db,
                        self.config,
                        self.on_round,
                    )
                else:
                    played = self.play(db, self.schedule, advance).played
                playing = time.monotonic() - playing
                if not self.engine.interrupted and not self.engine.db_failed:
                    scripted = [p for p in self.schedule if is_scripted(p, self.engine.policies)]
                    write_replays(db, self.config, scripted, self.engine.policies)
            self.close()
            self._raise_stop(played)
            exports = export(
                db.blocks(name), name, self.config.out, self.config.seed, alike_pairings(db, name)
            )
            return LeagueReport(
                name,
                self.config.database,
                db.count(name),
                played,
                time.monotonic() - started,
                self.session.budget_stopped,
                exports,
                playing,
                self._open_void_causes(db),
                self.session.pauses,
                self._stop_reason(),
                0 if total is None else total - db.count(name),
                self._incomplete(db),
                policy_stopped=bool(self.engine.worker_died),
            )
        except sqlite3.Error as err:  # locked past the wait, full, damaged: one line
            raise database_failure(db.path, err) from None
        finally:
            self.close()
            db.close()

    def _raise_stop(self, played: int) -> None:
        """A stop that is not a report: Ctrl-C, a rejected request, a failed database."""
        if self.engine.interrupted:
            raise LeagueInterrupted(
                f"stopped by Ctrl-C: {played} episodes stored now, {self.engine.cut_short} in "
                "flight recorded as void with their usage; rerun the same command to resume"
            )
        if self.session.rejected:
            raise InfrastructureStop(f"league {self.config.name}: {self.session.rejected}")
        if self.engine.db_failed:
            raise self.engine.db_failed

    def _incomplete(self, db: LeagueDB) -> list[tuple[str, int, int]]:
        out = []
        for p in self.asked:
            scored = len(db.done(self.config.name, p.key))
            if scored < p.episodes:
                out.append((p.key, scored, p.episodes))
        return out

    def _stop_reason(self) -> str | None:
        if self.engine.worker_died:
            return f"{self.engine.worker_died}: fix the policy"
        return self.session.stop_reason()

    def _open_void_causes(self, db: LeagueDB) -> dict[str, int]:
        causes: dict[str, int] = {}
        for attempts in db.open_voids(self.config.name).values():
            cause = attempts[-1].cause
            if cause not in CUT_CAUSES and cause != WORKER_DIED:  # the stop reason names it
                causes[cause] = causes.get(cause, 0) + 1
        return causes

    def _show_round(self, r: Round) -> None:
        if self.show_progress:
            self.console.print(r.line())


__all__ = ["LeagueInterrupted", "LeagueReport", "LeagueRun"]
