"""The league-wide circuit breaker on the Ray backend: one
breaker for every task of a run, so an outage pauses the whole league, which
sends only probes, shows the pause, and resumes when the API answers."""

from __future__ import annotations

import asyncio
import io
import math
import subprocess
import sys
import threading
import time
from dataclasses import replace

import pytest
from rich.console import Console

from coworld.league import LeagueDB, LeagueRun
from coworld.league.backends.ray_breaker import BreakerActor
from coworld.seats.infra import CircuitBreaker, InfraFailure, InfraPolicy
from tests.support.leagues import HOUSE, claude_results, make_league
from tests.support.mock_anthropic import first_legal

#: Test-speed retries. A pause probes every 0.1 s, then 0.2, then 0.4 s at most;
#: the breaker opens at 8 failures of the last 10 outcomes.
POLICY = InfraPolicy(
    patience_seconds=30.0,
    base_delay=0.02,
    max_delay=0.4,
    window=10,
    min_calls=6,
    threshold=0.8,
    probe_seconds=0.1,
)
CONCURRENCY = 2
#: A total outage shorter than the patience (each task's own breaker would fail twice
#: the bound below: it opens on its own failures and probes on its own).
OUTAGE = 3.0


#: This module's leagues: the house against the tactician on every Ray worker.
RAY = {"policies": ["tactician", "p.md"], "episodes": 3, "concurrency": CONCURRENCY}


def probes_within(seconds: float, policy: InfraPolicy) -> int:
    """The most probes a pause of `seconds` sends: the first `probe_seconds` after
    it opens, each next one after twice the last interval, at most `max_delay`."""
    n, t, delay = 0, 0.0, policy.probe_seconds
    while t + delay <= seconds:
        n, t, delay = n + 1, t + delay, min(policy.max_delay, 2 * delay)
    return n


def most_failures(seconds: float, policy: InfraPolicy) -> int:
    """The most failed requests while the whole league is down for `seconds`: those
    that open the breaker (a share `threshold` of its last `window` outcomes), one
    per episode past it (in flight when it opened, or its next call after an
    answer), then only probes."""
    return (
        math.ceil(policy.threshold * policy.window) + CONCURRENCY + probes_within(seconds, policy)
    )


class Outage:
    """The mock's script: every request answered 529 from the `after`-th request
    counted from now, for `seconds` (forever: None); counts the 529s."""

    def __init__(self, ray_api, after: int, seconds: float | None) -> None:
        self.base = len(ray_api.requests)
        self.after = after
        self.seconds = seconds
        self.began: float | None = None
        self.failed = 0
        self.lock = threading.Lock()

    def __call__(self, body, n):
        with self.lock:
            if self.began is None and n >= self.base + self.after:
                self.began = time.monotonic()
            down = self.began is not None and (
                self.seconds is None or time.monotonic() < self.began + self.seconds
            )
            self.failed += down
        return ("status", 529) if down else first_legal(body, n)


def timed_dispatch(run: LeagueRun) -> list[float]:
    """The time.time() of each episode the run dispatches (pulls from its queue)."""
    times: list[float] = []
    jobs = run.engine._jobs

    def timed(queue, db):
        for job in jobs(queue, db):
            times.append(time.time())
            yield job

    run.engine._jobs = timed  # type: ignore[method-assign]
    return times


class InProcess:
    """`SharedState` without Ray: the actor's object, called directly."""

    def __init__(self, policy: InfraPolicy) -> None:
        self.actor = BreakerActor(policy)

    async def admit(self, patience: float) -> str | bool:
        return await self.actor.admit(patience)

    def record(self, ok: bool, cause: str | None, probe: bool) -> None:
        self.actor.breaker.record(ok, cause, probe)

    def release_probe(self, probe: bool) -> None:
        self.actor.breaker.release_probe(probe)

    def view(self):
        b = self.actor.breaker
        return list(b.pauses), b.waiting, b.probes


def test_breakers_of_several_processes_act_as_one():
    policy = replace(POLICY, probe_seconds=0.05)
    state = InProcess(policy)
    driver, a, b = (CircuitBreaker(policy, shared=state) for _ in range(3))

    async def scenario() -> None:
        now = time.monotonic
        assert await b.admit(now() + 5) is False  # closed: b's first call is sent
        b.record(True)
        failures = 0
        while not driver.pauses and failures < policy.window:  # a's calls fail ...
            assert await a.admit(now() + 5) is False
            a.record(False, "http-529")
            failures += 1
            driver.refresh()
        # ... until the run's breaker opens: min_calls outcomes, b's answer and 5 of a's
        # failures (5 >= threshold 0.8 x 6)
        assert failures == policy.min_calls - 1
        assert driver.paused is not None and driver.paused.cause == "http-529"
        # b heard from the API last: its next call goes (one past the breaker) ...
        assert await b.admit(now() + 5) is False
        b.record(False, "http-529")
        # ... then it waits like a: one probe at a time, none before the interval
        waits = [asyncio.ensure_future(x.admit(now() + 5)) for x in (a, b)]
        done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        assert time.time() - driver.pauses[0].since >= policy.probe_seconds - 0.01
        assert len(done) == 1 and done.pop().result() is True and len(pending) == 1
        driver.refresh()
        assert driver.waiting == 1 and driver.probes == 1
        prober = a if waits[0].done() else b
        prober.record(True, probe=True)  # the probe is answered: the league resumes
        assert await pending.pop() is False
        driver.refresh()
        assert driver.paused is None and driver.pauses[0].until is not None
        # a pause longer than a call's patience: the call gives up with the cause
        fresh = CircuitBreaker(policy, shared=InProcess(replace(policy, min_calls=1)))
        fresh.record(False, "http-503")
        with pytest.raises(InfraFailure, match="http-503"):
            await fresh.admit(now() + 0.01)

    asyncio.run(scenario())


