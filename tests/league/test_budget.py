"""The budget holds whoever the opponent is: every Claude call, in the driver or in a
worker process, reserves against the league's one budget and is recorded; the
start-up check respects it; episodes near the cap are admitted only while the
budget left can finish them. Against the local Messages API server. Underneath, one
budget shared by processes (league.backends.ray_ledger): the ledger actor the driver
owns never lets the spend pass the cap, however the tasks interleave, and the driver
alone writes their calls to the league database."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

import coworld
from coworld.league import LeagueDB, LeagueRun
from coworld.league.backends.ray_ledger import RayLedger, TaskLedger
from coworld.league.records import EpisodeKey
from coworld.seats.budget import BudgetExhausted, Ledger
from coworld.seats.infra import InfraPolicy
from coworld.usage import Usage
from tests.support.leagues import FAST, TERSE, league_toml, make_league
from tests.support.mock_anthropic import (
    billed_at_worst,
    billed_by_size,
    random_legal,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: This module's leagues: the terse house against a Python bot (rnd.py), 10 episodes.
BUDGET = {"policies": ["p.md", "rnd.py"], "episodes": 10, "concurrency": 4, "out": "out"}
BOT = {"rnd.py": (EXAMPLES / "random_bot.py").read_text()}


@pytest.fixture
def api(mock_api):
    """This module's model plays random legal moves."""
    return mock_api(random_legal)


def test_a_claude_seat_against_a_python_policy_keeps_the_budget(tmp_path, api):
    """The Claude-vs-Python episodes run in worker processes: their calls reserve
    against the same budget as the driver's own episodes (Claude vs `random`) and
    every one of them is in the `calls` table."""
    config = make_league(
        tmp_path,
        BUDGET,
        house=TERSE,
        files=BOT,
        policies=["p.md", "rnd.py", "random"],
        budget={"max_cost_usd": 0.05},
    )
    report = LeagueRun(config, progress=False, infra=FAST).run()
    db = LeagueDB(config.database)
    try:
        spent = db.spent("t")
        assert report.budget_stopped and report.missing > 0
        assert spent.cost_usd <= 0.05
        # every answered call, the start-up check's included, is recorded
        assert spent.calls == api.answered == len(api.requests)
        # the summary adds up: scored and void episodes' usage plus the check
        check = db.conn.execute(
            "SELECT COALESCE(SUM(calls), 0) FROM calls WHERE pairing='preflight'"
        ).fetchone()[0]
        assert db.usage("t").calls + check == spent.calls
        mixed = [r for r in db.runner_rows("t") if {"rnd", "house"} == set(r.seats)]
        assert mixed and all(r.usage.calls for r in mixed)
        assert db.conn.execute("SELECT COUNT(*) FROM reservations").fetchone()[0] == 0
    finally:
        db.close()


def test_a_zero_budget_sends_no_call_not_even_the_start_up_check(tmp_path, api):
    config = make_league(
        tmp_path,
        BUDGET,
        house=TERSE,
        files=BOT,
        policies=["p.md", "random"],
        budget={"max_cost_usd": 0},
    )
    report = LeagueRun(config, progress=False, infra=FAST).run()
    assert report.budget_stopped and report.played_now == 0
    assert api.requests == []


#: An adaptive league of the house and two baselines, capped at 40 episodes.
ADAPTIVE = {
    "policies": ["tactician", "random", "p.md"],
    "episodes": 2,
    "schedule": "adaptive",
    "concurrency": 2,
    "budget": {"max_episodes": 40},
}


def test_the_start_up_check_runs_once_per_run_not_once_per_round(tmp_path, api):
    """Measured on a league that played more than one adaptive round. Whether the
    first round already settles the order depends on the games (their aliases and
    the bot's draws come from fresh entropy): a league that stops after one round
    cannot tell, so another is played, up to five (each settles at once about one
    time in five)."""
    for attempt in range(5):
        (tmp_path / str(attempt)).mkdir()
        run = LeagueRun(
            make_league(tmp_path / str(attempt), BUDGET, ADAPTIVE, house=TERSE, files=BOT),
            progress=False,
            infra=FAST,
        )
        rounds: list[object] = []
        run.on_round = rounds.append
        run.run()
        if len(rounds) < 2:
            continue
        db = LeagueDB(run.config.database)
        try:
            checks = db.conn.execute("SELECT COUNT(*) FROM calls WHERE pairing='preflight'")
            assert len(rounds) > 1 and checks.fetchone()[0] == 1
        finally:
            db.close()
        return
    raise AssertionError("no adaptive league played a second round in five tries")


def test_after_an_outage_stops_the_league_adaptive_plays_no_more_rounds(tmp_path, api):
    api.script = lambda body, n: ("status", 529)
    patient = InfraPolicy(
        patience_seconds=0.5, base_delay=0.01, max_delay=0.05, min_calls=2, probe_seconds=0.05
    )
    run = LeagueRun(
        make_league(tmp_path, BUDGET, ADAPTIVE, house=TERSE, files=BOT, infra_patience=0.5),
        progress=False,
        infra=patient,
    )
    rounds: list[object] = []
    run.on_round = rounds.append
    report = run.run()
    assert report.stopped and "unavailable" in report.stopped
    assert rounds == []  # the first round stopped on the outage: no round after it


