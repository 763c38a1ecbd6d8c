"""The league database (SQLite, WAL). An episode row is written once, whole, in
a transaction with the rest of its batch: a killed league loses at most the
episodes in flight and never records one twice or half."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

SCHEMA = """
CREATE TABLE IF NOT EXISTS leagues (
    name TEXT PRIMARY KEY, config TEXT NOT NULL, created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS policies (
    league TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL,
    digest TEXT NOT NULL, path TEXT, PRIMARY KEY (league, name)
);
CREATE TABLE IF NOT EXISTS episodes (
    league TEXT NOT NULL, pairing TEXT NOT NULL, idx INTEGER NOT NULL,
    game TEXT NOT NULL, played TEXT NOT NULL, seed INTEGER NOT NULL,
    seats TEXT NOT NULL, score TEXT NOT NULL, reason TEXT NOT NULL, ending TEXT NOT NULL,
    plies INTEGER NOT NULL, replay TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
    decisions TEXT, started TEXT, finished TEXT,
    PRIMARY KEY (league, pairing, idx)
);
"""


@dataclass(frozen=True)
class EpisodeRow:
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
    input_tokens: int = 0
    output_tokens: int = 0
    cache_tokens: int = 0
    cost_usd: float = 0.0
    decisions: tuple[dict[str, int], ...] | None = None
    started: str | None = None
    finished: str | None = None


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class LeagueDB:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(SCHEMA)

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

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

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
        """Drop a league's record and every episode of it (`--fresh`)."""
        with self.transaction() as c:
            c.execute("DELETE FROM leagues WHERE name=?", (league,))
            c.execute("DELETE FROM policies WHERE league=?", (league,))
            c.execute("DELETE FROM episodes WHERE league=?", (league,))

    def done(self, league: str, pairing: str) -> set[int]:
        rows = self.conn.execute(
            "SELECT idx FROM episodes WHERE league=? AND pairing=?", (league, pairing)
        )
        return {r[0] for r in rows}

    def add(self, league: str, rows: Iterable[EpisodeRow]) -> int:
        """Insert a batch atomically; rows already present are left as they are."""
        with self.transaction() as c:
            before = c.total_changes
            c.executemany(
                "INSERT OR IGNORE INTO episodes VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        league,
                        r.pairing,
                        r.idx,
                        r.game,
                        r.played,
                        r.seed,
                        json.dumps(r.seats),
                        json.dumps(r.score),
                        r.reason,
                        r.ending,
                        r.plies,
                        r.replay,
                        r.input_tokens,
                        r.output_tokens,
                        r.cache_tokens,
                        r.cost_usd,
                        json.dumps(r.decisions) if r.decisions is not None else None,
                        r.started,
                        r.finished,
                    )
                    for r in rows
                ],
            )
            return c.total_changes - before

    def leagues(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM leagues ORDER BY created")]

    def episodes(self, league: str) -> list[EpisodeRow]:
        rows = self.conn.execute(
            "SELECT pairing, idx, game, played, seed, seats, score, reason, ending, plies, replay, "
            "input_tokens, output_tokens, cache_tokens, cost_usd, decisions, started, finished "
            "FROM episodes WHERE league=? ORDER BY game, pairing, idx",
            (league,),
        )
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
                r[11],
                r[12],
                r[13],
                r[14],
                tuple(json.loads(r[15])) if r[15] else None,
                r[16],
                r[17],
            )
            for r in rows
        ]

    def usage(self, league: str) -> tuple[int, float]:
        """Tokens (all kinds) and cost spent so far."""
        row = self.conn.execute(
            "SELECT COALESCE(SUM(input_tokens + output_tokens + cache_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0) FROM episodes WHERE league=?",
            (league,),
        ).fetchone()
        return int(row[0]), float(row[1])
