"""Infrastructure failures are not decisions (docs/failures.md).

A transport error, 429, 5xx or 529 is never shown to the model and never becomes
a move: the client retries it with exponential backoff and jitter, honouring
`retry-after`, for as long as the run's patience allows, then gives up with
`InfraFailure` (the episode is void). A circuit breaker shared by every call of
a run stops sending while most recent calls fail, lets one probe through at a
time, and reopens the gate when the API answers. When the calls of a run are in
several processes (Ray), one `CircuitBreaker` holds the state where they all
reach it and each process's breaker forwards to it (`SharedState`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import CoworldError, InfrastructureStop

#: Default patience: how long one call may wait out the network before its episode is void.
DEFAULT_PATIENCE_SECONDS = 300.0


class InfraFailure(CoworldError):
    """A call could not be answered within the run's patience (or the API refused it
    for a reason no retry fixes: `fatal`). The episode is void, never scored."""

    def __init__(self, cause: str, message: str, *, fatal: bool = False) -> None:
        super().__init__(f"the API did not answer ({cause}): {message}")
        self.cause = cause
        self.fatal = fatal


class RequestRejected(InfraFailure, InfrastructureStop):
    """The API refused a request as invalid (HTTP 400 `invalid_request_error`): the
    policy's parameters, not the network. The league stops; no retry can help."""

    def __init__(self, policy: str, message: str) -> None:
        CoworldError.__init__(self, f"{policy}: the API rejected the request: {message}")
        self.cause = REJECTED
        self.fatal = True
        self.policy = policy


#: The cause recorded for an episode cut short by a rejected request.
REJECTED = "rejected"


class ModelTimeout(Exception):
    """The API accepted the request and the model did not answer within the timeout."""

    def __init__(self, waited: float) -> None:
        super().__init__("model timeout")
        self.waited = waited


@dataclass(frozen=True)
class InfraPolicy:
    """How long and how often to retry infrastructure failures."""

    patience_seconds: float = DEFAULT_PATIENCE_SECONDS
    base_delay: float = 0.5
    max_delay: float = 30.0
    #: The breaker opens when at least `min_calls` of the last `window` outcomes are
    #: known and at least `threshold` of them are failures.
    window: int = 20
    min_calls: int = 8
    threshold: float = 0.8
    #: While open, one probe is let through every `probe_seconds` (doubling to `max_delay`).
    probe_seconds: float = 1.0

    def backoff(self, retry: int, retry_after: float | None) -> float:
        """Full-jitter exponential backoff, never shorter than the server's `retry-after`."""
        ceiling = min(self.max_delay, self.base_delay * 2**retry)
        delay = random.uniform(ceiling / 2, ceiling)
        return max(delay, retry_after or 0.0)


#: HTTP statuses that are worth retrying (the rest are refusals: bad key, unknown model).
RETRYABLE_STATUS = {408, 409, 429}


#: Causes without an HTTP status that may pass if one waits: a transport error, an
#: answer the client cannot read (`stream.Unusable`), an API that accepts a request
#: and sends nothing back within the timeout.
RETRYABLE_CAUSES = {"connection", "unreadable", "hung"}


def retryable_cause(cause: str) -> bool:
    """Whether an infrastructure cause (`classify`) may pass if one waits."""
    # a batch request's expiry or cancellation (`batch-expired`, ...) is retried in a later round
    if cause in RETRYABLE_CAUSES or cause.startswith("batch-"):
        return True
    status = cause.removeprefix("http-")
    return status.isdigit() and (int(status) in RETRYABLE_STATUS or int(status) >= 500)


def classify(err: BaseException) -> tuple[str, bool] | None:
    """(cause, retryable) of an infrastructure failure; None for the model's own timeout."""
    import anthropic

    if isinstance(err, anthropic.APITimeoutError):
        return None
    if isinstance(err, anthropic.APIConnectionError):
        return "connection", True
    if isinstance(err, anthropic.APIStatusError):
        status = err.status_code
        return f"http-{status}", status in RETRYABLE_STATUS or status >= 500
    return f"error-{type(err).__name__}", False


def retry_after(err: BaseException) -> float | None:
    """The server's `retry-after-ms` / `retry-after` (seconds), if it sent one."""
    response = getattr(err, "response", None)
    headers: Any = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers.get(name)) * scale)
        except (TypeError, ValueError):
            continue
    return None


@dataclass
class Pause:
    cause: str
    since: float  # time.time()
    until: float | None = None


