"""What every backend is: where a league's work runs (`Backend`), and how an
episode whose worker process ended is named. A backend is one module of this
package that defines `BACKEND`, its class (see `__init__.py`)."""

from __future__ import annotations

import signal
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from ...seats.python_policy import PythonPolicy
from ...seats.time_limit import HUNG_EXIT
from ..records import Chunk, Played
from ..work import ChunkJob, EpisodeJob, Shared


class Backend(Protocol):
    """Every backend keeps the run's budget and writes each answered call's usage
    in the driver, as it returns (through `Shared.on_call`): the run's ledger sees
    every call, wherever its episode plays."""

    #: Set when Ctrl-C stopped `map_episodes` early.
    interrupted: bool
    #: True when episodes play in the driver's process (a human seat's link is
    #: served there; batch mode collects its requests there).
    in_driver: bool

    def map_chunks(self, jobs: Sequence[ChunkJob]) -> Iterator[Chunk]:
        """Run scripted chunks; yield each as it finishes (any order)."""
        ...

    def map_episodes(
        self, jobs: Iterable[EpisodeJob], concurrency: int, shared: Shared
    ) -> Iterator[Played]:
        """Run episodes, at most `concurrency` at once, pulling jobs lazily (so the
        caller can stop dispatching); yield each row (or void record) as it finishes.
        `shared` holds the run's client (its breaker and ledger) and call recorder."""
        ...

    def close(self) -> None:
        """Release the backend's loop and clients."""
        ...


def worker_died(job: EpisodeJob, how: str, again: str, exitcode: int | None = 0) -> str:
    """Which policy ended its worker process, and how, in one line."""
    files = [p.path or p.name for p in job.policies if isinstance(p, PythonPolicy)]
    who = {0: "the worker process", 1: f"policy {files[0]}"}.get(
        len(files), f"one of the policies {', '.join(files)}"
    )
    if exitcode == HUNG_EXIT and files:  # the watchdog ended it (time_limit._Watchdog)
        return (
            f"{who} did not return after being interrupted at its time limit (its worker "
            f"process was ended) in {job.pairing} episode {job.idx}, {again}"
        )
    if files:
        who += " ended its worker process"
    return f"{who} ({how}) in {job.pairing} episode {job.idx}, {again}"


def exit_status(exitcode: int | None) -> str:
    """A process's end in words: its exit code, or the signal that killed it."""
    if exitcode is None or exitcode >= 0:
        return f"exit code {exitcode}; os._exit or a crash"
    try:
        return f"killed by {signal.Signals(-exitcode).name}"
    except ValueError:
        return f"killed by signal {-exitcode}"
