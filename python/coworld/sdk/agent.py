"""`AgentEnvironment`: one agent in one seat, the other seats scripted.

The agent observes exactly what its seat may see (`view_for(state, seat)`, or
`view` for a perfect-information game), which is what makes it an honest
benchmark participant. Other seats are driven by behaviours
(`behaviour(reducer, state, seat) -> action`). With `seat=None` the agent is
the single implicit seat of a one-seat game: it plays every turn and observes
`view(state)`.

Full multi-agent orchestration (several drivers, simultaneous intents) is out
of scope: one agent, the other seats scripted.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Mapping
from typing import Any, NamedTuple

from .episode import (
    Behaviour,
    Episode,
    active_seat_of,
    behaviour_for,
    is_terminal_of,
    seat_results_of,
    submit,
)
from .protocol import SubmittedAction, seat_view
from .transcript import action_record, header_record, outcome_record


class StepResult(NamedTuple):
    """What `AgentEnvironment.step` returns."""

    observation: Any
    done: bool
    outcome: Any


class AgentEnvironment:
    """reset / observe / step for an agent in `seat` (see module doc).

    The transcript (`transcript()`) is a `seat:<id>` transcript that records the
    seed, every action (the agent's and the scripted seats') and the agent's
    observations at the steps it observed, byte for byte as it received them,
    so `recheck_transcript` re-verifies the episode from the seed.
    """

    def __init__(
        self,
        reducer: Any,
        level: Any = None,
        seed: int = 0,
        seat: Hashable | None = None,
        behaviours: Mapping[Hashable, Behaviour] | Behaviour | None = None,
    ) -> None:
        self.reducer = reducer
        self.level = level
        self.seed = seed
        self.seat = seat
        self.behaviours = behaviours
        self._episode: Episode | None = None
        self._observed: dict[int, Any] = {}

    # -- the agent's API -------------------------------------------------------------

    def reset(self) -> Any:
        """Start the episode; returns the agent's first observation (on its turn, or at the end)."""
        state = self.reducer.init(self.level, self.seed)
        self._episode = Episode(level=self.level, seed=self.seed, states=[state])
        self._observed = {}
        self._play_others()
        return self._record_observation()

    def observe(self) -> Any:
        """The agent's current observation."""
        return self._observation(self._current())

    def legal_moves(self) -> list[Any]:
        """The agent's legal moves (the reducer's `legal_moves`); empty when the game is over."""
        state = self._current()
        if is_terminal_of(self.reducer, state):
            return []
        return list(self.reducer.legal_moves(state))

    def step(self, action: Any) -> StepResult:
        """Play the agent's `action`, then the scripted seats until the agent's next turn.

        An action the reducer refuses raises its error and changes nothing.
        """
        state = self._current()
        if is_terminal_of(self.reducer, state):
            raise RuntimeError("the episode is over; call reset() to start another")
        seat = active_seat_of(self.reducer, state)
        self._advance(SubmittedAction(seat=seat, action=action))
        self._play_others()
        observation = self._record_observation()
        return StepResult(observation, self.done, self.seat_outcome)

    @property
    def done(self) -> bool:
        return is_terminal_of(self.reducer, self._current())

    @property
    def outcome(self) -> Any:
        """The results once the game is over, else None."""
        return outcome_record(self.reducer, self._current())

    @property
    def seat_outcome(self) -> Any:
        """What the agent's seat may know of the results once the game is over (what
        `step` returns): the reducer's `results_for` for the seat when it has one
        (fog: the public outcome, not the true distToWin or the winning path), else
        the results; None before the end."""
        state = self._current()
        if self.seat is None or not is_terminal_of(self.reducer, state):
            return self.outcome
        return seat_results_of(self.reducer, state, self.seat)

    @property
    def state(self) -> Any:
        """The full state (for the harness, not the agent: it holds hidden information)."""
        return self._current()

    def transcript(self) -> dict:
        """The verifiable `seat:<id>` transcript (a `full` one when `seat` is None)."""
        episode = self._require_episode()
        visibility = "full" if self.seat is None else f"seat:{self.seat}"
        header = header_record(self.reducer, episode, visibility, seed=True)
        if self.seat is not None:
            header["seat"] = self.seat
        steps: list[dict[str, Any]] = []
        if 0 in self._observed:
            steps.append({"step": 0, "observation": self._observed[0]})
        for k, submitted in enumerate(episode.actions, start=1):
            record = action_record(k, submitted)
            if k in self._observed:
                record["observation"] = self._observed[k]
            steps.append(record)
        return copy.deepcopy({"header": header, "steps": steps, "outcome": self.outcome})

    # -- internals -------------------------------------------------------------------

    def _require_episode(self) -> Episode:
        if self._episode is None:
            raise RuntimeError("call reset() first")
        return self._episode

    def _current(self) -> Any:
        return self._require_episode().final

    def _observation(self, state: Any) -> Any:
        if self.seat is None:
            return self.reducer.view(state)
        return seat_view(self.reducer, state, self.seat)

    def _record_observation(self) -> Any:
        episode = self._require_episode()
        observation = self._observation(episode.final)
        self._observed[len(episode.actions)] = copy.deepcopy(observation)
        return observation

    def _advance(self, action: Any) -> None:
        episode = self._require_episode()
        submitted, state = submit(self.reducer, episode.final, action)
        episode.actions.append(submitted)
        episode.states.append(state)

    def _play_others(self) -> None:
        """Let the scripted seats act until it is the agent's turn or the game is over."""
        if self.seat is None:
            return
        while not self.done:
            seat = active_seat_of(self.reducer, self._current())
            if seat == self.seat:
                return
            if self.behaviours is None:
                raise RuntimeError(
                    f"it is seat {seat!r}'s turn and no behaviour drives it; give "
                    "behaviours for every seat but the agent's"
                )
            choose = behaviour_for(self.behaviours, seat)
            self._advance(choose(self.reducer, self._current(), seat))
