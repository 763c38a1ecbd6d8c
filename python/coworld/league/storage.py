"""The league database (SQLite, WAL).

Two tables hold results. `batches` stores scripted episodes as columns: one row
per chunk the batch simulator played, its arrays as little-endian blobs, so a
100,000-episode league writes a few dozen rows, not 100,000. `episodes` stores
one row per episode the Python runner played (Claude seats; source `runner`),
and a listing row for each scripted episode that was also written as a replay
(source `replay`: shown in the viewer, never scored twice).

Every write is one transaction: a killed league loses at most the chunk or
episodes in flight and never records one twice or half; a rerun skips what is done.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..seats.claude import Usage
from .db_faults import database_failure, keep_pending, pending_path, take_pending

SCHEMA = """
CREATE TABLE IF NOT EXISTS leagues (
    name TEXT PRIMARY KEY, config TEXT NOT NULL, created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS policies (
    league TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
    digest TEXT NOT NULL, path TEXT, PRIMARY KEY (league, name)
);
CREATE TABLE IF NOT EXISTS batches (
    league TEXT NOT NULL, pairing TEXT NOT NULL, start INTEGER NOT NULL, count INTEGER NOT NULL,
    game TEXT NOT NULL, seats TEXT NOT NULL,
    seed BLOB NOT NULL, score BLOB NOT NULL, plies BLOB NOT NULL,
    ending BLOB NOT NULL, played BLOB NOT NULL, finished TEXT NOT NULL,
    PRIMARY KEY (league, pairing, start)
);
CREATE TABLE IF NOT EXISTS episodes (
    league TEXT NOT NULL, pairing TEXT NOT NULL, idx INTEGER NOT NULL,
    source TEXT NOT NULL,
    game TEXT NOT NULL, played TEXT NOT NULL, seed INTEGER NOT NULL,
    seats TEXT NOT NULL, score TEXT NOT NULL, reason TEXT NOT NULL, ending TEXT NOT NULL,
    plies INTEGER NOT NULL, replay TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
    decisions TEXT, started TEXT, finished TEXT,
    PRIMARY KEY (league, pairing, idx)
);
CREATE TABLE IF NOT EXISTS voids (
    league TEXT NOT NULL, pairing TEXT NOT NULL, idx INTEGER NOT NULL,
    game TEXT NOT NULL, seed INTEGER NOT NULL, seats TEXT NOT NULL,
    cause TEXT NOT NULL, detail TEXT NOT NULL, plies INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL,
    calls INTEGER NOT NULL, cost_usd REAL NOT NULL, started TEXT, finished TEXT
);
CREATE INDEX IF NOT EXISTS voids_episode ON voids (league, pairing, idx);
CREATE TABLE IF NOT EXISTS calls (
    league TEXT NOT NULL, pairing TEXT NOT NULL, idx INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL,
    calls INTEGER NOT NULL, cost_usd REAL NOT NULL, at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_league ON calls (league);
-- unused: reservations are kept by the driver now (kept for older databases)
CREATE TABLE IF NOT EXISTS reservations (
    league TEXT NOT NULL, tokens INTEGER NOT NULL, cost_usd REAL NOT NULL
);
"""

#: Columns added after the first release; `cache_tokens` stays their sum for old readers
#: (a database from before keeps its cache tokens as writes: the cost was already right).
_ADDED_COLUMNS = {
    "cache_write_tokens": "INTEGER NOT NULL DEFAULT 0",
    "cache_read_tokens": "INTEGER NOT NULL DEFAULT 0",
    "calls": "INTEGER NOT NULL DEFAULT 0",
}
_EPISODE_COLUMNS = (
    "league, pairing, idx, source, game, played, seed, seats, score, reason, ending, plies, "
    "replay, input_tokens, output_tokens, cache_tokens, cache_write_tokens, cache_read_tokens, "
    "calls, cost_usd, decisions, started, finished"
)


@dataclass(frozen=True)
class EpisodeRow:
    """One episode, as the runner played it (or a scripted episode expanded from its chunk)."""

    pairing: str
    idx: int
    game: str
    played: str
    seed: int
    seats: tuple[str, ...]
    score: tuple[float, ...]
    reason: str
    ending: str
    plies: int
    replay: str | None = None
    usage: Usage = field(default_factory=Usage)
    decisions: tuple[dict[str, Any], ...] | None = None
    started: str | None = None
    finished: str | None = None


@dataclass(frozen=True)
class VoidEpisode:
    """An episode that could not finish cleanly (the API unavailable past the patience,
    the budget, an interrupt): recorded with its cause and usage, never scored."""

    pairing: str
    idx: int
    game: str
    seed: int
    seats: tuple[str, ...]
    cause: str
    detail: str = ""
    plies: int = 0
    usage: Usage = field(default_factory=Usage)
    started: str | None = None
    finished: str | None = None


@dataclass(frozen=True)
class Chunk:
    """Scripted episodes start..start+n of one pairing, as the batch simulator returned them."""

    pairing: str
    game: str
    seats: tuple[str, ...]
    start: int
    seed: np.ndarray  # (n,) int64
    score: np.ndarray  # (n, seats) int32
    plies: np.ndarray  # (n,) uint32
    ending: np.ndarray  # (n,) uint8 codes into coworld.ENDINGS
    played: np.ndarray  # (n,) uint8 codes into coworld.GAMES

    @property
    def count(self) -> int:
        return int(self.plies.shape[0])


@dataclass(frozen=True)
class Block:
    """Scores of some episodes of one pairing, as columns: what ranking reads."""

    game: str
    seats: tuple[str, ...]
    score: np.ndarray  # (n, seats) float
    decisions: tuple[tuple[dict[str, Any], ...], ...] | None = None  # per episode, per seat
    #: (n,) each episode's index in its pairing: the seed pair it belongs to (None: unknown)
    index: np.ndarray | None = None


def now() -> str:
    """The time, UTC, to the second (formatted once a second: a call's row needs it)."""
    return _utc(int(time.time()))


@functools.lru_cache(maxsize=1)
def _utc(second: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))


_DTYPES = {"seed": "<i8", "score": "<i4", "plies": "<u4", "ending": "u1", "played": "u1"}


def _usage_columns(u: Usage) -> tuple[int, int, int, int, int, float]:
    """A usage in the column order of the `calls` and `voids` tables."""
    return (
        u.input_tokens,
        u.output_tokens,
        u.cache_creation_input_tokens,
        u.cache_read_input_tokens,
        u.calls,
        u.cost_usd,
    )


@contextmanager
def immediate_transaction(
    conn: sqlite3.Connection, lock: threading.RLock
) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT under `lock` (threads share the connection), rolled
    back on any exception, Ctrl-C included."""
    with lock:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


class LeagueDB:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        #: Why a call's usage went to the pending file instead (None: it did not).
        self.failure: sqlite3.Error | None = None
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.executescript(SCHEMA)
            self._add_columns()
            self._take_pending()
        except sqlite3.Error as err:
            self.conn.close()
            raise database_failure(self.path, err) from None

    def _take_pending(self) -> None:
        """Move the calls a failed run kept beside the database into it."""
        rows = take_pending(self.path)
        if rows:
            with self.transaction() as c:
                c.executemany("INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            pending_path(self.path).unlink()

    def _add_columns(self) -> None:
        have = {r[1] for r in self.conn.execute("PRAGMA table_info(episodes)")}
        for name, kind in _ADDED_COLUMNS.items():
            if name not in have:
                try:
                    self.conn.execute(f"ALTER TABLE episodes ADD COLUMN {name} {kind}")
                except sqlite3.OperationalError as err:  # another process added it first
                    if "duplicate column" not in str(err):
                        raise
        if "cache_write_tokens" not in have:
            self.conn.execute("UPDATE episodes SET cache_write_tokens = cache_tokens")

    @classmethod
    def open_existing(cls, path: str | Path) -> LeagueDB:
        path = Path(path)
        if path.is_dir():
            path = path / "league.db"
        if not path.is_file():
            raise ConfigError(f"no league database at {path}", "database")
        return cls(path)

    def close(self) -> None:
        self.conn.close()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        # The episode loop's thread writes calls while the driver writes episodes.
        return immediate_transaction(self.conn, self._lock)

    # ---- the league and its policies ----------------------------------------

    def register(self, league: str, config: dict[str, Any], policies: Iterable[Any]) -> None:
        """Record the league and its policies; refuse to resume over changed prompts."""
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO leagues VALUES (?, ?, ?)",
                (league, json.dumps(config), now()),
            )
            for p in policies:
                row = c.execute(
                    "SELECT digest FROM policies WHERE league=? AND name=?", (league, p.name)
                ).fetchone()
                if row and row[0] != p.digest:
                    raise ConfigError(
                        f"policy {p.name!r} changed since league {league!r} started "
                        f"({row[0]} -> {p.digest}); give the league a new name, "
                        "or rerun with --fresh",
                        "policies",
                    )
                c.execute(
                    "INSERT OR IGNORE INTO policies VALUES (?, ?, ?, ?, ?)",
                    (league, p.name, p.kind, p.digest, getattr(p, "path", None)),
                )

    def forget(self, league: str) -> None:
        """Drop a league's record and every result of it (`--fresh`)."""
        with self.transaction() as c:
            for table, key in (
                ("leagues", "name"),
                ("policies", "league"),
                ("batches", "league"),
                ("episodes", "league"),
                ("voids", "league"),
                ("calls", "league"),
                ("reservations", "league"),
            ):
                c.execute(f"DELETE FROM {table} WHERE {key}=?", (league,))

    def config(self, league: str) -> dict[str, Any]:
        """The league's stored config ({} for an unknown league)."""
        row = self.conn.execute("SELECT config FROM leagues WHERE name=?", (league,)).fetchone()
        return json.loads(row[0]) if row else {}

    def leagues(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM leagues ORDER BY created")]

    # ---- writing --------------------------------------------------------------

    def add_chunk(self, league: str, chunk: Chunk) -> int:
        """Store a scripted chunk atomically; returns the episodes stored (0 if already there)."""
        blobs = [
            np.ascontiguousarray(getattr(chunk, k), dtype=d).tobytes() for k, d in _DTYPES.items()
        ]
        with self.transaction() as c:
            before = c.total_changes
            c.execute(
                "INSERT OR IGNORE INTO batches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    league,
                    chunk.pairing,
                    chunk.start,
                    chunk.count,
                    chunk.game,
                    json.dumps(chunk.seats),
                    *blobs,
                    now(),
                ),
            )
            return chunk.count if c.total_changes > before else 0

    def add(self, league: str, rows: Iterable[EpisodeRow], source: str = "runner") -> int:
        """Insert episode rows atomically; rows already present are left as they are."""
        with self.transaction() as c:
            before = c.total_changes
            c.executemany(
                f"INSERT OR IGNORE INTO episodes ({_EPISODE_COLUMNS}) "
                f"VALUES ({', '.join('?' * 23)})",
                [
                    (
                        league,
                        r.pairing,
                        r.idx,
                        source,
                        r.game,
                        r.played,
                        r.seed,
                        json.dumps(r.seats),
                        json.dumps(r.score),
                        r.reason,
                        r.ending,
                        r.plies,
                        r.replay,
                        r.usage.input_tokens,
                        r.usage.output_tokens,
                        r.usage.cache_creation_input_tokens + r.usage.cache_read_input_tokens,
                        r.usage.cache_creation_input_tokens,
                        r.usage.cache_read_input_tokens,
                        r.usage.calls,
                        r.usage.cost_usd,
                        json.dumps(r.decisions) if r.decisions is not None else None,
                        r.started,
                        r.finished,
                    )
                    for r in rows
                ],
            )
            return c.total_changes - before

    def add_call(self, league: str, pairing: str, idx: int, u: Usage) -> None:
        """One answered call's usage (or an episode's, from a backend that cannot
        report calls as they return), written at once: spend survives a kill."""
        row = (league, pairing, idx, *_usage_columns(u), now())
        with self._lock:  # one statement: atomic without BEGIN and COMMIT of its own
            try:
                self.conn.execute("INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            except sqlite3.Error as err:  # locked, full, damaged: kept beside it instead
                self.failure = err
                if not keep_pending(self.path, row):
                    raise database_failure(self.path, err) from None

    def spent(self, league: str) -> Usage:
        """Everything the league's calls cost: scored, void, interrupted or killed."""
        r = self.conn.execute(
            "SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
            "COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(cache_read_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0), COALESCE(SUM(calls), 0) FROM calls WHERE league=?",
            (league,),
        ).fetchone()
        return Usage(int(r[0]), int(r[1]), int(r[2]), int(r[3]), float(r[4]), int(r[5]))

    def add_void(self, league: str, v: VoidEpisode) -> None:
        u = v.usage
        with self.transaction() as c:
            c.execute(
                "INSERT INTO voids VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    league,
                    v.pairing,
                    v.idx,
                    v.game,
                    v.seed,
                    json.dumps(v.seats),
                    v.cause,
                    v.detail,
                    v.plies,
                    *_usage_columns(u),
                    v.started,
                    v.finished,
                ),
            )

    # ---- reading --------------------------------------------------------------

    def voids(self, league: str) -> list[VoidEpisode]:
        """Every void attempt, oldest first (an episode re-run after a void may be done)."""
        rows = self.conn.execute(
            "SELECT pairing, idx, game, seed, seats, cause, detail, plies, input_tokens, "
            "output_tokens, cache_write_tokens, cache_read_tokens, calls, cost_usd, started, "
            "finished FROM voids WHERE league=? ORDER BY rowid",
            (league,),
        )
        return [
            VoidEpisode(
                r[0],
                r[1],
                r[2],
                r[3],
                tuple(json.loads(r[4])),
                r[5],
                r[6],
                r[7],
                Usage(r[8], r[9], r[10], r[11], r[13], r[12]),
                r[14],
                r[15],
            )
            for r in rows
        ]

    def open_voids(self, league: str) -> dict[tuple[str, int], list[VoidEpisode]]:
        """(pairing, idx) -> its void attempts, for episodes still not scored."""
        out: dict[tuple[str, int], list[VoidEpisode]] = defaultdict(list)
        done: dict[str, set[int]] = {}
        for v in self.voids(league):
            if v.pairing not in done:
                done[v.pairing] = self.done(league, v.pairing)
            if v.idx not in done[v.pairing]:
                out[(v.pairing, v.idx)].append(v)
        return dict(out)

    def done(self, league: str, pairing: str) -> set[int]:
        """Indices of the pairing's scored episodes (chunks and runner episodes)."""
        found: set[int] = set()
        for start, count in self.conn.execute(
            "SELECT start, count FROM batches WHERE league=? AND pairing=?", (league, pairing)
        ):
            found.update(range(start, start + count))
        found.update(
            r[0]
            for r in self.conn.execute(
                "SELECT idx FROM episodes WHERE league=? AND pairing=? AND source='runner'",
                (league, pairing),
            )
        )
        return found

    def count(self, league: str) -> int:
        """Scored episodes in the league."""
        chunked = self.conn.execute(
            "SELECT COALESCE(SUM(count), 0) FROM batches WHERE league=?", (league,)
        ).fetchone()[0]
        played = self.conn.execute(
            "SELECT COUNT(*) FROM episodes WHERE league=? AND source='runner'", (league,)
        ).fetchone()[0]
        return int(chunked) + int(played)

    def chunks(self, league: str) -> list[Chunk]:
        rows = self.conn.execute(
            "SELECT pairing, game, seats, start, seed, score, plies, ending, played FROM batches "
            "WHERE league=? ORDER BY game, pairing, start",
            (league,),
        )
        out = []
        for pairing, game, seats_json, start, *blobs in rows:
            seats = tuple(json.loads(seats_json))
            arrays = {
                k: np.frombuffer(b, dtype=d)
                for (k, d), b in zip(_DTYPES.items(), blobs, strict=True)
            }
            arrays["score"] = arrays["score"].reshape(-1, len(seats))
            out.append(Chunk(pairing=pairing, game=game, seats=seats, start=start, **arrays))
        return out

    def runner_rows(self, league: str, source: str | None = "runner") -> list[EpisodeRow]:
        """Episode rows: the runner's (scored), the replay listings, or both (source None)."""
        query = (
            "SELECT pairing, idx, game, played, seed, seats, score, reason, ending, plies, "
            "replay, input_tokens, output_tokens, cache_write_tokens, cache_read_tokens, calls, "
            "cost_usd, decisions, started, finished FROM episodes WHERE league=?"
        )
        args: tuple[Any, ...] = (league,)
        if source is not None:
            query += " AND source=?"
            args += (source,)
        rows = self.conn.execute(query + " ORDER BY game, pairing, idx", args)
        return [
            EpisodeRow(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                tuple(json.loads(r[5])),
                tuple(json.loads(r[6])),
                r[7],
                r[8],
                r[9],
                r[10],
                Usage(r[11], r[12], r[13], r[14], r[16], r[15]),
                tuple(json.loads(r[17])) if r[17] else None,
                r[18],
                r[19],
            )
            for r in rows
        ]

    def blocks(self, league: str) -> list[Block]:
        """Every scored episode as columns: one block per chunk, one per runner pairing."""
        chunked = [
            Block(c.game, c.seats, c.score.astype(float), index=c.start + np.arange(c.count))
            for c in self.chunks(league)
        ]
        return chunked + group_rows(self.runner_rows(league))

    def episodes(self, league: str) -> list[EpisodeRow]:
        """Every scored episode as a row (chunks expanded): exact, and slow for big leagues."""
        from .. import ENDINGS, GAMES

        rows = list(self.runner_rows(league))
        for c in self.chunks(league):
            for i in range(c.count):
                ending = ENDINGS[int(c.ending[i])]
                rows.append(
                    EpisodeRow(
                        c.pairing,
                        c.start + i,
                        c.game,
                        GAMES[int(c.played[i])],
                        int(c.seed[i]),
                        c.seats,
                        tuple(float(x) for x in c.score[i]),
                        "deadline" if ending == "wall-clock" else "complete",
                        ending,
                        int(c.plies[i]),
                    )
                )
        return sorted(rows, key=lambda r: (r.game, r.pairing, r.idx))

    def usage(self, league: str, *, voided: bool = True) -> Usage:
        """Usage (every kind of token, calls and cost) spent so far: by scored
        episodes, and (`voided`) by void attempts too."""
        columns = (
            "COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
            "COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(cache_read_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0), COALESCE(SUM(calls), 0)"
        )
        total = Usage()
        queries = [f"SELECT {columns} FROM episodes WHERE league=? AND source='runner'"]
        if voided:
            queries.append(f"SELECT {columns} FROM voids WHERE league=?")
        for query in queries:
            r = self.conn.execute(query, (league,)).fetchone()
            total.add(Usage(int(r[0]), int(r[1]), int(r[2]), int(r[3]), float(r[4]), int(r[5])))
        return total


def group_rows(rows: Sequence[EpisodeRow]) -> list[Block]:
    """Rows as blocks (one per game and seating), for ranking a list of rows."""
    grouped: dict[tuple[str, tuple[str, ...]], list[EpisodeRow]] = defaultdict(list)
    for r in rows:
        grouped[(r.game, r.seats)].append(r)
    return [
        Block(
            game,
            seats,
            np.array([r.score for r in rs], dtype=float).reshape(len(rs), len(seats)),
            tuple(r.decisions or tuple({} for _ in seats) for r in rs),
            np.array([r.idx for r in rs], dtype=np.int64),
        )
        for (game, seats), rs in grouped.items()
    ]