def gate(tmp_path: Path, *extra: str) -> list[str]:
    (tmp_path / "p.md").write_text(
        "---\nname: house\nmodel: claude-haiku-4-5\nmax_tokens: 40\n---\nPlay well.\n"
    )
    return [
        "gate",
        str(tmp_path / "p.md"),
        "random",
        "--games",
        "connect-four",
        "--batch",
        "4",
        "--out",
        str(tmp_path / "g"),
        *extra,
    ]


def test_a_gate_shows_its_spend_and_stops_at_its_budget_with_exit_5(tmp_path, api, capsys):
    from coworld.cli import main as cli

    assert cli(gate(tmp_path, "--budget", "0.01")) == 5
    out = " ".join(capsys.readouterr().out.split())
    db = LeagueDB(tmp_path / "g" / "league.db")
    try:
        spent = db.spent("gate: house vs random")
    finally:
        db.close()
    assert 0 < spent.cost_usd <= 0.01 and spent.calls == api.answered
    assert f"spent {spent.tokens:,} tokens (${spent.cost_usd:.2f} of the $0.01 budget)" in out
    assert "stopped by the budget" in out and "inconclusive" not in out


def test_a_gate_stopped_by_an_outage_says_so_and_exits_4(tmp_path, api, capsys):
    from coworld.cli import main as cli

    api.script = lambda body, n: ("status", 529)
    assert cli(gate(tmp_path, "--patience", "0.5")) == 4
    out = " ".join(capsys.readouterr().out.split())
    assert "stopped by infrastructure" in out and "unavailable (http-529)" in out
    assert "inconclusive" not in out


def test_league_plan_works_with_a_python_policy(tmp_path, capsys):
    from coworld.cli import main as cli

    league_toml(tmp_path, BUDGET, house=TERSE, files=BOT, episodes=2, concurrency=None)
    assert cli(["league", "plan", str(tmp_path / "l.toml")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "up to 84 calls" in out  # 2 pairings x 2 episodes x 21 decisions of a 42-ply cap
    assert "fallback baseline in every Claude and Python seat" in out


def sometimes_unreadable(body, n):
    """The random model, whose first answer to one decision in ten is unreadable."""
    if n % 10 == 3 and len(body["messages"]) == 1:
        return ("text", "I would rather not say.")
    return random_legal(body, n)


@pytest.mark.parametrize("game", coworld.GAMES)
def test_the_plans_up_to_bounds_a_run_on_every_game(tmp_path, mock_api, game):
    """Against a model playing random legal moves (retrying one decision in ten),
    billed a token per 3 bytes: the plan's "up to" bounds what the run spent."""
    from coworld.league.plan import plan

    config = make_league(
        tmp_path,
        BUDGET,
        house=TERSE,
        files=BOT,
        games={game: {"seats": 2} if game == "hanabi" else {}},
        policies=["p.md", "random"],
        episodes=3,
        concurrency=8,
    )
    rows = plan(config)
    mock_api(sometimes_unreadable, usage=billed_by_size)
    LeagueRun(config, progress=False, infra=FAST).run()
    db = LeagueDB(config.database)
    try:
        spent = db.usage("t")  # the episodes' calls (the start-up check is not planned)
        retries = sum(
            sum(d.get("retry", 0) + d.get("fallback", 0) for d in r.decisions)
            for r in db.runner_rows("t")
        )
    finally:
        db.close()
    assert spent.calls - retries <= sum(r.calls_max for r in rows)
    assert spent.tokens <= sum(r.input_tokens_max + r.output_tokens_max for r in rows)
    assert spent.cost_usd <= sum(r.cost_usd for r in rows)


@pytest.mark.parametrize("billing", [billed_by_size, billed_at_worst])
def test_a_budget_stop_at_high_concurrency_wastes_little(tmp_path, mock_api, billing):
    """64 episodes in flight, a cap that covers about 70 of the league's 120 episodes:
    the episodes still in flight at the stop, void and unscored, took at most 10% of
    the spend, and the cap held. (A stop may lose the one or two episodes in flight,
    each up to a long episode's cost: with a cap of about 35 episodes that alone
    came near 10% in one league of ten.)"""
    cap = 0.80
    config = make_league(
        tmp_path,
        BUDGET,
        house=TERSE,
        files=BOT,
        policies=["p.md", "random"],
        episodes=60,
        concurrency=64,
        budget={"max_cost_usd": cap},
    )
    mock = mock_api(random_legal, usage=billing)
    report = LeagueRun(config, progress=False, infra=FAST).run()
    db = LeagueDB(config.database)
    try:
        spent, scored = db.spent("t"), db.usage("t", voided=False)
    finally:
        db.close()
    assert report.budget_stopped and 0 < report.episodes < 120
    assert spent.cost_usd <= cap and spent.calls == mock.answered
    assert spent.cost_usd - scored.cost_usd <= 0.10 * spent.cost_usd


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
