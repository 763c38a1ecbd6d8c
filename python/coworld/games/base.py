"""Reducers over the Rust core: the SDK face of every coworld game (docs/sdk.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .. import _core
from ..errors import IllegalMove
from ..sdk.protocol import SubmittedAction

State = _core.State


class Reducer:
    """A coworld game as an SDK `TurnReducer`.

    States are immutable Rust objects: `apply` returns a new one. Every rule is
    asked of the core; this class only adapts the calling convention.
    """

    #: Perfect-information games set this; the SDK then treats `view_for` as `view`.
    perfect_information = False
    family = ""

    def __init__(self, game_id: str, settings: Mapping[str, Any] | None = None) -> None:
        self.id = game_id
        self.settings = dict(settings or {})
        self.init(seed=1)  # fail now, naming the field, if the settings are wrong

    def __repr__(self) -> str:
        return f"coworld.game({self.id!r})"

    def init(self, level: Mapping[str, Any] | None = None, seed: int = 0) -> State:
        """A fresh state. `level` overrides settings; seed 0 draws one (recorded in
        `state.config`)."""
        settings = {**self.settings, **(level or {})}
        config = json.dumps(settings) if settings else None
        return State(self.id, config, int(seed))

    def apply(self, state: State, action: str | SubmittedAction) -> State:
        """The state after `action` (a move string, or an SDK `SubmittedAction`)."""
        if isinstance(action, SubmittedAction):
            if state.active_seat is not None and action.seat != state.active_seat:
                # The refusal goes to the submitting seat: it names nothing of the
                # active seat's legal set (in a hidden-information game that set
                # is drawn from the active seat's private knowledge).
                raise IllegalMove(
                    f"seat {action.seat} submitted {action.action!r}: it is not your turn",
                    kind="illegal",
                    move=str(action.action),
                    legal=[],
                    reason="it is not your turn",
                )
            action = action.action
        if not isinstance(action, str):
            raise IllegalMove(
                f"a move is a string such as {state.legal_moves()[:1]}, "
                f"not {type(action).__name__}",
                kind="unparseable",
                move=repr(action),
                legal=state.legal_moves(),
            )
        return state.apply(action)

    def legal_moves(self, state: State) -> list[str]:
        """The active seat's legal moves in canonical notation."""
        return state.legal_moves()

    def view(self, state: State) -> dict[str, Any]:
        """The full (spectator) view."""
        return state.view()

    def view_for(self, state: State, seat: int) -> dict[str, Any]:
        """What `seat` may see."""
        return state.view_for(seat)

    def baseline_move(self, state: State, policy: str) -> str:
        """The move the named scripted baseline plays in `state`."""
        return state.baseline_move(policy)


class PerfectInformationReducer(Reducer):
    """Nothing is hidden: `view_for(state, seat) == view(state)` for every seat."""

    perfect_information = True

    def standing(self, state: State, seat: int) -> int:
        """The `standing(sim, seat)` heuristic: higher is better for `seat` (docs/rules)."""
        value = state.standing(seat)
        assert value is not None
        return value
