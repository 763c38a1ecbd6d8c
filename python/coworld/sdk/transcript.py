"""Transcripts: the full (server-side) record and per-seat (publishable) records.

A transcript is a JSON-serialisable dict, and as JSON Lines one header line,
one line per step, then one outcome line::

    {"header": {"format": "coworld-transcript", "version": 1,
                "visibility": "full" | "seat:<id>", "game": id?, "level": ...,
                "seed": n?, "seat": id?}}
    {"step": 0, "observation": ...}                                  # optional
    {"step": 1, "seat": 0, "action": "play 1", "observation": ...}
    ...
    {"outcome": {...} | null}

Step k is the k-th submitted action and the observation of the state after it;
step 0 holds only the initial observation.

* Full transcript (`visibility: "full"`): the seed, every submitted action
  and (optionally) the full `view` after each step. Private: hidden
  information is re-derived from the seed, which is why `recheck_transcript`
  can verify it.
* Seat transcript (`visibility: "seat:<id>"`): that seat's redacted
  observations (`view_for`, or `view` for a perfect-information game), made by
  the same policy that produced the live views, plus the seat's own actions.
  Publishable: no seed and no other seat's action. With `verifiable=True`
  (what `AgentEnvironment` writes) it also carries the seed and every action,
  so it re-verifies from the seed like a full transcript.

`recheck_transcript` re-simulates a transcript that has the seed and every
action, and checks each recorded action's seat, each recorded observation and
the outcome, raising `TranscriptMismatch` at the first difference.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any

from ..errors import CoworldError
from .canonical import canonical_json, first_difference, short
from .episode import Episode, active_seat_of, is_terminal_of, results_of, seat_results_of
from .protocol import SubmittedAction, seat_view

FORMAT = "coworld-transcript"
VERSION = 1


class TranscriptMismatch(CoworldError, AssertionError):
    """A transcript disagrees with its re-simulation. `step` is the first step that
    differs; `path` the JSON path of the first differing field ("" when the
    action itself was refused or is missing)."""

    def __init__(self, message: str, step: int, path: str = "") -> None:
        super().__init__(message)
        self.step = step
        self.path = path


def header_record(reducer: Any, episode: Episode, visibility: str, seed: bool) -> dict[str, Any]:
    """A transcript's header: format, visibility, game, level and (`seed`) the seed."""
    header: dict[str, Any] = {"format": FORMAT, "version": VERSION, "visibility": visibility}
    game = getattr(reducer, "id", None)
    if isinstance(game, str):
        header["game"] = game
    header["level"] = recorded_level(reducer, episode.level)
    if seed:
        header["seed"] = recorded_seed(episode)
    return header


def recorded_level(reducer: Any, level: Any) -> Any:
    """The level that re-creates the episode with any instance of the reducer: a reducer
    built with settings (coworld's `game({"game": id, ...settings})`) merges them into
    every level, so they are written out."""
    settings = getattr(reducer, "settings", None)
    if isinstance(settings, Mapping) and settings and (level is None or isinstance(level, Mapping)):
        return {**settings, **(level or {})}
    return level


def recorded_seed(episode: Episode) -> int:
    """The seed that re-derives the episode: the initial state's own `seed` when it has
    one (coworld draws a seed when given 0 and keeps it there), else the seed given."""
    own = getattr(episode.states[0], "seed", None)
    return own if isinstance(own, int) and not isinstance(own, bool) else episode.seed


def action_record(step: int, submitted: SubmittedAction) -> dict[str, Any]:
    """One step's record: which seat submitted which action."""
    return {"step": step, "seat": submitted.seat, "action": submitted.action}


def full_transcript(reducer: Any, episode: Episode, *, observations: bool = True) -> dict:
    """The full transcript of `episode` (seed + actions, and full views unless told not to)."""
    steps: list[dict[str, Any]] = []
    if observations:
        steps.append({"step": 0, "observation": reducer.view(episode.states[0])})
    for k, submitted in enumerate(episode.actions, start=1):
        record = action_record(k, submitted)
        if observations:
            record["observation"] = reducer.view(episode.states[k])
        steps.append(record)
    return {
        "header": header_record(reducer, episode, "full", seed=True),
        "steps": steps,
        "outcome": outcome_record(reducer, episode.final),
    }


