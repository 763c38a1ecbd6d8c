"""One budget shared by processes (league.backends.ray_ledger): the ledger actor the driver
owns never lets the spend pass the cap, however the tasks interleave, and the
driver alone writes their calls to the league database."""

from __future__ import annotations

import time
from typing import Any

from coworld.league.backends.ray_ledger import RayLedger, TaskLedger
from coworld.league.records import EpisodeKey
from coworld.league.storage import LeagueDB
from coworld.seats.budget import BudgetExhausted, Ledger
from coworld.usage import Usage

CAP = 100_000
WORST = Usage(input_tokens=300, output_tokens=200, cost_usd=0.001, calls=1)


def job(pairing: str) -> EpisodeKey:
    """Episode 0 of `pairing`: what a task's ledger is kept for."""
    return EpisodeKey(pairing, 0, "hex", 1, ())


class Start:
    """A barrier: every task begins once all are ready (a Ray async actor)."""

    def __init__(self, parties: int) -> None:
        import asyncio

        self.parties, self.ready = parties, asyncio.Event()

    async def wait(self) -> None:
        self.parties -= 1
        if self.parties == 0:
            self.ready.set()
        await self.ready.wait()


def spend_until_refused(ledger: TaskLedger, seed: int, start: Any) -> int:
    """Once every task is ready: reserve, report what the call 'cost' (a varying part
    of its worst case), settle; until a reservation is refused. The calls made."""
    import ray

    ray.get(start.wait.remote())
    calls = 0
    while True:
        worst = Usage(**WORST.__dict__)
        try:
            ledger.reserve(worst)
        except BudgetExhausted:
            return calls
        actual = Usage(input_tokens=300, output_tokens=(seed * 37 + calls * 53) % 200, calls=1)
        ledger.record(actual)
        ledger.settle(worst, actual)
        calls += 1
        time.sleep(0.002)  # as a call takes time: on a loaded host one process would run alone


def test_processes_sharing_one_budget_never_spend_past_it(tmp_path, ray_cluster):
    ray = ray_cluster
    db = LeagueDB(tmp_path / "league.db")
    try:
        ledger = Ledger(CAP, None)
        driver = RayLedger(ledger, lambda j, u: db.add_call("t", j.pairing, j.idx, u), 4)
        jobs = [job(f"p{s}") for s in range(4)]
        start: Any = ray.remote(Start).options(num_cpus=0).remote(len(jobs))
        task = ray.remote(num_cpus=0)(spend_until_refused)
        pending = [task.remote(driver.task(j), s, start) for s, j in enumerate(jobs)]
        while pending:  # the driver writes the calls while the tasks run
            _, pending = ray.wait(pending, num_returns=len(pending), timeout=0.2)
            driver.drain()
        for j in jobs:
            driver.finished(j)
        driver.close()
        calls = [int(db.conn.execute(
            "SELECT COUNT(*) FROM calls WHERE pairing=?", (j.pairing,)
        ).fetchone()[0]) for j in jobs]  # fmt: skip
        spent = db.spent("t")
        # the processes interleaved (not one after another)
        assert spent.calls == sum(calls) and sum(n > 0 for n in calls) >= 2
        assert spent.tokens <= CAP
        # refused only when a worst case no longer fitted: the cap was nearly reached
        assert spent.tokens > CAP - len(calls) * WORST.tokens
        # no reservation is left (the run's ledger mirrors the actor's)
        assert ledger.in_flight == 0 and ledger.reserved.tokens == 0
        assert ledger.spent.tokens == spent.tokens
        assert db.conn.execute("SELECT COUNT(*) FROM reservations").fetchone()[0] == 0
    finally:
        db.close()


def test_a_reservation_counts_against_other_processes_until_settled(tmp_path, ray_cluster):
    db = LeagueDB(tmp_path / "league.db")
    try:
        driver = RayLedger(Ledger(1000, None), None, 2)
        a, b = job("a"), job("b")
        first, second = driver.task(a), driver.task(b)
        held = Usage(**WORST.__dict__)
        first.reserve(held)  # 500 of 1000 held by one process
        second.reserve(Usage(**WORST.__dict__))  # the other takes the rest
        try:
            second.reserve(Usage(**WORST.__dict__))
            raise AssertionError("a third worst case fitted in a budget of two")
        except BudgetExhausted:
            pass
        first.settle(held, None)  # unanswered: released, nothing spent
        second.reserve(Usage(**WORST.__dict__))
        # a task that ended holding reservations (killed): the driver releases them
        driver.finished(b)
        first.reserve(Usage(**WORST.__dict__))
        driver.close()  # the run is killed with its actor: the next starts clean
        after = Ledger(1000, None, spent=db.spent("t"))
        fresh = RayLedger(after, None, 2)
        fresh.task(a).reserve(Usage(**WORST.__dict__))
        fresh.task(b).reserve(Usage(**WORST.__dict__))
        fresh.drain()
        assert after.in_flight == 2 and after.reserved.tokens == 1000
        fresh.close()
        assert db.conn.execute("SELECT COUNT(*) FROM reservations").fetchone()[0] == 0
    finally:
        db.close()