def outlasted(cause: str) -> InfraFailure:
    """A pause longer than the call's patience."""
    return InfraFailure(cause, f"API unavailable ({cause}) for longer than the patience")


class SharedState(Protocol):
    """The one `CircuitBreaker` of a run whose calls are in several processes,
    reached from each of them (`league.ray_breaker`)."""

    async def admit(self, patience: float) -> str | bool:
        """Its `admit`, with the caller's patience left in seconds (clocks differ
        between hosts); the cause instead of raising InfraFailure."""
        ...

    def record(self, ok: bool, cause: str | None, probe: bool) -> None: ...

    def release_probe(self, probe: bool) -> None: ...

    def view(self) -> tuple[list[Pause], int, int]:
        """Its (pauses, waiting, probes)."""
        ...


@dataclass
class CircuitBreaker:
    """Shared by every call of a run (on one event loop).

    With `shared`, the state is another process's breaker: this one forwards each
    call's outcome to it and asks it to admit each call, except right after an
    answer (the API is up; asking costs a round trip, about 0.5 ms CPU): so a
    process sends at most one call past an opened breaker, as if it had been in
    flight when it opened, then waits for it. Its `pauses`, `waiting` and
    `probes` mirror that one's (read again at most every `VIEW_SECONDS`, when
    `paused` is asked)."""

    policy: InfraPolicy = field(default_factory=InfraPolicy)
    outcomes: deque[bool] = field(default_factory=deque)
    pauses: list[Pause] = field(default_factory=list)
    probes: int = 0
    #: Calls waiting for the gate to reopen right now.
    waiting: int = 0
    #: The run's breaker in another process, or None: the state is here.
    shared: SharedState | None = None
    _next_probe: float = 0.0
    _probe_delay: float = 0.0
    _probing: bool = False
    _viewed: float = float("-inf")
    _answered: bool = False  # shared: this process's last call was answered

    VIEW_SECONDS = 0.05

    @property
    def paused(self) -> Pause | None:
        """The current pause, or None while the API answers."""
        if self.shared is not None and time.monotonic() - self._viewed >= self.VIEW_SECONDS:
            self.refresh()
        if self.pauses and self.pauses[-1].until is None:
            return self.pauses[-1]
        return None

    def record(self, ok: bool, cause: str | None = None, probe: bool = False) -> None:
        """A call's outcome. While paused, any answer resumes; a failed probe backs off."""
        if self.shared is not None:
            self._answered = ok
            self.shared.record(ok, cause, probe)
            return
        self.outcomes.append(ok)
        while len(self.outcomes) > self.policy.window:
            self.outcomes.popleft()
        pause = self.paused
        if pause is not None:
            if probe:
                self._probing = False
            if ok:
                pause.until = time.time()
                self.outcomes.clear()
            elif probe:
                self._probe_delay = min(self.policy.max_delay, self._probe_delay * 2)
                self._next_probe = time.monotonic() + self._probe_delay
            return
        failures = self.outcomes.count(False)
        if (
            not ok
            and len(self.outcomes) >= self.policy.min_calls
            and failures >= self.policy.threshold * len(self.outcomes)
        ):
            self.pauses.append(Pause(cause or "error", time.time()))
            self._probe_delay = self.policy.probe_seconds
            self._next_probe = time.monotonic() + self._probe_delay

    async def admit(self, deadline: float) -> bool:
        """Return when a call may be sent (True if it is the probe): at once while
        closed; while open, one probe per interval. Raises InfraFailure when
        `deadline` passes first."""
        if self.shared is not None:
            if self._answered:
                return False
            admitted = await self.shared.admit(deadline - time.monotonic())
            if isinstance(admitted, str):
                raise outlasted(admitted)
            return admitted
        self.waiting += 1
        try:
            while (pause := self.paused) is not None:
                now = time.monotonic()
                if not self._probing and now >= self._next_probe:
                    self._probing = True
                    self.probes += 1
                    return True
                if now >= deadline:
                    raise outlasted(pause.cause)
                await asyncio.sleep(min(0.05, max(deadline - now, 0.001)))
            return False
        finally:
            self.waiting -= 1

    def release_probe(self, probe: bool) -> None:
        """A call ended without an outcome (the model timed out, the task was cancelled)."""
        if self.shared is not None:
            self.shared.release_probe(probe)
        elif probe:
            self._probing = False

    def refresh(self) -> None:
        """Mirror the shared breaker's pauses, waiting calls and probes."""
        if self.shared is not None:
            self.pauses, self.waiting, self.probes = self.shared.view()
            self._viewed = time.monotonic()
