"""Python policies: a `.py` file that plays a seat.

The file defines either a function `act(view, legal_moves)` or a class `Bot`
whose instances have that method (one instance per seat per episode, so it may
keep state between its decisions). `view` is exactly the seat's `view_for`;
`legal_moves` its legal moves in canonical notation. It returns a move in the
game's notation (anything `apply` reads), or a dict with `move` and optional
`say`, `notes` and (fog) `guess`. Optional module constants: `NAME` (the
policy's name; default the file's stem) and `TIME_LIMIT` (seconds per decision,
default 5).

Each seat of each episode executes the file in a fresh module (the code compiled once
per process), so its globals belong to that seat of that episode: seats of one file
share no hidden information, and an episode's play does not depend on the ones a
process played before. What is costly to build (a network's weights) belongs in a
module the file imports, as imports are cached per process in `sys.modules`:

    # weights.py, beside my_bot.py          # my_bot.py
    import numpy as np                      from weights import W
    W = np.load("my_weights.npy")           def act(view, legal_moves): ...

A file's first load in a process (`coworld play` loads it once to check it; a league
worker at its first episode with it) is not held to `TIME_LIMIT` but to
`FIRST_LOAD_LIMIT` (5 minutes), so its imports load once; the per-seat loads after
it are timed.

The file's directory is appended to `sys.path` when the file loads (driver and worker
processes, once per directory), last: a sibling named like a standard module
(`random.py`, `json.py`) is not importable, and never shadows it for coworld.

Randomness: the module has a global `RNG`, a `random.Random` of the seat's own,
seeded per episode and seat from the episode's entropy (recorded in the replay
header, never derived from the engine seed, so a bot that draws from it learns
nothing hidden, and the same seed and entropy replay its choices). Python's
global `random` is not seeded by coworld.

A Python policy is trusted code running in the runner's process. Isolation holds for
honest bots (globals, the view); a bot that walks interpreter frames (`sys._getframe`)
or the garbage collector, or reads the replay being written (flushed before each of
its decisions), can reach the state. Process isolation is not offered
(docs/trust-model.md).

An exception (any: `sys.exit` too, only Ctrl-C's KeyboardInterrupt goes
through), a move that does not read or is illegal, or an answer slower than
`TIME_LIMIT` is recorded with its cause (`error`, `unparseable`, `illegal`,
`timeout`) and reason, and the family's fallback baseline moves instead, as for
Claude seats. A `Bot()` that fails is the seat's `error` for every decision.
The code runs from the source text that was hashed, so the digest identifies
exactly what played.

The time limit is real where the process allows it: on the main thread of a
process with SIGALRM (Unix; `coworld play`, a league's worker processes, Ray
tasks), a decision still running at the limit is interrupted by an exception
(`signal.setitimer`; a private BaseException, so a policy's own `except
Exception` does not swallow it) and abandoned. Elsewhere (another thread,
Windows), the answer is judged when it comes back: a policy that never returns
there holds its episode. A decision over the limit, interrupted or not,
benches the seat: its state may be half-updated, so the fallback plays its
seat for the rest of the episode (each such decision recorded as `timeout`).
A policy that catches BaseException (a bare `except:`), or a long call into C
(the interrupt waits for it to return), may outlive its limit; it is judged if
it returns within a grace of max(1 s, limit). Otherwise a watchdog
thread ends the process (`time_limit._Watchdog`): `coworld play` with one line and exit code 3
(the replay, flushed before each Python decision, keeps the plies before it), a
league's worker with `HUNG_EXIT`, so the league voids the episode and stops. The
handler is installed at an episode's first Python decision and the previous one
restored at its end (`time_limit._Alarm`); a decision costs two `setitimer` calls, a `getitimer`
and arming the watchdog (an attribute write; about 2 us in all).
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import secrets
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from ..errors import ConfigError, CoworldError, IllegalMove
from .reply import NOTES_LIMIT, SAY_LIMIT, Reply, truncate
from .time_limit import LimitReached, within

DEFAULT_TIME_LIMIT = 5.0
#: Seconds a file's first load in a process may take (its imports), untimed otherwise.
FIRST_LOAD_LIMIT = 300.0
#: The longest TIME_LIMIT a policy may set, seconds (the timer's range is finite).
MAX_TIME_LIMIT = 86_400.0

#: Compiled policy files, by digest: each seat of each episode executes one afresh.
_CODE: dict[str, CodeType] = {}
#: Policy files whose directory is on `sys.path` (once per directory).
_IMPORTABLE: set[str] = set()


@dataclass(frozen=True)
class PythonPolicy:
    """A policy written in Python (`my_bot.py`); pickles as its source text."""

    name: str
    source: str = field(repr=False)
    path: str = ""
    time_limit: float = DEFAULT_TIME_LIMIT
    kind = "python"

    @property
    def label(self) -> str:
        """The file that plays, for messages (its name when it has no path)."""
        return self.path or self.name

    @property
    def digest(self) -> str:
        """A hash of the source: the same text always plays the same way."""
        return "sha256:" + hashlib.sha256(self.source.encode()).hexdigest()[:16]

    def module(self, rng: random.Random | None = None) -> ModuleType:
        """A fresh module executed from the hashed source (compiled once per process):
        its globals belong to one seat of one episode, `RNG` its random stream."""
        code = _CODE.get(self.digest)
        if code is None:
            code = _CODE[self.digest] = compile(self.source, self.path or self.name, "exec")
        mod = _new_module(self.path or self.name, rng)
        exec(code, mod.__dict__)
        return mod

    def new_seat(self, rng: random.Random | None = None) -> PythonSeat:
        """A fresh player for one seat of one episode: the file executed in a module of
        its own (`RNG` = `rng`, else fresh entropy), and a new `Bot` if it has one,
        under the time limit. Loading or a `Bot()` that raises or overruns leaves a
        seat whose every decision is that failure."""
        if self.digest not in _CODE:
            self._warm_up()
        started = time.perf_counter()
        step = ["loading the file"]
        try:
            player = within(self.time_limit, self.label, self._player, step, rng)
            return PythonSeat(self, player)
        except LimitReached:
            return PythonSeat(self, None, _over_limit(step[-1], self.time_limit, started))
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # the policy's own failure, recorded, never raised
            failure = f"{step[-1]} raised " + _describe(err, self)
            return PythonSeat(self, None, ("error", failure))

    def _warm_up(self) -> None:
        """The file's first load in this process, untimed as in `coworld play` (up to
        `FIRST_LOAD_LIMIT`): what it imports (a network's weights) loads once and is
        cached in `sys.modules`, so the timed per-seat loads that follow are quick. A
        failure here is met again, and recorded, by the timed load."""
        try:
            within(FIRST_LOAD_LIMIT, self.label, self.module)
        except KeyboardInterrupt:
            raise
        except BaseException:  # the timed load meets it again and records it
            pass

    def _player(
        self, step: list[str], rng: random.Random | None
    ) -> Callable[[dict[str, Any], list[str]], Any]:
        mod = self.module(rng)
        bot = getattr(mod, "Bot", None)
        if bot is None:
            return mod.act  # type: ignore[no-any-return]
        step.append("Bot()")
        return bot().act  # type: ignore[no-any-return]


def load_python_policy(path: Path) -> PythonPolicy:
    """Read and check a policy file: it must execute and define `act` or `Bot`."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"policy file {path}: {err.strerror}", "policy") from err
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"policy file {path}: not UTF-8 text (byte {err.start}: {err.reason})", "policy"
        ) from err
    mod = _execute(source, str(path))
    bot = getattr(mod, "Bot", None)
    if bot is not None and not (isinstance(bot, type) and callable(getattr(bot, "act", None))):
        raise ConfigError(
            f"{path}: Bot must be a class with a method act(self, view, legal_moves)", "policy"
        )
    if bot is None and not callable(getattr(mod, "act", None)):
        raise ConfigError(
            f"{path}: a Python policy defines a function act(view, legal_moves) "
            "or a class Bot with that method",
            "policy",
        )
    name = getattr(mod, "NAME", path.stem)
    limit = getattr(mod, "TIME_LIMIT", DEFAULT_TIME_LIMIT)
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{path}: NAME must be a non-empty string", "NAME")
    if (
        isinstance(limit, bool)
        or not isinstance(limit, int | float)
        or not 0 < limit <= MAX_TIME_LIMIT  # not NaN, not infinite
    ):
        raise ConfigError(
            f"{path}: TIME_LIMIT must be a positive number of seconds, at most "
            f"{MAX_TIME_LIMIT:g} (a day)",
            "TIME_LIMIT",
        )
    return PythonPolicy(name, source, str(path), float(limit))


