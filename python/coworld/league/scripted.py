"""Scripted pairings (built-in baselines in every seat): their episodes in chunks
through the batch simulator, and the replays of the first few, played again
through the episode runner, which must agree with the simulator."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..seats.policy import BaselinePolicy, Policy
from .backends import Backend
from .config import LeagueConfig
from .progress import Advance
from .records import EpisodeKey, EpisodeRow
from .schedule import Pairing
from .storage import LeagueDB
from .work import ChunkJob, EpisodeJob, play_episode

#: Scripted episodes per stored batch: the most a kill can lose (resume redoes it).
#: COWORLD_LEAGUE_CHUNK overrides it (smaller: finer progress and resume; larger: less overhead).
CHUNK = int(os.environ.get("COWORLD_LEAGUE_CHUNK", "10000"))


def is_scripted(pairing: Pairing, policies: dict[str, Policy]) -> bool:
    return all(isinstance(policies[n], BaselinePolicy) for n in pairing.seats)


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


def play_chunks(
    backend: Backend,
    db: LeagueDB,
    config: LeagueConfig,
    pairings: list[Pairing],
    chunk: int,
    advance: Advance,
) -> int:
    """What the scripted `pairings` lack, chunk by chunk; returns the episodes stored."""
    jobs = [
        ChunkJob(
            p.key,
            p.game,
            p.seats,
            p.base_seed,
            start,
            count,
            config.settings_for(p.game),
            config.threads,
            config.openings_for(p.game),
        )
        for p in pairings
        for start, count in missing_ranges(db.done(config.name, p.key), p.episodes, chunk)
    ]
    played = 0
    for stored in backend.map_chunks(jobs):
        played += db.add_chunk(config.name, stored)
        advance(stored.count, batch=True)
    return played


def replay_path(config: LeagueConfig, p: Pairing, idx: int) -> Path:
    """Where episode `idx` of `p` writes its replay (its calls sidecar beside it)."""
    safe = "-vs-".join(n.replace("/", "_") for n in p.seats)
    return config.out / "replays" / p.game / f"{safe}-{idx:05d}.jsonl"


def write_replays(
    db: LeagueDB, config: LeagueConfig, pairings: list[Pairing], policies: dict[str, Policy]
) -> None:
    """The first `replays` episodes of each scripted pairing, replayed through the
    episode runner to a replay file; the runner must agree with the batch."""
    if config.replays == 0:
        return
    listed = {(r.pairing, r.idx) for r in db.runner_rows(config.name, "replay")}
    chunks = {c.pairing: c for c in db.chunks(config.name) if c.start == 0}
    for p in pairings:
        if p.key not in chunks:
            continue
        chunk = chunks[p.key]
        for idx in range(min(config.replays, chunk.count)):
            if (p.key, idx) in listed:
                continue
            key = EpisodeKey(p.key, idx, p.game, int(chunk.seed[idx]), p.seats)
            row = play_episode(
                EpisodeJob(
                    key,
                    tuple(policies[n] for n in p.seats),
                    config.clock,
                    config.settings_for(p.game),
                    str(replay_path(config, p, idx)),
                    openings=config.openings_for(p.game),
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
            db.add(config.name, [row], source="replay")
