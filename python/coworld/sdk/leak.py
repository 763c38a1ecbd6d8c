"""`assert_no_information_leak`: hidden state must not reach a seat's views.

The rule (docs/sdk.md): any state hidden from a seat under the policy must not
influence any field of that seat's views, except through declared aggregates
(counts). The check runs several episodes that differ ONLY in what the seat may
not know and asserts that the seat's observation streams are bit-identical
(identical canonical JSON at every step). On a difference it raises an
AssertionError naming the step and the first differing field as a JSON path.

An observation at step k (the state after k actions; step 0 is the initial
state) is `{"view": seat_view(...)}`, plus `"legalMoves"` when it is the seat's
turn and the reducer has `legal_moves`: legal actions must derive from the
seat's own view, so they are checked too.

Two ways to make the episodes, usable together:

1. Permutation (reducers whose states can be rebuilt in Python): give the
   base episode (`level`, `seed`, `actions` and/or `behaviours`) and
   `permutations`, functions state -> state that permute a hidden region of the
   initial state (shuffle the undrawn deck, reorder an opponent's hand). Each
   is applied to `init(level, seed)` (the same seed policy) and the episode is
   replayed with the same actions/behaviours.

2. Scenarios (any reducer, including coworld's Rust-backed games, whose states
   cannot be edited): give `scenarios`, a list of `Scenario`s (different seeds
   or deals, different opponent actions...) that agree on everything the seat
   may know. The seat's streams must be identical.

Either way the variants must be honest: a permutation that changes something
the seat legitimately learns during the episode (a card that is later played
face up, an opponent move the seat sees) makes the check fail by design.

For anything else, `run` + `variants` is the generic form: `run(variant)`
returns the observation stream (any JSON values) for one variant.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .canonical import canonical_json, first_difference, short
from .episode import Behaviour, active_seat_of, play
from .protocol import seat_view


@dataclass(frozen=True)
class Scenario:
    """One episode of a leak check: how it starts and how its seats act.

    `actions` are submitted in order (bare actions go to the active seat);
    then `behaviours` play on until the end or `max_steps`. `prepare` edits the
    initial state (permutation mode).
    """

    name: str = ""
    level: Any = None
    seed: int = 0
    actions: Sequence[Any] | None = None
    behaviours: Mapping[Hashable, Behaviour] | Behaviour | None = None
    prepare: Callable[[Any], Any] | None = None
    max_steps: int | None = None


def observation(reducer: Any, state: Any, seat: Hashable) -> dict[str, Any]:
    """What `seat` observes in `state`: its view, and its legal moves on its turn."""
    seen: dict[str, Any] = {"view": seat_view(reducer, state, seat)}
    legal = getattr(reducer, "legal_moves", None)
    if callable(legal) and active_seat_of(reducer, state) == seat:
        seen["legalMoves"] = legal(state)
    return seen


def observation_stream(reducer: Any, seat: Hashable, scenario: Scenario) -> list[dict[str, Any]]:
    """`seat`'s observation after every step of the scenario's episode (step 0 first)."""
    episode = play(
        reducer,
        scenario.level,
        scenario.seed,
        actions=scenario.actions,
        behaviours=scenario.behaviours,
        prepare=scenario.prepare,
        max_steps=scenario.max_steps,
    )
    return [observation(reducer, state, seat) for state in episode.states]


def assert_no_information_leak(
    reducer: Any = None,
    *,
    seat: Hashable = None,
    level: Any = None,
    seed: int = 0,
    actions: Sequence[Any] | None = None,
    behaviours: Mapping[Hashable, Behaviour] | Behaviour | None = None,
    permutations: Sequence[Callable[[Any], Any]] = (),
    scenarios: Sequence[Scenario] = (),
    max_steps: int | None = None,
    run: Callable[[Any], Iterable[Any]] | None = None,
    variants: Sequence[Any] = (),
) -> int:
    """Assert that `seat`'s observation streams are identical across the variants.

    See the module doc for the modes. Returns the number of streams compared
    (at least two are required). Raises AssertionError naming the first
    differing step and field, e.g. ``information leak: seat 0 observes
    differently in 'base' and 'swap deck' at step 1, field $.view.deckTop:
    "g2" vs "b3"``.
    """
    if run is not None:
        labelled = [(_label(v, i), list(run(v))) for i, v in enumerate(variants)]
        who = "the observer" if seat is None else f"seat {seat!r}"
    else:
        if reducer is None or seat is None:
            raise TypeError("give a reducer and a seat (or `run` and `variants`)")
        runs = _scenarios(level, seed, actions, behaviours, permutations, scenarios, max_steps)
        labelled = [(s.name, observation_stream(reducer, seat, s)) for s in runs]
        who = f"seat {seat!r}"
    if len(labelled) < 2:
        raise ValueError(
            f"a leak check compares at least two variants; got {len(labelled)}. Give "
            "permutations (with the base episode), scenarios, or run + variants"
        )
    base_name, base = labelled[0]
    for name, stream in labelled[1:]:
        _compare(who, base_name, base, name, stream)
    return len(labelled)


def _scenarios(
    level: Any,
    seed: int,
    actions: Sequence[Any] | None,
    behaviours: Any,
    permutations: Sequence[Callable[[Any], Any]],
    scenarios: Sequence[Scenario],
    max_steps: int | None,
) -> list[Scenario]:
    runs: list[Scenario] = []
    if permutations:
        base = Scenario("base", level, seed, actions, behaviours, None, max_steps)
        runs.append(base)
        for i, permute in enumerate(permutations):
            name = getattr(permute, "__name__", "") or f"permutation {i + 1}"
            if name == "<lambda>":
                name = f"permutation {i + 1}"
            runs.append(replace(base, name=name, prepare=permute))
    for i, scenario in enumerate(scenarios):
        runs.append(scenario if scenario.name else replace(scenario, name=f"scenario {i + 1}"))
    return runs


def _label(variant: Any, index: int) -> str:
    return variant if isinstance(variant, str) else f"variant {index + 1}"


def _compare(who: str, left_name: str, left: list, right_name: str, right: list) -> None:
    for step in range(max(len(left), len(right))):
        if step >= len(left) or step >= len(right):
            shorter, longer = (
                (left_name, right_name) if step >= len(left) else (right_name, left_name)
            )
            raise AssertionError(
                f"information leak: {who} observes differently in {left_name!r} and "
                f"{right_name!r} at step {step}, field $: the episode in {shorter!r} ended "
                f"at step {step - 1} but in {longer!r} it goes on"
            )
        if canonical_json(left[step]) == canonical_json(right[step]):
            continue
        path, a, b = first_difference(left[step], right[step])  # type: ignore[misc]
        raise AssertionError(
            f"information leak: {who} observes differently in {left_name!r} and "
            f"{right_name!r} at step {step}, field {path}: {short(a)} vs {short(b)}"
        )
