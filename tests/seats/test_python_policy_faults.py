"""Python policies that misbehave: nothing they do ends an episode or a league in a
traceback or a silent exit. Exceptions of any kind (sys.exit too) are `error`; a
decision at its TIME_LIMIT is interrupted (`timeout`) and benches the seat; a policy
that ends its worker process voids that episode and stops the league with one line;
the feed and the reliability table treat Python seats like Claude seats."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from coworld.clock import Clock
from coworld.episode import play
from coworld.errors import ConfigError
from coworld.league.backends.local import LocalBackend
from coworld.league.config import load_league
from coworld.league.ranking import reliability
from coworld.league.records import EpisodeKey, EpisodeRow, VoidEpisode
from coworld.league.runner import LeagueRun
from coworld.league.storage import LeagueDB
from coworld.league.work import EpisodeJob, Shared
from coworld.seats.policy import load_policy
from tests.support.leagues import league_toml, make_league

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SPIN = "TIME_LIMIT = 0.3\ndef act(view, legal_moves):\n    while True:\n        pass\n"
SLEEP = "import time\nTIME_LIMIT = 0.3\ndef act(view, legal_moves):\n    time.sleep(60)\n"
SWALLOW = (
    "TIME_LIMIT = 0.3\n"
    "def act(view, legal_moves):\n"
    "    try:\n        while True:\n            pass\n"
    "    except Exception:\n        return legal_moves[0]\n"
)
EXIT = "import sys\ndef act(view, legal_moves):\n    sys.exit(3)\n"
KILL = "import os\ndef act(view, legal_moves):\n    os._exit(1)\n"
RAISE = "def act(view, legal_moves):\n    raise KeyError('boom')\n"


def bot(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return str(path)


def mine(replay: Path, seat: int = 0) -> list[dict]:
    events = [json.loads(x) for x in replay.read_text().splitlines()]
    return [e for e in events if e["type"] == "ply" and e["seat"] == seat]


#: This module's leagues: two episodes a pairing, two worker processes.
BOTS = {"seed": 1, "concurrency": 2}


# ---- 1. the feed ------------------------------------------------------------


def test_the_feed_annotates_only_retries_and_fallbacks(tmp_path, monkeypatch, capsys):
    from coworld import cli

    monkeypatch.chdir(tmp_path)
    args = ["play", "hex", "-s", str(EXAMPLES / "random_bot.py"), "-s", "tactician"]
    assert cli.main([*args, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "red plays" in out and "[policy" not in out and "None]" not in out
    raising = bot(tmp_path, "raising", RAISE)
    assert cli.main(["play", "hex", "-s", raising, "-s", "tactician", "--seed", "3"]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if "red plays" in x]
    assert lines and all(x.endswith("  [fallback: error]") for x in lines)


# ---- 2. reliability ---------------------------------------------------------


def rows(*decisions: tuple[dict, dict]) -> list[EpisodeRow]:
    return [
        EpisodeRow(
            EpisodeKey("p", i, "hex", 1, ("py", "tactician")),
            "hex",
            (1.0, -1.0),
            "x",
            "y",
            9,
            decisions=d,
        )
        for i, d in enumerate(decisions)
    ]


def test_reliability_counts_python_decisions_and_their_causes():
    good = rows(({"policy": 40}, {"scripted": 40}), ({"policy": 2}, {"scripted": 2}))
    assert reliability(good)["py"]["decisions"] == 42
    assert reliability(good)["py"]["fallbacks"] == 0 and "tactician" not in reliability(good)
    failing = {"policy": 3, "fallback": 7, "fallback:error": 4, "fallback:timeout": 2}
    failing["fallback:illegal"] = 1
    r = reliability(rows((failing, {"scripted": 10})))["py"]
    assert r["decisions"] == 10 and r["fallbacks"] == 7 and r["retries"] == 0
    assert r["fallback_rate:error"] == 0.4 and r["fallback_rate:timeout"] == 0.2
    assert r["fallback_rate:illegal"] == 0.1 and r["fallback_rate:unparseable"] == 0.0


def test_the_reliability_table_and_standings_json_show_python_seats(tmp_path, capsys):
    from rich.console import Console

    from coworld.cli.standings import reliability_table
    from coworld.league.summary import reliability_rows

    failing = {"fallback": 102, "fallback:error": 102}
    console = Console(width=80, record=True)
    console.print(
        reliability_table(reliability_rows(reliability(rows((failing, {"scripted": 102})))))
    )
    text = console.export_text()
    assert "Claude and Python seats" in text and "error" in text and "100.00%" in text
    assert max(len(line) for line in text.splitlines()) <= 80

    raising, good = bot(tmp_path, "raising", RAISE), str(EXAMPLES / "random_bot.py")
    report = LeagueRun(
        make_league(tmp_path, BOTS, name="rel", policies=["random", raising, good]), progress=False
    ).run()
    rel = json.loads(report.exports["json"].read_text())["reliability"]
    assert rel["raising"]["fallback_rate:error"] == 1.0 and rel["raising"]["decisions"] > 0
    assert rel["random_bot"]["decisions"] > 0 and rel["random_bot"]["fallbacks"] == 0
    assert "random" not in rel
    db = LeagueDB(report.database)
    counted = sum(
        d.get("fallback", 0)
        for r in db.runner_rows("rel")
        for p, d in zip(r.seats, r.decisions, strict=True)
        if p == "raising"
    )
    assert rel["raising"]["decisions"] == counted


# ---- 3. BaseExceptions ------------------------------------------------------


def test_sys_exit_is_an_error_and_the_fallback_moves(tmp_path):
    out = tmp_path / "c4.jsonl"
    results = play("connect-four", [bot(tmp_path, "quitter", EXIT), "random"], seed=2, out=out)
    seat = mine(out)
    assert seat and all(e["origin"] == "fallback" and e["cause"] == "error" for e in seat)
    assert seat[0]["attempts"][0]["reason"] == "SystemExit: 3 (at quitter.py line 3: sys.exit(3))"
    assert results["decisions"][0]["fallback:error"] == len(seat)


def test_sys_exit_neither_ends_play_nor_a_league(tmp_path, monkeypatch, capsys):
    from coworld import cli

    monkeypatch.chdir(tmp_path)
    quitter = bot(tmp_path, "quitter", EXIT)
    assert cli.main(["play", "connect-four", "-s", quitter, "-s", "random", "--seed", "2"]) == 0
    assert "[fallback: error]" in capsys.readouterr().out
    league_toml(tmp_path, BOTS, name="l", policies=["random", "quitter.py"], out="out")
    assert cli.main(["league", "run", "l.toml"]) == 0
    out = capsys.readouterr().out
    assert "4 episodes played now" in out and "quitter" in out and "error" in out


def test_keyboard_interrupt_still_stops_the_episode(tmp_path):
    body = "def act(view, legal_moves):\n    raise KeyboardInterrupt\n"
    with pytest.raises(KeyboardInterrupt):
        play("connect-four", [bot(tmp_path, "ctrl_c", body), "random"], seed=2)


# ---- 4. the time limit ------------------------------------------------------


@pytest.mark.parametrize("body", [SPIN, SLEEP, SWALLOW], ids=["spin", "sleep", "swallow"])
def test_a_decision_at_its_limit_is_interrupted_and_benches_the_seat(tmp_path, body):
    before = signal.getsignal(signal.SIGALRM)
    out = tmp_path / "c4.jsonl"
    started = time.monotonic()
    results = play("connect-four", [bot(tmp_path, "slow", body), "random"], seed=2, out=out)
    assert time.monotonic() - started < 10  # one limit, then the fallback at once
    seat = mine(out)
    assert len(seat) > 1 and all(e["origin"] == "fallback" for e in seat)
    assert all(e["cause"] == "timeout" for e in seat)
    first, later = seat[0]["attempts"][0], seat[1]["attempts"][0]
    assert 0.3 <= first["latency"] < 1.0 and "the limit is 0.3 s" in first["reason"]
    assert later["reason"].startswith("benched at ply 0") and later["latency"] == 0.0
    assert results["decisions"][0] == {"fallback": len(seat), "fallback:timeout": len(seat)}
    # the timer is cancelled and the handler restored
    assert signal.getsignal(signal.SIGALRM) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_between_decisions_a_sigalrm_reaches_the_previous_handler(tmp_path):
    """The episode holds its handler from its first Python decision to its end;
    meanwhile it is inert: a SIGALRM outside a decision goes to whoever had it."""
    heard: list[int] = []

    def handler(signum, frame):
        heard.append(signum)

    def poke(event):
        if event["type"] == "ply":
            assert signal.getsignal(signal.SIGALRM) is not handler  # the episode's own
            signal.raise_signal(signal.SIGALRM)

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        good = str(EXAMPLES / "random_bot.py")
        results = play("connect-four", [good, "random"], seed=2, on_event=poke)
        assert signal.getsignal(signal.SIGALRM) is handler
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert results["decisions"][0] == {"policy": (results["plies"] + 1) // 2}
    assert heard == [signal.SIGALRM] * results["plies"]


def test_our_timer_firing_as_a_decision_returns_is_not_passed_on():
    """The race at the limit: the timer expires as the answer comes back and its
    handler runs only after the decision is over. That signal is ours and is dropped;
    passed on to the default handler it would end the process. Modelled exactly:
    the timer is found expired when the decision ends, and the signal comes after."""
    from coworld.seats import time_limit

    heard: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: heard.append(signum))

    def answer_as_the_timer_expires():
        signal.setitimer(signal.ITIMER_REAL, 0)  # expired, its signal not handled yet
        return "d"

    assert time_limit.hold_alarm()
    try:
        assert time_limit._ALARM.call(5.0, "p.py", answer_as_the_timer_expires) == "d"
        signal.raise_signal(signal.SIGALRM)  # the late signal: dropped
        assert heard == []
        signal.raise_signal(signal.SIGALRM)  # anyone else's still reaches its handler
        assert heard == [signal.SIGALRM]
    finally:
        time_limit.release_alarm()
        signal.signal(signal.SIGALRM, previous)


def test_a_bot_that_overruns_its_construction_is_benched(tmp_path):
    body = (
        "import time\nTIME_LIMIT = 0.3\n"
        "class Bot:\n    def __init__(self):\n        time.sleep(60)\n"
        "    def act(self, view, legal_moves):\n        return legal_moves[0]\n"
    )
    out = tmp_path / "c4.jsonl"
    started = time.monotonic()
    play("connect-four", [bot(tmp_path, "slowinit", body), "random"], seed=2, out=out)
    assert time.monotonic() - started < 10
    seat = mine(out)
    assert seat and all(e["cause"] == "timeout" for e in seat)
    assert "Bot() took" in seat[0]["attempts"][0]["reason"]


def test_play_cli_interrupts_a_spinning_policy(tmp_path, monkeypatch, capsys):
    from coworld import cli

    monkeypatch.chdir(tmp_path)
    started = time.monotonic()
    spin = bot(tmp_path, "spin", SPIN)
    assert cli.main(["play", "connect-four", "-s", spin, "-s", "random", "--seed", "2"]) == 0
    assert time.monotonic() - started < 10
    lines = [x for x in capsys.readouterr().out.splitlines() if "red plays" in x]
    assert lines and all(x.endswith("  [fallback: timeout]") for x in lines)


def test_off_the_main_thread_the_limit_is_judged_on_return(tmp_path):
    body = (
        "import time\nTIME_LIMIT = 0.05\n"
        "def act(view, legal_moves):\n    time.sleep(0.2)\n    return legal_moves[0]\n"
    )
    out = tmp_path / "c4.jsonl"
    done: list[dict] = []
    path = bot(tmp_path, "late", body)
    thread = threading.Thread(
        target=lambda: done.append(play("connect-four", [path, "random"], seed=2, out=out))
    )
    thread.start()
    thread.join(60)
    assert done
    first = mine(out)[0]["attempts"][0]
    assert first["cause"] == "timeout" and first["latency"] >= 0.2  # not interrupted


@pytest.mark.parametrize("body", [SPIN, SLEEP], ids=["spin", "sleep"])
def test_a_local_league_interrupts_slow_policies(tmp_path, body):
    slow = bot(tmp_path, "slow", body)
    started = time.monotonic()
    report = LeagueRun(
        make_league(tmp_path, BOTS, name="slow", policies=["random", slow], episodes=3),
        progress=False,
    ).run()
    assert time.monotonic() - started < 60
    assert report.episodes == 6 and not report.stopped
    rel = reliability(LeagueDB(report.database).runner_rows("slow"))["slow"]
    assert rel["fallback_rate:timeout"] == 1.0


# ---- 5. a policy that ends its process --------------------------------------


def test_a_policy_ending_its_worker_voids_the_episode_and_stops_the_league(
    tmp_path, monkeypatch, capsys
):
    from coworld import cli

    monkeypatch.chdir(tmp_path)
    bot(tmp_path, "killer", KILL)
    league_toml(tmp_path, BOTS, name="l", policies=["random", "killer.py"], episodes=3, out="out")
    assert cli.main(["league", "run", "l.toml"]) == 3  # the policy ended its worker: bad input
    out = " ".join(capsys.readouterr().out.split())
    assert "Traceback" not in out and "already in the database" not in out
    assert "the league stopped: policy" in out and "killer.py ended its worker process" in out
    assert "exit code 1" in out and "fix the policy" in out
    voids = LeagueDB(tmp_path / "out" / "league.db").open_voids("l")
    assert voids and {a[-1].cause for a in voids.values()} == {"worker-died"}


def test_episodes_caught_in_a_broken_pool_are_played_again_alone(tmp_path):
    """Two episodes in one pool: the one whose policy ends its process is void; the
    other, whose worker the pool's breaking ended, is played again and scored."""
    killer = load_policy(bot(tmp_path, "killer", KILL))
    patient = "import time\ndef act(view, legal):\n    time.sleep(0.05)\n    return legal[0]\n"
    slow_good = load_policy(bot(tmp_path, "patient", patient))
    random = load_policy("random")
    jobs = [
        EpisodeJob(key("a", (slow_good, random)), (slow_good, random), Clock()),
        EpisodeJob(key("b", (killer, random)), (killer, random), Clock()),
    ]
    backend = LocalBackend()
    try:
        results = {r.pairing: r for r in backend.map_episodes(jobs, 2, Shared())}
    finally:
        backend.close()
    assert isinstance(results["a"], EpisodeRow) and results["a"].plies > 0
    assert isinstance(results["b"], VoidEpisode) and results["b"].cause == "worker-died"
    assert "killer.py ended its worker process (exit code 1" in results["b"].detail


