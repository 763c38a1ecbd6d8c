"""`coworld gate`: exit codes on clearly better and clearly worse policies, the cap,
resume after a crash, a Claude candidate (local Messages API server), bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from coworld.cli import main as cli
from coworld.league import LeagueDB
from coworld.league.gate import GateConfig, candidate_counts, run_gate
from coworld.league.sprt import gsprt_llr
from coworld.seats.policy import load_policy
from tests.support.leagues import make_league


def gate(tmp_path: Path, candidate: str, reference: str, **fields) -> GateConfig:
    return GateConfig(
        candidate=load_policy(candidate),
        reference=load_policy(reference),
        games=fields.pop("games", ("connect-four",)),
        out=tmp_path / "gate",
        **fields,
    )


def test_clearly_better_passes_and_clearly_worse_fails(tmp_path):
    better = run_gate(gate(tmp_path, "tactician", "random"))
    worse = run_gate(gate(tmp_path, "random", "tactician"))
    assert (better.exit_code, better.verdict) == (0, "not worse")
    assert (worse.exit_code, worse.verdict) == (1, "worse")
    bounds = better.bounds
    assert better.steps[-1].llr >= bounds.upper and worse.steps[-1].llr <= bounds.lower
    for step in better.steps[:-1] + worse.steps[:-1]:
        assert bounds.lower < step.llr < bounds.upper  # it stops at the first crossing
    # batch k holds k * 16 seed pairs (both seat orders of each seed)
    assert [s.pairs for s in better.steps] == [16 * (i + 1) for i in range(len(better.steps))]
    assert all(s.episodes == 2 * s.pairs for s in better.steps)
    # the LLR is the pentanomial GSPRT of what the database holds
    db = LeagueDB(tmp_path / "gate" / "league.db")
    counts, episodes = candidate_counts(
        db.blocks("gate: tactician vs random"), "tactician", better.steps[-1].pairs
    )
    assert episodes == better.steps[-1].episodes
    assert np.array_equal(counts, better.steps[-1].counts)
    assert gsprt_llr(counts, -10, 0) == better.steps[-1].llr


def test_the_cap_makes_it_inconclusive(tmp_path):
    result = run_gate(gate(tmp_path, "probe", "sweep", games=("phantom-ttt-3",), max_episodes=8))
    assert result.exit_code == 2 and result.verdict == "inconclusive"
    assert result.steps[-1].episodes == 8


def test_a_crashed_gate_resumes_to_the_clean_result(tmp_path, monkeypatch):
    import coworld.league.runner as runner

    clean = run_gate(gate(tmp_path / "clean", "random", "tactician", batch=8))
    real = runner.LeagueRun.play
    calls = {"n": 0}

    def crashing(self, db, schedule):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt  # ^C in the fourth batch
        return real(self, db, schedule)

    monkeypatch.setattr(runner.LeagueRun, "play", crashing)
    with pytest.raises(KeyboardInterrupt):
        run_gate(gate(tmp_path, "random", "tactician", batch=8))
    monkeypatch.setattr(runner.LeagueRun, "play", real)
    resumed = run_gate(gate(tmp_path, "random", "tactician", batch=8))
    assert resumed.exit_code == clean.exit_code == 1
    assert [(s.pairs, s.llr) for s in resumed.steps] == [(s.pairs, s.llr) for s in clean.steps]


def test_a_claude_candidate_through_the_cli(tmp_path, mock_api, capsys):
    def model(body, n):  # always the first legal file: stacks file a, far above random
        legal = re.search(r"[Ll]egal moves?:?\s*\n?(.*)", body["messages"][-1]["content"])
        move = re.findall(r"\b[a-g]\b", legal.group(1))[0] if legal else "a"
        return ("text", json.dumps({"move": move}))

    (tmp_path / "p.md").write_text("---\nname: house\nmodel: claude-haiku-4-5\n---\nPlay well.\n")
    mock = mock_api(model)
    args = [
        "gate",
        "random",
        str(tmp_path / "p.md"),
        "--games",
        "connect-four",
        "--batch",
        "4",
        "--out",
        str(tmp_path / "g"),
    ]
    assert cli(args) == 1  # random is worse than the Claude policy
    assert len(mock.requests) > 0
    out = capsys.readouterr().out
    assert "LLR bounds [-2.94, +2.94]" in out and "worse: LLR" in out
    db = LeagueDB(tmp_path / "g" / "league.db")
    rows = db.runner_rows("gate: random vs house")
    house = [d for r in rows for p, d in zip(r.seats, r.decisions, strict=True) if p == "house"]
    assert sum(d.get("model", 0) for d in house) > 0  # its moves came from the (mock) model
    assert sum(d.get("fallback", 0) for d in house) == 0


@pytest.mark.parametrize(
    "args, needle",
    [
        (["tactician", "tactician", "--games", "hex"], "both 'tactician'"),
        (["tactician", "random", "--games", "hanabi"], "Hanabi is cooperative"),
        (["tactician", "random", "--games", "nope"], "unknown game 'nope'"),
        (["tactician", "random", "--games", "hex", "--elo0", "5"], "--elo0"),
        (["tactician", "random", "--games", "hex", "--alpha", "0.7"], "--alpha"),
        (["tactician", "random", "--games", "hex", "--elo1", "inf"], "--elo1"),
        (["tactician", "random", "--games", "hex", "--elo0", "nan"], "--elo0"),
        (["probe", "random", "--games", "hex"], "not a baseline of any listed game"),
        (["probe", "random", "--games", "dark-hex-4,hex"], "does not field both"),
    ],
)
def test_bad_gate_input_exits_3_with_one_line(tmp_path, capsys, args, needle):
    assert cli(["gate", *args, "--out", str(tmp_path / "g")]) == 3
    out = capsys.readouterr().out
    assert "error:" in out and needle in out.replace("\n", " ")


@pytest.mark.parametrize(
    "args, needle",
    [
        (["random", "tactician", "--games", ","], None),  # no game: one line, exit 3
        (["random", "tactician", "--games", "hex", "--threads", "-3"], "--threads"),
        (["random", "tactician", "--games", "hex", "--seed", "9" * 20], "--seed"),
        (["random", "--games", "hex"], "reference"),
        (["random", "tactician", "--games", "hex", "--batch", "1.5"], "--batch"),
    ],
)
def test_usage_errors_exit_3_not_a_verdict(tmp_path, capsys, args, needle):
    """0, 1 and 2 are verdicts: a malformed command line is bad input (3), never
    argparse's 2 ("inconclusive") nor a traceback's 1 ("worse")."""
    if needle is None:
        assert cli(["gate", *args, "--out", str(tmp_path / "g")]) == 3
        assert "name at least one two-seat game" in capsys.readouterr().out
        return
    with pytest.raises(SystemExit) as exit_:
        cli(["gate", *args, "--out", str(tmp_path / "g")])
    assert exit_.value.code == 3
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_a_build_gate_against_a_recorded_league(tmp_path, capsys):
    """The same policy on two builds: the reference build's league database holds the
    policy against an anchor; this build plays the candidate on the same seeds."""
    from coworld.league import LeagueRun

    old = make_league(
        tmp_path,
        name="old-build",
        games=["dark-hex-5"],
        policies=["sweep", "probe", "random"],
        episodes=300,
        seed=11,
        out="old",
    )
    LeagueRun(old, progress=False).run()
    common = ["--anchor", "probe", "--games", "dark-hex-5"]
    # identical play on identical seeds: every seed's outcome is 1/2, so not worse
    same = ["gate", "sweep", str(tmp_path / "old"), *common, "--out", str(tmp_path / "a")]
    assert cli(same) == 0
    assert "outcomes(0..1 by 1/8) 0 0 0 0 16 0 0 0 0" in capsys.readouterr().out
    # a regression: random in this build where the recording has sweep
    worse = ["gate", "random", f"{tmp_path / 'old'}#sweep", *common, "--out", str(tmp_path / "b")]
    assert cli(worse) == 1
    # the recording must hold the pairing
    missing = ["gate", "sweep", str(tmp_path / "old"), "--anchor", "tactician"]
    assert cli([*missing, "--games", "dark-hex-5", "--out", str(tmp_path / "c")]) == 3


SLOW_RANDOM = """
import os, random, time

