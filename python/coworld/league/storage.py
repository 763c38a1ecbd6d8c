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

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..usage import Usage
from .db_faults import database_failure, keep_pending, pending_path, take_pending
from .reader import DTYPES, LeagueReader
from .records import Chunk, EpisodeRow, VoidEpisode, now

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


def usage_columns(u: Usage) -> tuple[int, int, int, int, int, float]:
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


class LeagueDB(LeagueReader):
    """A league database opened for writing (SQLite, WAL); every write one transaction."""

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

    # ---- writing --------------------------------------------------------------

    def add_chunk(self, league: str, chunk: Chunk) -> int:
        """Store a scripted chunk atomically; returns the episodes stored (0 if already there)."""
        blobs = [
            np.ascontiguousarray(getattr(chunk, k), dtype=d).tobytes() for k, d in DTYPES.items()
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
        row = (league, pairing, idx, *usage_columns(u), now())
        with self._lock:  # one statement: atomic without BEGIN and COMMIT of its own
            try:
                self.conn.execute("INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            except sqlite3.Error as err:  # locked, full, damaged: kept beside it instead
                self.failure = err
                if not keep_pending(self.path, row):
                    raise database_failure(self.path, err) from None

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
                    *usage_columns(u),
                    v.started,
                    v.finished,
                ),
            )
