"""The reference surface: `coworld --version`, `rules`, `check`, exit codes in every
`--help`, tables at 80 columns, the format schemas, and the example files."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coworld import GAMES, __version__, schemas
from coworld.cli import build_parser, main
from coworld.cli_reference import EXIT_CODES, rules_text
from coworld.exit_codes import ExitCode
from coworld.seats.policy import FIELDS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run(*args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONPATH": str(ROOT / "python")}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "coworld.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def test_version():
    out = run("--version")
    assert out.returncode == 0
    assert out.stdout.strip() == f"coworld {__version__}"


def test_exit_codes_are_the_convention():
    assert {c.name: int(c) for c in ExitCode} == {
        "OK": 0,
        "WORSE": 1,
        "INCONCLUSIVE": 2,
        "BAD_INPUT": 3,
        "INFRASTRUCTURE": 4,
        "BUDGET": 5,
        "INTERRUPTED": 130,
    }


def _commands() -> list[str]:
    import argparse

    names = []
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                subs = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
                names += [f"{name} {s}" for a in subs for s in a.choices] or [name]
    return names


def test_every_command_help_lists_its_exit_codes():
    commands = _commands()
    assert {"rules", "check", "gate", "league run", "league compare"} <= set(commands)
    for command in commands:
        assert command in EXIT_CODES, command
        out = run(*command.split(), "--help")
        assert out.returncode == 0, command
        help_text = out.stdout
        assert "Exit codes:" in help_text, command
        for code, meaning in EXIT_CODES[command]:
            assert f"{int(code):>3}  {meaning}" in help_text, (command, code)
        too_wide = [line for line in help_text.splitlines() if len(line) > 80]
        assert not too_wide, (command, too_wide)


def test_rules_prints_what_a_claude_seat_is_given():
    from coworld.games import family_module

    for gid in GAMES:
        out = run("rules", gid)
        assert out.returncode == 0
        family_rules = family_module(gid).RULES_TEXT
        given = family_rules if isinstance(family_rules, str) else family_rules[gid]
        assert out.stdout == given.rstrip("\n") + "\n"
        assert rules_text(gid) == given
    bad = run("rules", "chess")
    assert bad.returncode != 0 and "invalid choice" in bad.stderr


@pytest.mark.parametrize("game", ["hanabi", "dark-hex-5", "quoridor"])
def test_rules_name_the_facts_a_bot_author_needs(game):
    text = rules_text(game)
    facts = {
        "hanabi": ["100 turns", "score 0", "not allowed while all 8 hint tokens", "4 cards"],
        "dark-hex-5": ["occupied", "turn passes to your opponent", "50 plies"],
        "quoridor": ["10 walls", "e3h", "Ply cap 200"],
    }[game]
    for fact in facts:
        assert fact in text, fact


def test_tables_fit_80_columns(tmp_path):
    out = run("games")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [ln for ln in lines if len(ln) > 80]
    for gid in GAMES:  # every id whole, never cut
        assert any(gid in line for line in lines), gid
    plan = run("league", "plan", str(EXAMPLES / "leagues" / "claude-vs-baselines.toml"))
    assert plan.returncode == 0, plan.stdout + plan.stderr
    assert all(len(line) <= 80 for line in plan.stdout.splitlines()), plan.stdout


def test_check_accepts_every_example_file():
    files = sorted(EXAMPLES.glob("leagues/*.toml")) + sorted(EXAMPLES.glob("policies/*.md"))
    assert len(files) >= 4
    out = run("check", *map(str, files))
    assert out.returncode == 0, out.stdout
    assert out.stdout.count(": ok") == len(files)


@pytest.mark.unchecked_files
def test_check_reports_one_line_per_problem(tmp_path):
    policy = tmp_path / "bad.md"
    policy.write_text("---\nmodel: 7\nmax_tokens: 0\ncolour: red\n---\nPlay.\n")
    league = tmp_path / "bad.toml"
    # infra_patience under [budget] is the classic mistake: it is a top-level key
    league.write_text(
        'name = "x"\npolicies = ["random"]\nepisodes = 1\n[budget]\ninfra_patience = 5\n'
    )
    replay = tmp_path / "bad.jsonl"
    replay.write_text(json.dumps({"type": "ply", "ply": -1}) + "\n")
    out = run("check", str(policy), str(league), str(replay))
    assert out.returncode == ExitCode.BAD_INPUT
    lines = out.stdout.splitlines()
    assert sum(line.startswith(f"{policy}: ") for line in lines) == 3  # colour, max_tokens, model
    assert any(line.startswith(f"{league}: at /budget") for line in lines)
    assert any(line.startswith(f"{replay}:1: ") for line in lines)
    assert "Traceback" not in out.stdout + out.stderr
    missing = run("check", str(tmp_path / "nope.toml"))
    assert missing.returncode == ExitCode.BAD_INPUT
    assert missing.stdout.strip() == f"{tmp_path / 'nope.toml'}: no such file"


def test_check_runs_the_loader_after_the_schema(tmp_path):
    league = tmp_path / "l.toml"
    league.write_text('name = "x"\npolicies = ["gone.md"]\nepisodes = 1\n')
    assert main(["check", str(league)]) == ExitCode.BAD_INPUT


def test_policy_schema_lists_exactly_the_loader_fields():
    assert set(schemas.schema("policy")["properties"]) == set(FIELDS)


@pytest.mark.unchecked_files
def test_schema_problems_name_file_line_and_field(tmp_path):
    replay = tmp_path / "r.jsonl"
    replay.write_text(
        json.dumps({"type": "results", "results": {"reason": "late"}})
        + "\nnot json\n"
        + '{"type": "ply", "cut'  # a killed writer's last line is not a problem
    )
    found = schemas.problems(replay)
    assert f"{replay}:1: at /results/reason: 'late' is not one of ['complete', 'deadline']" in found
    assert any(p.startswith(f"{replay}:2: not JSON") for p in found)
    assert not any(p.startswith(f"{replay}:3") for p in found)
    assert f"{replay}:1: a replay starts with its header line" in found


def test_every_written_format_carries_its_schema_version(tmp_path):
    out = tmp_path / "e.jsonl"
    code = main(
        ["play", "phantom-ttt-3", "-s", "probe", "-s", "sweep", "--seed", "3", "--out", str(out)]
        + ["--transcripts"]
    )
    assert code == 0
    header = json.loads(out.read_text().splitlines()[0])
    assert header["schema"] == schemas.REPLAY
    seat = json.loads(out.with_suffix(".seat1.jsonl").read_text().splitlines()[0])
    assert seat["schema"] == schemas.TRANSCRIPT
    for name in schemas.NAMES:
        assert schemas.schema(name)["$id"].startswith("urn:coworld:")
    assert schemas.problems(out) == []


def test_the_claude_example_league_runs(tmp_path, mock_api):
    """The example a newcomer copies, against the local Messages API stand-in."""
    from dataclasses import replace

    from coworld.league import LeagueRun
    from coworld.league.config import load_league
    from tests.support.mock_anthropic import first_legal

    def answer(body, n):
        system = json.dumps(body.get("system", ""))  # the pre-flight check has none
        if "connect-four" in system:
            return first_legal(body, n)
        legal = body["messages"][-1]["content"].split("egal attempts:")[-1].split("\n")[0]
        cells = [w for w in legal.replace(",", " ").split() if len(w) == 2 and w[1].isdigit()]
        move = {"move": cells[0], "notes": "mine: ...", "guess": []} if cells else {"move": "a1"}
        return ("text", json.dumps(move))

    config = load_league(EXAMPLES / "leagues" / "claude-vs-baselines.toml")
    policies = tuple(
        p for p in config.policies if "hanabi" not in p.name and p.name != "conventions"
    )
    config = replace(
        config, games=("connect-four", "dark-hex-5"), policies=policies, episodes=1, out=tmp_path
    )
    mock = mock_api(answer)
    report = LeagueRun(config, backend="local", address=None, fresh=True).run()
    assert not report.incomplete and not report.voided
    assert mock.answered > 0
    assert report.seconds < 120  # no call waited out the infrastructure patience
    doc = json.loads((tmp_path / "standings.json").read_text())
    assert schemas.errors("standings", doc) == []
    assert {"fog-mapper", "gauntlet-threats"} <= set(doc["reliability"])
    table = run("league", "table", str(tmp_path))
    assert table.returncode == 0, table.stdout + table.stderr
    assert all(len(line) <= 80 for line in table.stdout.splitlines()), table.stdout
    assert "gauntlet-threats" in table.stdout  # ids whole, never cut


#: Citations of documents that are not in the repository: the design notes and specs
#: the project was built from (by number, by name or by file name), and issue numbers.
OUTSIDE = re.compile(
    r"\.\./shared|shared/spec|[Ss]pec rule|\bissue \d+|DESIGN\.md|\bDESIGN\b"
    r"|\bRFC\b|rfc-\d+-|fog-of-war-boards|board-gauntlet\.md"
    r"|hanabi-hints-and-knowledge"
)


def test_nothing_cites_documents_outside_the_repository():
    roots = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "docs", "python", "rust", "tests"]
    roots += ["bench", "examples"]
    suffixes = {".md", ".py", ".rs", ".pyi", ".toml", ".js", ".html", ".css"}
    found = []
    for root in roots:
        path = ROOT / root
        files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
        for f in files:
            if f.suffix not in suffixes or f.name == "test_reference.py":
                continue
            for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
                if OUTSIDE.search(line):
                    found.append(f"{f.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_no_module_imports_a_private_name_of_another():
    """A name another module needs is public there: `from x import _y` ties the importer
    to what `x` meant to keep to itself (the compiled `_core` is the one exception)."""
    found = []
    for path in sorted((ROOT / "python" / "coworld").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                private = [a.name for a in node.names if re.match(r"_[a-z]", a.name)]
                for name in (n for n in private if n != "_core"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not found, "\n".join(found)


def test_readme_links_resolve_and_it_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.split("```")[1].strip().splitlines()[0].startswith("make demo")
    assert text.split("```")[1].strip().splitlines()[1].startswith("make test")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert local and all((ROOT / link).exists() for link in local), local
    assert len(text.splitlines()) <= 180
