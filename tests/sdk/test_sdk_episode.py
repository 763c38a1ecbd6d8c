"""Driving reducers of either shape: coworld-style states with `active_seat`, and
reducers written outside coworld, whose states are plain dicts, whose views carry
`activeSeat` and whose seats are strings."""

from __future__ import annotations

from typing import Any

import pytest

import coworld
from coworld.sdk import (
    AgentEnvironment,
    EpisodeOver,
    Scenario,
    SubmittedAction,
    TurnReducer,
    active_seat_of,
    assert_no_information_leak,
    play,
    recheck_transcript,
    seat_view,
)


class Countdown:
    """Two string seats, north and south, alternately take 1 or 2 from a counter; whoever
    takes the last one wins. Dict states; the view is the only source of turn order.
    `view_for` shows only the counter's parity to south (a deliberately odd policy)."""

    def init(self, level: Any = None, seed: int = 0) -> dict:
        return {"left": (level or {}).get("start", 5), "turn": "north", "winner": None}

    def apply(self, state: dict, action: SubmittedAction) -> dict:
        if action.seat != state["turn"] or action.action not in (1, 2):
            raise ValueError(f"{action!r} is not legal; {state['turn']} takes 1 or 2")
        left = state["left"] - action.action
        other = "south" if state["turn"] == "north" else "north"
        if left <= 0:
            return {"left": 0, "turn": None, "winner": state["turn"]}
        return {"left": left, "turn": other, "winner": None}

    def view(self, state: dict) -> dict:
        return {"activeSeat": state["turn"], "left": state["left"], "winner": state["winner"]}

    def view_for(self, state: dict, seat: str) -> dict:
        view = self.view(state)
        if seat == "south":
            view["left"] = view["left"] % 2
        return view

    def results(self, state: dict) -> dict | None:
        if state["winner"] is None:
            return None
        return {"score": [1, -1] if state["winner"] == "north" else [-1, 1]}


def test_turn_order_from_the_view_and_string_seats():
    game = Countdown()
    assert isinstance(game, TurnReducer)
    episode = play(game, {"start": 4}, actions=[1, 2, 1])
    assert [a.seat for a in episode.actions] == ["north", "south", "north"]
    assert active_seat_of(game, episode.final) is None
    assert game.results(episode.final) == {"score": [1, -1]}
    assert seat_view(game, episode.states[1], "south")["left"] == 1  # 3 left, parity 1


def test_agent_in_a_string_seat_and_its_transcript():
    game = Countdown()
    env = AgentEnvironment(game, {"start": 5}, seat="south", behaviours=lambda r, s, seat: 2)
    assert env.reset() == {"activeSeat": "south", "left": 1, "winner": None}  # 3 left
    observation, done, outcome = env.step(1)  # 2 left; north takes 2 and wins
    assert done and outcome == {"score": [1, -1]} and observation["winner"] == "north"
    transcript = env.transcript()
    assert transcript["header"]["visibility"] == "seat:south"
    assert recheck_transcript(game, transcript).final["winner"] == "north"


def test_leak_check_with_string_seats():
    # South sees parity only: starts 5 and 7 with north taking 2 look alike to south
    # until the end, when the counter (and the winner) differ.
    game = Countdown()
    scenarios = [
        Scenario("start 5", {"start": 5}, actions=[2, 1], max_steps=2),
        Scenario("start 7", {"start": 7}, actions=[2, 1], max_steps=2),
    ]
    assert assert_no_information_leak(game, seat="south", scenarios=scenarios) == 2
    with pytest.raises(AssertionError, match=r"at step 0, field \$\.view\.left: 5 vs 7"):
        assert_no_information_leak(game, seat="north", scenarios=scenarios)


def test_play_reports_leftover_actions():
    with pytest.raises(EpisodeOver, match="the game ended after 2 actions with 1 left"):
        play(Countdown(), {"start": 3}, actions=[2, 1, 1])
    with pytest.raises(ValueError, match="max_steps=1 stopped the episode with 1 actions"):
        play(Countdown(), {"start": 5}, actions=[1, 1], max_steps=1)
    with pytest.raises(KeyError, match="no behaviour drives seat 'south'"):
        play(Countdown(), behaviours={"north": lambda r, s, seat: 1})


def test_coworld_reducer_accepts_submitted_actions_from_the_sdk():
    game = coworld.game("connect-four")
    episode = play(game, None, 9, actions=["d", SubmittedAction(1, "c")])
    assert episode.actions == [SubmittedAction(0, "d"), SubmittedAction(1, "c")]
    with pytest.raises(coworld.IllegalMove, match="seat 1 submitted"):
        play(game, None, 9, actions=[SubmittedAction(1, "d")])
