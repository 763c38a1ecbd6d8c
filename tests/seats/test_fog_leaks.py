"""The SDK's leak checks for every fog variant.

A seat may know its own stones, the opponent stones it has proven, its own
referee log (its plies' results and sense reports), whose turn it is and the
constant maxPlies; never the global ply count (in the non-abrupt variants it
counts the opponent's collisions). Episodes that agree on all of that must give
the seat identical observation streams (canonical JSON at every step), however
the opponent's unproven stones, collisions, guesses, say and notes differ.

An observation here is what the SDK's `assert_no_information_leak` observes
(`{"view": view_for, "legalMoves": ...on the seat's turn}`) plus the prompt text
`observation_text` builds for the seat, so the prompt is checked too.

The comparison is the SDK's `coworld.sdk.assert_no_information_leak`.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

import pytest

import coworld
from coworld.games import fog, of_family
from coworld.sdk import assert_no_information_leak
from coworld.sdk.canonical import canonical_json as canonical
from tests.support.leaks import what_the_seat_may_know

VARIANTS = list(of_family("fog"))
ALIASES = ["cog-0a0a", "cog-1b1b"]


def assert_streams_identical(seat: int, streams: dict[str, list[Any]]) -> None:
    """The SDK's leak check over named observation streams (the SDK's run + variants form)."""
    assert_no_information_leak(run=streams.__getitem__, variants=list(streams), seat=seat)


# ---- episodes ----


def observation(reducer, state, seat: int, notes: str) -> dict[str, Any]:
    seen: dict[str, Any] = {"view": reducer.view_for(state, seat)}
    if state.active_seat == seat:
        seen["legalMoves"] = reducer.legal_moves(state)
    seen["prompt"] = fog.observation_text(
        state, seat, notes=notes, operator_prompt="play well", aliases=ALIASES
    )
    return seen


def run_episode(reducer, observer: int, opponent_replies, plies: int):
    """Play `plies` plies: the observer plays `probe` (a function of its own view, so its
    decisions cannot differ unless its view does), with its own notes; the opponent's
    replies come from `opponent_replies(state)` (JSON text with say / notes / guess)."""
    state = reducer.init(seed=7)
    notes = ""
    stream = [observation(reducer, state, observer, notes)]
    while not state.is_terminal and state.plies < plies:
        seat = state.active_seat
        if seat == observer:
            move = state.baseline_move("probe")
            sense, _, cell = move.rpartition("+")
            body = {"move": cell, "notes": f"after ply {state.plies}"}
            if sense:
                body["sense"] = sense
            text = json.dumps(body)
        else:
            text = opponent_replies(state)
        reply = fog.parse_reply(text, state, seat, ALIASES)
        if seat == observer:
            notes = reply.notes
        state = reducer.apply(reducer.with_guess(state, list(reply.guess)), reply.move)
        stream.append(observation(reducer, state, observer, notes))
    return state, stream


def random_opponent(seed: int):
    rng = random.Random(seed)

    def reply(state) -> str:
        move = rng.choice(state.legal_moves())
        sense, _, cell = move.rpartition("+")
        body = {
            "move": cell,
            "say": rng.choice(["gg", "I see you", "c3 is mine", ""]),
            "notes": "".join(rng.choice("abcdef12345") for _ in range(rng.randrange(30))),
            "guess": rng.sample(state.view()["legalAttempts"] or ["a1"], k=rng.randrange(3)),
        }
        if sense:
            body["sense"] = sense
        return json.dumps(body)

    return reply


@pytest.mark.parametrize("game_id", VARIANTS)
@pytest.mark.parametrize("observer", [0, 1])
def test_hidden_opponent_play_never_reaches_the_seat(game_id, observer):
    """Many episodes against a random opponent (random stones, collisions, guesses,
    say and notes); episodes that agree on what the observer may know must give it
    identical streams. The check must have compared episodes whose true boards differ."""
    reducer = coworld.game(game_id)
    groups: dict[str, dict[str, list[Any]]] = defaultdict(dict)
    boards: dict[str, set[str]] = defaultdict(set)
    for seed in range(250):
        state, stream = run_episode(reducer, observer, random_opponent(seed), plies=6)
        key = what_the_seat_may_know(state, observer)
        groups[key][f"opponent seed {seed}"] = stream
        boards[key].add(canonical(state.view()["stones"]))
    compared = 0
    for key, streams in groups.items():
        if len(streams) > 1:
            assert_streams_identical(observer, streams)
            compared += len(boards[key]) - 1
    assert compared >= 20, f"only {compared} episodes had differing hidden boards"


def _scripted(moves: list[str], say: str = "", notes: str = "", guess=()):
    it = iter(moves)

    def reply(state) -> str:
        return json.dumps({"move": next(it), "say": say, "notes": notes, "guess": list(guess)})

    return reply


@pytest.mark.parametrize(
    ("game_id", "left", "right"),
    [
        # Non-abrupt: the opponent's unproven stones sit elsewhere.
        ("phantom-ttt-3", ["c3", "a3", "c1"], ["b3", "c3", "a3"]),
        ("dark-hex-4", ["a4", "b4", "c4"], ["d4", "d3", "c4"]),
        # Abrupt: a collision and a placement look the same to the other seat.
        ("dark-hex-5", ["e5", "e4", "e3"], ["e1", "e4", "d5"]),
    ],
)
def test_permuted_unproven_stones_are_invisible(game_id, left, right):
    """Hand-made pairs: seat 0 plays probe for 6 plies while seat 1's stones differ
    (and in dark-hex-5 one of its plies collides in one episode only)."""
    reducer = coworld.game(game_id)
    a, sa = run_episode(reducer, 0, _scripted(left, "left", "secret-left", ["a1"]), plies=6)
    b, sb = run_episode(reducer, 0, _scripted(right, "right", "secret-right", ["b2", "c3"]), 6)
    assert a.view()["stones"] != b.view()["stones"]
    assert what_the_seat_may_know(a, 0) == what_the_seat_may_know(b, 0)
    assert_streams_identical(0, {"left": sa, "right": sb})


class LeakyReducer(fog.FogReducer):
    """A deliberately wrong view: it adds the true distToWin to the seat's view."""

    def view_for(self, state, seat):
        view = dict(super().view_for(state, seat))
        view["distToWin"] = state.view()["distToWin"][seat]
        return view