def seat_transcript(
    reducer: Any, episode: Episode, seat: Hashable, *, verifiable: bool = False
) -> dict:
    """`seat`'s transcript of `episode`: its view after every step and its own actions.

    Publishable as is: it records only what the seat saw. A step by another seat
    that leaves the seat's view unchanged (a fog opponent's collision) leaves no
    record, `step` counts the seat's own actions (never the global step, which
    would count plies the seat cannot see), and the outcome is the seat's own
    (`results_for`, see `seat_results_of`). `verifiable=True` instead records
    every step with the global step number, the seed and every seat's actions
    and the full results (then it is as private as a full transcript, and
    `recheck_transcript` takes it).
    """
    if verifiable:
        return _verifiable_seat_transcript(reducer, episode, seat)
    header = header_record(reducer, episode, f"seat:{seat}", seed=False)
    header["seat"] = seat
    first = seat_view(reducer, episode.states[0], seat)
    steps: list[dict[str, Any]] = [{"step": 0, "observation": first}]
    last, own = canonical_json(first), 0
    for k, submitted in enumerate(episode.actions, start=1):
        observation = seat_view(reducer, episode.states[k], seat)
        seen = canonical_json(observation)
        acted = submitted.seat == seat
        own += acted
        if acted or seen != last:
            record: dict[str, Any] = {"step": own}
            if acted:
                record.update(seat=submitted.seat, action=submitted.action)
            record["observation"] = observation
            steps.append(record)
        last = seen
    outcome = (
        seat_results_of(reducer, episode.final, seat)
        if is_terminal_of(reducer, episode.final)
        else None
    )
    return {"header": header, "steps": steps, "outcome": outcome}


def _verifiable_seat_transcript(reducer: Any, episode: Episode, seat: Hashable) -> dict:
    header = header_record(reducer, episode, f"seat:{seat}", seed=True)
    header["seat"] = seat
    steps: list[dict[str, Any]] = [
        {"step": 0, "observation": seat_view(reducer, episode.states[0], seat)}
    ]
    for k, submitted in enumerate(episode.actions, start=1):
        record = action_record(k, submitted)
        record["observation"] = seat_view(reducer, episode.states[k], seat)
        steps.append(record)
    return {"header": header, "steps": steps, "outcome": outcome_record(reducer, episode.final)}


def outcome_record(reducer: Any, state: Any) -> Any:
    """The results of a finished episode, None while it runs."""
    return results_of(reducer, state) if is_terminal_of(reducer, state) else None


def to_jsonl(transcript: dict) -> str:
    """A transcript as JSON Lines (canonical JSON, one record per line)."""
    lines = [canonical_json({"header": transcript["header"]})]
    lines += [canonical_json(record) for record in transcript["steps"]]
    lines.append(canonical_json({"outcome": transcript.get("outcome")}))
    return "\n".join(lines) + "\n"


def from_jsonl(text: str) -> dict:
    """The transcript `to_jsonl` wrote."""
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not records or "header" not in records[0]:
        raise ValueError('a transcript\'s first line is its header: {"header": {...}}')
    transcript: dict[str, Any] = {"header": records[0]["header"], "steps": [], "outcome": None}
    for number, record in enumerate(records[1:], start=2):
        if "step" in record:
            transcript["steps"].append(record)
        elif "outcome" in record:
            transcript["outcome"] = record["outcome"]
        else:
            raise ValueError(f"line {number} is neither a step nor the outcome: {short(record)}")
    return transcript