def test_an_outage_pauses_every_ray_task_and_changes_no_score(
    tmp_path, ray_cluster, ray_api, ray_script, ray_env
):
    clean = LeagueRun(
        make_league(tmp_path, RAY, house=HOUSE, name="clean"), infra=POLICY, progress=False
    ).run()
    clean_rows, clean_table, _ = claude_results(clean.database, "clean")

    outage = Outage(ray_api, after=12, seconds=OUTAGE)  # from the league's 12th request
    ray_script(outage)
    screen = io.StringIO()
    run = LeagueRun(
        make_league(tmp_path, RAY, house=HOUSE, name="t"),
        backend="ray",
        infra=POLICY,
        console=Console(file=screen, force_terminal=True, width=200),
    )
    dispatched = timed_dispatch(run)
    report = run.run()

    rows, table, rel = claude_results(report.database, "t")
    assert rows == clean_rows and table == clean_table  # no scored fallback, nothing changed
    assert rel["house"]["fallbacks"] == 0 and not report.voided
    assert LeagueDB(report.database).voids("t") == []
    assert len(report.pauses) == 1 and report.pauses[0].cause == "http-529"
    pause = report.pauses[0]
    assert pause.until is not None  # resumed
    assert "paused: API unavailable (529) since" in screen.getvalue()
    # one breaker for the league: a handful failed, then one probe at a time
    assert 0 < outage.failed <= most_failures(OUTAGE, POLICY)
    # dispatching held: an episode starts during the pause only to carry the probe
    # when no call waits (an episode ended without needing the API), at most one
    assert sum(pause.since < t < pause.until for t in dispatched) <= 1


def test_an_outage_past_the_patience_voids_with_its_cause_and_stops_dispatching(
    tmp_path, ray_cluster, ray_api, ray_script, ray_env
):
    policy = replace(POLICY, patience_seconds=1.5)
    config = make_league(tmp_path, RAY, house=HOUSE, name="t", void_retries=1)
    outage = Outage(ray_api, after=1, seconds=None)  # down after the pre-flight ping
    ray_script(outage)
    run = LeagueRun(config, backend="ray", infra=policy, progress=False)
    dispatched = timed_dispatch(run)
    report = run.run()
    ended = time.time()

    db = LeagueDB(report.database)
    voids = db.voids("t")
    assert db.runner_rows("t") == [] and voids  # nothing scored, no fallback
    assert {v.cause for v in voids} == {"http-529"}
    assert report.voided and set(report.voided) == {"http-529"}
    assert report.stopped and "unavailable (http-529) for longer than the patience" in (
        report.stopped
    )
    pause = report.pauses[0]
    assert pause.until is None
    # once the pause outlasted the patience, nothing more was dispatched (each of the
    # 6 episodes would otherwise have been played and re-queued once: 12 voids)
    # (give or take the time from the runner's check to the dispatch: a database read)
    assert max(dispatched) <= pause.since + policy.patience_seconds + 0.25
    assert len(voids) == len(dispatched) < 12
    assert 0 < outage.failed <= most_failures(ended - pause.since, policy)


KILLED_RUN = """
import sys
from pathlib import Path
from coworld.league import LeagueRun, parse_league
from coworld.seats.infra import InfraPolicy
policy = InfraPolicy(patience_seconds=60.0, base_delay=0.02, max_delay=0.4, window=10,
                     min_calls=6, probe_seconds=0.1)
raw = {"name": "t", "games": ["connect-four"], "policies": ["tactician", "p.md"],
       "episodes": 3, "seed": 4, "replays": 0, "concurrency": 2, "out": sys.argv[2]}
config = parse_league(raw, base_dir=Path(sys.argv[3]))
LeagueRun(config, backend="ray", address=sys.argv[1], infra=policy, progress=False).run()
"""


def test_a_killed_ray_run_leaves_no_open_breaker(
    tmp_path, ray_cluster, ray_api, ray_script, ray_env
):
    """A run killed during an outage: the next run starts closed (its calls are
    sent at once, no pause), and plays what the killed one left."""
    config = make_league(tmp_path, RAY, house=HOUSE, name="t")  # writes p.md
    outage = Outage(ray_api, after=1, seconds=None)
    ray_script(outage)
    address = ray_cluster.get_runtime_context().gcs_address
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_RUN, address, str(tmp_path / "t"), str(tmp_path)]
    )
    try:
        # the killed run's breaker opened: it fails no more than the opening share
        # and in-flight calls, then probes at most every 0.4 s
        opened = math.ceil(POLICY.threshold * POLICY.window)
        deadline = time.monotonic() + 60
        while outage.failed < opened and time.monotonic() < deadline:
            assert proc.poll() is None
            time.sleep(0.05)
        time.sleep(1.0)
    finally:
        proc.kill()
        proc.wait()
    assert outage.failed >= opened

    ray_script(first_legal)
    run = LeagueRun(config, backend="ray", infra=POLICY, progress=False)
    report = run.run()
    assert (
        report.pauses == [] and run.session.breaker is not None and run.session.breaker.probes == 0
    )
    assert report.missing == 0 and not report.voided
