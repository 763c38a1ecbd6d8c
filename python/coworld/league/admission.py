"""Admitting Claude episodes near the budget cap.

The ledger (`seats.budget`) keeps the cap: a call whose worst case does not fit is
not sent, and its episode is void. Near the cap that would void every episode in
flight, and throw their spend away. So a new episode is admitted only while the
budget left covers finishing every episode in flight and the new one: for each,
its expected remaining calls at the pairing's measured cost per call, plus one
call's worst case (the reservation its next call must find room for).

Expected calls per episode start from the most the ply cap allows (a safe prior)
and move to the mean of the pairing's finished episodes as they come in (the
prior weighs as PRIOR_EPISODES episodes); the cost per call is the mean of the
pairing's answered calls (before the first answer: a call's worst case).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from ..seats.budget import Ledger, within_caps
from ..usage import Usage
from .records import EpisodeRow, VoidEpisode

#: How many finished episodes the prior (the ply cap's calls) weighs as.
PRIOR_EPISODES = 2


@dataclass
class PairingCost:
    """What one pairing's episodes cost: the prior, and what was measured."""

    calls_max: int  # the most calls an episode can make (no retries)
    worst_call: Usage  # one call's worst case (its reservation)
    finished: int = 0
    finished_calls: int = 0
    answered: Usage = field(default_factory=Usage)  # every answered call

    def calls(self) -> float:
        """Expected calls of an episode."""
        prior = PRIOR_EPISODES * self.calls_max
        return (self.finished_calls + prior) / (self.finished + PRIOR_EPISODES)

    def per_call(self) -> tuple[float, float]:
        """(tokens, cost) of an average call."""
        n = self.answered.calls
        if n == 0:
            return float(self.worst_call.tokens), self.worst_call.cost_usd
        return self.answered.tokens / n, self.answered.cost_usd / n


class Admission:
    """Which Claude episodes may start: see the module doc."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.pairings: dict[str, PairingCost] = {}
        self._flight: dict[tuple[str, int], Usage] = {}  # episodes in flight: usage so far
        self._lock = threading.Lock()

    @property
    def in_flight(self) -> int:
        return len(self._flight)

    def know(self, pairing: str, calls_max: int, worst_call: Usage) -> None:
        if pairing not in self.pairings:
            self.pairings[pairing] = PairingCost(calls_max, worst_call)

    def admits(self, pairing: str) -> bool:
        """Whether an episode of `pairing` may start now."""
        with self._lock:
            tokens, cost = self._need(pairing, Usage())
            for (p, _), used in self._flight.items():
                more = self._need(p, used)
                tokens, cost = tokens + more[0], cost + more[1]
        spent = self.ledger.spent
        return within_caps(
            self.ledger.max_tokens,
            self.ledger.max_cost_usd,
            int(spent.tokens + tokens),
            spent.cost_usd + cost,
        )

    def _need(self, pairing: str, used: Usage) -> tuple[float, float]:
        """(tokens, cost) an episode of `pairing` that made `used` still needs."""
        p = self.pairings[pairing]
        tokens, cost = p.per_call()
        worst = max(p.worst_call, self.ledger.largest, key=lambda u: u.cost_usd)
        left = max(p.calls() - used.calls, 1.0)
        return (
            left * tokens + max(worst.tokens - tokens, 0.0),
            left * cost + max(worst.cost_usd - cost, 0.0),
        )

    def started(self, pairing: str, idx: int) -> None:
        with self._lock:
            self._flight[(pairing, idx)] = Usage()

    def on_call(self, pairing: str, idx: int, usage: Usage) -> None:
        """A call of an episode in flight was answered."""
        with self._lock:
            used = self._flight.get((pairing, idx))
            if used is not None:
                used.add(usage)
            if pairing in self.pairings:
                self.pairings[pairing].answered.add(usage)

    def finished(self, result: EpisodeRow | VoidEpisode) -> None:
        with self._lock:
            self._flight.pop((result.pairing, result.idx), None)
            p = self.pairings.get(result.pairing)
            if p is None:
                return
            if isinstance(result, EpisodeRow):  # a void one stopped early: not its length
                p.finished += 1
                p.finished_calls += result.usage.calls
