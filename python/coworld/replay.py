"""Replays: JSON Lines, one event per line, flushed as it happens, so a killed
process leaves a valid prefix. `recheck` re-simulates a replay from its seed and
recorded moves and verifies every event and the results."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from .errors import CoworldError
from .sdk.canonical import first_difference, short

FORMAT_VERSION = 1


#: One JSON line as UTF-8 bytes, newline included: orjson (compact separators,
#: insertion order, int keys as strings as `json` writes them), ~5x cheaper a line
#: than the standard library's encoder. Readers parse lines with `json.loads`.
_LINE_OPTIONS = orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS


def encode_line(obj: Any) -> bytes:
    """The object's line in UTF-8 bytes (its size in a file is its length)."""
    return orjson.dumps(obj, option=_LINE_OPTIONS)


def create_file(path: str | Path) -> IO[bytes]:
    """`path` opened for writing from scratch (binary, buffered), its directory
    made only when it is missing: no check before the common case (one system
    call to create the file, and FileIO's one fstat)."""
    name = os.fspath(path)
    try:
        return open(name, "wb")  # noqa: SIM115 (the writer owns and closes it)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
        return open(name, "wb")  # noqa: SIM115


class JsonLinesWriter:
    """Append JSON objects as lines, flushing each one; or, with `flush_each=False`,
    when the owner calls `flush` (the episode runner does before each wait: a model
    call, a pause, the end), so a file stays a valid prefix of what was decided."""

    def __init__(self, path: str | Path, *, flush_each: bool = True) -> None:
        self.path = path
        self._fh: IO[bytes] | None = create_file(path)
        self.flush_each = flush_each

    def write(self, obj: dict[str, Any]) -> None:
        if self._fh is None:
            raise ValueError(f"{self.path} is closed")
        self._fh.write(encode_line(obj))
        if self.flush_each:
            self._fh.flush()

    def flush(self) -> None:
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_lines(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every complete line; a torn last line is skipped.
    A file that is missing, not text, or has a line that is not a JSON object
    raises `ReplayUnreadable` naming the file and line."""
    path = Path(path)
    try:
        fh = path.open(encoding="utf-8")
    except OSError as err:
        raise ReplayUnreadable(f"{path}: {err.strerror or err}") from None
    with fh:
        number = 0
        try:
            for number, line in enumerate(fh, start=1):
                if not line.endswith("\n"):
                    return  # a write cut short by a kill: the prefix before it is valid
                try:
                    event = json.loads(line)
                except json.JSONDecodeError as err:
                    raise ReplayUnreadable(
                        f"{path}: line {number}: not a JSON line ({err.msg}, column {err.colno})"
                    ) from None
                if not isinstance(event, dict):
                    raise ReplayUnreadable(f"{path}: line {number}: not a JSON object")
                yield number, event
        except UnicodeDecodeError:
            raise ReplayUnreadable(
                f"{path}: line {number + 1}: not UTF-8 text (is it a replay?)"
            ) from None


class ReplayUnreadable(CoworldError):
    """A replay file cannot be read as JSON lines (the message names file and line)."""


class ReplayMismatch(CoworldError):
    """A replay does not re-derive from its seed and moves."""

    def __init__(self, line: int, what: str, recorded: Any = None, derived: Any = None) -> None:
        detail = f"line {line}: {what}"
        if recorded is not None or derived is not None:
            detail += f"\n  recorded: {short(recorded, 300)}\n  derived:  {short(derived, 300)}"
        super().__init__(detail)
        self.line = line
        self.what = what


class ReplayMalformed(ReplayMismatch):
    """Not a coworld replay at all (no header, events without their fields): bad
    input, where a `ReplayMismatch` is a replay that no longer re-derives."""


def recheck(path: str | Path) -> dict[str, Any]:
    """Re-simulate a replay and verify every event; returns its results.

    Raises `ReplayMismatch` naming the first line (and field) that does not re-derive.
    """
    at = [1]  # the line being checked, for errors raised by plain field access
    try:
        return _recheck(read_lines(path), at)
    except KeyError as err:
        raise ReplayMalformed(
            at[0], f"an event lacks the field {err.args[0]!r} (not a coworld replay?)"
        ) from None
    except (TypeError, AttributeError, ValueError, IndexError) as err:
        if isinstance(err, CoworldError):
            raise
        raise ReplayMalformed(at[0], f"an event has a field of the wrong kind ({err})") from None


def _recheck(lines: Iterator[tuple[int, dict[str, Any]]], at: list[int]) -> dict[str, Any]:
    from . import game

    try:
        number, header = next(lines)
    except StopIteration:
        raise ReplayMalformed(1, "the replay is empty") from None
    at[0] = number
    if header.get("type") != "header":
        raise ReplayMalformed(number, "the first line is not a header")
    reducer = game({"game": header["config"]["game"], **header.get("settings", {})})
    state = reducer.init(seed=header["config"]["seed"])
    recorded_config = {k: header["config"].get(k) for k in state.config}
    _expect(number, "header config", recorded_config, state.config)
    if "view" in header:
        _expect(number, "initial view", header["view"], state.view())
    names = _header_aliases(number, header)
    results = None
    for number, event in lines:
        at[0] = number
        kind = event.get("type")
        if names and kind in ("welcome", "ply") and "alias" in event:
            _expect(number, f"{kind} alias", event["alias"], names[event["seat"]])
        if kind == "welcome":
            _expect(number, "welcome view", event["view"], state.view_for(event["seat"]))
        elif kind == "ply":
            if event["seat"] != state.active_seat:
                raise ReplayMismatch(number, "seat to move", event["seat"], state.active_seat)
            if event.get("origin") == "opening":  # drawn from the seed: re-derive it
                _expect(number, "opening ply", event["move"], state.opening_move())
            if event.get("guess") and hasattr(state, "with_guess"):
                state = state.with_guess(list(event["guess"]))
            try:
                state = state.apply(event["move"])
            except CoworldError as err:
                raise ReplayMismatch(
                    number, f"move {event['move']!r} is not legal here: {err}"
                ) from err
            _expect(number, "view after the ply", event["view"], state.view())
        elif kind == "deadline":
            state = state.settle_deadline()
        elif kind == "results":
            _expect(number, "results", _core_results(event["results"]), state.results)
            results = event["results"]
    if results is None:
        raise ReplayMismatch(number, "the replay has no results line (a run cut short?)")
    return results


def _header_aliases(line: int, header: dict[str, Any]) -> list[str]:
    """The seats' aliases as the header records them (never from the seed), checked
    against the episode's recorded entropy when it has one."""
    from .streams import aliases, check_entropy

    names = [seat.get("alias") for seat in header.get("seats", [])]
    if "entropy" in header:
        try:
            entropy = check_entropy(header["entropy"], "the header's entropy")
        except CoworldError as err:
            raise ReplayMismatch(line, str(err)) from None
        _expect(line, "header aliases", names, aliases(entropy, len(names)))
    return names


def _core_results(results: dict[str, Any]) -> dict[str, Any]:
    """The results fields the core derives (the runner adds usage and decisions)."""
    return {k: v for k, v in results.items() if k not in RUNNER_RESULT_FIELDS}


RUNNER_RESULT_FIELDS = ("usage", "decisions", "aliases", "policies", "wallSeconds")


def _expect(line: int, what: str, recorded: Any, derived: Any) -> None:
    found = first_difference(recorded, derived)
    if found:
        where, mine, theirs = found
        raise ReplayMismatch(line, f"{what} differs at {where}", mine, theirs)
