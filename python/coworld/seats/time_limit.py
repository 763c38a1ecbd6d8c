"""The time limit of a Python policy's decision (see `python_policy`).

On the main thread of a process with SIGALRM, a decision still running at its
limit is interrupted by `LimitReached` (`_Alarm`); a decision that does not
return a grace after that ends the process (`_Watchdog`). Elsewhere the caller
judges the answer when it returns.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any


class LimitReached(BaseException):
    """Raised inside a policy's code at its time limit. A BaseException: a policy's
    own `except Exception` does not swallow it (a bare `except:` may; the answer is
    then judged when it returns)."""


_NOT_SET = object()
_HAS_ALARM = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
#: The handler now installed, as the C module returns it: `signal.getsignal` wraps it
#: in an Enum lookup that costs 1.7 us when the handler is a function (every decision).
_getsignal: Callable[[int], Any] = getattr(
    importlib.import_module("_signal"), "getsignal", signal.getsignal
)


class _Alarm:
    """The process's SIGALRM handler while episodes with Python seats run on its main
    thread: installed by the first `hold()`, the previous handler restored by the last
    `release()` (an episode holds it from its first Python decision to its end, so a
    decision costs two `setitimer` calls, not two handler swaps as well). Between
    decisions it is inert: a SIGALRM then goes to the previous handler (or, by
    default, ends the process as it would have). While armed it raises `LimitReached`
    once and disarms itself, so a late signal can never raise twice."""

    def __init__(self) -> None:
        self.holders = 0
        self.previous: Any = _NOT_SET
        self.armed = False
        #: Our timer fired as the decision ended, before its handler ran: that signal
        #: is ours, and is dropped when it comes (never passed on).
        self.late = False
        self.handler = self.fire  # one bound method: `getsignal(...) is self.handler`

    def fire(self, signum: int, frame: Any) -> None:
        if self.armed:
            self.armed = self.late = False
            raise LimitReached
        if self.late:
            self.late = False
            return
        previous = self.previous
        if callable(previous):
            previous(signum, frame)
        elif previous in (signal.SIG_DFL, None):  # what SIGALRM would have done
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.raise_signal(signal.SIGALRM)

    def hold(self) -> bool:
        """Install the handler (first holder); False where no interrupt is possible
        (no SIGALRM, or not the main thread: only it runs signal handlers)."""
        if not _HAS_ALARM or threading.current_thread() is not threading.main_thread():
            return False
        if self.holders == 0:
            self.previous = signal.signal(signal.SIGALRM, self.handler)
        self.holders += 1
        return True

    def release(self) -> None:
        """The last holder puts the previous handler back (unless someone replaced ours)."""
        self.holders -= 1
        if self.holders > 0 or self.previous is _NOT_SET:
            return
        previous, self.previous = self.previous, _NOT_SET
        if signal.getsignal(signal.SIGALRM) is self.handler:
            signal.signal(signal.SIGALRM, signal.SIG_DFL if previous is None else previous)

    def ready(self) -> bool:
        """Whether a decision here can be interrupted now: held, on the main thread,
        our handler still in place, and no other timer of the process running (a test
        runner's, say: it is left alone and the answer judged when it returns)."""
        return (
            self.holders > 0
            and threading.current_thread() is threading.main_thread()
            and _getsignal(signal.SIGALRM) is self.handler
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0.0
        )

    def call(self, limit: float, who: str, call: Callable[..., Any], *args: Any) -> Any:
        """`call(*args)`, interrupted by `LimitReached` at `limit` seconds, and the
        process ended by the watchdog (naming `who`) if it has not returned a grace
        later. The timer is always cancelled; a signal landing while this unwinds
        raises at most once (the handler disarms itself), and only `LimitReached`."""
        seconds = limit
        _WATCHDOG.arm(who, seconds)
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return call(*args)
        finally:
            remaining = signal.setitimer(signal.ITIMER_REAL, 0)[0]
            if self.armed and remaining == 0.0:  # it fired; its handler has not run yet
                self.late = True
            self.armed = False
            _WATCHDOG.armed = None


_ALARM = _Alarm()


def hold_alarm() -> bool:
    """Hold the SIGALRM handler for an episode (see `_Alarm`); True when held, and then
    `release_alarm()` must follow."""
    return _ALARM.hold()


def release_alarm() -> None:
    _ALARM.release()


def within(limit: float, who: str, call: Callable[..., Any], *args: Any) -> Any:
    """`call(*args)`, interrupted by `LimitReached` at `limit` seconds where the
    process allows it (see `_Alarm.ready`); elsewhere a plain call, judged by the caller.
    `who` (the policy file) names it if the watchdog has to end the process."""
    if _ALARM.ready():
        return _ALARM.call(limit, who, call, *args)
    if not _ALARM.hold():
        return call(*args)
    try:  # outside an episode that holds the handler: hold it for this call
        return _ALARM.call(limit, who, call, *args) if _ALARM.ready() else call(*args)
    finally:
        _ALARM.release()


#: How a process ends when a decision outlives its interrupt (`_Watchdog`): 3, as a
#: command that stops on an error; a league's worker processes set `HUNG_EXIT`.
_HANG_EXIT = [3]
#: The exit code of a league worker whose policy did not return after its interrupt.
HUNG_EXIT = 86


def end_hung_decisions_with(code: int) -> None:
    """The exit code of this process when a decision hangs past its interrupt."""
    _HANG_EXIT[0] = code


class _Watchdog:
    """The backstop for a policy that catches the interrupt at its limit and goes on
    (`except BaseException`, a bare `except:`) or is stuck in C: one daemon thread per
    process, armed per interruptible decision (an attribute write), ends the process
    if the decision still runs at its limit plus a grace of max(1 s, limit). Nothing
    short of that stops code that will not return; a league voids the episode."""

    def __init__(self) -> None:
        #: (deadline, limit, policy file) of the decision running now, or None; a new
        #: tuple per decision, so the thread knows the one it waited for by identity.
        self.armed: tuple[float, float, str] | None = None
        self.until = float("inf")  # the deadline the thread sleeps towards
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    def arm(self, who: str, limit: float) -> None:
        deadline = time.monotonic() + limit + max(1.0, limit)
        self.armed = (deadline, limit, who)
        if self.thread is None:
            self.thread = threading.Thread(target=self.watch, name="coworld-watchdog", daemon=True)
            self.thread.start()
        elif deadline < self.until:  # sleeping towards a later deadline (or none)
            self.wake.set()

    def watch(self) -> None:
        while True:
            self.until = float("inf")  # before reading: an arm meanwhile wakes us
            armed = self.armed
            if armed is not None:
                self.until = armed[0]
            left = self.until - time.monotonic()
            if armed is None or left > 0:
                self.wake.wait(None if armed is None else left)
                self.wake.clear()
                continue
            if self.armed is armed:
                _end_hung(armed[2], armed[1])


_WATCHDOG = _Watchdog()


def _end_hung(who: str, limit: float) -> None:
    """End the process: a decision did not return after its interrupt. The replay
    holds what was written before the decision (files are flushed before each)."""
    try:
        sys.stderr.write(
            f"coworld: policy file {who} did not return after being "
            f"interrupted at its time limit ({limit:g} s; waited {max(1.0, limit):g} s more): "
            "stopped; the replay ends before that decision\n"
        )
        sys.stderr.flush()
    finally:
        os._exit(_HANG_EXIT[0])
