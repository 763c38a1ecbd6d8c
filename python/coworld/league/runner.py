"""Running a league: scripted pairings through the Rust batch simulator, Claude
pairings through the async episode runner, every result through one storage
path, on the local machine or fanned out over Ray."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ..episode import Clock, Episode
from ..seats.policy import BaselinePolicy, Policy
from ..simulate import simulate
from .config import LeagueConfig
from .schedule import Pairing, build_schedule
from .storage import Chunk, EpisodeRow, LeagueDB, now

#: Scripted episodes per stored batch: the most a kill can lose (resume redoes it).
#: COWORLD_LEAGUE_CHUNK overrides it (smaller: finer progress and resume; larger: less overhead).
CHUNK = int(os.environ.get("COWORLD_LEAGUE_CHUNK", "10000"))


def settings_for(game: str, config: LeagueConfig) -> dict[str, Any] | None:
    return {"seats": config.hanabi_seats} if game == "hanabi" else None


def run_chunk(
    game: str,
    seats: tuple[str, ...],
    base_seed: int,
    start: int,
    count: int,
    settings: dict[str, Any] | None,
    threads: int | None,
    pairing: str,
) -> Chunk:
    """Episodes start..start+count of a scripted pairing, as columns (local or on Ray)."""
    r = simulate(game, list(seats), count, base_seed, threads, settings, start=start)
    return Chunk(
        pairing=pairing,
        game=game,
        seats=seats,
        start=start,
        seed=r.seeds,
        score=r.score,
        plies=r.plies,
        ending=r.ending,
        played=r.played,
    )


def play_episode(
    game: str,
    policies: list[Policy],
    seed: int,
    clock: Clock,
    settings: dict[str, Any] | None,
    out: str | None,
    pairing: str,
    idx: int,
) -> EpisodeRow:
    """One episode through the async runner, as a row (runs anywhere: local or Ray)."""
    spec = {"game": game, **(settings or {})}
    started = now()
    results = asyncio.run(Episode(spec, policies, seed=seed, clock=clock, out=out).run())
    return row_from_results(
        results, game, pairing, idx, seed, tuple(p.name for p in policies), out, started
    )


def row_from_results(
    results: dict[str, Any],
    game: str,
    pairing: str,
    idx: int,
    seed: int,
    seats: tuple[str, ...],
    replay: str | None,
    started: str,
) -> EpisodeRow:
    usage = results.get("usage") or [{} for _ in seats]
    decisions = []
    for d, u in zip(results.get("decisions") or [{} for _ in seats], usage, strict=True):
        tokens = sum(
            u.get(k, 0)
            for k in (
                "input_tokens",
                "output_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
            )
        )
        decisions.append({**d, "tokens": tokens, "cost_usd": u.get("cost_usd", 0.0)})
    return EpisodeRow(
        pairing=pairing,
        idx=idx,
        game=game,
        played=results.get("game", game),
        seed=seed,
        seats=seats,
        score=tuple(float(x) for x in results["score"]),
        reason=results["reason"],
        ending=results["ending"],
        plies=results["plies"],
        replay=replay,
        input_tokens=sum(u.get("input_tokens", 0) for u in usage),
        output_tokens=sum(u.get("output_tokens", 0) for u in usage),
        cache_tokens=sum(
            u.get("cache_creation_input_tokens", 0) + u.get("cache_read_input_tokens", 0)
            for u in usage
        ),
        cost_usd=sum(u.get("cost_usd", 0.0) for u in usage),
        decisions=tuple(decisions),
        started=started,
        finished=now(),
    )


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
        self.backend = _make_backend(backend, address, config.threads)
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
                if self.config.schedule == "adaptive":
                    from .adaptive import play_adaptive

                    played = play_adaptive(self, db, self._show_round)
                else:
                    played = self._run_scripted(db, advance) + self._run_claude(db, advance)
                playing = time.monotonic() - playing
                self._write_replays(db)
            from .ranking import export

            exports = export(
                db.blocks(self.config.name), self.config.name, self.config.out, self.config.seed
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
            )
        finally:
            db.close()

    def play(self, db: LeagueDB, schedule: list[Pairing]) -> int:
        """Play what `schedule` (per-pairing targets) lacks in the registered league,
        quietly and without exports: the step of gates and adaptive schedules."""
        self.schedule = schedule

        def quiet(*_: Any) -> None:
            return None

        return self._run_scripted(db, quiet) + self._run_claude(db, quiet)

    def _show_round(self, r: Any) -> None:
        if self.show_progress:
            conf = ", ".join(f"{g} {c:.3f}" for g, c in r.confidence.items())
            nxt = ", ".join(f"{k[1]} ({k[0]})" for k in r.next) or "done"
            self.console.print(
                f"round {r.number}: {r.episodes} episodes; order confidence {conf}; next: {nxt}"
            )

    # ---- progress -----------------------------------------------------------

    def _progress(self, total: int, already: int):  # noqa: ANN202 (context manager)
        run = self

        class _Ctx:
            def __enter__(self) -> Callable[[int, int, float], None]:
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
        jobs = []
        for p in self.schedule:
            if not self.is_scripted(p):
                continue
            done = db.done(self.config.name, p.key)
            for start, count in missing_ranges(done, p.episodes, self.chunk):
                jobs.append(
                    (
                        p.game,
                        p.seats,
                        p.base_seed,
                        start,
                        count,
                        settings_for(p.game, self.config),
                        self.config.threads,
                        p.key,
                    )
                )
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
                    p.game,
                    [self.policies[n] for n in p.seats],
                    int(chunk.seed[idx]),
                    self.config.clock,
                    settings_for(p.game, self.config),
                    str(out),
                    p.key,
                    idx,
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
        tokens, cost = db.usage(self.config.name)
        c = self.config
        return (c.max_tokens is not None and tokens >= c.max_tokens) or (
            c.max_cost_usd is not None and cost >= c.max_cost_usd
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

        def jobs() -> Iterator[tuple[Any, ...]]:
            for p, idx in todo:
                if self._over_budget(db):
                    self.budget_stopped = True
                    return
                yield (
                    p.game,
                    [self.policies[n] for n in p.seats],
                    p.seed(idx),
                    self.config.clock,
                    settings_for(p.game, self.config),
                    str(self._replay_path(p, idx)),
                    p.key,
                    idx,
                )

        for row in self.backend.map_episodes(jobs(), self.config.concurrency):
            played += db.add(self.config.name, [row])
            advance(1, row.input_tokens + row.output_tokens + row.cache_tokens, row.cost_usd)
        if self._over_budget(db) and played < len(todo):
            self.budget_stopped = True
        return played


class LocalBackend:
    """Chunks run one after another (each uses every thread); Claude episodes run as
    threads, `concurrency` at a time, each with its own event loop."""

    def map_chunks(self, jobs: list[tuple[Any, ...]]) -> Iterator[Chunk]:
        for job in jobs:
            yield run_chunk(*job)

    def map_episodes(
        self, jobs: Iterator[tuple[Any, ...]], concurrency: int
    ) -> Iterator[EpisodeRow]:
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            pending: set[Any] = set()
            for job in jobs:
                pending.add(pool.submit(play_episode, *job))
                if len(pending) >= concurrency:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for f in finished:
                        yield f.result()
            for f in pending:
                yield f.result()


def _make_backend(name: str, address: str | None, threads: int | None) -> Any:
    if name == "local":
        return LocalBackend()
    if name == "ray":
        from .ray_backend import RayBackend

        return RayBackend(address=address, threads=threads)
    from ..errors import ConfigError

    raise ConfigError(f"unknown backend {name!r}; backends: local, ray", "backend")


__all__ = ["LeagueReport", "LeagueRun", "missing_ranges", "run_chunk"]
