"""`coworld check FILE`: validate a league, policy, replay (or its sidecars) or
standings file without running it, one line per problem."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from . import schemas
from .errors import CoworldError

#: Top-level keys that make a TOML file a league rather than a policy.
_LEAGUE_KEYS = {"policies", "games", "episodes"}


def check_file(path: Path) -> list[str]:
    """Every problem of one file, each line naming the file; [] when it is valid."""
    if path.is_dir():
        return [f"{path}: a directory, not a file"]
    if not path.is_file():
        return [f"{path}: no such file"]
    kind = schemas.kind_of(path)
    if kind is not None:
        return schemas.problems(path, kind)
    if path.suffix == ".json":
        return schemas.problems(path, "standings")
    if path.suffix in (".toml", ".md"):
        return _check_config(path)
    if path.suffix == ".py":
        return _loaded(path, lambda: _load_policy(path))
    return [f"{path}: not a file coworld reads (.toml, .md, .py, .jsonl, .json)"]


def _check_config(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        return [f"{path}: not UTF-8 text (byte {err.start})"]
    try:
        document = _document(path, text)
    except CoworldError as err:
        return [_named(path, str(err))]
    if path.suffix == ".toml" and _LEAGUE_KEYS & set(document):
        found = [f"{path}: {e}" for e in schemas.errors("league", document)]
        return found or _loaded(path, lambda: _load_league(path))
    found = [f"{path}: {e}" for e in schemas.errors("policy", document)]
    return found or _loaded(path, lambda: _load_policy(path))


def _document(path: Path, text: str) -> dict[str, Any]:
    """The league's TOML, or the policy's front matter with its prompt as `prompt`."""
    from .errors import ConfigError
    from .seats.policy import split_front_matter

    if path.suffix == ".toml":
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"not valid TOML: {err}", "policy") from err
    meta, body = split_front_matter(text, path)
    return {**meta, "prompt": body.strip()}


def _loaded(path: Path, load: Any) -> list[str]:
    try:
        load()
    except CoworldError as err:
        return [_named(path, str(err))]
    return []


def _named(path: Path, message: str) -> str:
    return message if message.startswith(str(path)) else f"{path}: {message}"


def _load_league(path: Path) -> None:
    from .league.config import load_league

    load_league(path)


def _load_policy(path: Path) -> None:
    from .seats.policy import load_policy

    load_policy(str(path))
