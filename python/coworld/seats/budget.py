"""The money guard: every call reserves its worst-case cost before it is sent
(input tokens estimated from above, output bounded by `max_tokens`) and settles
the reservation when it is answered. A call that would take spent + reserved
past the cap is not sent, so a league overshoots its budget by at most the
difference between reservations and what calls in flight really cost: never,
while the estimate holds."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..prices import price_of
from ..usage import Usage
from .policy import ClaudePolicy

#: Bytes of prompt per input token, from below: real prompts run 3-4 bytes a token,
#: so dividing by 2 over-reserves and never under-reserves.
BYTES_PER_TOKEN = 2


class BudgetExhausted(Exception):
    """A call was not sent: it could take the league past its budget."""

    def __init__(self, message: str = "the budget cannot cover this call's worst case") -> None:
        super().__init__(message)


def worst_case(policy: ClaudePolicy, system: str, messages: list[dict[str, Any]]) -> Usage:
    """The most a call can cost: every input byte a half token, written to the cache
    at the write price, and `max_tokens` of output."""
    size = len(system.encode()) + len(json.dumps(messages).encode())
    tokens_in = size // BYTES_PER_TOKEN + 16
    return Usage(
        input_tokens=tokens_in,
        output_tokens=policy.max_tokens,
        cost_usd=price_of(policy.model, policy.price).worst(tokens_in, policy.max_tokens),
        calls=1,
    )


class Budget(Protocol):
    """What a client needs of a ledger: `Ledger` in the driver, or the driver's
    reached from another process (`league.backends.driver_ledger`, `league.backends.ray_ledger`)."""

    def reserve(self, worst: Usage) -> None: ...

    def settle(self, worst: Usage, actual: Usage | None) -> None: ...


@dataclass
class Ledger:
    """Spent and reserved usage against a cap (tokens and/or dollars); one per run.
    Thread-safe: the driver's event loop and the threads serving local worker
    processes (`league.driver_ledger`) reserve against the same ledger."""

    max_tokens: int | None = None
    max_cost_usd: float | None = None
    spent: Usage = field(default_factory=Usage)
    reserved: Usage = field(default_factory=Usage)
    in_flight: int = 0
    #: The largest reservation made so far: what the next call is likely to need.
    largest: Usage = field(default_factory=Usage)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def fits(self, extra: Usage) -> bool:
        return within_caps(
            self.max_tokens,
            self.max_cost_usd,
            self.spent.tokens + self.reserved.tokens + extra.tokens,
            self.spent.cost_usd + self.reserved.cost_usd + extra.cost_usd,
        )

    def reserve(self, worst: Usage) -> None:
        with self._lock:
            if not self.fits(worst):
                raise BudgetExhausted()
            self.reserved.add(worst)
            self.in_flight += 1
            if worst.tokens > self.largest.tokens:
                self.largest = worst

    def settle(self, worst: Usage, actual: Usage | None) -> None:
        """Release a reservation; `actual` (None: unanswered) is spent."""
        with self._lock:
            self.reserved.add(_negative(worst))
            self.in_flight -= 1
            if actual is not None:
                self.spent.add(actual)

    def add_spent(self, actual: Usage) -> None:
        """Spend that was not reserved here (read back from elsewhere)."""
        with self._lock:
            self.spent.add(actual)

    @property
    def exhausted(self) -> bool:
        """No further call of the usual size fits: stop dispatching episodes."""
        return not self.fits(self.largest)


def within_caps(
    max_tokens: int | None, max_cost_usd: float | None, tokens: int, cost: float
) -> bool:
    """Whether `tokens` and `cost` (spent, reserved and asked for) stay within the
    caps; None is no cap of that kind."""
    return (max_tokens is None or tokens <= max_tokens) and (
        max_cost_usd is None or cost <= max_cost_usd + 1e-12
    )


def _negative(u: Usage) -> Usage:
    return Usage(
        -u.input_tokens,
        -u.output_tokens,
        -u.cache_creation_input_tokens,
        -u.cache_read_input_tokens,
        -u.cost_usd,
        -u.calls,
    )
