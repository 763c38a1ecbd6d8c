"""JSON Schemas of every file coworld reads or writes, and their validation.

One schema per format, each with a versioned `$id` (`coworld.replay/1`, ...); the
replay and seat-transcript headers and `standings.json` carry that id in their
`schema` field. `problems(path)` validates a written file, one message per problem.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

#: Schema name -> the version its files carry (the `schema` field of a header).
NAMES = ("replay", "calls", "transcript", "standings", "league", "policy")
REPLAY = "coworld.replay/1"
TRANSCRIPT = "coworld.transcript/1"
STANDINGS = "coworld.standings/1"


def schema(name: str) -> dict[str, Any]:
    """The schema document `name` (one of `NAMES`)."""
    return dict(_load(name))


@cache
def _load(name: str) -> dict[str, Any]:
    text = files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry: Registry = Registry().with_resources(
        (_load(n)["$id"], Resource.from_contents(_load(n))) for n in NAMES
    )
    return Draft202012Validator(_load(name), registry=registry)


def errors(name: str, document: Any) -> list[str]:
    """Every way `document` breaks schema `name`, as `at PATH: message` lines."""
    found = sorted(_validator(name).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"at {_where(e.absolute_path)}: {_short(e.message)}" for e in found]


def _where(path: Any) -> str:
    return "/" + "/".join(str(p) for p in path) if path else "the top level"


def _short(message: str) -> str:
    return message if len(message) <= 160 else message[:157] + "..."


def kind_of(path: Path) -> str | None:
    """Which schema a file written by coworld follows, by its name (None: not ours)."""
    name = path.name
    if name == "standings.json":
        return "standings"
    if not name.endswith(".jsonl"):
        return None
    if name.endswith(".calls.jsonl"):
        return "calls"
    stem = name[: -len(".jsonl")]
    if "." in stem and stem.rsplit(".", 1)[1].startswith("seat"):
        return "transcript"
    return "replay"


def problems(path: Path, kind: str | None = None) -> list[str]:
    """Schema problems of a written file, each `FILE:LINE: at PATH: message`.

    A last line that is cut short is not a problem: a killed process leaves one
    (every line before it is whole)."""
    kind = kind or kind_of(path)
    if kind is None:
        return []
    if kind == "replay" and _first_line(path).startswith(b'{"header"'):
        kind = "transcript"  # an SDK transcript (coworld.sdk.transcript)
    if kind == "standings":
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as err:
            return [f"{path}: not JSON: {err}"]
        return [f"{path}: {e}" for e in errors(kind, document)]
    return list(_line_problems(path, kind))


def _first_line(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.readline().strip()


def _line_problems(path: Path, kind: str) -> Iterator[str]:
    lines = path.read_bytes().split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as err:
            if number < len(lines):  # a whole line, not a cut-short last one
                yield f"{path}:{number}: not JSON: {err}"
            continue
        for e in errors(kind, record):
            yield f"{path}:{number}: {e}"
    if kind == "replay" and lines and lines[0].strip():
        try:
            first = json.loads(lines[0])
        except ValueError:
            return
        if not isinstance(first, dict) or first.get("type") != "header":
            yield f"{path}:1: a replay starts with its header line"
