"""What batch mode keeps in the league database, so that nothing is paid twice:
each episode's entropy (a resumed episode replays alike), every submitted batch,
every request it carried (custom_id -> episode and call) and every result read.

A request is written with its batch in one transaction right after the batch is
created and before it is polled; a result is written as it is read. A rerun
finds the answer to a call here before asking, and polls a batch it finds still
unread instead of submitting its requests again.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path

from ..seats.batch_requests import Sent
from ..usage import Usage
from .records import now
from .storage import SCHEMA as LEAGUE_SCHEMA
from .storage import immediate_transaction, usage_columns

SCHEMA = """
CREATE TABLE IF NOT EXISTS batch_episodes (
    league TEXT NOT NULL, pairing TEXT NOT NULL, idx INTEGER NOT NULL,
    tag TEXT NOT NULL, entropy TEXT NOT NULL, PRIMARY KEY (league, pairing, idx)
);
CREATE TABLE IF NOT EXISTS batch_rounds (
    league TEXT NOT NULL, batch_id TEXT PRIMARY KEY, round INTEGER NOT NULL,
    submitted TEXT NOT NULL, requests INTEGER NOT NULL,
    state TEXT NOT NULL  -- submitted | collected
);
CREATE TABLE IF NOT EXISTS batch_requests (
    league TEXT NOT NULL, custom_id TEXT PRIMARY KEY, batch_id TEXT NOT NULL,
    tag TEXT NOT NULL, call INTEGER NOT NULL, try INTEGER NOT NULL, digest TEXT NOT NULL,
    worst_tokens INTEGER NOT NULL, worst_cost REAL NOT NULL,
    outcome TEXT,  -- NULL while unread; succeeded | errored:<type> | expired | canceled
    result TEXT, recorded INTEGER NOT NULL DEFAULT 0  -- usage in calls
);
CREATE INDEX IF NOT EXISTS batch_requests_call ON batch_requests (tag, call);
"""


class BatchStore:
    """The batch tables of one league, on the league database (its own connection)."""

    def __init__(self, path: str | Path, league: str) -> None:
        self.league = league
        self.conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(LEAGUE_SCHEMA + SCHEMA)
        self._lock = threading.RLock()

    def close(self) -> None:
        self.conn.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return immediate_transaction(self.conn, self._lock)

    def forget(self) -> None:
        with self._tx() as c:
            for table in ("batch_episodes", "batch_rounds", "batch_requests"):
                c.execute(f"DELETE FROM {table} WHERE league=?", (self.league,))

    def episode(self, pairing: str, idx: int, entropy: str) -> tuple[str, str]:
        """(tag, entropy) of an episode: stored on its first start, read back after."""
        tag = hashlib.sha256(f"{self.league}\0{pairing}\0{idx}".encode()).hexdigest()[:20]
        with self._tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO batch_episodes VALUES (?, ?, ?, ?, ?)",
                (self.league, pairing, idx, tag, entropy),
            )
            row = c.execute(
                "SELECT tag, entropy FROM batch_episodes WHERE league=? AND pairing=? AND idx=?",
                (self.league, pairing, idx),
            ).fetchone()
        return row[0], row[1]

    def add_batch(self, batch_id: str, round_no: int, sent: Iterable[Sent]) -> None:
        """A created batch and its requests, in one transaction, before it is polled."""
        rows = [
            (
                self.league,
                s.custom_id,
                batch_id,
                s.tag,
                s.call,
                s.attempt,
                s.digest,
                s.worst_tokens,
                s.worst_cost,
            )
            for s in sent
        ]
        with self._tx() as c:
            c.execute(
                "INSERT INTO batch_rounds VALUES (?, ?, ?, ?, ?, 'submitted')",
                (self.league, batch_id, round_no, _stamp(), len(rows)),
            )
            c.executemany(
                "INSERT INTO batch_requests (league, custom_id, batch_id, tag, call, try, "
                "digest, worst_tokens, worst_cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    def add_results(self, rows: list[tuple[str, str, str | None, Usage | None]]) -> None:
        """(custom_id, outcome, result JSON, usage) of results just read; each answer's
        usage goes to the league's calls in the same transaction (spent exactly once)."""
        stamp = now()
        with self._tx() as c:
            c.executemany(
                "UPDATE batch_requests SET outcome=?, result=?, recorded=? WHERE custom_id=?",
                [(o, r, int(u is not None), cid) for cid, o, r, u in rows],
            )
            c.executemany(
                "INSERT INTO calls SELECT e.league, e.pairing, e.idx, ?, ?, ?, ?, ?, ?, ? "
                "FROM batch_episodes e JOIN batch_requests r ON r.tag = e.tag "
                "WHERE r.custom_id=? AND e.league=?",
                [
                    (*usage_columns(u), stamp, cid, self.league)
                    for cid, _, _, u in rows
                    if u is not None
                ],
            )

    def episode_of(self, tag: str) -> tuple[str, int]:
        row = self.conn.execute(
            "SELECT pairing, idx FROM batch_episodes WHERE league=? AND tag=?", (self.league, tag)
        ).fetchone()
        return row[0], int(row[1])

    def collected(self, batch_id: str) -> None:
        with self._tx() as c:
            c.execute("UPDATE batch_rounds SET state='collected' WHERE batch_id=?", (batch_id,))

    def unread(self) -> list[tuple[str, int, list[Sent]]]:
        """(batch id, round, requests) of every batch submitted and not yet collected."""
        out = []
        rounds = self.conn.execute(
            "SELECT batch_id, round FROM batch_rounds WHERE league=? AND state='submitted' "
            "ORDER BY round",
            (self.league,),
        ).fetchall()
        for batch_id, round_no in rounds:
            sent = [
                Sent(cid, tag, call, attempt, dg, wt, wc)
                for cid, tag, call, attempt, dg, wt, wc in self.conn.execute(
                    "SELECT custom_id, tag, call, try, digest, worst_tokens, worst_cost "
                    "FROM batch_requests WHERE batch_id=? AND outcome IS NULL",
                    (batch_id,),
                )
            ]
            out.append((batch_id, round_no, sent))
        return out

    def history(self, tag: str, call: int) -> list[tuple[str, int, str | None, str | None]]:
        """(custom_id, attempt, outcome, result) of every request of one call."""
        return self.conn.execute(
            "SELECT custom_id, try, outcome, result FROM batch_requests "
            "WHERE tag=? AND call=? ORDER BY try",
            (tag, call),
        ).fetchall()

    def last_round(self) -> int:
        row = self.conn.execute(
            "SELECT MAX(round) FROM batch_rounds WHERE league=?", (self.league,)
        ).fetchone()
        return int(row[0] or 0)

    def rounds(self) -> list[tuple[str, int, int, str]]:
        """(batch id, round, requests, state) of the league's batches."""
        return self.conn.execute(
            "SELECT batch_id, round, requests, state FROM batch_rounds WHERE league=? "
            "ORDER BY round",
            (self.league,),
        ).fetchall()


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
