"""Driving a `TurnReducer`: whose turn it is, submitting actions, scripted behaviours.

Reducers expose turn state in one of two ways and the SDK accepts both:

* the state has `active_seat` (None when terminal), optionally `is_terminal`
  and `results` attributes (coworld's Rust states do), or
* the view has `active_seat` (attribute) or `"activeSeat"` (key); the game is
  over when it is None. Results then come from `reducer.results(state)`.

A *behaviour* drives a seat: `behaviour(reducer, state, seat) -> action`. It
receives the full state (it is the reducer's own scripting, like a behaviour
tree); an honest behaviour reads only `seat_view(reducer, state, seat)`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import CoworldError
from .protocol import SubmittedAction

Behaviour = Callable[[Any, Any, Hashable], Any]


def active_seat_of(reducer: Any, state: Any) -> Hashable | None:
    """The seat to act in `state`, None when the game is over."""
    if hasattr(state, "active_seat"):
        return state.active_seat
    view = reducer.view(state)
    if hasattr(view, "active_seat"):
        return view.active_seat
    if isinstance(view, Mapping):
        for key in ("activeSeat", "active_seat"):
            if key in view:
                return view[key]
    raise TypeError(
        "cannot tell whose turn it is: give the state an `active_seat` attribute or the "
        "view an `active_seat` attribute or `activeSeat` key"
    )


def is_terminal_of(reducer: Any, state: Any) -> bool:
    """True when the game in `state` is over."""
    terminal = getattr(state, "is_terminal", None)
    if isinstance(terminal, bool):
        return terminal
    return active_seat_of(reducer, state) is None


def results_of(reducer: Any, state: Any) -> Any:
    """The results of a finished game: `reducer.results(state)`, else `state.results`."""
    method = getattr(reducer, "results", None)
    if callable(method):
        return method(state)
    return getattr(state, "results", None)


def seat_results_of(reducer: Any, state: Any, seat: Hashable) -> Any:
    """What `seat` may know of a finished game's results: `reducer.results_for(state,
    seat)` when the reducer defines it (a hidden-information game whose results hold
    hidden state, e.g. fog's true distToWin and winning path), else the results."""
    method = getattr(reducer, "results_for", None)
    if callable(method):
        return method(state, seat)
    return results_of(reducer, state)


def submit(reducer: Any, state: Any, action: Any) -> tuple[SubmittedAction, Any]:
    """Apply `action` for the active seat; returns (the SubmittedAction, the new state).

    A bare action is wrapped as `SubmittedAction(active seat, action)`; a
    SubmittedAction is passed on as given (the reducer checks the seat).
    """
    if isinstance(action, SubmittedAction):
        submitted = action
    else:
        seat = active_seat_of(reducer, state)
        if seat is None:
            raise EpisodeOver(f"the game is over; no seat can play {action!r}")
        submitted = SubmittedAction(seat=seat, action=action)
    return submitted, reducer.apply(state, submitted)


class EpisodeOver(CoworldError):
    """An action was submitted after the game ended."""


@dataclass
class Episode:
    """A played episode: its states (`states[k]` is after `k` actions) and actions."""

    level: Any
    seed: int
    states: list[Any]
    actions: list[SubmittedAction] = field(default_factory=list)

    @property
    def final(self) -> Any:
        return self.states[-1]


def play(
    reducer: Any,
    level: Any = None,
    seed: int = 0,
    *,
    actions: Sequence[Any] | None = None,
    behaviours: Mapping[Hashable, Behaviour] | Behaviour | None = None,
    prepare: Callable[[Any], Any] | None = None,
    max_steps: int | None = None,
) -> Episode:
    """Play an episode from `init(level, seed)`.

    `actions` are submitted in order (bare actions go to the active seat);
    after they run out, or without them, `behaviours` (one for every seat, or
    a mapping seat -> behaviour) choose until the game ends or `max_steps`
    actions have been played. `prepare` transforms the initial state first
    (a leak check's permutation of hidden regions).
    """
    state = reducer.init(level, seed)
    if prepare is not None:
        state = prepare(state)
    episode = Episode(level=level, seed=seed, states=[state])
    queued = deque(actions or ())
    while not is_terminal_of(reducer, state):
        if max_steps is not None and len(episode.actions) >= max_steps:
            break
        if queued:
            action = queued.popleft()
        elif behaviours is not None:
            seat = active_seat_of(reducer, state)
            action = behaviour_for(behaviours, seat)(reducer, state, seat)
        else:
            break
        submitted, state = submit(reducer, state, action)
        episode.actions.append(submitted)
        episode.states.append(state)
    if queued and not is_terminal_of(reducer, state):
        raise ValueError(
            f"max_steps={max_steps} stopped the episode with {len(queued)} actions unplayed"
        )
    if queued:
        raise EpisodeOver(
            f"the game ended after {len(episode.actions)} actions with {len(queued)} left: "
            f"{list(queued)[:3]!r}"
        )
    return episode


def behaviour_for(
    behaviours: Mapping[Hashable, Behaviour] | Behaviour, seat: Hashable
) -> Behaviour:
    """The behaviour that drives `seat`."""
    if callable(behaviours) and not isinstance(behaviours, Mapping):
        return behaviours
    if seat not in behaviours:
        raise KeyError(f"no behaviour drives seat {seat!r}; behaviours cover {list(behaviours)}")
    return behaviours[seat]
