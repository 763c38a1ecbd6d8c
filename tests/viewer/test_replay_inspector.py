"""The replay inspector: beside a ply of a replay, the decision behind it, as the
calls sidecar kept it (Claude seats) or the replay recorded it (Python seats), in a
real headless Chromium; served to spectators, never on a seat's link."""

from __future__ import annotations

import asyncio
import threading

from starlette.testclient import TestClient

from coworld.episode import Episode
from coworld.viewer import ViewerServer, create_app
from tests.support.episodes import (  # noqa: F401 (credentials: autouse, a test key)
    credentials,
    garbage_then_good,
    good,
    run,
)


def thinking_then_garbage_then_good(episode, body, n):
    if n == 0:
        return ("thinking", "the centre file wins most lines", "no idea")
    return garbage_then_good(episode, body, n) if n > 1 else good(episode, body, n)


def test_a_claude_decision_is_shown_beside_its_ply(browser, tmp_path):  # noqa: F811
    played: list = []  # a thread of its own: playwright's sync API keeps an event loop here
    runner = threading.Thread(
        target=lambda: played.extend(run("connect-four", thinking_then_garbage_then_good, tmp_path))
    )
    runner.start()
    runner.join()
    _, results, mock = played
    api = TestClient(create_app(tmp_path)).get("/api/calls", params={"path": "episode.jsonl"})
    calls = api.json()["calls"]
    assert [c["attempt"] for c in calls[:2]] == [0, 1] and calls[0]["cause"] == "unparseable"
    first = mock.requests[0]["messages"][0]["content"]
    with ViewerServer(tmp_path) as server:
        page = browser.new_page()
        page.goto(f"{server.url}/episode?path=episode.jsonl&step=1")
        page.wait_for_selector("#inspector .attempt")
        text = page.inner_text("#inspector")
        assert "(retry: unparseable)" in text
        assert page.inner_text("#inspector [data-attempt='0'] .observation-text") == first
        assert page.inner_text("#inspector [data-attempt='0'] .thinking") == (
            "the centre file wins most lines"
        )
        assert page.inner_text("#inspector [data-attempt='0'] .raw-reply") == "no idea"
        retry = page.inner_text("#inspector [data-attempt='1'] .retry-message")
        assert retry == mock.requests[1]["messages"][-1]["content"]
        usage = calls[0]["usage"]
        head = page.inner_text("#inspector [data-attempt='0'] .attempt-head")
        assert f"{usage['input_tokens']} input + {usage['output_tokens']} output" in head
        assert f"${usage['cost_usd']:.4f}" in head
        page.keyboard.press("ArrowRight")  # a scripted ply: nothing to inspect
        assert "nothing to inspect" in page.inner_text("#inspector")
        page.close()
    assert results["usage"][0]["calls"] == len(mock.requests)


def test_a_python_seats_exception_is_shown_beside_its_ply(browser, tmp_path):  # noqa: F811
    bot = tmp_path / "broken_bot.py"
    bot.write_text("def act(view, legal_moves):\n    return 1 / 0\n")
    out = tmp_path / "py.jsonl"
    runner = threading.Thread(
        target=lambda: asyncio.run(
            Episode("connect-four", [str(bot), "random"], seed=2, out=out).run()
        )
    )
    runner.start()
    runner.join()
    with ViewerServer(tmp_path) as server:
        page = browser.new_page()
        page.goto(f"{server.url}/episode?path=py.jsonl&step=1")
        page.wait_for_selector("#inspector .python-reason")
        assert "ZeroDivisionError: division by zero" in page.inner_text("#inspector .python-reason")
        assert "fallback baseline moved: error" in page.inner_text("#inspector")
        page.close()
