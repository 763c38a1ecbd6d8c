"""Batch mode against a local Message Batches server (the real `anthropic` client
pointed at it): the same standings as realtime, nothing paid twice across a
kill -9, errored and expired requests never moves, the budget cap holds."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coworld.league import LeagueDB, LeagueRun
from coworld.replay import recheck
from coworld.seats.infra import InfraPolicy
from coworld.usage import Usage
from tests.support.leagues import TERSE, league_toml, make_league
from tests.support.mock_anthropic import user_text
from tests.support.mock_batches import MockBatches

ROOT = Path(__file__).resolve().parents[2]
FAST = InfraPolicy(patience_seconds=20.0, base_delay=0.01, max_delay=0.2)


def by_content(body: dict, n: int) -> tuple:
    """A deterministic model: a legal move chosen by the prompt's hash (whatever
    the order requests arrive in), sometimes an unusable reply (a retry)."""
    text = re.sub(r"cog-[0-9a-f]{4}", "", user_text(body))  # aliases: each run's own
    h = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    legal = text.split("Legal moves", 1)[-1].split("\n", 1)[0]
    moves = [m for m in legal.replace(":", " ").replace(",", " ").split() if m.isalpha()]
    if h % 7 == 0 and "could not be used" not in text:
        return ("text", "I pass")
    return ("text", json.dumps({"move": moves[h % len(moves)] if moves else "d"}))


def billed(body: dict, n: int, text: str) -> dict:
    """Usage from the request alone (the same in both modes)."""
    size = len(json.dumps(body.get("messages")))
    return {
        "input_tokens": size // 3,
        "output_tokens": 5 + len(text) // 3,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 400,
    }


@pytest.fixture(autouse=True)
def quick_rounds(monkeypatch):
    import coworld.league.batch as batch

    monkeypatch.setattr(batch, "POLL_SECONDS", (0.05, 0.2))
    monkeypatch.setattr(batch, "GATHER_SECONDS", 0.05)


#: This module's leagues: the terse house against the tactician, 6 episodes, all at once.
BATCH = {"policies": ["p.md", "tactician"], "episodes": 6, "concurrency": 64, "out": "out"}


def played_usage(config) -> Usage:
    """What the league's episodes spent (the start-up check is a realtime call in
    both modes)."""
    db = LeagueDB(config.database)
    try:
        r = db.conn.execute(
            "SELECT SUM(input_tokens + output_tokens + cache_write_tokens + cache_read_tokens),"
            " SUM(cost_usd) FROM calls WHERE pairing != 'preflight'"
        ).fetchone()
        return Usage(input_tokens=r[0], cost_usd=r[1])
    finally:
        db.close()


def standings(config) -> dict:
    db = LeagueDB(config.database)
    try:
        rows = db.runner_rows("t")
        return {(r.pairing, r.idx): (r.score, r.plies, r.ending) for r in rows}
    finally:
        db.close()


def test_batch_mode_plays_the_same_league_as_realtime_at_half_the_price(tmp_path, mock_api):
    real = make_league(tmp_path / "r", BATCH, house=TERSE)
    mock_api(by_content, usage=billed)
    LeagueRun(real, progress=False, infra=FAST).run()
    batched = make_league(tmp_path / "b", BATCH, house=TERSE, mode="batch")
    server = mock_api(by_content, delay=0.1, usage=billed, server=MockBatches)
    report = LeagueRun(batched, progress=False, infra=FAST).run()
    assert report.episodes == 12 and not report.missing
    assert standings(batched) == standings(real)
    # every decision went through a batch, many episodes to a round
    assert server.received and len(server.requests) == 1  # the start-up check only
    assert max(server.sizes) >= 12 and len(server.sizes) < len(server.received)
    played_r, played_b = played_usage(real), played_usage(batched)
    assert played_b.tokens == played_r.tokens  # the same tokens, at half the price
    assert played_b.cost_usd == pytest.approx(played_r.cost_usd / 2, abs=1e-9)
    # an ordinary replay, which says how it was played, and rechecks
    replays = [p for p in (batched.out / "replays").rglob("*.jsonl") if ".calls" not in p.name]
    assert len(replays) == 12
    for replay in replays:
        header = json.loads(replay.read_text().splitlines()[0])
        assert header["mode"] == "batch"
        recheck(replay)


def run_cli(path: Path, url: str, *extra: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "python"),
        "ANTHROPIC_API_KEY": "sk-test",
        "ANTHROPIC_BASE_URL": url,
        "COWORLD_BATCH_POLL": "0.05",
        "COWORLD_BATCH_GATHER": "0.05",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "coworld.cli", "league", "run", str(path), *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def rerun_finishes_without_resending(path: Path, server: MockBatches, db: Path) -> None:
    """A plain rerun plays the league to its end (12 episodes), and the server never
    received one custom_id twice over both runs."""
    rerun = run_cli(path, server.base_url)
    out, _ = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, out
    ids = [cid for cid, _ in server.received]
    assert len(ids) == len(set(ids))
    assert len(rows(db, "SELECT 1 FROM episodes")) == 12


def rows(db_path: Path, sql: str) -> list[tuple]:
    if not db_path.exists():
        return []
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        conn.close()


def test_kill_9_during_a_batch_then_a_rerun_pays_for_nothing_twice(tmp_path):
    path = league_toml(
        tmp_path, BATCH, house=TERSE, file="league.toml", mode="batch", concurrency=4
    )  # three waves: some done at the kill
    db = tmp_path / "out" / "league.db"
    with MockBatches(by_content, delay=0.6, usage=billed) as server:
        driver = run_cli(path, server.base_url)
        deadline = time.monotonic() + 120
        # kill while a round is in flight, once an episode is stored
        while not rows(db, "SELECT 1 FROM episodes") or not rows(
            db, "SELECT 1 FROM batch_rounds WHERE state='submitted'"
        ):
            assert driver.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        os.kill(driver.pid, signal.SIGKILL)
        driver.communicate()
        in_flight = {
            b for (b,) in rows(db, "SELECT batch_id FROM batch_rounds WHERE state='submitted'")
        }
        done_before = set(rows(db, "SELECT pairing, idx, score, plies FROM episodes"))
        sent_before = len(server.received)
        assert in_flight and sent_before
        rerun = run_cli(path, server.base_url)
        out, _ = rerun.communicate(timeout=300)
        assert rerun.returncode == 0, out
        received = list(server.received)
    # no request twice: by custom_id, and by episode and content
    ids = [cid for cid, _ in received]
    assert len(ids) == len(set(ids))
    contents = {(cid.split("-")[0], json.dumps(p, sort_keys=True)) for cid, p in received}
    assert len(contents) == len(received)
    # the batch in flight at the kill was collected by the rerun, not submitted again
    collected = rows(db, "SELECT batch_id FROM batch_rounds WHERE state='collected'")
    assert in_flight <= {b for (b,) in collected}
    assert not rows(db, "SELECT 1 FROM batch_rounds WHERE state='submitted'")
    assert not rows(db, "SELECT 1 FROM batch_requests WHERE outcome IS NULL")
    # no completed episode lost, none missing; each answered request billed once
    done = set(rows(db, "SELECT pairing, idx, score, plies FROM episodes"))
    assert done_before <= done and len(done) == 12
    billed_calls = rows(db, "SELECT SUM(calls) FROM calls WHERE pairing != 'preflight'")[0][0]
    assert billed_calls == len(received) > sent_before


def flaky(cid: str, params: dict, n: int) -> tuple | None:
    """First attempts fail now and then: errored (overloaded, or an API error) or expired."""
    tag, call, attempt = cid.split("-")
    h = int(hashlib.sha256(f"{tag}{call}".encode()).hexdigest(), 16)
    if attempt != "0" or h % 4:
        return None
    return [("errored", "overloaded_error"), ("errored", "api_error"), ("expired",)][h % 3]


def test_errored_and_expired_requests_are_never_moves_and_go_into_a_later_round(tmp_path, mock_api):
    real = make_league(tmp_path / "r", BATCH, house=TERSE)
    mock_api(by_content, usage=billed)
    LeagueRun(real, progress=False, infra=FAST).run()
    batched = make_league(tmp_path / "b", BATCH, house=TERSE, mode="batch")
    server = mock_api(by_content, delay=0.05, outcome=flaky, usage=billed, server=MockBatches)
    report = LeagueRun(batched, progress=False, infra=FAST).run()
    assert report.episodes == 12 and not report.voided
    # the same games as realtime: no failed request became a move or a fallback
    assert standings(batched) == standings(real)
    failed = [(cid, p) for cid, p in server.received if flaky(cid, p, 0)]
    assert failed
    sent = {cid: p for cid, p in server.received}
    for cid, params in failed:  # each asked again, unchanged, in a later round
        tag, call, _ = cid.split("-")
        assert sent[f"{tag}-{call}-1"] == params
    db = LeagueDB(batched.database)
    try:
        assert all(r.decisions and "fallback" not in str(r.decisions) for r in db.runner_rows("t"))
        outcomes = dict(db.conn.execute("SELECT outcome, COUNT(*) FROM batch_requests GROUP BY 1"))
    finally:
        db.close()
    assert outcomes["expired"] and outcomes["errored:overloaded_error"]


@pytest.mark.parametrize(
    ("error", "cause", "stops"),
    [("overloaded_error", "http-529", False), ("invalid_request_error", "http-400", True)],
)
def test_a_request_that_keeps_failing_voids_its_episode_with_the_cause(
    tmp_path, mock_api, error, cause, stops
):
    """Past the patience (at once for an error no retry fixes) the episode is void,
    never scored; a refusal stops the league."""
    config = make_league(tmp_path, BATCH, house=TERSE, mode="batch", episodes=1, void_retries=0)
    always = lambda cid, p, n: ("errored", error)  # noqa: E731
    patience = InfraPolicy(patience_seconds=0.3, base_delay=0.01, max_delay=0.05)
    server = mock_api(by_content, delay=0.05, outcome=always, server=MockBatches)
    report = LeagueRun(config, progress=False, infra=patience).run()
    assert report.episodes == 0 and report.missing == 2
    db = LeagueDB(config.database)
    try:
        causes = {v.cause for v in db.voids("t")}
    finally:
        db.close()
    assert causes == {cause}
    assert (report.stopped is not None) == stops
    tries = {cid.rsplit("-", 1)[1] for cid, _ in server.received}
    assert (tries == {"0"}) == stops  # a refusal is not sent again


def test_the_budget_cap_holds_in_batch_mode(tmp_path, mock_api):
    """Each round reserves its worst case and shrinks to what is left: the spend
    never passes the cap, though every request is billed at its max_tokens."""
    from tests.support.mock_anthropic import billed_at_worst

    cap = 0.08
    config = make_league(
        tmp_path, BATCH, house=TERSE, mode="batch", episodes=20, budget={"max_cost_usd": cap}
    )
    server = mock_api(by_content, delay=0.05, usage=billed_at_worst, server=MockBatches)
    report = LeagueRun(config, progress=False, infra=FAST).run()
    db = LeagueDB(config.database)
    try:
        spent = db.spent("t")
    finally:
        db.close()
    assert report.budget_stopped and report.missing > 0
    assert 0.5 * cap < spent.cost_usd <= cap
    assert spent.calls == len(server.received) + len(server.requests)
    assert max(server.sizes) > 1


def test_a_round_shrinks_to_what_the_budget_has_left(tmp_path):
    """The queue's head that fits is submitted; the rest waits for a later round;
    when nothing fits, the waiting episodes are cut by the budget."""
    import asyncio

    from coworld.league.batch_store import BatchStore
    from coworld.prices import batch_price, price_of
    from coworld.seats.batch_client import BatchClient, Request
    from coworld.seats.budget import BudgetExhausted, Ledger
    from coworld.usage import Usage

    async def scenario() -> None:
        store = BatchStore(tmp_path / "l.db", "t")
        ledger = Ledger(max_cost_usd=0.25)
        client = BatchClient(store, ledger=ledger)
        loop = asyncio.get_running_loop()
        price = batch_price(price_of("claude-haiku-4-5"))
        worst = Usage(input_tokens=10, cost_usd=0.1, calls=1)
        asked = [Request("e", i, 0, {}, price, worst, 0.0, loop.create_future()) for i in range(4)]
        client.queue = list(asked)
        assert [r.call for r in client.take_round()] == [0, 1]  # 0.2 of 0.25
        assert client.queue == asked[2:]
        assert client.take_round() == [] and client.queue == []
        for r in asked[2:]:
            assert isinstance(r.future.exception(), BudgetExhausted)
        store.close()

    asyncio.run(scenario())


def test_league_plan_shows_the_batch_cost_beside_the_realtime_cost(tmp_path, capsys):
    from coworld.cli import main as cli
    from coworld.league.plan import plan

    path = league_toml(tmp_path, BATCH, house=TERSE, file="league.toml", mode="batch")
    config = make_league(tmp_path, BATCH, house=TERSE)
    rows = plan(config)
    assert rows and all(r.batch_cost_usd == pytest.approx(r.cost_usd / 2) for r in rows)
    assert cli(["league", "plan", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    realtime = sum(r.cost_usd for r in rows)
    batch = sum(r.batch_cost_usd for r in rows)
    assert f"${realtime:,.2f} realtime or ${batch:,.2f} in batch mode" in out


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_stops_submitting_and_a_second_cancels_the_batch_in_flight(tmp_path, presses):
    """One Ctrl-C: the batch in flight is read, no round follows. Two: the batch in
    flight is canceled and what it held is recorded. Either way a rerun finishes the
    league without sending any custom_id twice."""
    path = league_toml(tmp_path, BATCH, house=TERSE, file="league.toml", mode="batch")
    db = tmp_path / "out" / "league.db"
    with MockBatches(by_content, delay=1.5, usage=billed) as server:
        driver = run_cli(path, server.base_url)
        deadline = time.monotonic() + 120
        while not rows(db, "SELECT 1 FROM batch_rounds WHERE round >= 2"):
            assert driver.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        for _ in range(presses):
            time.sleep(0.3)
            driver.send_signal(signal.SIGINT)
        out, _ = driver.communicate(timeout=120)
        assert driver.returncode == 130, out
        assert "batch round 2" in out
        last = rows(db, "SELECT MAX(round) FROM batch_rounds")[0][0]
        assert last == 2  # no round after the Ctrl-C
        assert not rows(db, "SELECT 1 FROM batch_rounds WHERE state='submitted'")
        canceled = rows(db, "SELECT COUNT(*) FROM batch_requests WHERE outcome='canceled'")[0][0]
        assert (canceled > 0) == (presses == 2)
        rerun_finishes_without_resending(path, server, db)


def test_a_batch_not_accepted_is_submitted_again_with_backoff(tmp_path, mock_api):
    config = make_league(tmp_path, BATCH, house=TERSE, mode="batch", episodes=2)
    server = mock_api(by_content, delay=0.05, server=MockBatches)
    server.refuse_creates = 3
    report = LeagueRun(config, progress=False, infra=FAST).run()
    assert report.episodes == 4 and not report.voided and server.refuse_creates == 0
    ids = [cid for cid, _ in server.received]
    assert len(ids) == len(set(ids))  # only accepted batches carried requests


def test_cancel_after_a_kill_cancels_the_stored_batch_and_a_rerun_finishes(tmp_path):
    path = league_toml(tmp_path, BATCH, house=TERSE, file="league.toml", mode="batch")
    db = tmp_path / "out" / "league.db"
    with MockBatches(by_content, delay=60, usage=billed) as server:
        driver = run_cli(path, server.base_url)
        deadline = time.monotonic() + 120
        while not rows(db, "SELECT 1 FROM batch_rounds WHERE state='submitted'"):
            assert driver.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        os.kill(driver.pid, signal.SIGKILL)
        driver.communicate()
        (batch_id,) = rows(db, "SELECT batch_id FROM batch_rounds WHERE state='submitted'")[0]
        cancel = run_cli(path, server.base_url, "--cancel")
        out, _ = cancel.communicate(timeout=120)
        assert cancel.returncode == 0 and "1 batches of league t canceled" in out, out
        assert server.canceled == [batch_id]
        assert not rows(db, "SELECT 1 FROM batch_requests WHERE outcome IS NULL")
        assert rows(db, "SELECT COUNT(*) FROM batch_requests WHERE outcome='canceled'")[0][0]
        server.delay = 0.05
        rerun_finishes_without_resending(path, server, db)


def test_an_adaptive_league_in_batch_mode_plays_as_in_realtime(tmp_path, mock_api):
    """An adaptive schedule's decisions read the results: the same episodes and
    results as realtime."""
    fields = {
        "policies": ["p.md", "tactician", "random"],
        "episodes": 2,
        "schedule": "adaptive",
        "budget": {"max_episodes": 40},
    }
    real = make_league(tmp_path / "r", BATCH, house=TERSE, **fields)
    mock_api(by_content, usage=billed)
    LeagueRun(real, progress=False, infra=FAST).run()
    batched = make_league(tmp_path / "b", BATCH, house=TERSE, mode="batch", **fields)
    server = mock_api(by_content, delay=0.05, usage=billed, server=MockBatches)
    LeagueRun(batched, progress=False, infra=FAST).run()
    assert standings(batched) == standings(real)
    counts = []
    for config in (real, batched):
        db = LeagueDB(config.database)
        try:
            counts.append(db.count("t"))
        finally:
            db.close()
    assert counts[0] == counts[1] >= 12
    assert server.received


def test_the_collector_runs_again_after_it_was_stopped(tmp_path, mock_api):
    """A gate or an adaptive schedule plays several passes: each ends the round
    loop (and its client), and the next pass's asks start it again."""
    import asyncio

    from coworld.league.batch_store import BatchStore
    from coworld.seats.batch_client import BatchClient
    from coworld.seats.policy import load_policy

    make_league(tmp_path, BATCH, house=TERSE)
    policy = load_policy(str(tmp_path / "p.md"))
    messages = [{"role": "user", "content": "Legal moves: a, b"}]

    async def two_passes() -> list[str]:
        store = BatchStore(tmp_path / "l.db", "t")
        client = BatchClient(store, gather_seconds=0.01, poll_seconds=(0.02, 0.05))
        texts = []
        for idx in range(2):
            calls = client.open("pair", idx, "00" * 16)
            texts.append((await calls.ask(policy, "rules", messages)).text)
            await calls.close()
            await client.stop()
        store.close()
        return texts

    server = mock_api(by_content, delay=0.01, server=MockBatches)
    texts = asyncio.run(two_passes())
    assert len(texts) == 2 and server.created == 2
