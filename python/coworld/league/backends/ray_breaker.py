"""The league-wide circuit breaker of a Ray run: one `CircuitBreaker` in an actor
the driver owns, reached by every task's client and by the driver (which holds
dispatching while it is open and shows the pause).

Why an actor and not the league database: the breaker must not outlive the run
(the calls the budget counts do: the driver writes them). Its state is a few
seconds of outcomes, one probe token and the waits of the calls held back: an
actor runs the local runner's `CircuitBreaker` as it is (one clock, one event
loop, the waits are awaits, not polls of a table), and, owned by the driver,
dies with it, so a killed run leaves no open breaker behind for the next one.
The database would need that state machine written again as transactions, on
wall clocks, polled by every waiting call, and cleared at each start."""

from __future__ import annotations

import time
from typing import Any

from ...seats.infra import CircuitBreaker, InfraFailure, InfraPolicy, Pause


class BreakerActor:
    """The run's breaker (a Ray async actor: each waiting call is a coroutine)."""

    def __init__(self, policy: InfraPolicy) -> None:
        self.breaker = CircuitBreaker(policy)

    async def admit(self, patience: float) -> str | bool:
        try:
            return await self.breaker.admit(time.monotonic() + patience)
        except InfraFailure as err:
            return err.cause

    async def record(self, ok: bool, cause: str | None, probe: bool) -> None:
        self.breaker.record(ok, cause, probe)

    async def release_probe(self, probe: bool) -> None:
        self.breaker.release_probe(probe)

    async def view(self) -> tuple[list[Pause], int, int]:
        b = self.breaker
        return b.pauses, b.waiting, b.probes


class ActorState:
    """`seats.infra.SharedState` through the actor's handle (picklable: tasks get
    it with their job). Outcomes are sent without waiting for the actor; the
    next admission, sent after them, waits for it."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def admit(self, patience: float) -> str | bool:
        admitted: str | bool = await self.actor.admit.remote(patience)
        return admitted

    def record(self, ok: bool, cause: str | None, probe: bool) -> None:
        self.actor.record.remote(ok, cause, probe)

    def release_probe(self, probe: bool) -> None:
        if probe:
            self.actor.release_probe.remote(probe)

    def view(self) -> tuple[list[Pause], int, int]:
        import ray

        pauses, waiting, probes = ray.get(self.actor.view.remote())
        return list(pauses), int(waiting), int(probes)


def start(policy: InfraPolicy, concurrency: int) -> Any:
    """The run's breaker actor (owned by the caller: it ends with the driver).
    No CPU is reserved for it; every call of the run may wait in it at once."""
    import ray

    actor_class: Any = ray.remote(BreakerActor)
    return actor_class.options(num_cpus=0, max_concurrency=max(1000, 8 * concurrency)).remote(
        policy
    )


def task_breaker(state: ActorState, policy: InfraPolicy) -> CircuitBreaker:
    """A task's breaker: every call goes through the run's one."""
    return CircuitBreaker(policy, shared=state)