def _execute(source: str, filename: str) -> ModuleType:
    """The file executed once to check it (its code cached for the seats to come)."""
    mod = _new_module(filename)
    try:
        code = compile(source, filename, "exec")
        exec(code, mod.__dict__)
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # sys.exit() at the top of the file too
        raise ConfigError(
            f"policy file {filename} fails to load: {type(err).__name__}: {err}", "policy"
        ) from err
    _CODE["sha256:" + hashlib.sha256(source.encode()).hexdigest()[:16]] = code
    return mod


def _new_module(filename: str, rng: random.Random | None = None) -> ModuleType:
    """A module for the file holding only its `RNG` (`rng`, else one from fresh
    entropy), whose directory is made importable (at the end of `sys.path`: a
    sibling named like a standard module never shadows it)."""
    if filename not in _IMPORTABLE:
        _IMPORTABLE.add(filename)
        folder = os.path.dirname(os.path.abspath(filename))
        if folder not in sys.path:
            sys.path.append(folder)
    mod = ModuleType(Path(filename).stem)
    mod.__file__ = filename
    mod.__dict__["RNG"] = rng if rng is not None else random.Random(secrets.randbits(64))
    return mod


@dataclass
class Verdict:
    """One decision of a Python seat: the reply, or why there is none."""

    reply: Reply | None
    cause: str | None = None
    reason: str = ""
    seconds: float = 0.0
    #: Optional fields of the answer that were not used, and why.
    dropped: list[str] = field(default_factory=list)

    def record(self, ply: int, seat: int) -> dict[str, Any]:
        record = {
            "type": "python",
            "ply": ply,
            "seat": seat,
            "outcome": "ok" if self.cause is None else self.cause,
            "cause": self.cause,
            "reason": self.reason or None,
            "latency": round(self.seconds, 6),
        }
        if self.dropped:
            record["dropped"] = self.dropped
        return record