# ---- 6. what a policy returns, and how it is named --------------------------


def test_optional_fields_of_the_wrong_type_are_dropped_and_named(tmp_path):
    body = (
        "def act(view, legal_moves):\n"
        "    return {'move': legal_moves[0], 'say': ['x'], 'notes': 5, 'guess': ['a1']}\n"
    )
    out = tmp_path / "hex.jsonl"
    play("hex", [bot(tmp_path, "sloppy", body), "random"], seed=1, out=out)
    first = mine(out)[0]
    assert first["origin"] == "policy" and first["say"] == "" and first["notes"] == ""
    assert first["guess"] == []  # hex has no guesses
    dropped = first["attempts"][0]["dropped"]
    assert dropped == ["say: list, not text", "notes: int, not text", "guess: hex has no guesses"]


def test_a_fog_guess_is_kept_and_bounded(tmp_path):
    body = "def act(view, legal):\n    return {'move': legal[0], 'guess': [' a1', 'b2']}\n"
    out = tmp_path / "dark.jsonl"
    play("dark-hex-5", [bot(tmp_path, "guesser", body), "random"], seed=1, out=out)
    assert mine(out)[0]["guess"] == ["a1", "b2"]


def test_text_no_file_can_hold_never_crashes_the_episode(tmp_path):
    move = "def act(view, legal_moves):\n    return '\\ud800'\n"
    say = "def act(view, legal_moves):\n    return {'move': legal_moves[0], 'say': 'hi \\ud800'}\n"
    out = tmp_path / "a.jsonl"
    play("hex", [bot(tmp_path, "surrogate_move", move), "random"], seed=1, out=out)
    assert mine(out)[0]["cause"] == "unparseable"
    out = tmp_path / "b.jsonl"
    play("hex", [bot(tmp_path, "surrogate_say", say), "random"], seed=1, out=out)
    assert mine(out)[0]["say"] == "hi \ufffd"


