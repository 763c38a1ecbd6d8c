"""Worker processes of the local backend: how they start (quiet, deaf to a
terminal's Ctrl-C, ending with their driver), and an episode played alone in a
process of its own."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Any

from ...seats.time_limit import HUNG_EXIT, end_hung_decisions_with
from .. import work
from ..records import WORKER_DIED, Played, now
from ..work import EpisodeJob
from .base import exit_status, worker_died


def play_alone(job: EpisodeJob) -> Played:
    """`job` in a new process of its own: its row, or a void record naming the
    episode's Python policies when the process ends before it answers."""
    spawn = multiprocessing.get_context("spawn")
    receive, send = spawn.Pipe(duplex=False)
    process = spawn.Process(target=_play_and_send, args=(job, send), name="coworld-alone")
    started = now()
    with ctrl_c_ignored():
        process.start()
    send.close()  # the child's end: recv sees EOF when the child is gone
    try:
        answer = receive.recv()
    except EOFError:
        answer = None
    except BaseException:  # Ctrl-C: the process ignores it (quiet_worker), so end it
        process.terminate()
        raise
    finally:
        receive.close()
        process.join()
    if isinstance(answer, BaseException):
        raise answer  # the episode's own error (a config error), as from the pool
    if answer is not None:
        return answer
    how = exit_status(process.exitcode)
    detail = worker_died(job, how, "also when played alone", process.exitcode)
    return work.void_job(job, WORKER_DIED, detail, started)


def quiet_worker() -> None:
    """A worker process's standard output and error go nowhere (Python's `sys.stdout`
    and `sys.stderr`): a policy's `print` or `logging` would write over the league's
    progress bar, once per decision (Ray's workers are not shown either; `coworld
    play` shows both). The worker's own errors travel back to the driver as
    exceptions or void records. A decision that hangs past its interrupt ends the
    process with `HUNG_EXIT`, which the stop line names."""
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the process's life)
    end_hung_decisions_with(HUNG_EXIT)
    # A terminal's Ctrl-C reaches the whole process group: the driver decides
    # (the first lets episodes in flight finish, the second ends this process).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_the_driver, args=(os.getppid(),), daemon=True).start()


@contextlib.contextmanager
def ctrl_c_sets_flags(on_ctrl_c: Callable[[], None]) -> Iterator[None]:
    """Inside, Ctrl-C calls `on_ctrl_c` instead of raising KeyboardInterrupt
    wherever it lands (main thread only: the others cannot set handlers; there
    the interrupt stays an exception, which the caller catches)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: on_ctrl_c())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def ctrl_c_ignored() -> Iterator[None]:
    """Ctrl-C is ignored inside (main thread only: the others cannot set handlers),
    the driver's own handler back at once after. Processes started inside inherit
    the ignored SIGINT (kept across exec), so a terminal's Ctrl-C while they import
    (numpy, scipy) prints no traceback of theirs; a shutdown inside (Ray's) is not
    cut short into one."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _exit_with_the_driver(driver: int) -> None:
    """A driver killed with `kill -9` cannot end its workers: each ends itself once
    it is orphaned (re-parented), instead of waiting for a job forever."""
    while os.getppid() == driver:
        time.sleep(1.0)
    os._exit(1)


def _play_and_send(job: EpisodeJob, send: Connection) -> None:
    quiet_worker()
    try:
        answer: Any = work.play_episode(job)
    except Exception as err:
        answer = err
    send.send(answer)
    send.close()