@dataclass
class PythonSeat:
    policy: PythonPolicy
    act: Callable[[dict[str, Any], list[str]], Any] | None
    #: (cause, reason) that every decision of this seat now is: its `Bot()` failed,
    #: or a decision ran past the limit (the seat is benched for the episode).
    failed: tuple[str, str] | None = None

    def decide(self, state: Any, view: dict[str, Any], legal: list[str]) -> Verdict:
        """Ask the policy for a move in `state` and read it like any seat's reply."""
        if self.failed is not None or self.act is None:
            cause, reason = self.failed or ("error", "the seat has no policy")
            return Verdict(None, cause, reason)
        limit = self.policy.time_limit
        started = time.perf_counter()
        try:
            answer = within(self.policy.time_limit, self.policy.label, self.act, view, list(legal))
        except LimitReached:
            return self._bench(state, _over_limit("the decision", limit, started), started)
        except KeyboardInterrupt:  # Ctrl-C stops the run, as anywhere
            raise
        except BaseException as err:  # the policy's own failure (sys.exit too), never raised
            return Verdict(None, "error", _describe(err, self.policy), _since(started))
        if _since(started) > limit:
            return self._bench(state, _over_limit("the decision", limit, started), started)
        return _read(answer, state, _since(started))

    def _bench(self, state: Any, failure: tuple[str, str], started: float) -> Verdict:
        """A decision over the limit: recorded, and the seat benched for the episode."""
        cause, reason = failure
        self.failed = (
            cause,
            f"benched at ply {state.plies} ({reason}); the fallback plays the rest of the episode",
        )
        return Verdict(None, cause, reason, _since(started))


def _over_limit(what: str, limit: float, started: float) -> tuple[str, str]:
    seconds = _since(started)
    return "timeout", f"{what} took {seconds:.3f} s; the limit is {limit:g} s"


def _describe(err: BaseException, policy: PythonPolicy | None = None) -> str:
    """`Type: message` of a policy's exception, at most 300 characters, and where in
    the policy's file it was raised (the deepest line of that file on the traceback)."""
    try:
        text = f"{type(err).__name__}: {err}"
    except Exception:  # an exception whose str() itself fails
        text = type(err).__name__
    where = _line_in(err, policy) if policy is not None else ""
    return _text(text)[: 300 - len(where)] + where


