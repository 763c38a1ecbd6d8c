"""One budget shared by processes (league.shared_budget): reservations in the league
database never let the spend pass the cap, however the processes interleave."""

from __future__ import annotations

import multiprocessing
import time

from coworld.league.shared_budget import SharedLedger
from coworld.league.storage import LeagueDB
from coworld.seats.budget import BudgetExhausted
from coworld.seats.claude import Usage

CAP = 100_000
WORST = Usage(input_tokens=300, output_tokens=200, cost_usd=0.001, calls=1)


def spend_until_refused(path: str, seed: int, start, made) -> None:
    """Once every process is ready: reserve, record what the call 'cost' (a varying
    part of its worst case), settle; until a reservation is refused. Puts the
    number of calls made on `made`."""
    db = LeagueDB(path)
    ledger = SharedLedger(db, "t", (CAP, None))
    calls = 0
    start.wait()
    try:
        while True:
            worst = Usage(**WORST.__dict__)
            try:
                ledger.reserve(worst)
            except BudgetExhausted:
                made.put(calls)
                return
            actual = Usage(input_tokens=300, output_tokens=(seed * 37 + calls * 53) % 200, calls=1)
            db.add_call("t", f"p{seed}", calls, actual)
            ledger.settle(worst, actual)
            calls += 1
            time.sleep(0.002)  # as a call takes time: on a loaded host one process would run alone
    finally:
        db.close()


def test_processes_sharing_one_budget_never_spend_past_it(tmp_path):
    path = str(tmp_path / "league.db")
    LeagueDB(path).close()
    ctx = multiprocessing.get_context("spawn")
    start, made = ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=spend_until_refused, args=(path, s, start, made)) for s in range(4)]
    for p in procs:
        p.start()
    calls = [made.get(timeout=120) for _ in procs]
    for p in procs:
        p.join()
    db = LeagueDB(path)
    try:
        spent = db.spent("t")
        # the processes interleaved (not one after another)
        assert spent.calls == sum(calls) and sum(n > 0 for n in calls) >= 2
        assert spent.tokens <= CAP
        # refused only when a worst case no longer fitted: the cap was nearly reached
        assert spent.tokens > CAP - len(calls) * WORST.tokens
        assert db.conn.execute("SELECT COUNT(*) FROM reservations").fetchone()[0] == 0
    finally:
        db.close()


def test_a_reservation_counts_against_other_processes_until_settled(tmp_path):
    path = str(tmp_path / "league.db")
    a, b = LeagueDB(path), LeagueDB(path)
    try:
        first, second = SharedLedger(a, "t", (1000, None)), SharedLedger(b, "t", (1000, None))
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
        a.clear_reservations("t")  # a new run starts clean
        assert a.conn.execute("SELECT COUNT(*) FROM reservations").fetchone()[0] == 0
    finally:
        a.close()
        b.close()
