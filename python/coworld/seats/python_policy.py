"""Python policies: a `.py` file that plays a seat.

The file defines either a function `act(view, legal_moves)` or a class `Bot`
whose instances have that method (one instance per seat per episode, so it may
keep state between its decisions). `view` is exactly the seat's `view_for`;
`legal_moves` its legal moves in canonical notation. It returns a move in the
game's notation (anything `apply` reads), or a dict with `move` and optional
`say`, `notes` and (fog) `guess`. Optional module constants: `NAME` (the
policy's name; default the file's stem) and `TIME_LIMIT` (seconds per decision,
default 5).

An exception, a move that does not read or is illegal, or an answer slower than
`TIME_LIMIT` is recorded with its cause (`error`, `unparseable`, `illegal`,
`timeout`) and reason, and the family's fallback baseline moves instead, as for
Claude seats. The code runs from the source text that was hashed, so the
digest identifies exactly what played. A decision is a plain call: a policy that
never returns holds its episode (the league's patience applies).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import ConfigError, CoworldError, IllegalMove
from .reply import NOTES_LIMIT, SAY_LIMIT, Reply, truncate

DEFAULT_TIME_LIMIT = 5.0

#: Modules already executed in this process, by digest (a league runs many episodes).
_MODULES: dict[str, ModuleType] = {}


@dataclass(frozen=True)
class PythonPolicy:
    """A policy written in Python (`my_bot.py`); pickles as its source text."""

    name: str
    source: str = field(repr=False)
    path: str = ""
    time_limit: float = DEFAULT_TIME_LIMIT
    kind = "python"

    @property
    def digest(self) -> str:
        """A hash of the source: the same text always plays the same way."""
        return "sha256:" + hashlib.sha256(self.source.encode()).hexdigest()[:16]

    def module(self) -> ModuleType:
        """The policy's module, executed once per process from the hashed source."""
        mod = _MODULES.get(self.digest)
        if mod is None:
            mod = _execute(self.source, self.path or self.name)
            _MODULES[self.digest] = mod
        return mod

    def new_seat(self) -> PythonSeat:
        """A fresh player for one seat of one episode (a new `Bot` if the file has one)."""
        mod = self.module()
        bot = getattr(mod, "Bot", None)
        act = bot().act if bot is not None else mod.act
        return PythonSeat(self, act)


def load_python_policy(path: Path) -> PythonPolicy:
    """Read and check a policy file: it must execute and define `act` or `Bot`."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"policy file {path}: {err.strerror}", "policy") from err
    mod = _execute(source, str(path))
    bot = getattr(mod, "Bot", None)
    if not callable(getattr(mod, "act", None)) and not (
        isinstance(bot, type) and callable(getattr(bot, "act", None))
    ):
        raise ConfigError(
            f"{path}: a Python policy defines a function act(view, legal_moves) "
            "or a class Bot with that method",
            "policy",
        )
    name = getattr(mod, "NAME", path.stem)
    limit = getattr(mod, "TIME_LIMIT", DEFAULT_TIME_LIMIT)
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{path}: NAME must be a non-empty string", "NAME")
    if isinstance(limit, bool) or not isinstance(limit, int | float) or limit <= 0:
        raise ConfigError(f"{path}: TIME_LIMIT must be a positive number of seconds", "TIME_LIMIT")
    policy = PythonPolicy(name, source, str(path), float(limit))
    _MODULES[policy.digest] = mod
    return policy


def _execute(source: str, filename: str) -> ModuleType:
    mod = ModuleType(Path(filename).stem)
    mod.__file__ = filename
    try:
        exec(compile(source, filename, "exec"), mod.__dict__)
    except Exception as err:
        raise ConfigError(
            f"policy file {filename} fails to load: {type(err).__name__}: {err}", "policy"
        ) from err
    return mod


@dataclass
class Verdict:
    """One decision of a Python seat: the reply, or why there is none."""

    reply: Reply | None
    cause: str | None = None
    reason: str = ""
    seconds: float = 0.0

    def record(self, ply: int, seat: int) -> dict[str, Any]:
        return {
            "type": "python",
            "ply": ply,
            "seat": seat,
            "outcome": "ok" if self.cause is None else self.cause,
            "cause": self.cause,
            "reason": self.reason or None,
            "latency": round(self.seconds, 6),
        }


@dataclass
class PythonSeat:
    policy: PythonPolicy
    act: Callable[[dict[str, Any], list[str]], Any]

    def decide(self, state: Any, view: dict[str, Any], legal: list[str]) -> Verdict:
        """Ask the policy for a move in `state` and read it like any seat's reply."""
        started = time.perf_counter()
        try:
            answer = self.act(view, list(legal))
        except Exception as err:  # the policy's own failure, recorded, never raised
            return Verdict(None, "error", f"{type(err).__name__}: {err}"[:300], _since(started))
        seconds = _since(started)
        if seconds > self.policy.time_limit:
            reason = f"answered in {seconds:.3f} s; the limit is {self.policy.time_limit:g} s"
            return Verdict(None, "timeout", reason, seconds)
        return _read(answer, state, seconds)


def _since(started: float) -> float:
    return time.perf_counter() - started


def _read(answer: Any, state: Any, seconds: float) -> Verdict:
    """A reply from the policy's answer: a move string, or a dict with `move`."""
    extra: Mapping[str, Any] = {}
    if isinstance(answer, Mapping):
        extra, answer = answer, answer.get("move")
    if not isinstance(answer, str):
        reason = f"the answer is {type(answer).__name__}, not a move string"
        return Verdict(None, "unparseable", reason, seconds)
    try:
        move = state.read_move(answer)
    except IllegalMove as err:
        return Verdict(None, err.kind, str(err)[:300], seconds)
    except CoworldError as err:
        return Verdict(None, "illegal", str(err)[:300], seconds)
    guess = extra.get("guess") or ()
    reply = Reply(
        move=move,
        say=truncate(extra.get("say"), SAY_LIMIT),
        notes=truncate(extra.get("notes"), NOTES_LIMIT),
        guess=tuple(str(g) for g in guess) if isinstance(guess, list | tuple) else (),
    )
    return Verdict(reply, None, "", seconds)
