"""The league database failing under a league: a damaged file, a lock held by
another process, a full disk. One line each (exit 4), nothing stored lost, and
every answered call's usage kept on disk."""

from __future__ import annotations

import errno
import sqlite3
import time
from pathlib import Path

import pytest

from coworld.cli import main as cli
from coworld.league import LeagueDB
from coworld.league.db_faults import pending_path
from coworld.league.storage import LeagueDB as StorageDB
from coworld.replay import JsonLinesWriter
from tests.support.leagues import HEAD_TO_HEAD, HOUSE, league_toml
from tests.support.mock_anthropic import first_legal


def _scripted(tmp_path: Path) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(
        'name = "s"\ngames = ["hex"]\npolicies = ["random", "tactician"]\nepisodes = 3\n'
        'replays = 0\nout = "s"\n'
    )
    return path


def _one_line(out: str) -> str:
    lines = [x for x in out.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in out, out
    return lines[0]


@pytest.mark.parametrize("command", ["run", "table"])
def test_a_damaged_database_is_one_line_and_left_as_it_was(tmp_path, capsys, command):
    path = _scripted(tmp_path)
    db = tmp_path / "s" / "league.db"
    db.parent.mkdir()
    damaged = b"SQLite format 3\x00" + b"\x13" * 4000  # a header, then nonsense
    db.write_bytes(damaged)
    target = str(path) if command == "run" else str(db)
    assert cli(["league", command, target]) == 4
    line = _one_line(capsys.readouterr().out)
    assert str(db) in line and "damaged" in line
    assert db.read_bytes() == damaged  # nothing written over it


def test_a_database_locked_past_the_wait_is_one_line(tmp_path, capsys):
    path = _scripted(tmp_path)
    assert cli(["league", "run", str(path)]) == 0
    capsys.readouterr()
    db = tmp_path / "s" / "league.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process writing, for longer than 5 s
    try:
        began = time.monotonic()
        assert cli(["league", "run", str(path), "--fresh"]) == 4
        assert time.monotonic() - began >= 5.0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    line = _one_line(capsys.readouterr().out)
    assert str(db) in line and "locked" in line
    assert LeagueDB(db).count("s") == 6  # the first run's episodes are all there


class _FillsUp:
    """A connection whose disk fills after `room` more inserts: every later write
    fails as SQLite reports it ("database or disk is full")."""

    def __init__(self, conn: sqlite3.Connection, room: int) -> None:
        self._conn, self.room = conn, room

    def _write(self, sql: str) -> None:
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            if self.room <= 0:
                raise sqlite3.OperationalError("database or disk is full")
            self.room -= 1

    def execute(self, sql: str, *args):
        self._write(sql)
        return self._conn.execute(sql, *args)

    def executemany(self, sql: str, *args):
        self._write(sql)
        return self._conn.executemany(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


def test_a_full_disk_stops_the_league_and_keeps_every_answered_call(
    tmp_path, api, capsys, monkeypatch
):
    # one episode at a time: the writes come in one order, so the disk fills at a
    # call's row (at three, which write comes 26th depends on the episodes' timing)
    path = league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE, episodes=6, concurrency=1)
    opened = StorageDB.__init__

    def fills_up(self, *args, **kwargs):
        opened(self, *args, **kwargs)
        self.conn = _FillsUp(self.conn, room=25)

    monkeypatch.setattr(StorageDB, "__init__", fills_up)
    assert cli(["league", "run", str(path)]) == 4
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    assert "full" in last and "league.db" in last and "Traceback" not in out
    db_path = tmp_path / "t" / "league.db"
    assert pending_path(db_path).exists()  # the calls the database could not take
    monkeypatch.setattr(StorageDB, "__init__", opened)
    db = LeagueDB(db_path)  # opening it again takes them in
    try:
        assert not pending_path(db_path).exists()
        assert db.spent("t").calls == api.answered  # every answered call, none lost
    finally:
        db.close()
    api.script = first_legal
    assert cli(["league", "run", str(path)]) == 0  # a rerun completes the league


def test_replays_that_cannot_be_written_stop_the_league_in_one_line(
    tmp_path, api, capsys, monkeypatch
):
    path = league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE, episodes=6)
    flush = JsonLinesWriter.flush
    room = {"flushes": 30}

    def disk_fills(self):
        room["flushes"] -= 1
        if room["flushes"] < 0:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path))
        flush(self)

    monkeypatch.setattr(JsonLinesWriter, "flush", disk_fills)
    assert cli(["league", "run", str(path)]) == 4
    printed = capsys.readouterr()
    last = printed.out.strip().splitlines()[-1]
    assert "No space left on device" in last and "Traceback" not in printed.out + printed.err
    db = LeagueDB(tmp_path / "t" / "league.db")
    try:
        assert db.spent("t").calls == api.answered  # every answered call is recorded
        cut = {v.cause for a in db.open_voids("t").values() for v in a}
        assert cut == {"disk"}
    finally:
        db.close()
    monkeypatch.setattr(JsonLinesWriter, "flush", flush)
    assert cli(["league", "run", str(path)]) == 0  # space again: a rerun completes it
