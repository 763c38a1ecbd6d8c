"""RFC-003 contract: the reducer protocol every game implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class SubmittedAction:
    """An action as a seat submitted it (RFC-003 `SubmittedAction`)."""

    seat: int
    action: Any


@runtime_checkable
class TurnView(Protocol):
    """What a view exposes about turn order (RFC-001 `TurnView.activeSeat`)."""

    @property
    def active_seat(self) -> int | None: ...


@runtime_checkable
class TurnReducer(Protocol):
    """A pure, deterministic game: `init`, `apply`, `view`; optionally `view_for`.

    A reducer without `view_for` is a perfect-information game: every seat's
    view is `view(state)`. See `coworld.sdk.seat_view`.
    """

    def init(self, level: Any = None, seed: int = 0) -> Any: ...

    def apply(self, state: Any, action: Any) -> Any: ...

    def view(self, state: Any) -> Any: ...


def defines_view_for(reducer: Any) -> bool:
    """True when the reducer partitions information (it has a real `view_for`)."""
    return callable(getattr(reducer, "view_for", None)) and not getattr(
        reducer, "perfect_information", False
    )


def seat_view(reducer: Any, state: Any, seat: int) -> Any:
    """`view_for(state, seat)` when the reducer defines it, else `view(state)`."""
    if defines_view_for(reducer):
        return reducer.view_for(state, seat)
    return reducer.view(state)
