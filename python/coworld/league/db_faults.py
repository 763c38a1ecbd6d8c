"""When the league database fails: a damaged file, a lock held by another process
past SQLite's 5 s wait, a full disk. Each is one line naming the file (exit 4);
nothing stored is touched. A call's usage the database cannot take is appended
to a file beside it (`league.db.pending-calls.jsonl`, one JSON line a call, a few
hundred bytes where the database needs pages) and moved into the database the
next time it opens, so spend is never lost."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from ..errors import InfrastructureStop


class DatabaseFailure(InfrastructureStop):
    """The league database cannot be read or written; what it holds is as it was."""


def database_failure(path: str | Path, err: sqlite3.Error) -> DatabaseFailure:
    """The one line for a SQLite error on `path`."""
    text = str(err)
    if "locked" in text or "busy" in text:
        why = "is locked by another process (waited 5 s); let it finish, then rerun"
    elif "full" in text:
        why = "cannot grow: the database or disk is full; free space, then rerun"
    elif isinstance(err, sqlite3.DatabaseError) and not isinstance(err, sqlite3.OperationalError):
        why = f"is damaged or not a league database ({text}); move it aside to start afresh"
    else:
        why = f"failed: {text}"
    return DatabaseFailure(f"league database {path} {why}")


def pending_path(database: str | Path) -> Path:
    return Path(f"{database}.pending-calls.jsonl")


def keep_pending(database: str | Path, row: tuple[Any, ...]) -> bool:
    """Append one call's row (the `calls` table's columns) beside the database;
    False when the disk cannot take it either."""
    try:
        with open(pending_path(database), "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError:
        return False
    return True


def take_pending(database: str | Path) -> list[tuple[Any, ...]]:
    """The rows kept beside the database (a torn last line is dropped)."""
    path = pending_path(database)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    rows = []
    for line in lines:
        try:
            rows.append(tuple(json.loads(line)))
        except ValueError:
            continue
    return rows
