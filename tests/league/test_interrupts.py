"""Ctrl-C wherever it lands: a league subprocess is interrupted at many points
(while episodes play, while results are stored, while the progress bar is
drawn). Every episode it began is either stored or recorded as void, and every
answered call is in the database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coworld.league import LeagueDB, load_league
from coworld.league.runner import LeagueInterrupted, LeagueRun
from tests.league.test_faults import api, first_legal

__all__ = ["api"]  # the mock server's fixture, used here by name


def _league(tmp_path: Path) -> Path:
    (tmp_path / "p.md").write_text("---\nname: house\nmodel: claude-haiku-4-5\n---\nPlay.\n")
    path = tmp_path / "l.toml"
    path.write_text(
        'name = "t"\ngames = ["connect-four"]\npolicies = ["random", "p.md"]\n'
        'episodes = 20\nseed = 4\nreplays = 0\nconcurrency = 16\nout = "t"\n'
    )
    return path


def _interrupt(tmp_path: Path, mock, after_calls: int, presses: int) -> subprocess.CompletedProcess:
    """Run the league; after `after_calls` requests, press Ctrl-C `presses` times."""
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": mock.base_url}
    proc = subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "league", "run", "l.toml"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
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
        recorded |= {run._replay_path(run._pairings[v.pairing], v.idx).resolve() for v in voids}
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
        run.backend.close()


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_at_many_points_loses_no_episode(tmp_path, api, presses):
    api.state["script"] = first_legal  # answered at once: the driver is busy storing
    points = (2, 30, 80, 150, 230)
    interrupted = 0
    for i, after in enumerate(points):
        where = tmp_path / f"run{i}"
        where.mkdir()
        path = _league(where)
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
    path = _league(tmp_path)
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
