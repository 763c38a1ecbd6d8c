"""Python policies (`my_bot.py`): they play through the episode runner, replay and
recheck like every seat, fail into the family's fallback with a recorded cause,
and play in leagues (in worker processes)."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import coworld
from coworld.episode import play
from coworld.errors import ConfigError
from coworld.league.config import load_league
from coworld.league.runner import LeagueRun
from coworld.league.storage import LeagueDB
from coworld.replay import recheck
from coworld.seats.policy import load_policy
from coworld.seats.python_policy import PythonPolicy
from tests.support.leagues import league_toml, make_league

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def bot(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return str(path)


def plies(replay: Path) -> list[dict]:
    lines = [json.loads(x) for x in replay.read_text().splitlines()]
    return [e for e in lines if e["type"] == "ply"]


def test_a_python_policy_plays_records_and_rechecks(tmp_path):
    out = tmp_path / "hex.jsonl"
    results = play("hex", [str(EXAMPLES / "random_bot.py"), "tactician"], seed=7, out=out)
    header = json.loads(out.read_text().splitlines()[0])
    source = (EXAMPLES / "random_bot.py").read_text()
    policy = load_policy(str(EXAMPLES / "random_bot.py"))
    assert isinstance(policy, PythonPolicy) and policy.source == source
    assert header["policyDigests"]["random_bot"] == policy.digest
    assert header["seats"][0]["kind"] == "python"
    mine = [e for e in plies(out) if e["seat"] == 0]
    assert mine and all(e["origin"] == "policy" and e["cause"] is None for e in mine)
    assert results["decisions"][0] == {"policy": len(mine)}
    assert recheck(out)["score"] == results["score"]


def test_the_policy_sees_exactly_its_seat_view(tmp_path):
    seen = tmp_path / "seen.jsonl"
    path = bot(
        tmp_path,
        "spy",
        f"import json\n"
        f"def act(view, legal_moves):\n"
        f"    with open({str(seen)!r}, 'a') as f:\n"
        f"        f.write(json.dumps({{'view': view, 'legal': legal_moves}}) + '\\n')\n"
        f"    return legal_moves[-1]\n",
    )
    out = tmp_path / "dark.jsonl"
    play("dark-hex-5", ["probe", path], seed=3, out=out)
    asked = [json.loads(x) for x in seen.read_text().splitlines()]
    reducer = coworld.game("dark-hex-5")
    state = reducer.init(seed=3)
    k = 0
    for event in plies(out):
        if event["seat"] == 1:
            assert asked[k]["view"] == reducer.view_for(state, 1)
            assert asked[k]["legal"] == reducer.legal_moves(state)
            k += 1
        state = reducer.apply(state, event["move"])
    assert k == len(asked) > 0


@pytest.mark.parametrize(
    ("body", "cause", "reason"),
    [
        ("def act(view, legal_moves):\n    raise KeyError('boom')\n", "error", "KeyError"),
        ("def act(view, legal_moves):\n    return 42\n", "unparseable", "int"),
        ("def act(view, legal_moves):\n    return 'z9'\n", "unparseable", "z9"),
        (
            "import time\nTIME_LIMIT = 0.01\n"
            "def act(view, legal_moves):\n    time.sleep(0.03)\n    return legal_moves[0]\n",
            "timeout",
            "limit is 0.01 s",
        ),
    ],
)
def test_failures_are_recorded_and_the_fallback_moves(tmp_path, body, cause, reason):
    out = tmp_path / "c4.jsonl"
    results = play("connect-four", [bot(tmp_path, "bad", body), "random"], seed=2, out=out)
    mine = [e for e in plies(out) if e["seat"] == 0]
    assert mine and all(e["origin"] == "fallback" and e["cause"] == cause for e in mine)
    assert reason in mine[0]["attempts"][0]["reason"]
    assert results["decisions"][0][f"fallback:{cause}"] == len(mine)
    # The fallback (tactician) moved: the replay rechecks.
    first = coworld.game("connect-four").init(seed=2)
    assert mine[0]["move"] == first.baseline_move("tactician")
    recheck(out)


def test_an_illegal_move_is_caught(tmp_path):
    body = "def act(view, legal_moves):\n    return 'a'\n"  # file a fills up after 6 discs
    out = tmp_path / "c4.jsonl"
    play("connect-four", [bot(tmp_path, "stubborn", body), "random"], seed=4, out=out)
    causes = {e["cause"] for e in plies(out) if e["seat"] == 0}
    assert None in causes
    if len(causes) > 1:
        assert causes == {None, "illegal"}


def test_a_class_bot_keeps_state_and_may_say_and_note(tmp_path):
    body = (
        "class Bot:\n"
        "    def __init__(self):\n        self.turns = 0\n"
        "    def act(self, view, legal_moves):\n"
        "        self.turns += 1\n"
        "        return {'move': legal_moves[0], 'say': f'turn {self.turns}', 'notes': 'x' * 900}\n"
    )
    out = tmp_path / "bt.jsonl"
    play("breakthrough", [bot(tmp_path, "counter", body), "random"], seed=1, out=out)
    mine = [e for e in plies(out) if e["seat"] == 0]
    assert [e["say"] for e in mine[:3]] == ["turn 1", "turn 2", "turn 3"]
    assert len(mine[0]["notes"]) == 400


def test_bad_policy_files_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="act\\(view, legal_moves\\)"):
        load_policy(bot(tmp_path, "empty", "x = 1\n"))
    with pytest.raises(ConfigError, match="SyntaxError"):
        load_policy(bot(tmp_path, "broken", "def act(:\n"))
    with pytest.raises(ConfigError, match="does not exist"):
        load_policy(str(tmp_path / "missing.py"))
    with pytest.raises(ConfigError, match="TIME_LIMIT"):
        load_policy(bot(tmp_path, "t", "TIME_LIMIT = -1\ndef act(v, l):\n    return l[0]\n"))


def test_a_policy_pickles_as_its_source():
    policy = load_policy(str(EXAMPLES / "search_bot.py"))
    copy = pickle.loads(pickle.dumps(policy))
    assert copy == policy and copy.digest == policy.digest and copy.name == "search-bot"
    assert callable(copy.new_seat().act)


def test_the_search_bot_beats_random_at_connect_four():
    bot_path = str(EXAMPLES / "search_bot.py")
    scores = [play("connect-four", [bot_path, "random"], seed=s)["score"][0] for s in range(1, 7)]
    assert sum(scores) >= 4, scores


def test_play_cli_fields_a_python_policy(tmp_path):
    cmd = [sys.executable, "-m", "coworld.cli", "play", "hex", "-s"]
    cmd += [str(EXAMPLES / "random_bot.py"), "-s", "random", "--seed", "5"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr


def test_play_says_who_it_waits_for_on_a_terminal_only(tmp_path, monkeypatch, capsys):
    import io

    from rich.console import Console

    from coworld import cli

    monkeypatch.chdir(tmp_path)
    args = ["play", "connect-four", "-s", str(EXAMPLES / "random_bot.py"), "-s", "tactician"]
    args += ["--seed", "5"]
    assert cli.main(args) == 0
    plain = capsys.readouterr().out
    assert "red plays" in plain and "waiting for" not in plain  # piped: no status line
    screen = io.StringIO()
    monkeypatch.setattr(cli.play, "console", Console(file=screen, force_terminal=True, width=120))
    assert cli.main(args) == 0
    assert "waiting for cog-" in screen.getvalue() and "(random_bot)" in screen.getvalue()


def test_play_without_a_seed_names_the_replay_after_the_seed_it_drew(tmp_path):
    cmd = [sys.executable, "-m", "coworld.cli", "play", "connect-four", "-s", "random", "-s"]
    cmd += ["random"]
    for _ in range(2):
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr
    replays = sorted((tmp_path / "runs" / "episodes").iterdir())
    assert len(replays) == 2, "a second play overwrote the first replay"
    for path in replays:
        header = json.loads(path.read_text().splitlines()[0])
        assert path.name == f"connect-four-{header['config']['seed']}.jsonl"


def test_a_league_plays_python_policies_in_worker_processes(tmp_path):
    bot = {"rnd.py": (EXAMPLES / "random_bot.py").read_text()}
    fields = {"policies": ["random", "rnd.py"], "episodes": 3, "seed": 1, "concurrency": 2}
    path = league_toml(tmp_path, fields, files=bot, name="py", replays=3, out="out")
    config = load_league(path)
    report = LeagueRun(config, progress=False).run()
    assert report.episodes == 2 * 3  # both seat orders of random and rnd, 3 episodes each
    replays = sorted((tmp_path / "out" / "replays" / "connect-four").glob("*rnd*.jsonl"))
    assert len(replays) == 6
    for r in replays:
        recheck(r)
    digest = load_policy(str(tmp_path / "rnd.py")).digest
    assert config.describe()["policies"]["rnd"] == digest


def test_the_ray_backend_plays_python_policies_like_the_local_one(tmp_path, ray_cluster):
    (tmp_path / "rnd.py").write_text((EXAMPLES / "random_bot.py").read_text())
    rows = {}
    for backend in ("local", "ray"):
        config = make_league(
            tmp_path,
            name="py",
            games=["hex"],
            policies=["tactician", "rnd.py"],
            seed=5,
            out=backend,
        )
        report = LeagueRun(config, backend=backend, progress=False).run()
        episodes = LeagueDB(report.database).episodes("py")
        rows[backend] = sorted((r.pairing, r.idx, r.seed, r.score, r.plies) for r in episodes)
    assert len(rows["ray"]) == 4 and rows["ray"] == rows["local"]


def gate_args(tmp_path: Path, name: str) -> list[str]:
    return ["--games", "connect-four", "--batch", "4", "--out", str(tmp_path / name)]


def python_decisions(tmp_path: Path, name: str, league: str, policy: str) -> list[dict]:
    rows = LeagueDB(tmp_path / name / "league.db").runner_rows(league)
    return [d for r in rows for p, d in zip(r.seats, r.decisions, strict=True) if p == policy]


def test_a_python_policy_is_a_gate_candidate_and_reference(tmp_path, capsys):
    from coworld.cli import main as cli

    random_bot = str(EXAMPLES / "random_bot.py")
    assert cli(["gate", random_bot, "tactician", *gate_args(tmp_path, "a")]) == 1
    assert cli(["gate", "tactician", random_bot, *gate_args(tmp_path, "b")]) == 0
    out = capsys.readouterr().out
    assert "gate random_bot vs tactician" in out and "worse: LLR" in out
    assert "gate tactician vs random_bot" in out and "not worse: LLR" in out
    for name, league in (
        ("a", "gate: random_bot vs tactician"),
        ("b", "gate: tactician vs random_bot"),
    ):
        mine = python_decisions(tmp_path, name, league, "random_bot")
        assert mine and sum(d.get("policy", 0) for d in mine) > 0
        assert not any(k.startswith("fallback") for d in mine for k in d)


def test_a_broken_python_policy_in_a_gate_fails_cleanly(tmp_path, capsys):
    """A file that does not load is bad input (exit 3, one line); a policy that
    raises while playing is recorded with its cause and the fallback moves."""
    from coworld.cli import main as cli

    broken = bot(tmp_path, "broken", "def act(:\n")
    assert cli(["gate", broken, "random", *gate_args(tmp_path, "x")]) == 3
    out = capsys.readouterr().out
    assert "error:" in out and "SyntaxError" in out and "Traceback" not in out
    raising = bot(tmp_path, "raising", "def act(view, legal_moves):\n    raise KeyError('boom')\n")
    code = cli(["gate", raising, "random", *gate_args(tmp_path, "y"), "--max-episodes", "16"])
    out = capsys.readouterr().out
    assert code in (0, 2) and "Traceback" not in out  # the fallback (tactician) beats random
    mine = python_decisions(tmp_path, "y", "gate: raising vs random", "raising")
    assert mine and all(d.get("policy", 0) == 0 for d in mine)
    assert all(d["fallback:error"] == d["fallback"] > 0 for d in mine)