def test_a_leaky_view_is_caught():
    # dark-hex-4: seat 1's unproven a3 (left) blocks nothing of probe's path; d1 (right)
    # sits on it, so seat 0's TRUE distToWin differs while its knowledge does not.
    reducer = LeakyReducer("dark-hex-4")
    left = run_episode(reducer, 0, _scripted(["a4", "a3"]), plies=4)
    right = run_episode(reducer, 0, _scripted(["a4", "d1"]), plies=4)
    assert what_the_seat_may_know(left[0], 0) == what_the_seat_may_know(right[0], 0)
    with pytest.raises(AssertionError, match=r"step 4, field \$\.view\.distToWin"):
        assert_streams_identical(0, {"left": left[1], "right": right[1]})
    # The honest reducer passes the same pair.
    honest = coworld.game("dark-hex-4")
    assert_streams_identical(
        0,
        {
            "left": run_episode(honest, 0, _scripted(["a4", "a3"]), plies=4)[1],
            "right": run_episode(honest, 0, _scripted(["a4", "d1"]), plies=4)[1],
        },
    )


# ---- the opponent's collisions ----
#
# In the non-abrupt variants a collision keeps the mover, so a global ply count
# anywhere on a seat-facing surface tells the waiting seat how often (and,
# from the timing, where) the opponent collided. Episodes that differ ONLY in
# the opponent's collisions must look the same to the seat: same views, same
# prompts, same baseline moves (every fog baseline is a pure function of the
# seat's view, its PRNG stream included).

BASELINES = ("probe", "sweep", "random")


def seat_observation(reducer, state, seat: int) -> dict[str, Any]:
    """What the seat observes, plus every baseline's move on its turn."""
    seen = observation(reducer, state, seat, notes="")
    if state.active_seat == seat:
        seen["baselines"] = {name: state.baseline_move(name) for name in BASELINES}
    return seen


