"""The budget and the call records of a Ray run, kept by the driver.

Ray tasks never open the league database: it lives with the driver, on its own
disk (SQLite's locks do not hold across hosts or over a network file system).
A task's calls go through one actor the driver owns (`LedgerActor`): each call
reserves its worst case against the run's budget (the caps, what the league
spent before the run, every call answered since and every reservation in
flight) before it is sent, reports its usage as soon as it is answered and
waits until the actor has it, then settles. So the cap holds across every node
(overshoot: at most what calls in flight cost beyond their worst cases, never
while the estimate holds), and a task killed mid-episode has every answered
call counted.

The driver drains the reported calls while it waits for tasks, writes each
through `Shared.on_call` (its `calls` row, and admission's count), and mirrors
the actor's ledger into the run's, so the runner sees the spend as on the local
backend. When a task ends (also by a crash), the driver drains its calls and
releases any reservation it still holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...seats.budget import BudgetExhausted, Ledger
from ...usage import Usage
from ..records import EpisodeKey

#: An episode: (pairing, index).
Key = tuple[str, int]
#: What the actor's ledger holds: spent, reserved, calls in flight, largest reservation.
Snapshot = tuple[Usage, Usage, int, Usage]


class LedgerActor:
    """The run's budget and the answered calls the driver has not drained yet
    (a Ray async actor: one event loop, so no call interleaves with another)."""

    def __init__(
        self, max_tokens: int | None, max_cost_usd: float | None, spent: Usage, largest: Usage
    ) -> None:
        self.ledger = Ledger(max_tokens, max_cost_usd, spent=spent, largest=largest)
        self.held: dict[Key, list[Usage]] = {}
        self.answered: list[tuple[Key, Usage]] = []

    async def reserve(self, key: Key, worst: Usage) -> bool:
        try:
            self.ledger.reserve(worst)
        except BudgetExhausted:
            return False
        self.held.setdefault(key, []).append(worst)
        return True

    async def report(self, key: Key, usage: Usage) -> None:
        """An answered call: spent at once (its reservation may never be settled)."""
        self.ledger.add_spent(usage)
        self.answered.append((key, usage))

    async def settle(self, key: Key, worst: Usage) -> None:
        held = self.held.get(key, [])
        if worst in held:  # else released already: the driver saw its task end
            held.remove(worst)
            self.ledger.settle(worst, None)  # its usage was spent when reported

    async def release(self, key: Key) -> None:
        """The episode's task ended: what it still holds was never sent or answered."""
        for worst in self.held.pop(key, []):
            self.ledger.settle(worst, None)

    async def drain(self) -> tuple[list[tuple[Key, Usage]], Snapshot]:
        answered, self.answered = self.answered, []
        b = self.ledger
        return answered, (b.spent, b.reserved, b.in_flight, b.largest)


class TaskLedger:
    """A task's side, for one episode: the client's `seats.budget.Budget` and the
    recorder of each answered call, both answered by the actor (picklable)."""

    def __init__(self, actor: Any, key: Key) -> None:
        self.actor = actor
        self.key = key

    def reserve(self, worst: Usage) -> None:
        import ray

        if not ray.get(self.actor.reserve.remote(self.key, worst)):
            raise BudgetExhausted()

    def settle(self, worst: Usage, actual: Usage | None) -> None:
        import ray

        # awaited: the episode's next reservation must not find this one still held
        ray.get(self.actor.settle.remote(self.key, worst))

    def record(self, usage: Usage) -> None:
        import ray

        ray.get(self.actor.report.remote(self.key, usage))  # counted before the task goes on


class RayLedger:
    """The driver's side: starts the actor from the run's ledger, drains it into
    the database (`on_call`) and mirrors its ledger into the run's."""

    def __init__(
        self,
        ledger: Ledger,
        on_call: Callable[[EpisodeKey, Usage], None] | None,
        concurrency: int,
    ) -> None:
        import ray

        self.ray = ray
        self.ledger = ledger
        self.on_call = on_call
        self._episodes: dict[Key, EpisodeKey] = {}
        actor_class: Any = ray.remote(LedgerActor)
        # No CPU reserved; as the breaker's actor (`ray_breaker.start`), room for
        # every task's call at once.
        options = {"num_cpus": 0, "max_concurrency": max(1000, 8 * concurrency)}
        self.actor = actor_class.options(**options).remote(
            ledger.max_tokens, ledger.max_cost_usd, ledger.spent, ledger.largest
        )

    def task(self, episode: EpisodeKey) -> TaskLedger:
        """The ledger of `episode`'s task (its calls are written as `episode`'s)."""
        key = (episode.pairing, episode.idx)
        self._episodes[key] = episode
        return TaskLedger(self.actor, key)

    def drain(self) -> None:
        answered, (spent, reserved, in_flight, largest) = self.ray.get(self.actor.drain.remote())
        for key, usage in answered:
            episode = self._episodes.get(key)
            if episode is not None and self.on_call is not None:
                self.on_call(episode, usage)
        b = self.ledger
        b.spent, b.reserved, b.in_flight, b.largest = spent, reserved, in_flight, largest

    def finished(self, episode: EpisodeKey) -> None:
        """`episode`'s task ended: its calls are written, its reservations released."""
        key = (episode.pairing, episode.idx)
        self.drain()
        self.ray.get(self.actor.release.remote(key))
        self._episodes.pop(key, None)

    def close(self) -> None:
        """Drain once more (calls of tasks the driver stopped waiting for), then end
        the actor."""
        try:
            self.drain()
        finally:
            self.ray.kill(self.actor)
