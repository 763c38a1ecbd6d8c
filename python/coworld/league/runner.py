"""Running a league: scripted pairings through the Rust batch simulator, Claude
pairings through the async episode runner, every result through one storage
path, on the local machine or fanned out over Ray."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..seats.policy import BaselinePolicy
from .backend import make_backend
from .config import LeagueConfig
from .schedule import Pairing, build_schedule
from .storage import LeagueDB
from .work import ChunkJob, EpisodeJob, play_episode

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


#: The progress callback: (episodes, tokens, cost) just finished.
Advance = Callable[[int, int, float], None]


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


class LeagueRun:
    def __init__(
        self,
        config: LeagueConfig,
        *,
        backend: str = "local",
        address: str | None = None,
        fresh: bool = False,
        progress: bool = True,
        console: Console | None = None,
        chunk: int = CHUNK,
    ) -> None:
        self.config = config
        self.backend = make_backend(backend, address, config.threads)
        self.fresh = fresh
        self.console = console or Console()
        self.show_progress = progress
        self.chunk = chunk
        self.schedule = build_schedule(config)
        self.policies = {p.name: p for p in config.policies}
        self.budget_stopped = False

    def is_scripted(self, pairing: Pairing) -> bool:
        return all(isinstance(self.policies[n], BaselinePolicy) for n in pairing.seats)

    def run(self) -> LeagueReport:
        started = time.monotonic()
        db = LeagueDB(self.config.database)
        try:
            if self.fresh:
                db.forget(self.config.name)
            db.register(self.config.name, self.config.describe(), self.config.policies)
            total = sum(p.episodes for p in self.schedule)
            already = sum(len(db.done(self.config.name, p.key)) for p in self.schedule)
            with self._progress(total, already) as advance:
                playing = time.monotonic()
                played = self._run_scripted(db, advance) + self._run_claude(db, advance)
                playing = time.monotonic() - playing
                self._write_replays(db)
            from .ranking import export

            exports = export(db.blocks(self.config.name), self.config.name, self.config.out)
            return LeagueReport(
                self.config.name,
                self.config.database,
                db.count(self.config.name),
                played,
                time.monotonic() - started,
                self.budget_stopped,
                exports,
                playing,
            )
        finally:
            db.close()

    # ---- progress -----------------------------------------------------------

    def _progress(self, total: int, already: int) -> AbstractContextManager[Advance]:
        run = self

        class _Ctx:
            def __enter__(self) -> Advance:
                self.progress = Progress(
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
                self.t0, self.n, self.tokens, self.cost = time.monotonic(), 0, 0, 0.0
                return self.advance

            def advance(self, episodes: int, tokens: int = 0, cost: float = 0.0) -> None:
                self.n += episodes
                self.tokens += tokens
                self.cost += cost
                rate = self.n / max(time.monotonic() - self.t0, 1e-9)
                self.progress.update(
                    self.task,
                    advance=episodes,
                    rate=f"{rate:,.0f}",
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
            advance(chunk.count)
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
                    )
                )
                if row.score != tuple(float(x) for x in chunk.score[idx]) or row.plies != int(
                    chunk.plies[idx]
                ):
                    raise RuntimeError(
                        f"the episode runner disagrees with the batch simulator on {p.key} "
                        f"episode {idx} (seed {row.seed}): {row.score} in {row.plies} plies vs "
                        f"{chunk.score[idx]} in {chunk.plies[idx]}"
                    )
                db.add(self.config.name, [row], source="replay")

    def _replay_path(self, p: Pairing, idx: int) -> Path:
        safe = "-vs-".join(n.replace("/", "_") for n in p.seats)
        return self.config.out / "replays" / p.game / f"{safe}-{idx:05d}.jsonl"

    # ---- Claude -------------------------------------------------------------

    def _over_budget(self, db: LeagueDB) -> bool:
        spent = db.usage(self.config.name)
        c = self.config
        return (c.max_tokens is not None and spent.tokens >= c.max_tokens) or (
            c.max_cost_usd is not None and spent.cost_usd >= c.max_cost_usd
        )

    def _run_claude(self, db: LeagueDB, advance: Callable[..., None]) -> int:
        todo = [
            (p, idx)
            for p in self.schedule
            if not self.is_scripted(p)
            for idx in sorted(set(range(p.episodes)) - db.done(self.config.name, p.key))
        ]
        if not todo:
            return 0
        played = 0

        def jobs() -> Iterator[EpisodeJob]:
            for p, idx in todo:
                if self._over_budget(db):
                    self.budget_stopped = True
                    return
                yield EpisodeJob(
                    p.key,
                    idx,
                    p.game,
                    tuple(self.policies[n] for n in p.seats),
                    p.seed(idx),
                    self.config.clock,
                    self.config.settings_for(p.game),
                    str(self._replay_path(p, idx)),
                )

        for row in self.backend.map_episodes(jobs(), self.config.concurrency):
            played += db.add(self.config.name, [row])
            advance(1, row.usage.tokens, row.usage.cost_usd)
        if self._over_budget(db) and played < len(todo):
            self.budget_stopped = True
        return played


__all__ = ["LeagueReport", "LeagueRun", "missing_ranges"]