def _line_in(err: BaseException, policy: PythonPolicy) -> str:
    """` (at FILE line N: SOURCE)` for the policy file's deepest frame on the
    traceback, or "" when the file is not on it."""
    filename = policy.path or policy.name
    frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == filename]
    if not frames or frames[-1].lineno is None:
        return ""
    lineno = frames[-1].lineno
    lines = policy.source.splitlines()
    code = lines[lineno - 1].strip()[:80] if 0 < lineno <= len(lines) else ""
    return _text(f" (at {Path(filename).name} line {lineno}: {code})")


def _since(started: float) -> float:
    return time.perf_counter() - started


def _text(value: str) -> str:
    """`value` as text every file can hold: a lone surrogate becomes U+FFFD."""
    return value if value.isascii() else _SURROGATE.sub("\ufffd", value)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _read(answer: Any, state: Any, seconds: float) -> Verdict:
    """A reply from the policy's answer: a move string, or a dict with `move`. Optional
    fields of the wrong type are dropped (and named in the record), never guessed at;
    nothing in the answer raises."""
    try:
        return _read_answer(answer, state, seconds)
    except Exception as err:  # an answer object whose own methods raise
        return Verdict(None, "unparseable", "reading the answer raised " + _describe(err), seconds)


#: The keys an answer dict may have.
_KEYS = ("move", "say", "notes", "guess")


def _read_answer(answer: Any, state: Any, seconds: float) -> Verdict:
    extra: Mapping[str, Any] = {}
    if type(answer) is not str and isinstance(answer, Mapping):  # str: the usual answer
        extra, answer = answer, answer.get("move")
        if answer is None:
            return Verdict(None, "unparseable", "the answer has no `move`", seconds)
    if not isinstance(answer, str):
        reason = f"the answer is {type(answer).__name__}, not a move string"
        return Verdict(None, "unparseable", reason, seconds)
    try:
        move = state.read_move(answer[:200])
    except IllegalMove as err:
        return Verdict(None, err.kind, str(err)[:300], seconds)
    except CoworldError as err:
        return Verdict(None, "illegal", str(err)[:300], seconds)
    except (UnicodeError, ValueError, TypeError):  # a lone surrogate: no move at all
        reason = f"move {_text(answer[:40])!r} is not readable text"
        return Verdict(None, "unparseable", reason, seconds)
    if not extra:
        return Verdict(Reply(move=move), None, "", seconds)
    dropped = [f"{_text(str(k))[:40]}: not a field of an answer" for k in extra if k not in _KEYS]
    texts = {}
    for key, limit in (("say", SAY_LIMIT), ("notes", NOTES_LIMIT)):
        value = extra.get(key)
        if value is None or isinstance(value, str):
            texts[key] = _text(truncate(value, limit))
            if value is not None and len(value) > limit:
                dropped.append(f"{key}: cut to {limit} characters")
        else:
            dropped.append(f"{key}: {type(value).__name__}, not text")
            texts[key] = ""
    guess = _read_guess(extra.get("guess"), state, dropped)
    reply = Reply(move=move, say=texts["say"], notes=texts["notes"], guess=guess)
    return Verdict(reply, None, "", seconds, dropped)


def _read_guess(value: Any, state: Any, dropped: list[str]) -> tuple[str, ...]:
    """A fog guess as the core counts it (`fog.bounded_guess` bounds it as for a Claude seat):
    cells named loosely (`A1`, ` b2`) in their canonical names, once each; what names
    no cell of the board is dropped and named."""
    if value is None:
        return ()
    if not _guesses(state):
        dropped.append(f"guess: {state.resolved_game} has no guesses")
        return ()
    if not (isinstance(value, list | tuple) and all(isinstance(g, str) for g in value)):
        dropped.append("guess: not a list of cell names")
        return ()
    from ..games.fog import bounded_guess, canonical_guess

    size = int(state.view_for(state.active_seat)["size"])
    cells, rejected = canonical_guess(bounded_guess(list(value), size * size), size)
    dropped.extend(rejected)
    return cells


def _guesses(state: Any) -> bool:
    """Whether the game records guesses (the fog family)."""
    from ..games import FAMILIES

    return FAMILIES.get(state.resolved_game) == "fog"
