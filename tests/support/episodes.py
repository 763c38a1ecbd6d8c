"""One Claude episode against a scripted local Messages API server (`run`), the
scripts most episode tests use, and the test key every such module sets (`credentials`,
an autouse fixture: import it into the module)."""

from __future__ import annotations

import asyncio
import json

import pytest

import coworld
from coworld.clock import Clock
from coworld.episode import Episode
from coworld.seats.claude import ClaudeClient
from coworld.seats.infra import InfraPolicy
from coworld.seats.policy import ClaudePolicy
from tests.support.mock_anthropic import MockAnthropic

#: Infrastructure retries at test speed.
FAST = InfraPolicy(patience_seconds=5.0, base_delay=0.005, max_delay=0.02, probe_seconds=0.01)


SECRET_KEY = "sk-ant-test-DO-NOT-LEAK-0123456789"


POLICY = ClaudePolicy(
    name="house-prompt",
    prompt="Win. Keep a map in your notes.",
    model="claude-test",
    price=(1.0, 5.0),  # a model id the price table does not know
)


@pytest.fixture(autouse=True)
def credentials(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET_KEY)


def seats_for(game_id: str, claude_seats: set[int]) -> list:
    n = coworld.game(game_id).init(seed=1).num_seats
    fallback = coworld.games.family_module(
        coworld.game(game_id).init(seed=1).resolved_game
    ).FALLBACK
    return [POLICY if s in claude_seats else fallback for s in range(n)]


def run(
    game_id,
    script,
    tmp_path,
    *,
    claude_seats=frozenset({0}),
    seed=3,
    clock=None,
    infra=None,
    **kwargs,
):
    """Play one episode against the mock; returns (episode, results, mock)."""
    holder: dict = {}

    def wrapped(body, n):
        return script(holder["episode"], body, n)

    with MockAnthropic(wrapped) as mock:
        clock = clock or Clock(llm_timeout_seconds=5.0)

        async def go():
            client = ClaudeClient(
                timeout=clock.llm_timeout_seconds, infra=infra or FAST, base_url=mock.base_url
            )
            episode = Episode(
                game_id,
                seats_for(game_id, set(claude_seats)),
                seed=seed,
                clock=clock,
                out=tmp_path / "episode.jsonl",
                client=client,
                **kwargs,
            )
            holder["episode"] = episode
            try:
                return episode, await episode.run()
            finally:
                await client.close()

        episode, results = asyncio.run(go())
    return episode, results, mock


def reply(episode, move, *, say="", notes=""):
    """A reply in the family's own shape: Hanabi's text fields are `banner` and `note`."""
    if episode.state.resolved_game == "hanabi":
        return json.dumps({"move": move, "banner": say, "note": notes})
    return json.dumps({"move": move, "say": say, "notes": notes})


def good(episode, body, n):
    """A model that plays the first legal move, with spectator and private text."""
    move = episode.state.legal_moves()[0]
    return ("text", reply(episode, move, say="gl hf", notes=f"turn note {n}"))


def garbage_then_good(episode, body, n):
    if len(body["messages"]) == 1:
        return ("text", "no idea")
    return good(episode, body, n)
