"""Ctrl-C wherever it lands: a league subprocess is interrupted at many points
(while episodes play, while results are stored, while the progress bar is
drawn). Every episode it began is either stored or recorded as void, and every
answered call is in the database; after a kill -9 too, and a rerun completes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coworld.calls import expand_calls
from coworld.cli import main as cli
from coworld.league import LeagueDB, load_league
from coworld.league.runner import LeagueInterrupted, LeagueRun
from coworld.league.scripted import replay_path
from tests.support.leagues import HEAD_TO_HEAD, HOUSE, league_toml
from tests.support.mock_anthropic import first_legal

#: Many short episodes at once: Ctrl-C finds some playing and some storing.
CROWDED = {"policies": ["random", "p.md"], "episodes": 20, "concurrency": 16}


def _interrupt(tmp_path: Path, mock, after_calls: int, presses: int) -> subprocess.CompletedProcess:
    """Run the league; after `after_calls` requests, press Ctrl-C `presses` times."""
    proc = _start(tmp_path, mock)
    deadline = time.monotonic() + 60
    while len(mock.requests) < after_calls and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.002)
    for _ in range(presses):
        proc.send_signal(signal.SIGINT)
        time.sleep(0.01)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _check_nothing_lost(tmp_path: Path, path: Path, mock, presses: int) -> tuple[int, int]:
    """(stored, void): every replay file the league began belongs to one of them."""
    config = load_league(path)
    run = LeagueRun(config, progress=False)
    db = LeagueDB(config.database)
    try:
        rows = db.runner_rows("t")
        voids = db.voids("t")
        recorded = {(tmp_path / r.replay).resolve() for r in rows if r.replay}
        keys = [(r.pairing, r.idx) for r in rows] + [(v.pairing, v.idx) for v in voids]
        assert len(keys) == len(set(keys))  # nothing twice
        pairings = {p.key: p for p in run.schedule}
        recorded |= {replay_path(config, pairings[v.pairing], v.idx).resolve() for v in voids}
        began = {
            p.resolve()
            for p in (tmp_path / "t" / "replays").rglob("*.jsonl")
            if not p.name.endswith(".calls.jsonl")
        }
        assert began <= recorded, sorted(began - recorded)[:3]
        # every answer read is in the database, preflight too; a second Ctrl-C cancels
        # calls in flight: an answer already sent but not read is not known (one a slot)
        spent = db.spent("t").calls
        assert spent == mock.answered if presses == 1 else 0 <= mock.answered - spent <= 16
        return len(rows), len(voids)
    finally:
        db.close()
        run.close()


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_at_many_points_loses_no_episode(tmp_path, api, presses):
    api.script = first_legal  # answered at once: the driver is busy storing
    points = (2, 30, 80, 150, 230)
    interrupted = 0
    for i, after in enumerate(points):
        where = tmp_path / f"run{i}"
        where.mkdir()
        path = league_toml(where, CROWDED, house=HOUSE)
        api.answered = 0
        api.requests.clear()
        result = _interrupt(where, api, after, presses)
        assert "Traceback" not in result.stdout + result.stderr, result.stderr
        assert "Task was destroyed" not in result.stderr
        assert result.returncode in (0, 130), (result.returncode, result.stdout, result.stderr)
        if result.returncode == 130:
            interrupted += 1
            last = result.stdout.strip().splitlines()[-1]
            assert last.startswith("interrupted: stopped by Ctrl-C"), result.stdout
        stored, void = _check_nothing_lost(where, path, api, presses)
        if presses == 2 and result.returncode == 130:
            assert void > 0 or stored > 0
    assert interrupted >= len(points) - 2  # most presses landed while episodes played


@pytest.mark.parametrize(
    "method, presses",
    [("add", (3,)), ("add_call", (20,)), ("add", (2, 4)), ("add_call", (5, 15))],
)
def test_ctrl_c_while_a_result_is_stored_loses_nothing(tmp_path, api, monkeypatch, method, presses):
    """The interrupt delivered inside the database's own methods, deterministically."""
    path = league_toml(tmp_path, CROWDED, house=HOUSE)
    original = getattr(LeagueDB, method)
    seen = {"n": 0}

    def pressed_inside(self, *args, **kwargs):
        seen["n"] += 1
        if seen["n"] in presses:
            signal.raise_signal(signal.SIGINT)  # the handler runs inside this call
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LeagueDB, method, pressed_inside)
    monkeypatch.chdir(tmp_path)
    try:  # a bare KeyboardInterrupt would end pytest itself: caught and named
        LeagueRun(load_league(path), progress=False).run()
    except KeyboardInterrupt as err:
        stopped: KeyboardInterrupt | None = err
    else:
        stopped = None
    assert isinstance(stopped, LeagueInterrupted), repr(stopped)
    monkeypatch.setattr(LeagueDB, method, original)
    stored, void = _check_nothing_lost(tmp_path, path, api, len(presses))
    assert stored + void > 0


def _start(tmp_path: Path, mock) -> subprocess.Popen:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": mock.base_url}
    return subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "league", "run", "l.toml"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _slow(body, n):
    time.sleep(0.05)
    return first_legal(body, n)


def _wait_for(predicate, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_ctrl_c_stores_what_finished_records_the_rest_and_exits_130(tmp_path, api):
    api.script = _slow
    league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE)
    proc = _start(tmp_path, api)
    _wait_for(lambda: api.answered >= 12)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in out + err
    assert out.strip().splitlines()[-1].startswith("interrupted: stopped by Ctrl-C")
    db = LeagueDB(tmp_path / "t" / "league.db")
    # the episodes in flight finished; every answered call is in the database
    assert db.spent("t").calls == api.answered == len(api.requests)
    assert 0 < db.count("t") < 12 and db.usage("t", voided=False).calls <= api.answered


def test_kill_minus_nine_loses_no_recorded_token(tmp_path, api):
    def hangs_after_twelve(body, n):
        if n >= 12:
            time.sleep(30)  # calls in flight when the league is killed
        return _slow(body, n)

    api.script = hangs_after_twelve
    league_toml(tmp_path, HEAD_TO_HEAD, house=HOUSE)
    proc = _start(tmp_path, api)
    _wait_for(lambda: api.answered >= 12 and len(api.requests) > 12)
    time.sleep(0.3)
    proc.kill()
    proc.communicate(timeout=30)
    db = LeagueDB(tmp_path / "t" / "league.db")
    spent, scored = db.spent("t"), db.usage("t", voided=False)
    assert spent.calls == api.answered == 12  # every answered call, scored or not
    unscored = [
        r
        for r in db.conn.execute("SELECT pairing, idx, calls FROM calls WHERE league='t'")
        if r[1] not in db.done("t", r[0])
    ]
    assert spent.calls == scored.calls + sum(r[2] for r in unscored)
    assert sum(r[2] for r in unscored) > 0  # the killed episodes had answered calls
    # a rerun completes the league and keeps counting
    api.script = first_legal
    assert cli(["league", "run", str(tmp_path / "l.toml")]) == 0
    assert db.count("t") == 12
    assert db.spent("t").calls == api.answered
    # the killed episodes' calls sidecars were moved aside, not overwritten
    sidecars = list((tmp_path / "t" / "replays").rglob("*.calls.jsonl"))
    assert any(".prior-1." in p.name for p in sidecars)
    answered = [c for p in sidecars for c in expand_calls(p) if c.get("usage")]
    pings = db.conn.execute("SELECT COUNT(*) FROM calls WHERE pairing='preflight'").fetchone()[0]
    assert pings == 2 and len(answered) == api.answered - pings  # one pre-flight per run
