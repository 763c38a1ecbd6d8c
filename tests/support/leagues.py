"""The one league builder every test uses: a league config (`make_league`) or the
same league as a TOML file (`league_toml`), from small defaults a test overrides
field by field; and what a league stored, read back for comparison."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from coworld.league import LeagueConfig, LeagueDB, LeagueRun, parse_league, standings
from coworld.league.ranking import reliability
from coworld.seats.infra import InfraPolicy

#: Infrastructure retries at test speed (the league default waits minutes).
FAST = InfraPolicy(
    patience_seconds=20.0, base_delay=0.01, max_delay=0.2, min_calls=6, probe_seconds=0.05
)

#: The Claude policy file (`p.md`) most Claude leagues field, and the same with short
#: replies (40 output tokens), for budgets that should run out soon.
HOUSE = "---\nname: house\nmodel: claude-haiku-4-5\n---\nPlay well.\n"
TERSE = "---\nname: house\nmodel: claude-haiku-4-5\nmax_tokens: 40\n---\nPlay well.\n"

#: A house (p.md) beside two baselines, and a house against the tactician.
THREE_WAY: dict[str, Any] = {"policies": ["tactician", "random", "p.md"], "concurrency": 4}
HEAD_TO_HEAD: dict[str, Any] = {"policies": ["tactician", "p.md"], "episodes": 6, "concurrency": 3}

DEFAULTS: dict[str, Any] = {
    "name": "t",
    "games": ["connect-four"],
    "policies": ["tactician", "random"],
    "episodes": 2,
    "seed": 4,
    "replays": 0,
}


def league_fields(*bases: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
    """DEFAULTS, then each of `bases` (a test module's own defaults), then `fields`; a
    None value drops the field, and `out` defaults to the league's name."""
    raw = {**DEFAULTS}
    for base in bases:
        raw.update(base)
    raw.update(fields)
    raw.setdefault("out", raw["name"])
    return {k: v for k, v in raw.items() if v is not None}


def write_files(tmp_path: Path, house: str | None, files: Mapping[str, str] | None) -> None:
    """The policy files a league names: `house` as p.md, then `files` by name."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    named = dict(files or {})
    if house is not None:
        named = {"p.md": house, **named}
    for name, text in named.items():
        (tmp_path / name).write_text(text)


def make_league(
    tmp_path: Path,
    *bases: Mapping[str, Any],
    house: str | None = None,
    files: Mapping[str, str] | None = None,
    **fields: Any,
) -> LeagueConfig:
    """A league config whose files (and `out`) are relative to `tmp_path`; `house`
    is written to p.md first, and `files` (name: text) beside it."""
    write_files(tmp_path, house, files)
    return parse_league(league_fields(*bases, **fields), base_dir=tmp_path)


def toml_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)  # strings, numbers, booleans and lists read the same in TOML


def league_toml(
    tmp_path: Path,
    *bases: Mapping[str, Any],
    house: str | None = None,
    files: Mapping[str, str] | None = None,
    file: str = "l.toml",
    **fields: Any,
) -> Path:
    """The same league written to `tmp_path / file`, for the CLI and subprocesses."""
    write_files(tmp_path, house, files)
    path = tmp_path / file
    raw = league_fields(*bases, **fields)
    path.write_text("".join(f"{k} = {toml_value(v)}\n" for k, v in raw.items()))
    return path


def claude_results(db_path: Path, league: str = "t") -> tuple:
    """(rows, standings, reliability) as stored: what a fault must leave unchanged."""
    db = LeagueDB(db_path)
    try:
        rows = db.runner_rows(league)
        return (
            sorted((r.pairing, r.idx, r.score, r.plies) for r in rows),
            standings(rows),
            reliability(rows),
        )
    finally:
        db.close()


def clean_run(tmp_path: Path) -> tuple:
    """The THREE_WAY league `clean` played against a healthy API, as stored."""
    config = make_league(tmp_path, THREE_WAY, house=HOUSE, name="clean")
    report = LeagueRun(config, infra=FAST, progress=False).run()
    return claude_results(report.database, "clean")
