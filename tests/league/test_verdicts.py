"""Verdicts a user can trust: openings that vary deterministic play, a gate that names
a sample it cannot measure, bots whose failures show, bounded intervals, simulate's
report, and one exit-code convention for every command."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

import coworld
from coworld.cli import main as cli
from coworld.episode import Episode, run
from coworld.exit_codes import ExitCode
from coworld.league.gate import GateConfig
from coworld.league.ranking import compare, standings, summarize
from coworld.league.stats import bounded_interval
from coworld.replay import recheck
from coworld.seats.policy import load_policy
from tests.support.leagues import league_toml

C4BOT = '''"""Deterministic connect four: win if it can, block if it must, else the centre."""

NAME = "c4bot"
BLOCKS = True
LINES = ((1, 0), (0, 1), (1, 1), (1, -1))


def landing(stones, f):
    rank = 1
    while f"{f}{rank}" in stones:
        rank += 1
    return rank


def wins(stones, f, seat):
    x, y = "abcdefg".index(f), landing(stones, f)
    for dx, dy in LINES:
        run = 1
        for sign in (1, -1):
            i, j = x + sign * dx, y + sign * dy
            while 0 <= i < 7 and 1 <= j <= 6 and stones.get("abcdefg"[i] + str(j)) == seat:
                run += 1
                i, j = i + sign * dx, j + sign * dy
        if run >= 4:
            return True
    return False


def act(view, legal_moves):
    me, stones = view["activeSeat"], view["stones"]
    for f in legal_moves:
        if wins(stones, f, me):
            return f
    if BLOCKS:
        for f in legal_moves:
            if wins(stones, f, 1 - me):
                return f
    return next(f for f in "dcebfag" if f in legal_moves)
'''


@pytest.fixture
def bots(tmp_path: Path) -> tuple[str, str]:
    """A correct deterministic connect-four bot and a buggy one that never blocks."""
    good, buggy = tmp_path / "c4bot.py", tmp_path / "c4bot_buggy.py"
    good.write_text(C4BOT)
    buggy.write_text(
        C4BOT.replace('NAME = "c4bot"', 'NAME = "c4bot_buggy"').replace(
            "BLOCKS = True", "BLOCKS = False"
        )
    )
    return str(buggy), str(good)


# ---- openings ---------------------------------------------------------------


@pytest.mark.parametrize(
    "game, policies",
    [
        ("connect-four", ["tactician", "random"]),
        ("dark-hex-5", ["probe", "sweep"]),
        ("quoridor", ["random", "tactician"]),
        ("hanabi", ["conventions"] * 4),
    ],
)
def test_openings_agree_between_the_simulator_and_the_episode_runner(tmp_path, game, policies):
    batch = coworld.simulate(game, policies, 4, seed=7, threads=1, openings=3)
    for i in range(4):
        out = tmp_path / f"{game}-{i}.jsonl"
        results = run(Episode(game, policies, seed=int(batch.seeds[i]), out=out, openings=3))
        assert tuple(results["score"]) == tuple(batch.score[i])
        assert results["plies"] == batch.plies[i]
        plies = [json.loads(x) for x in out.read_text().splitlines()]
        origins = [e["origin"] for e in plies if e["type"] == "ply"]
        assert origins[:3] == ["opening"] * 3 and "opening" not in origins[3:]
        assert recheck(out)["score"] == results["score"]


def test_openings_depend_on_the_seed_alone_and_vary_deterministic_play():
    seeds = [coworld.episode_seed(5, i) for i in range(12)]

    def opening(policies: list[str], seed: int) -> list[str]:
        e = Episode("connect-four", policies, seed=seed, openings=4)
        run(e)
        return [ev["move"] for ev in e.events if ev.get("origin") == "opening"]

    for seed in seeds[:4]:  # the same plies whoever sits where
        assert opening(["tactician", "random"], seed) == opening(["random", "tactician"], seed)
    plain = coworld.simulate("connect-four", ["tactician", "tactician"], 12, seed=5, threads=1)
    opened = coworld.simulate(
        "connect-four", ["tactician", "tactician"], 12, seed=5, threads=1, openings=4
    )
    assert len({opening(["tactician", "random"], s)[0] for s in seeds}) > 1
    assert np.array_equal(plain.seeds, opened.seeds)
    assert len(set(opened.plies.tolist())) > 1


def test_fog_openings_are_each_movers_own_attempts(tmp_path):
    out = tmp_path / "fog.jsonl"
    e = Episode("dark-hex-4", ["probe", "probe"], seed=11, out=out, openings=6)
    state = e.reducer.init(seed=11)
    run(e)
    for ev in (x for x in e.events if x.get("origin") == "opening"):
        # a move of the mover's own legal set (its view), never of the true board's
        assert ev["move"] in state.legal_moves()
        assert ev["move"] in e.reducer.view_for(state, ev["seat"])["legalAttempts"]
        state = state.apply(ev["move"])
    lines = out.read_text().splitlines()
    first = next(i for i, x in enumerate(lines) if json.loads(x).get("origin") == "opening")
    event = json.loads(lines[first])
    legal = e.reducer.init(seed=11).legal_moves()
    event["move"] = next(m for m in legal if m != event["move"])  # not the seed's ply
    lines[first] = json.dumps(event)
    out.write_text("\n".join(lines) + "\n")
    assert cli(["recheck", str(out)]) == ExitCode.WORSE


def test_a_league_file_takes_openings(tmp_path):
    from coworld.league import load_league

    base = {"name": "l", "games": ["hex"], "policies": ["random", "tactician"], "seed": None}
    assert load_league(league_toml(tmp_path, base, openings=3)).openings_for("hex") == 3
    config = load_league(league_toml(tmp_path, base, games=["hex", "hanabi"], openings="default"))
    assert (config.openings_for("hex"), config.openings_for("hanabi")) == (2, 0)
    league_toml(tmp_path, base, openings=-1)
    with pytest.raises(coworld.ConfigError, match="openings"):
        load_league(tmp_path / "l.toml")
    gate = GateConfig(load_policy("tactician"), load_policy("random"), ("hex",))
    assert gate.league().openings_for("hex") == coworld.catalog()["hex"]["openings"] == 2


# ---- the gate on deterministic bots ------------------------------------------


def test_the_gate_names_replayed_games_and_openings_find_the_buggy_bot(tmp_path, bots, capsys):
    buggy, good = bots
    args = ["gate", buggy, good, "--games", "connect-four"]
    assert cli([*args, "--openings", "0", "--out", str(tmp_path / "g0")]) == 2
    said = " ".join(capsys.readouterr().out.split())
    assert "no variation" in said and "--openings N" in said
    assert "not worse" not in said
    # with the game's default openings the same bots play different games: worse
    assert cli([*args, "--out", str(tmp_path / "g4")]) == ExitCode.WORSE
    assert "openings connect-four 4 plies" in " ".join(capsys.readouterr().out.split())


def test_a_gate_resumes_only_with_its_own_openings(tmp_path, capsys):
    args = ["gate", "tactician", "random", "--games", "hex", "--out", str(tmp_path / "g")]
    assert cli([*args, "--openings", "1"]) == ExitCode.OK
    capsys.readouterr()
    assert cli(args) == ExitCode.BAD_INPUT  # the default (2) would mix two samples
    assert "played with other openings ({'hex': 1})" in capsys.readouterr().out
    assert cli([*args, "--openings", "1"]) == ExitCode.OK


def test_gate_help_states_the_default_openings(capsys):
    with pytest.raises(SystemExit):
        cli(["gate", "--help"])
    text = " ".join(capsys.readouterr().out.split()).replace("- ", "-")  # argparse wraps
    assert "2 for phantom-ttt-3, dark-hex-4, dark-hex-5, recon-hex-5, hex" in text
    assert "4 for connect-four, breakthrough, quoridor, rotate" in text


# ---- a league's flags ----------------------------------------------------------


def test_a_league_flags_alike_cells_and_fallback_scores_and_honours_replays_0(
    tmp_path, bots, capsys
):
    buggy, good = bots
    (tmp_path / "bad_exc.py").write_text(
        'NAME = "bad_exc"\n\n\ndef act(view, legal_moves):\n    return legal_moves[0] // 0\n'
    )
    det = {"name": "det", "episodes": 4, "seed": None}
    league_toml(tmp_path, det, policies=[good, buggy, "bad_exc.py"], out=str(tmp_path / "out"))
    assert cli(["league", "run", str(tmp_path / "l.toml")]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "bad_exc: the fallback played 100% of its decisions" in said
    assert "was the same game" in said and "openings = N" in said
    assert not (tmp_path / "out" / "replays").exists()  # replays = 0: no files
    doc = json.loads((tmp_path / "out" / "standings.json").read_text())
    flags = {(s["policy"], s["game"]): s["flags"] for s in doc["standings"]}
    assert flags[("bad_exc", "connect-four")] == ["alike", "fallback"]
    assert flags[("c4bot", "connect-four")] == ["alike"]
    assert flags[("c4bot", "overall")] == []
    from starlette.testclient import TestClient

    from coworld.viewer import create_app

    page = TestClient(create_app(tmp_path / "out")).get("/api/league").json()
    shown = {(s["policy"], s["game"]): s["flags"] for s in page["standings"]}
    assert shown == flags and page["warnings"] == doc["warnings"]
    # with openings the cells vary and the flag goes
    league_toml(
        tmp_path,
        det,
        policies=[good, buggy],
        episodes=8,
        openings=4,
        replays=1,
        out=str(tmp_path / "out2"),
    )
    assert cli(["league", "run", str(tmp_path / "l.toml")]) == 0
    doc = json.loads((tmp_path / "out2" / "standings.json").read_text())
    assert all(s["flags"] == [] for s in doc["standings"])
    assert len(list((tmp_path / "out2" / "replays").rglob("*.jsonl"))) == 2  # 1 per pairing


# ---- a bot's failures --------------------------------------------------------------


def test_play_shows_a_bots_exception_and_its_line(tmp_path, capsys):
    (tmp_path / "bad_exc.py").write_text(
        "def act(view, legal_moves):\n    x = len(legal_moves)\n    return legal_moves[x // 0]\n"
    )
    out = tmp_path / "e.jsonl"
    argv = ["play", "connect-four", "-s", str(tmp_path / "bad_exc.py"), "-s", "random"]
    assert cli([*argv, "--seed", "3", "--out", str(out)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "ZeroDivisionError: integer division or modulo by zero" in said
    assert "bad_exc.py line 3: return legal_moves[x // 0]" in said
    assert "fallback played" in said


# ---- intervals -----------------------------------------------------------------


def test_intervals_respect_the_score_range():
    # all wins: the plain t-interval is [1, 1]; a score interval stays below 1 and inside
    lo, hi = summarize(np.ones(50)).lo, summarize(np.ones(50)).hi
    assert -1 < lo < 1 and hi == 1
    near = np.array([1.0] * 199 + [-1.0])  # mean 0.99: mean + t * se would pass +1
    s = summarize(near)
    assert s.mean + 1.97 * s.se > 1 and s.hi <= 1 and s.lo < s.mean
    # inside the range it agrees with mean +/- t * se to first order
    mid = summarize(np.tile([1.0, -1.0, 0.0, 1.0], 250))
    assert mid.hi - mid.lo == pytest.approx(2 * 1.962 * mid.se, rel=0.01)
    lo, hi = bounded_interval(25.0, 0.0, 30, 0.0, 25.0, 2.0)  # every Hanabi game perfect
    assert 0 < lo < 25 and hi == 25


def test_standings_and_compare_intervals_stay_in_bounds():
    from coworld.league.records import Block

    wins = np.array([[1.0, -1.0]] * 40 + [[-1.0, 1.0]] * 40)
    block = Block("hex", ("a", "b"), wins[:40], index=np.arange(40))
    table = {(s.policy, s.game): s for s in standings([block])}
    assert table[("a", "hex")].hi <= 1 and table[("b", "hex")].lo >= -1
    base, cur = standings([block]), standings([Block("hex", ("b", "a"), wins[:40])])
    for d in compare(base, cur):
        assert -2 <= d.lo <= d.hi <= 2


def test_compare_says_not_significantly_different(tmp_path, capsys):
    def doc(mean: float) -> dict:
        s = {"policy": "p", "game": "hex", "n": 500, "mean": mean, "sd": 0.6, "se": 0.03}
        return {"league": "x", "standings": [{**s, "lo": mean - 0.06, "hi": mean + 0.06}]}

    (tmp_path / "a.json").write_text(json.dumps(doc(0.4)))
    (tmp_path / "b.json").write_text(json.dumps(doc(0.34)))
    assert cli(["league", "compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "1 not significantly different" in said and "same" not in said
    assert "p on hex -0.060 [-0.145, +0.025]" in said


# ---- simulate ------------------------------------------------------------------------


def test_simulate_reports_counts_intervals_and_both_orders(capsys):
    argv = ["simulate", "connect-four", "-p", "tactician", "-p", "random", "-n", "60"]
    assert cli([*argv, "--seed", "4", "--swap", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {(r["policy"], r["seat"]): r for r in doc["rows"]}
    first = coworld.simulate("connect-four", ["tactician", "random"], 60, seed=4)
    second = coworld.simulate("connect-four", ["random", "tactician"], 60, seed=4)
    t0 = first.score[:, 0]
    assert (rows[("tactician", "0")]["wins"], rows[("tactician", "0")]["losses"]) == (
        int((t0 > 0).sum()),
        int((t0 < 0).sum()),
    )
    both = rows[("tactician", "both")]
    assert both["episodes"] == 120
    assert both["mean"] == pytest.approx((t0.sum() + second.score[:, 1].sum()) / 120)
    assert -1 <= both["lo"] <= both["mean"] <= both["hi"] <= 1
    assert doc["orders"] == [["tactician", "random"], ["random", "tactician"]]
    assert cli([*argv, "--seed", "4", "--csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["policy"] for r in table] == ["tactician", "random"]
    assert int(table[0]["wins"]) + int(table[0]["draws"]) + int(table[0]["losses"]) == 60


def test_simulate_of_a_python_policy_says_to_use_a_league(tmp_path, capsys):
    assert cli(["simulate", "hex", "-p", "bot.py", "-p", "random"]) == ExitCode.BAD_INPUT
    said = " ".join(capsys.readouterr().out.split())
    assert "simulate runs built-in baselines; use a league for Python policies" in said
    assert "config field" not in said


# ---- exit codes --------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["games", "--bogus"],
        ["demo", "--episodes", "0"],
        ["league", "run", "missing.toml"],
        ["league", "plan", "missing.toml"],
        ["league", "table", "missing.db"],
        ["league", "compare", "missing.json", "missing.json"],
        ["gate", "random", "tactician", "--games", "chess"],
        ["play", "hex", "-s", "nosuch", "-s", "random"],
        ["recheck", "missing.jsonl"],
        ["view", "missing-dir"],
        ["simulate", "hex", "-p", "nosuch", "-p", "random"],
        ["simulate", "nosuch-game", "-p", "random"],
    ],
)
def test_bad_input_exits_3_in_every_command(tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    try:
        code = cli(argv)
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    assert code == ExitCode.BAD_INPUT == 3


@pytest.mark.parametrize(
    "argv", [["games"], ["league", "run"], ["league", "compare"], ["gate"], ["play"], ["recheck"]]
)
def test_every_help_lists_the_exit_codes(argv, capsys):
    with pytest.raises(SystemExit):
        cli([*argv, "--help"])
    text = capsys.readouterr().out
    assert "Exit codes:" in text and "  3  bad input" in text and "  0  done" in text