def test_an_answer_whose_methods_raise_is_unparseable(tmp_path):
    body = (
        "from collections.abc import Mapping\n"
        "class Weird(Mapping):\n"
        "    def __getitem__(self, k):\n        raise RuntimeError('nope')\n"
        "    def __iter__(self):\n        return iter(())\n"
        "    def __len__(self):\n        return 0\n"
        "def act(view, legal_moves):\n    return Weird()\n"
    )
    out = tmp_path / "c4.jsonl"
    play("connect-four", [bot(tmp_path, "weird", body), "random"], seed=1, out=out)
    first = mine(out)[0]
    assert first["cause"] == "unparseable"
    assert "RuntimeError: nope" in first["attempts"][0]["reason"]


def test_a_bot_whose_constructor_raises_is_an_error_every_decision(tmp_path):
    body = (
        "class Bot:\n    def __init__(self):\n        raise ValueError('no table')\n"
        "    def act(self, view, legal_moves):\n        return legal_moves[0]\n"
    )
    out = tmp_path / "c4.jsonl"
    play("connect-four", [bot(tmp_path, "badinit", body), "random"], seed=1, out=out)
    seat = mine(out)
    assert len(seat) > 1 and all(e["cause"] == "error" for e in seat)
    said = "Bot() raised ValueError: no table (at badinit.py line 3: raise ValueError('no table'))"
    assert all(e["attempts"][0]["reason"] == said for e in seat)