def act(view, legal_moves):
    time.sleep(float(os.environ.get("SLOW_POLICY_SECONDS", "0")))  # only the killed run sleeps
    return random.Random("SALT" + str(view)).choice(legal_moves)
"""


def test_kill_minus_nine_mid_gate_then_rerun(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    # Two equal random policies: the gate runs to its cap, not to a bound. The killed
    # run alone sleeps 2 ms a move, so the kill lands mid-gate however loaded the host.
    for salt in "ab":
        (tmp_path / f"{salt}.py").write_text(SLOW_RANDOM.replace("SALT", salt))
    a_py, b_py = str(tmp_path / "a.py"), str(tmp_path / "b.py")
    args = [a_py, b_py, "--games", "connect-four"]
    args += ["--batch", "8", "--max-episodes", "192", "--threads", "1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "gate", *args, "--out", "killed"],
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200", "SLOW_POLICY_SECONDS": "0.002"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db_path = tmp_path / "killed" / "league.db"
    deadline = time.monotonic() + 120
    partial = 0
    while time.monotonic() < deadline and proc.poll() is None and partial < 48:
        time.sleep(0.05)
        if db_path.exists():
            db = LeagueDB(db_path)
            try:
                partial = sum(db.count(name) for name in db.leagues())
            finally:
                db.close()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (name,) = LeagueDB(db_path).leagues()
    partial = LeagueDB(db_path).count(name)
    assert 48 <= partial < 192
    resumed = cli(["gate", *args, "--out", str(tmp_path / "killed")])
    clean = cli(["gate", *args, "--out", str(tmp_path / "clean")])
    assert resumed == clean
    a, b = LeagueDB(db_path), LeagueDB(tmp_path / "clean" / "league.db")
    assert a.count(name) == b.count(name) > partial  # it was killed mid-gate
    ca, _ = candidate_counts(a.blocks(name), a_py, a.count(name))
    cb, _ = candidate_counts(b.blocks(name), a_py, b.count(name))
    assert np.array_equal(ca, cb)
    assert ca.sum() > 0


def test_a_recording_on_other_seeds_is_refused(tmp_path, capsys):
    import sqlite3

    from coworld.league import LeagueRun

    old = make_league(tmp_path, name="old-build", episodes=20, seed=11, out="old")
    LeagueRun(old, progress=False).run()
    # as if the other build had derived its episode seeds differently
    with sqlite3.connect(tmp_path / "old" / "league.db") as c:
        (config,) = c.execute("SELECT config FROM leagues").fetchone()
        c.execute("UPDATE leagues SET config=?", (json.dumps({**json.loads(config), "seed": 12}),))
    args = ["gate", "tactician", str(tmp_path / "old"), "--anchor", "random"]
    assert cli([*args, "--games", "connect-four", "--out", str(tmp_path / "g")]) == 3
    out = capsys.readouterr().out.replace("\n", " ")
    assert "a build gate needs both builds on the same seeds" in out