def colliding_opponent(seed: int, observer: int):
    """The opponent places on its own fixed plan (the first cell of a shuffled board
    it may place on) but, on a coin flip, first attempts a stone of the observer it
    has not found yet (which one is random too): the episodes differ in how often
    and where the opponent collides."""
    plan_rng, rng = random.Random(1000), random.Random(seed)

    def move(state) -> str:
        full = state.view()
        board = sorted(state.view_for(1 - observer)["legalAttempts"])
        plan_rng.seed(1000)
        plan_rng.shuffle(board)
        unfound = [
            c
            for c, owner in full["stones"].items()
            if owner == observer and c in state.view_for(1 - observer)["legalAttempts"]
        ]
        if unfound and rng.random() < 0.5:
            cell = rng.choice(sorted(unfound))
        else:
            cell = next(c for c in board if c not in full["stones"])
        anchors = state.view_for(1 - observer)["legalSenseAnchors"]
        return f"{anchors[0]}+{cell}" if anchors else cell

    return move


def seat_stream(reducer, observer: int, opponent, attempts: int):
    """Play until the observer has made `attempts` attempts and is to move again (or the
    game ends); the observer plays `probe`. Returns (state, stream): the observer's
    observations with repeats dropped (a ply that leaves its view unchanged is one it
    does not see)."""
    state = reducer.init(seed=7)
    stream = [seat_observation(reducer, state, observer)]
    made = 0
    while not state.is_terminal:
        if state.active_seat == observer:
            if made == attempts:
                break
            move, made = state.baseline_move("probe"), made + 1
        else:
            move = opponent(state)
        state = reducer.apply(state, move)
        seen = seat_observation(reducer, state, observer)
        if canonical(seen) != canonical(stream[-1]):
            stream.append(seen)
    return state, stream


def own_experience(state, seat: int) -> str:
    """What the seat may know, from the spectator truth WITHOUT the global ply count:
    its own plies' sense, cell and result, whose turn it is and the public outcome."""
    full = state.view()
    own = [
        {k: e.get(k) for k in ("sense", "cell", "result")}
        for e in full["events"]
        if e["seat"] == seat
    ]
    results = state.results
    public = results and {k: results[k] for k in ("ending", "score", "winner")}
    return canonical([own, full["activeSeat"], public])


def opponent_collisions(state, seat: int) -> list[str]:
    return [
        e["cell"] for e in state.view()["events"] if e["seat"] != seat and e["result"] == "occupied"
    ]


@pytest.mark.parametrize("game_id", VARIANTS)
@pytest.mark.parametrize("observer", [0, 1])
def test_the_opponent_s_collisions_never_reach_the_seat(game_id, observer):
    """Episodes that the seat cannot tell apart (same own results and outcome) but in
    which the opponent collided a different number of times, or on different cells,
    give the seat bit-identical observation streams: views, prompts and the moves of
    probe, sweep and random. The check must have compared such episodes."""
    reducer = coworld.game(game_id)
    groups: dict[str, dict[str, list[Any]]] = defaultdict(dict)
    collisions: dict[str, set[str]] = defaultdict(set)
    for seed in range(160):
        state, stream = seat_stream(reducer, observer, colliding_opponent(seed, observer), 4)
        key = own_experience(state, observer)
        groups[key][f"opponent seed {seed}"] = stream
        collisions[key].add(canonical(opponent_collisions(state, observer)))
    compared = 0
    for key, streams in groups.items():
        if len(collisions[key]) > 1:
            assert_streams_identical(observer, streams)
            compared += len(collisions[key]) - 1
    assert compared >= 4, f"only {compared} episodes differed in the opponent's collisions"