def test_names_that_collide_are_refused_with_both_sources(tmp_path):
    named_random = bot(tmp_path, "my_random", "NAME = 'random'\ndef act(v, l):\n    return l[0]\n")
    with pytest.raises(ConfigError, match="named 'random', a baseline of hex"):
        play("hex", [named_random, "tactician"], seed=1)
    twin = tmp_path / "sub"
    twin.mkdir()
    other = bot(twin, "random_bot", "def act(v, l):\n    return l[-1]\n")
    with pytest.raises(ConfigError, match="are both named 'random_bot'"):
        play("hex", [str(EXAMPLES / "random_bot.py"), other], seed=1)
    with pytest.raises(ConfigError, match="baseline random and .*my_random.py are both named"):
        LeagueRun(
            make_league(tmp_path, BOTS, name="clash", policies=["random", named_random]),
            progress=False,
        )


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("import sys\nsys.exit(0)\n", "SystemExit"),
        ("TIME_LIMIT = float('inf')\ndef act(v, l):\n    return l[0]\n", "TIME_LIMIT"),
        ("TIME_LIMIT = float('nan')\ndef act(v, l):\n    return l[0]\n", "TIME_LIMIT"),
        ("Bot = 3\n", "Bot must be a class"),
    ],
    ids=["sys.exit", "inf", "nan", "not-a-class"],
)
def test_more_bad_policy_files_are_config_errors(tmp_path, body, match):
    with pytest.raises(ConfigError, match=match):
        load_policy(bot(tmp_path, "bad", body))


