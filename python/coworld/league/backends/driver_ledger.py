"""The budget and the call records of local worker processes, kept by the driver.

An episode with a Python seat runs in a worker process (`backend.LocalBackend`).
Its Claude calls reserve against the run's one ledger and are recorded in the
league database exactly as the driver's own episodes' calls are, through a
connection to the driver: each call asks the driver to reserve its worst case
before it is sent, reports its usage when answered, and settles. So the cap
holds whoever the opponent is, and the driver stays the only writer of the
database. Reservations an episode still holds when it ends (its process died)
are released by the driver.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from typing import Any, Protocol

from ...seats.budget import Budget, BudgetExhausted
from ...usage import Usage
from ..records import EpisodeKey

#: (address, authentication key) of a driver's ledger service.
Address = tuple[str, bytes]
#: An episode: (pairing, index).
Key = tuple[str, int]


class EpisodeLedger(Budget, Protocol):
    """An episode's budget and call recorder kept by the driver, from another
    process: `RemoteLedger` here, `ray_ledger.TaskLedger` on Ray."""

    def record(self, usage: Usage) -> None: ...


class LedgerService:
    """Serves `ledger` and `on_call` to worker processes, one thread per connection."""

    def __init__(
        self, ledger: Budget | None, on_call: Callable[[EpisodeKey, Usage], None] | None
    ) -> None:
        self.ledger = ledger
        self.on_call = on_call
        key = secrets.token_bytes(32)
        self._listener = Listener(authkey=key)
        self.address: Address = (str(self._listener.address), key)
        self._episodes: dict[Key, EpisodeKey] = {}
        self._held: dict[Key, list[Usage]] = {}
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, name="coworld-ledger", daemon=True).start()

    def track(self, episode: EpisodeKey) -> None:
        """`episode` is about to run in a worker process."""
        with self._lock:
            self._episodes[(episode.pairing, episode.idx)] = episode

    def release(self, episode: EpisodeKey) -> None:
        """`episode` ended: release any reservation it still holds (a process that died
        mid-call never settled it; the call's answer, if any, was never reported)."""
        key = (episode.pairing, episode.idx)
        with self._lock:
            held = self._held.pop(key, [])
            self._episodes.pop(key, None)
        if self.ledger is not None:
            for worst in held:
                self.ledger.settle(worst, None)

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn = self._listener.accept()
            except (OSError, EOFError, AuthenticationError):  # closed, or a bad client
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: Connection) -> None:
        with conn:
            while True:
                try:
                    request = conn.recv()
                except (EOFError, OSError):
                    return
                conn.send(self._answer(*request))

    def _answer(self, what: str, key: Key, *args: Any) -> bool:
        if what == "reserve":
            (worst,) = args
            if self.ledger is not None:
                try:
                    self.ledger.reserve(worst)
                except BudgetExhausted:
                    return False
                with self._lock:
                    self._held.setdefault(key, []).append(worst)
        elif what == "settle":
            worst, actual = args
            with self._lock:
                held = self._held.get(key, [])
                mine = next((i for i, w in enumerate(held) if w == worst), None)
                if mine is None:  # released already (the driver gave the episode up)
                    return True
                held.pop(mine)
            if self.ledger is not None:
                self.ledger.settle(worst, actual)
        elif what == "call":
            (usage,) = args
            episode = self._episodes.get(key)
            if episode is not None and self.on_call is not None:
                self.on_call(episode, usage)
        return True

    def close(self) -> None:
        self._closed = True
        self._listener.close()


class RemoteLedger:
    """A worker process's side: the `seats.budget.Budget` of one episode, and its
    call recorder, both answered by the driver's `LedgerService`."""

    _connections: dict[Address, Connection] = {}  # one per process and driver

    def __init__(self, address: Address, key: Key) -> None:
        conn = self._connections.get(address)
        if conn is None:
            conn = self._connections[address] = Client(address[0], authkey=address[1])
        self._conn = conn
        self._key = key

    def _ask(self, *request: Any) -> bool:
        self._conn.send(request)
        answer: bool = self._conn.recv()
        return answer

    def reserve(self, worst: Usage) -> None:
        if not self._ask("reserve", self._key, worst):
            raise BudgetExhausted()

    def settle(self, worst: Usage, actual: Usage | None) -> None:
        self._ask("settle", self._key, worst, actual)

    def record(self, usage: Usage) -> None:
        self._ask("call", self._key, usage)
