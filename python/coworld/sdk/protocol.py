"""The SDK contract (docs/sdk.md): the reducer protocol every game implements.

Seats are any hashable, JSON-serialisable value: coworld's games number them
0..n-1, other reducers may name them with strings. The SDK compares seats by
equality only.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

#: A seat id (coworld: an int 0..n-1).
Seat = Hashable


@dataclass(frozen=True)
class SubmittedAction:
    """An action as a seat submitted it: who, and what."""

    seat: Seat
    action: Any


@runtime_checkable
class TurnView(Protocol):
    """What a view exposes about turn order: whose turn it is (`activeSeat` in JSON)."""

    @property
    def active_seat(self) -> Seat | None: ...


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


def seat_view(reducer: Any, state: Any, seat: Seat) -> Any:
    """`view_for(state, seat)` when the reducer defines it, else `view(state)`."""
    if defines_view_for(reducer):
        return reducer.view_for(state, seat)
    return reducer.view(state)