def test_a_policy_file_not_in_utf8_is_a_config_error(tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes(b"# caf\xe9\ndef act(v, l):\n    return l[0]\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_policy(str(path))


# ---- Ray ----------------------------------------------------------------------


def test_ray_tasks_interrupt_slow_policies_and_void_a_dead_worker(tmp_path, ray_cluster):
    slow = bot(tmp_path, "slow", SPIN)
    killer = bot(tmp_path, "killer", KILL)
    for name, policies in (("slow", ["random", slow]), ("kill", ["random", killer])):
        league_toml(tmp_path, BOTS, name=name, policies=policies, episodes=1, file=f"{name}.toml")
    started = time.monotonic()
    report = LeagueRun(load_league(tmp_path / "slow.toml"), backend="ray", progress=False).run()
    assert time.monotonic() - started < 120 and report.episodes == 2
    rel = reliability(LeagueDB(report.database).runner_rows("slow"))["slow"]
    assert rel["fallback_rate:timeout"] == 1.0
    report = LeagueRun(load_league(tmp_path / "kill.toml"), backend="ray", progress=False).run()
    assert report.stopped and "killer.py ended its worker process" in report.stopped


def test_a_policy_printing_shows_in_play_not_over_a_league(tmp_path, monkeypatch, capfd):
    from coworld import cli

    monkeypatch.chdir(tmp_path)
    body = "def act(view, legal):\n    print('thinking hard')\n    return legal[0]\n"
    chatty = bot(tmp_path, "chatty", body)
    assert cli.main(["play", "connect-four", "-s", chatty, "-s", "random", "--seed", "2"]) == 0
    assert "thinking hard" in capfd.readouterr().out
    report = LeagueRun(
        make_league(tmp_path, BOTS, name="chat", policies=["random", chatty]), progress=False
    ).run()
    assert report.episodes == 4 and "thinking hard" not in capfd.readouterr().out


# ---- 7. isolation, Ctrl-C, hangs, siblings, records -------------------------------

LEAK = (
    "SEEN = {}\n"
    "def act(view, legal_moves):\n"
    "    me = view['you']\n"
    "    SEEN.update({p: [c['card'] for c in h] for p, h in enumerate(view['hands']) if p != me})\n"
    "    return {'move': legal_moves[0], 'say': f'my cards: {SEEN.get(me)}'}\n"
)


def test_seats_of_one_file_share_no_globals(tmp_path):
    """Hidden means hidden: four seats of one file, each in a module of its own, so
    none reads its own hand from what the others saw (the same file in a shared
    module leaked every seat's hand to the next)."""
    leak = bot(tmp_path, "leak", LEAK)
    out = tmp_path / "hanabi.jsonl"
    play("hanabi", [leak] * 4, seed=4, out=out)
    says = [e["say"] for s in range(4) for e in mine(out, s)]
    assert len(says) > 4 and set(says) == {"my cards: None"}


def test_each_episode_starts_from_a_fresh_module(tmp_path):
    """League results do not depend on the episodes a worker played before."""
    body = (
        "COUNT = 0\ndef act(view, legal_moves):\n    global COUNT\n    COUNT += 1\n"
        "    return {'move': legal_moves[0], 'say': str(COUNT)}\n"
    )
    policy = load_policy(bot(tmp_path, "counter", body))  # as a league worker holds it
    for name in ("a", "b"):
        play("connect-four", [policy, "random"], seed=2, out=tmp_path / f"{name}.jsonl")
        assert mine(tmp_path / f"{name}.jsonl")[0]["say"] == "1"


def run_cli(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    """`coworld ARGS` in a process group of its own (`finish` ends what is left of it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def finish(process: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """Its output; a process (or a worker of it) still running at `timeout` is killed
    and the test fails."""
    try:
        return process.communicate(timeout=timeout)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize(
    ("game", "body"),
    [
        (
            "hex",
            "import pathlib, time\nTIME_LIMIT = 60\ndef act(view, legal):\n"
            "    pathlib.Path('inside').touch()\n    time.sleep(4)\n",
        ),
        (
            "connect-four",
            "import pathlib, random, time\nR = random.Random(1)\ndef act(view, legal):\n"
            "    pathlib.Path('inside').touch()\n    time.sleep(0.5)\n    return R.choice(legal)\n",
        ),
    ],
    ids=["hex-4s", "connect-four-0.5s"],
)
def test_one_ctrl_c_stops_play_with_a_python_seat(tmp_path, game, body):
    bot(tmp_path, "sleeper", body)
    process = run_cli(tmp_path, "play", game, "-s", "sleeper.py", "-s", "random", "--seed", "1")
    inside(tmp_path / "inside", process)  # mid-game, inside act (not still importing)
    process.send_signal(signal.SIGINT)
    started = time.monotonic()
    out, err = finish(process, 30)
    assert time.monotonic() - started < 1.5, "Ctrl-C must stop play at once"
    assert process.returncode == 130 and "interrupted" in out and "Traceback" not in err
    assert "wins" not in out and "draw" not in out


HANG = (
    "TIME_LIMIT = 0.3\nN = 0\n"
    "def act(view, legal_moves):\n"
    "    global N\n    N += 1\n"
    "    if N == 1:\n        return legal_moves[0]\n"
    "    while True:\n        try:\n            while True:\n                pass\n"
    "        except BaseException:\n            pass\n"
)


def test_play_ends_a_decision_that_swallows_its_interrupt(tmp_path):
    bot(tmp_path, "hang", HANG)
    process = run_cli(tmp_path, "play", "connect-four", "-s", "hang.py", "-s", "random")
    started = time.monotonic()
    out, err = finish(process, 30)
    assert time.monotonic() - started < 10 and process.returncode == 3
    line = " ".join(err.split())
    assert "policy file hang.py did not return after being interrupted at its time limit" in line
    assert "Traceback" not in err
    replay = next((tmp_path / "runs" / "episodes").glob("*.jsonl"))
    # the replay was flushed before the hanging decision: its first two plies are there
    assert [e["ply"] for e in mine(replay)] + [e["ply"] for e in mine(replay, 1)] == [0, 1]


def test_a_league_voids_a_decision_that_swallows_its_interrupt(tmp_path):
    bot(tmp_path, "hang", HANG)
    league_toml(tmp_path, BOTS, name="l", policies=["random", "hang.py"], episodes=1, out="out")
    process = run_cli(tmp_path, "league", "run", "l.toml")
    out = " ".join(finish(process, 60)[0].split())
    assert process.returncode == 3
    assert "the league stopped: policy hang.py did not return after being interrupted" in out
    assert "crash" not in out and "Traceback" not in out
    voids = LeagueDB(tmp_path / "out" / "league.db").open_voids("l")
    assert voids and {a[-1].cause for a in voids.values()} == {"worker-died"}


def test_a_policy_imports_modules_beside_it_and_never_shadows_the_stdlib(tmp_path, monkeypatch):
    from coworld.seats import python_policy

    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(python_policy, "_IMPORTABLE", set(), raising=False)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "pyiso_helper.py").write_text("def pick(legal):\n    return legal[-1]\n")
    (pkg / "json.py").write_text("raise RuntimeError('a sibling shadowed json')\n")
    body = (
        "import json\nfrom pyiso_helper import pick\ndef act(view, legal):\n    return pick(legal)"
    )
    sib = bot(pkg, "sib_bot", body)
    out = tmp_path / "c4.jsonl"
    results = play("connect-four", [sib, "random"], seed=2, out=out)
    assert results["decisions"][0] == {"policy": len(mine(out))}
    assert sys.path.count(str(pkg)) == 1 and sys.path[-1] == str(pkg)
    report = LeagueRun(
        make_league(tmp_path, BOTS, name="sib", policies=["random", sib], episodes=1),
        progress=False,
    ).run()
    rel = reliability(LeagueDB(report.database).runner_rows("sib"))["sib_bot"]
    assert rel["decisions"] > 0 and rel["fallbacks"] == 0


def test_a_league_discards_a_policys_stderr_not_its_workers_errors(tmp_path, capfd):
    body = (
        "import logging, sys\n"
        "def act(view, legal):\n"
        "    print('to stderr', file=sys.stderr)\n"
        "    logging.warning('logged')\n"
        "    return legal[0]\n"
    )
    noisy = bot(tmp_path, "noisy", body)
    report = LeagueRun(
        make_league(tmp_path, BOTS, name="noisy", policies=["random", noisy]), progress=False
    ).run()
    assert report.episodes == 4
    err = capfd.readouterr().err
    assert "to stderr" not in err and "logged" not in err
    # an error of the worker itself still reaches the driver, as an exception
    seats = (load_policy(noisy), load_policy("random"))
    broken = EpisodeJob(key("x", seats, game="no-such-game", seed=1), seats, Clock())
    backend = LocalBackend()
    try:
        with pytest.raises(ConfigError, match="no-such-game"):
            list(backend.map_episodes([broken], 1, Shared()))
    finally:
        backend.close()


def test_play_shows_a_policys_stderr(tmp_path, monkeypatch, capfd):
    from coworld import cli

    monkeypatch.chdir(tmp_path)
    body = (
        "import sys\ndef act(view, legal):\n    print('hmm', file=sys.stderr)\n    return legal[0]"
    )
    noisy = bot(tmp_path, "noisy", body)
    assert cli.main(["play", "connect-four", "-s", noisy, "-s", "random", "--seed", "2"]) == 0
    assert "hmm" in capfd.readouterr().err


def test_the_record_names_what_was_cut_ignored_or_dropped(tmp_path):
    body = (
        "def act(view, legal):\n"
        "    return {'move': legal[0], 'say': 's' * 200, 'notes': 'n' * 500, 'extra': 1}\n"
    )
    out = tmp_path / "hex.jsonl"
    play("hex", [bot(tmp_path, "long", body), "random"], seed=1, out=out)
    first = mine(out)[0]
    assert first["origin"] == "policy" and len(first["say"]) == 140 and len(first["notes"]) == 400
    assert first["attempts"][0]["dropped"] == [
        "extra: not a field of an answer",
        "say: cut to 140 characters",
        "notes: cut to 400 characters",
    ]
    out = tmp_path / "c4.jsonl"
    play(
        "connect-four",
        [bot(tmp_path, "mute", "def act(v, l):\n    return {'say': 'hi'}\n"), "random"],
        seed=1,
        out=out,
    )
    assert mine(out)[0]["attempts"][0]["reason"] == "the answer has no `move`"


def test_a_fog_guess_is_recorded_as_the_game_counts_it(tmp_path):
    guess = "['A1', 'z9', 'a1', ' b2 ']"
    body = f"def act(view, legal):\n    return {{'move': legal[0], 'guess': {guess}}}\n"
    out = tmp_path / "dark.jsonl"
    play("dark-hex-5", [bot(tmp_path, "guesser", body), "random"], seed=1, out=out)
    first = mine(out)[0]
    assert first["guess"] == ["a1", "b2"]
    assert first["attempts"][0]["dropped"] == [
        "guess: 'z9' not a cell of the board",
        "guess: 'a1' named twice",
    ]
    # what the record says is what the core counted
    last = [e for e in map(json.loads, out.read_text().splitlines()) if e["type"] == "ply"][-1]
    assert last["view"]["guessesMade"][0] == sum(len(e["guess"]) for e in mine(out))


# ---- Ctrl-C from a terminal reaches the whole process group -----------------

PACED = (
    "import time\nTIME_LIMIT = 30\n"
    "def act(view, legal_moves):\n    time.sleep({pause})\n    return legal_moves[0]\n"
)


def group_processes(pgid: int) -> list[int]:
    """Live processes of a process group (from /proc)."""
    live = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                live.append(int(entry.name))
    return live


def league_in_its_own_group(tmp_path: Path, pause: float) -> subprocess.Popen:
    bot(tmp_path, "paced", PACED.format(pause=pause))
    league_toml(tmp_path, BOTS, name="l", policies=["random", "paced.py"], episodes=40, out="out")
    return subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "league", "run", "l.toml"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's job
    )


def stored(tmp_path: Path) -> int:
    path = tmp_path / "out" / "league.db"
    return LeagueDB(path).count("l") if path.exists() else 0


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_a_terminal_ctrl_c_lets_worker_episodes_finish(tmp_path):
    """SIGINT to the whole group (a terminal's Ctrl-C): the workers ignore it, the
    driver stops dispatching, the episodes in flight finish and are stored, and
    nothing is left running."""
    proc = league_in_its_own_group(tmp_path, 0.01)
    deadline = time.monotonic() + 60
    while stored(tmp_path) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    assert "Traceback" not in out
    assert out.strip().splitlines()[-1].startswith("interrupted: stopped by Ctrl-C"), out
    db = LeagueDB(tmp_path / "out" / "league.db")
    assert 2 <= db.count("l") < 80 and not db.open_voids("l")  # in flight: finished
    time.sleep(0.5)
    assert group_processes(proc.pid) == []


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_a_second_terminal_ctrl_c_ends_the_workers_at_once(tmp_path):
    """Decisions of 2 s each: the second Ctrl-C ends the worker processes, their
    episodes are void `interrupted`, and the league exits within seconds."""
    proc = league_in_its_own_group(tmp_path, 2.0)
    time.sleep(4)  # the workers are mid-decision
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.3)
    started = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert time.monotonic() - started < 10
    assert proc.returncode == 130, out
    assert "Traceback" not in out
    voids = LeagueDB(tmp_path / "out" / "league.db").open_voids("l")
    assert voids and {a[-1].cause for a in voids.values()} == {"interrupted"}
    time.sleep(0.5)
    assert group_processes(proc.pid) == []


def test_a_baseline_name_is_refused_before_the_league_starts(tmp_path):
    bot(
        tmp_path, "nmq", 'NAME = "random"\ndef act(view, legal_moves):\n    return legal_moves[0]\n'
    )
    league_toml(
        tmp_path, name="l", games=["hex"], policies=["nmq.py", "tactician"], episodes=1, out="out"
    )
    with pytest.raises(ConfigError, match="named 'random', a baseline of hex") as err:
        load_league(tmp_path / "l.toml")
    assert err.value.field == "NAME" and not (tmp_path / "out").exists()


def test_a_directory_named_like_a_policy_file_says_so(tmp_path):
    (tmp_path / "dirbot.py").mkdir()
    with pytest.raises(ConfigError, match="is a directory"):
        load_policy(str(tmp_path / "dirbot.py"))


def test_a_slow_import_loads_once_untimed_in_a_league_worker(tmp_path):
    """The README's pattern (weights in a module the file imports): the first load in
    a worker is not held to TIME_LIMIT, so the import is cached and every seat plays."""
    (tmp_path / "heavyweights.py").write_text("import time\ntime.sleep(1.5)\nW = 42\n")
    heavy = bot(
        tmp_path,
        "wbot",
        "from heavyweights import W\nTIME_LIMIT = 1\n"
        "def act(view, legal_moves):\n    return legal_moves[0]\n",
    )
    report = LeagueRun(
        make_league(tmp_path, BOTS, name="heavy", policies=["random", heavy], episodes=2),
        progress=False,
    ).run()
    rel = reliability(LeagueDB(report.database).runner_rows("heavy"))["wbot"]
    assert report.episodes == 4 and rel["decisions"] > 0 and rel["fallbacks"] == 0


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads /proc")
def test_workers_end_themselves_when_the_driver_is_killed(tmp_path):
    proc = league_in_its_own_group(tmp_path, 0.05)
    try:
        deadline = time.monotonic() + 60
        while stored(tmp_path) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(group_processes(proc.pid)) >= 2  # the driver and its workers
        proc.kill()
        # The driver's exit, not its pipe's end: the workers hold the pipe until they go.
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while group_processes(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert group_processes(proc.pid) == []
    finally:  # never leave a process (or an open pipe) to a later test
        if group_processes(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)


def test_ctrl_c_swallowed_by_a_bare_except_still_stops_play(tmp_path):
    swallow = bot(
        tmp_path,
        "bare",
        f"import pathlib, time\ndef act(view, legal_moves):\n"
        f"    pathlib.Path({str(tmp_path / 'inside')!r}).touch()\n    for _ in range(10):\n"
        "        try:\n            time.sleep(0.05)\n        except:\n            pass\n"
        "    return legal_moves[0]\n",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "play", "connect-four", "-s", swallow]
        + ["-s", "random", "--seed", "5", "--out", str(tmp_path / "r.jsonl")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    inside(tmp_path / "inside", process)  # mid-game, act has been called
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=30)
    assert process.returncode == 130, out
    assert "interrupted" in out and "Traceback" not in out


def key(pairing: str, seats: tuple, game: str = "connect-four", seed: int = 5) -> EpisodeKey:
    """Episode 0 of `pairing` with these seats."""
    return EpisodeKey(pairing, 0, game, seed, tuple(p.name for p in seats))


def inside(marker: Path, process: subprocess.Popen[str], timeout: float = 120) -> None:
    """Wait until the policy's `act` has touched `marker`: the process is past its
    imports and playing (on a loaded machine a fixed sleep can land in an import,
    where Ctrl-C is Python's own KeyboardInterrupt, not the league's)."""
    deadline = time.monotonic() + timeout
    while not marker.exists():
        assert process.poll() is None and time.monotonic() < deadline, "act was never called"
        time.sleep(0.02)