def test_the_worked_example_dark_hex_4():
    """dark-hex-4: seat 0 plays a4; seat 1 attempts a4 (collision), then a1. Seat 0's
    view, prompt and baseline moves are those of the game where seat 1 placed a1 at
    once; its log numbers its own attempts 1, 2 (not plies 0 and 3)."""
    reducer = coworld.game("dark-hex-4")

    def after(moves: list[str]):
        state = reducer.init(seed=7)
        for m in moves:
            state = reducer.apply(state, m)
        return state

    found, clean = after(["a4", "a4", "a1", "b1"]), after(["a4", "a1", "b1"])
    assert found.plies == 4 and clean.plies == 3
    assert [e["attempt"] for e in reducer.view_for(found, 0)["log"]] == [1, 2]
    assert_streams_identical(
        0,
        {
            "a4 found": [seat_observation(reducer, after(["a4", "a4", "a1"]), 0)]
            + [seat_observation(reducer, found, 0)],
            "a4 unfound": [seat_observation(reducer, after(["a4", "a1"]), 0)]
            + [seat_observation(reducer, clean, 0)],
        },
    )


@pytest.mark.parametrize("game_id", VARIANTS)
def test_revelations_reach_only_the_seat_that_learned(game_id):
    """A collision (and a recon sense) is revealed to the mover only: the other seat's
    view never lists it, while the spectator view and the ply's event do."""
    reducer = coworld.game(game_id)
    state = reducer.init(seed=3)
    rng = random.Random(5)
    while not state.is_terminal and state.plies < 14:
        state = reducer.apply(state, rng.choice(state.legal_moves()))
    full = state.view()
    for seat in (0, 1):
        mine = reducer.view_for(state, seat)["revelations"]
        assert all(r["revealedTo"] == [seat] for r in mine)
        assert mine == [r for r in full["revelations"] if r["revealedTo"] == [seat]]
        own = [e for e in full["events"] if e["seat"] == seat]
        assert [r["step"] for r in mine] == [
            n for n, e in enumerate(own, 1) for _ in e.get("revelations", [])
        ]
    collided = [e for e in full["events"] if e["result"] == "occupied"]
    assert all(
        {"what": "stone", "where": e["cell"], "identity": {"owner": 1 - e["seat"]}}.items()
        <= e["revelations"][-1].items()
        for e in collided
    )


def test_sdk_seat_transcripts_and_agent_outcomes_hold_only_the_seat_s_knowledge():
    """The SDK's publishable seat transcript and AgentEnvironment, on fog: the opponent's
    collisions leave no record (steps count the seat's own actions), and the outcome is
    the seat's own (no true distToWin, winning path, probes or guesses)."""
    from coworld.sdk import AgentEnvironment, SubmittedAction, seat_transcript
    from coworld.sdk.episode import Episode as SdkEpisode

    reducer = coworld.game("dark-hex-4")

    def episode(moves: list[str]) -> SdkEpisode:
        state = reducer.init(seed=7)
        run = SdkEpisode(level=None, seed=7, states=[state])
        for m in moves:
            submitted = SubmittedAction(state.active_seat, m)
            state = reducer.apply(state, submitted)
            run.actions.append(submitted)
            run.states.append(state)
        return run

    # seat 1 finds a4 before placing a1 (left), or places a1 at once (right)
    left = episode(["a4", "a4", "a1", "b4", "b1", "c4", "c1", "d4"])
    right = episode(["a4", "a1", "b4", "b1", "c4", "c1", "d4"])
    assert left.final.is_terminal and right.final.is_terminal
    mine = [seat_transcript(reducer, run, 0) for run in (left, right)]
    assert canonical(mine[0]) == canonical(mine[1])
    assert [r["step"] for r in mine[0]["steps"]] == [0, 1, 1, 2, 2, 3, 3, 4]
    assert mine[0]["outcome"] == {"reason": "complete", "ending": "connection",
                                  "score": [1, -1], "winner": 0}  # fmt: skip
    assert seat_transcript(reducer, left, 0, verifiable=True)["outcome"] == left.final.results

    env = AgentEnvironment(
        reducer, None, 7, seat=1, behaviours=lambda r, s, seat: s.baseline_move("probe")
    )
    env.reset()
    result = env.step("a1")
    while not result.done:
        result = env.step(env.legal_moves()[0])
    assert set(result.outcome) == {"reason", "ending", "score", "winner"}
    assert "distToWin" in env.outcome  # the harness still has the full results