def recheck_transcript(reducer: Any, transcript: dict) -> Episode:
    """Re-simulate `transcript` from its seed and actions and verify it; returns the episode.

    Checks, step by step: the recorded seat is the seat whose turn it was, the
    action is accepted, the recorded observation (full view, or the seat's view
    for a `seat:<id>` transcript) equals the re-simulated one as canonical JSON;
    finally the outcome. Raises `TranscriptMismatch` at the first difference.
    """
    header = transcript.get("header", {})
    observe = _observer(reducer, header)
    if header.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} transcript (format {header.get('format')!r})")
    if "seed" not in header:
        raise ValueError(
            "this transcript has no seed (a publishable seat transcript): recheck the full "
            "transcript, then compare with seat_transcript(reducer, episode, seat)"
        )
    game = getattr(reducer, "id", None)
    if "game" in header and isinstance(game, str) and header["game"] != game:
        raise ValueError(f"the transcript is of {header['game']!r}, the reducer plays {game!r}")
    records = list(transcript.get("steps", []))
    state = reducer.init(header.get("level"), header["seed"])
    episode = Episode(level=header.get("level"), seed=header["seed"], states=[state])
    if records and records[0].get("step") == 0:
        _check_observation(records.pop(0), observe(state), 0)
    for k, record in enumerate(records, start=1):
        state = _replay_step(reducer, state, record, k)
        episode.actions.append(SubmittedAction(record["seat"], record["action"]))
        episode.states.append(state)
        _check_observation(record, observe(state), k)
    _check_outcome(reducer, transcript, state, len(records))
    return episode


def _observer(reducer: Any, header: dict) -> Any:
    visibility = header.get("visibility")
    if visibility == "full":
        return reducer.view
    if isinstance(visibility, str) and visibility.startswith("seat:"):
        seat = header.get("seat")
        if f"seat:{seat}" != visibility:
            raise ValueError(f"header seat {seat!r} does not match visibility {visibility!r}")
        return lambda state: seat_view(reducer, state, seat)
    raise ValueError(f"header visibility is 'full' or 'seat:<id>', not {visibility!r}")


def _replay_step(reducer: Any, state: Any, record: dict, k: int) -> Any:
    if record.get("step") != k:
        raise TranscriptMismatch(
            f"transcript step records are out of sequence: expected step {k}, found "
            f"{record.get('step')!r}",
            k,
        )
    if "action" not in record or "seat" not in record:
        raise TranscriptMismatch(
            f"step {k} records no action and seat, so the episode cannot be re-simulated", k
        )
    expected = active_seat_of(reducer, state)
    if canonical_json(record["seat"]) != canonical_json(expected):
        raise TranscriptMismatch(
            f"transcript differs from the re-simulation at step {k}, field $.seat: recorded "
            f"{short(record['seat'])}, but it was seat {short(expected)}'s turn",
            k,
            "$.seat",
        )
    try:
        return reducer.apply(state, SubmittedAction(expected, record["action"]))
    except (ValueError, TypeError, KeyError, CoworldError) as refused:
        raise TranscriptMismatch(
            f"transcript differs from the re-simulation at step {k}: the action "
            f"{short(record['action'])} of seat {short(expected)} is refused: {refused}",
            k,
        ) from refused


def _check_observation(record: dict, actual: Any, k: int) -> None:
    if "observation" not in record:
        return
    if canonical_json(record["observation"]) == canonical_json(actual):
        return
    path, recorded, simulated = first_difference(record["observation"], actual)  # type: ignore[misc]
    raise TranscriptMismatch(
        f"transcript differs from the re-simulation at step {k}, field {path} of the "
        f"observation: recorded {short(recorded)}, re-simulated {short(simulated)}",
        k,
        path,
    )


def _check_outcome(reducer: Any, transcript: dict, state: Any, steps: int) -> None:
    if "outcome" not in transcript:
        return
    actual = outcome_record(reducer, state)
    if canonical_json(transcript["outcome"]) == canonical_json(actual):
        return
    path, recorded, simulated = first_difference(transcript["outcome"], actual)  # type: ignore[misc]
    raise TranscriptMismatch(
        f"transcript differs from the re-simulation in the outcome after step {steps}, "
        f"field {path}: recorded {short(recorded)}, re-simulated {short(simulated)}",
        steps,
        path,
    )
