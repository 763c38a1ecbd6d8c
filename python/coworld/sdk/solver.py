"""`solve_level`: the exact value of a perfect-information position.

Solving is defined for open-information (or open-hand) games only: the solver
reads `view(state)`, which is what every seat sees only when the reducer does
not partition information. A reducer that defines `view_for` (see
`defines_view_for`) is refused with `OpenInformationRequired`.

What the solver needs from the reducer:

* legal moves: `reducer.legal_moves(state)` (a list of actions for the active
  seat), or pass `legal_moves=callable(state) -> list`;
* a terminal result: `state.is_terminal` and `state.results["score"]` (a list
  indexed by seat, as coworld's states have), or pass
  `outcome=callable(state) -> score list or None` (None while the game goes on);
* whose turn it is: `state.active_seat` or the view's `activeSeat`.

The search is a memoised negamax, written as max-n (every seat maximises its
own score), which is negamax for two-seat zero-sum games and stays correct when
a seat moves twice in a row. Unfinished positions are memoised by the canonical JSON of
`view(state)`, so the view must describe the position completely (for a
perfect-information game it does, by definition); finished ones are scored
from the state each time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import CoworldError
from .canonical import canonical_json
from .episode import active_seat_of, is_terminal_of, results_of, submit
from .protocol import defines_view_for


class OpenInformationRequired(CoworldError, TypeError):
    """`solve_level` was asked to solve a game with hidden information."""


class SearchTooLarge(CoworldError, RuntimeError):
    """The position has more distinct positions than `max_positions` allows."""


@dataclass(frozen=True)
class Solution:
    """The solved value of a position.

    `seat` is the seat to move; `value` its score under perfect play by every
    seat; `scores` every seat's score; `best_moves` every move that achieves
    `value`, in legal-move order; `principal_variation` one perfect line of
    play to the end; `positions` the number of distinct unfinished positions solved.
    """

    seat: Any
    value: Any
    scores: tuple[Any, ...]
    best_moves: tuple[Any, ...]
    principal_variation: tuple[Any, ...]
    positions: int


def solve_level(
    reducer: Any,
    level: Any = None,
    seed: int = 0,
    *,
    moves: Sequence[Any] = (),
    state: Any = None,
    legal_moves: Callable[[Any], Sequence[Any]] | None = None,
    outcome: Callable[[Any], Sequence[Any] | None] | None = None,
    max_positions: int | None = None,
) -> Solution:
    """Solve `init(level, seed)` after `moves` (or the given `state`) exactly.

    Raises `OpenInformationRequired` for a reducer with per-seat views and
    `SearchTooLarge` when more than `max_positions` positions would be solved.
    """
    if defines_view_for(reducer):
        raise OpenInformationRequired(
            f"solve_level is defined for open-information games only: {reducer!r} defines "
            "view_for (per-seat views), so no single view describes what every seat knows. "
            "Solve an open-hand variant instead."
        )
    start = state if state is not None else reducer.init(level, seed)
    for move in moves:
        _, start = submit(reducer, start, move)
    search = _Search(reducer, legal_moves, outcome, max_positions)
    if search.scores_at_end(start) is not None:
        raise ValueError("the position is already over; there is nothing to solve")
    scores = search.solve(start)
    seat: Any = active_seat_of(reducer, start)
    value = scores[seat]
    best = tuple(
        move for move, child in search.children(start) if search.solve(child)[seat] == value
    )
    return Solution(
        seat=seat,
        value=value,
        scores=scores,
        best_moves=best,
        principal_variation=tuple(search.principal_variation(start)),
        positions=len(search.memo),
    )


class _Search:
    def __init__(
        self,
        reducer: Any,
        legal_moves: Callable[[Any], Sequence[Any]] | None,
        outcome: Callable[[Any], Sequence[Any] | None] | None,
        max_positions: int | None,
    ) -> None:
        self.reducer = reducer
        self.legal_moves = legal_moves or self._reducer_legal_moves
        self.outcome = outcome
        self.max_positions = max_positions
        self.memo: dict[str, tuple[tuple[Any, ...], Any]] = {}

    def _reducer_legal_moves(self, state: Any) -> Sequence[Any]:
        method = getattr(self.reducer, "legal_moves", None)
        if not callable(method):
            raise TypeError(
                "solve_level needs legal moves: give the reducer a legal_moves(state) method "
                "or pass legal_moves=callable(state)"
            )
        return method(state)

    def scores_at_end(self, state: Any) -> tuple[Any, ...] | None:
        if self.outcome is not None:
            found = self.outcome(state)
            return None if found is None else tuple(found)
        if not is_terminal_of(self.reducer, state):
            return None
        results = results_of(self.reducer, state)
        if not isinstance(results, dict) or "score" not in results:
            raise TypeError(
                "solve_level needs a terminal score: give the state `results` with a `score` "
                "list, or pass outcome=callable(state)"
            )
        return tuple(results["score"])

    def children(self, state: Any) -> list[tuple[Any, Any]]:
        found = []
        for move in self.legal_moves(state):
            _, child = submit(self.reducer, state, move)
            found.append((move, child))
        return found

    def solve(self, state: Any) -> tuple[Any, ...]:
        # A finished game is scored from its state, never from the memo: a view may
        # leave the winner out (Nim's empty heaps look alike whoever took the last).
        end = self.scores_at_end(state)
        if end is not None:
            return end
        key = canonical_json(self.reducer.view(state))
        if key in self.memo:
            return self.memo[key][0]
        if self.max_positions is not None and len(self.memo) >= self.max_positions:
            raise SearchTooLarge(
                f"the position has more than {self.max_positions} distinct positions to solve"
            )
        seat: Any = active_seat_of(self.reducer, state)
        best: tuple[tuple[Any, ...], Any] | None = None
        for move, child in self.children(state):
            scores = self.solve(child)
            if best is None or scores[seat] > best[0][seat]:
                best = (scores, move)
        if best is None:
            raise ValueError(
                f"seat {seat!r} has no legal move in a position that is not over: {key[:120]}"
            )
        self.memo[key] = best
        return best[0]

    def principal_variation(self, state: Any) -> list[Any]:
        line = []
        while self.scores_at_end(state) is None:
            self.solve(state)
            move = self.memo[canonical_json(self.reducer.view(state))][1]
            line.append(move)
            _, state = submit(self.reducer, state, move)
        return line
