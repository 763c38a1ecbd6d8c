"""Hidden means hidden, across every surface a seat reads.

ONE generator (`pairs`) yields, for every hidden-information game id, pairs of
histories the observing seat cannot tell apart:
- fog: identical own attempts and results, while the opponent's stones differ and,
  in one history, it collides with the observer's stones (non-abrupt: keeping its
  turn, so the global ply counts differ; abrupt: losing it);
- Hanabi: the observer's own hand and the undrawn deck swapped (forced deals)
  behind the same public history (nobody hints, plays or discards its cards).

Every registered surface turns one history into what the observer receives,
as bytes, and the two histories must give the same bytes. `CENSUS` finds the
surfaces in the code (policy kinds, RL environment classes, seat-facing reducer
and family functions); a surface without a registry entry fails
`test_every_surface_has_an_entry` until it gets one.
"""

from __future__ import annotations

import inspect
import json
import random
import typing
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import coworld
import coworld.gymnasium
import coworld.pettingzoo
from coworld import episode as episode_module
from coworld.episode import Episode
from coworld.errors import ConfigError, ReplyRejected
from coworld.games import FAMILIES, family_module
from coworld.games.base import Reducer
from coworld.seats.human import seat_payload
from coworld.seats.policy import ClaudePolicy, Policy
from coworld.seats.python_policy import PythonPolicy
from coworld.vecenv import action_names

CATALOG = coworld.catalog()
HIDDEN = [g for g in coworld.GAMES if CATALOG[g]["hidden"]]
SEED = 2**52 + 977  # history A's engine seed; B's differs from it in high bits only
OTHER_SEED = SEED ^ (1 << 45)
ENTROPY = "0123456789abcdef" * 2  # the same episode entropy on both sides (aliases, RNG)
COLOURS = ["red", "yellow", "green", "blue", "white"]
COPIES = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}


# ---- the one generator --------------------------------------------------------


@dataclass(frozen=True)
class Side:
    config: dict[str, Any]  # settings (Hanabi: seats and the forced deck)
    moves: tuple[str, ...]  # ends with the observer to move
    #: The engine seed: no surface may show it (fog has no chance; Hanabi's deals are forced).
    seed: int = SEED


@dataclass(frozen=True)
class Pair:
    game: str
    observer: int
    a: Side
    b: Side

    @property
    def label(self) -> str:
        return f"{self.game}-seat{self.observer}-{len(self.a.moves)}v{len(self.b.moves)}"


#: Per board size: the observer's cells (sensing a1's block in recon, which holds
#: no opponent cell) and the opponent's cells in history A and in history B.
FOG_CELLS = {
    3: (["a1", "c1"], ["b2", "a3", "b3"], ["c3", "c2", "b1"]),
    4: (["a1", "a2"], ["d4", "d3", "c4"], ["d2", "c3", "d1"]),
    5: (["a1", "a2"], ["e5", "e4", "d5"], ["e3", "d4", "e2"]),
}


def fog_side(game: str, observer: int, opponent_cells: list[str], collide: bool, seed: int) -> Side:
    """The observer places its cells; the opponent places `opponent_cells` in turn,
    and with `collide` first attempts every observer stone it has not hit yet
    (a collision keeps the turn in the non-abrupt variants and ends it otherwise).
    The history stops when the observer is to move with its cells all placed."""
    state = coworld.game(game).init(seed=SEED)
    size, recon = state.config["size"], state.config["sense"] > 0
    own, _, _ = FOG_CELLS[size]
    own_left, theirs, placed, hit = list(own), list(opponent_cells), [], []
    moves: list[str] = []

    def play(cell: str, anchor: str) -> None:
        nonlocal state
        move = f"{anchor}+{cell}" if recon else cell
        moves.append(move)
        state = state.apply(move)

    while True:
        if state.active_seat == observer:
            if not own_left:
                return Side({}, tuple(moves), seed)
            placed.append(own_left[0])
            play(own_left.pop(0), "a1")
            continue
        targets = [c for c in placed if c not in hit] if collide else []
        if targets:
            hit.append(targets[0])
            play(targets[0], f"{'abcde'[size - 1]}{size}")
        else:
            play(theirs.pop(0), f"{'abcde'[size - 1]}{size}")


def shuffled_deck(seed: int) -> list[str]:
    deck = [f"{c} {r}" for c in COLOURS for r, n in COPIES.items() for _ in range(n)]
    random.Random(seed).shuffle(deck)
    return deck


def hanabi_pair(seats: int, observer: int, seed: int) -> Pair:
    """A quiet history (the observer only hints, nobody touches its cards) on a
    deal, and the same history on the deal with the observer's hand reordered and
    the undrawn tail shuffled."""
    deck, hand, horizon = shuffled_deck(seed), 5 if seats <= 3 else 4, 10
    rng = random.Random(seed)
    mine = slice(observer * hand, (observer + 1) * hand)
    other = list(deck)
    cards = other[mine]
    while cards == deck[mine]:
        rng.shuffle(cards)
    other[mine] = cards
    drawn = seats * hand + horizon
    tail = other[drawn:]
    rng.shuffle(tail)
    other = other[:drawn] + tail
    reducer = coworld.game({"game": "hanabi", "seats": seats, "deck": deck})
    state, moves, cut = reducer.init(seed=SEED), [], 0
    for _ in range(horizon):
        legal = reducer.legal_moves(state)
        if state.active_seat == observer:
            cut = len(moves)
            move = next(m for m in legal if m.startswith("hint"))
        else:
            quiet = [m for m in legal if m.startswith("hint") and m.split()[1] != str(observer)]
            move = ([m for m in legal if m.startswith("discard")] or quiet)[0]
        moves.append(move)
        state = reducer.apply(state, move)
    moves = moves[:cut] if cut else moves  # end with the observer to move
    return Pair(
        "hanabi",
        observer,
        Side({"seats": seats, "deck": deck}, tuple(moves)),
        Side({"seats": seats, "deck": other}, tuple(moves), OTHER_SEED),
    )


def pairs(game: str) -> Iterator[Pair]:
    """Histories a seat cannot tell apart, for one hidden-information game id."""
    if game == "hanabi":
        yield hanabi_pair(4, 2, seed=1)
        yield hanabi_pair(2, 0, seed=2)
        return
    size = coworld.game(game).init(seed=1).config["size"]
    _, cells_a, cells_b = FOG_CELLS[size]
    for observer in (0, 1):
        yield Pair(
            game,
            observer,
            fog_side(game, observer, cells_a, collide=False, seed=SEED),
            fog_side(game, observer, cells_b, collide=True, seed=OTHER_SEED),
        )


# ---- what a history looks like to the observer, surface by surface -----------


def spec(pair: Pair, side: Side) -> dict[str, Any]:
    return {"game": pair.game, **side.config}


def states(pair: Pair, side: Side, seed: int | None = None) -> list[Any]:
    """Every state of the history (on `seed`, else the side's), the initial one first."""
    state = coworld.game(spec(pair, side)).init(seed=side.seed if seed is None else seed)
    out = [state]
    for move in side.moves:
        state = state.apply(move)
        out.append(state)
    return out


def turns(pair: Pair, side: Side, seed: int | None = None) -> list[Any]:
    """The states in which the observer is to move."""
    return [s for s in states(pair, side, seed) if s.active_seat == pair.observer]


def tensor(a: np.ndarray) -> str:
    return f"{a.dtype}{a.shape}:{np.ascontiguousarray(a).tobytes().hex()}"


def view_for(pair: Pair, side: Side) -> list[Any]:
    reducer = coworld.game(spec(pair, side))
    return [reducer.view_for(s, pair.observer) for s in turns(pair, side)]


def replies(state: Any) -> list[str]:
    """Replies probing the reader: junk, every action's move text (legal or not,
    an opponent's hidden stone too), a guess and notes."""
    texts = ["I pass.", "{}", '{"move": "zz9"}', '{"move": 42}']
    texts += [json.dumps({"move": m, "notes": "n", "guess": ["b2"]}) for m in action_names(state)]
    return texts


def claude(pair: Pair, side: Side) -> list[Any]:
    """The system prompt, the user message, and for each probe reply the parse
    (or the refusal's cause, reason and the retry message quoting it), built by
    the episode runner's own methods."""
    seats = turns(pair, side)[0].num_seats
    policy = ClaudePolicy("prompted", "Win.")
    policies: list[Policy | str] = ["random"] * seats
    policies[pair.observer] = policy
    ep = Episode(spec(pair, side), policies, seed=side.seed, entropy=ENTROPY)
    out: list[Any] = [ep.system_prompt(policy)]
    for state in turns(pair, side):
        ep.state = state
        out.append(
            ep.family.observation_text(
                state, pair.observer, notes="plan", operator_prompt="Win.", aliases=ep.aliases
            )
        )
        for text in replies(state):
            try:
                out.append(asdict(ep.family.parse_reply(text, state, pair.observer, ep.aliases)))
            except ReplyRejected as err:
                out.append([err.cause, err.reason, ep._retry_text(err.reason)])
    return out


class Stop(Exception):
    """Ends a scripted episode where its history ends."""


SCRIPT = """
NAME = {name!r}
MOVES = {moves!r}
SEEN = []


def act(view, legal_moves):
    SEEN.append([view, legal_moves, RNG.random()])
    return MOVES.pop(0) if MOVES else legal_moves[0]
"""


def scripted_episode(pair: Pair, side: Side, out: Path) -> tuple[Episode, Path]:
    """The history played by the real episode runner: every seat a Python policy
    that plays its own moves of the history, with seat transcripts written."""
    first = states(pair, side)
    seats = first[0].num_seats
    own: list[list[str]] = [[] for _ in range(seats)]
    for state, move in zip(first, side.moves, strict=False):
        own[state.active_seat].append(move)
    policies = [
        PythonPolicy(f"script{s}", SCRIPT.format(name=f"script{s}", moves=own[s]))
        for s in range(seats)
    ]
    end = len(side.moves)

    def stop(event: dict[str, Any]) -> None:
        if event["type"] == "ply" and event["ply"] == end:
            raise Stop

    path = out / "episode.jsonl"
    ep = Episode(
        spec(pair, side),
        policies,
        seed=side.seed,
        entropy=ENTROPY,
        out=path,
        seat_transcripts=True,
        on_event=stop,
    )
    with pytest.raises(Stop):
        episode_module.run(ep)
    return ep, path


def python_policy(pair: Pair, side: Side, tmp: Path) -> list[Any]:
    """The arguments the observer's Python policy got (and its RNG's draws)."""
    ep, _ = scripted_episode(pair, side, tmp)
    act = ep._python_seats[pair.observer].act
    assert act is not None
    return act.__globals__["SEEN"]  # type: ignore[attr-defined, no-any-return]


def transcript(pair: Pair, side: Side, tmp: Path) -> list[Any]:
    """The observer's seat transcript, byte for byte."""
    _, path = scripted_episode(pair, side, tmp)
    return [path.with_suffix(f".seat{pair.observer}.jsonl").read_text()]


def vecenv(pair: Pair, side: Side) -> list[Any]:
    """Self-play VecEnv: at each of the observer's steps its observation, mask,
    rewards, flags and infos."""
    env = coworld.VecEnv(pair.game, 1, side.seed, config=side.config or None, threads=1)
    env.reset()
    out: list[Any] = []
    for move in [*side.moves, None]:
        if int(env.info["seat"][0]) == pair.observer:
            out.append(
                [tensor(env.obs[0]), tensor(env.mask[0]), tensor(env.rewards[0])]
                + [bool(env.terminated[0]), bool(env.truncated[0])]
                + [int(env.info["ending"][0]), tensor(env.info["plies"][0])]
            )
        if move is not None:
            env.step(np.array([env.action_id(move)]))
    return out


def aec(pair: Pair, side: Side) -> list[Any]:
    """PettingZoo AEC: what `last()` hands the observer each time it is selected."""
    env = coworld.pettingzoo.env(pair.game, side.config or None)
    env.reset(seed=side.seed)
    me, out = f"player_{pair.observer}", []
    for move in [*side.moves, None]:
        if env.agent_selection == me:
            obs, reward, term, trunc, info = env.last()
            out.append([{k: tensor(v) for k, v in obs.items()}, reward, term, trunc, info])
        if move is not None:
            env.step(action_names(env.state_).index(move))
    return out


def parallel(pair: Pair, side: Side) -> list[Any]:
    """PettingZoo Parallel: the observer's entry of every step's returns, or the
    refusal of a game where a collision keeps the turn."""
    try:
        env = coworld.pettingzoo.parallel_env(pair.game, side.config or None)
    except ConfigError as err:
        return ["refused", str(err)]
    me = f"player_{pair.observer}"
    observations, infos = env.reset(seed=side.seed)
    out: list[Any] = [[{k: tensor(v) for k, v in observations[me].items()}, infos[me]]]
    for move in side.moves:
        mover = env.possible_agents[env.state_.active_seat]
        got = env.step({mover: action_names(env.state_).index(move)})
        observations, rewards, terms, truncs, infos = got
        obs = {k: tensor(v) for k, v in observations[me].items()}
        out.append([obs, rewards[me], terms[me], truncs[me], infos[me]])
    return out


def gym(pair: Pair, side: Side) -> list[Any]:
    """Gymnasium (the observer as the learner): the observation and info it is
    handed in each of its decision states."""
    env = coworld.gymnasium.make(pair.game, config=side.config or None, seat=pair.observer)
    out = []
    for state in turns(pair, side):
        env.state = state
        obs, info = env._observe()
        out.append([tensor(obs), {k: tensor(v) for k, v in info.items()}])
    return out


def baselines(pair: Pair, side: Side) -> list[Any]:
    """Every baseline's move (and with exploration on) in each decision state, on
    history A's seed: a baseline's tie-breaks and exploration draw from the engine's
    per-decision stream, which is the seed's by design (the seat never sees it)."""
    names = [b["name"] for b in CATALOG[pair.game]["baselines"]]
    names += [f"{n}?eps=0.5" for n in names]
    return [[s.baseline_move(n) for n in names] for s in turns(pair, side, SEED)]


def human(pair: Pair, side: Side) -> list[Any]:
    """A human seat's page: the JSON its link serves in each decision state, and
    what it answers to typed moves (every action's text, an opponent's hidden
    stone too, and junk), built by the seat's own payload and move reader."""
    seats = turns(pair, side)[0].num_seats
    ep = Episode(spec(pair, side), ["random"] * seats, seed=side.seed, entropy=ENTROPY)
    out: list[Any] = []
    for state in turns(pair, side):
        out.append(seat_payload(ep, state, pair.observer, True, "plan"))
        for text in ["zz9", "pass", *action_names(state)]:
            try:
                out.append(state.read_move(text))
            except coworld.CoworldError as err:
                out.append(str(err))
    return out


@dataclass(frozen=True)
class Surface:
    read: Callable[..., list[Any]]
    #: The census keys (below) this entry covers.
    covers: tuple[str, ...]
    needs_dir: bool = False


SURFACES: dict[str, Surface] = {
    "view_for": Surface(view_for, ("reducer:view_for",)),
    "claude": Surface(
        claude,
        # board_lines draws the seat's own view inside its observation text
        (
            "policy:claude",
            "family:observation_text",
            "family:parse_reply",
            "legal_text",
            "family:board_lines",
        ),
    ),
    "python_policy": Surface(python_policy, ("policy:python",), needs_dir=True),
    "transcript": Surface(transcript, ("episode:seat_transcripts",), needs_dir=True),
    "vecenv": Surface(vecenv, ("env:VecEnv",)),
    "pettingzoo_aec": Surface(aec, ("env:CoworldAEC",)),
    "pettingzoo_parallel": Surface(parallel, ("env:CoworldParallel",)),
    "gymnasium": Surface(gym, ("env:CoworldEnv",)),
    "baselines": Surface(baselines, ("policy:scripted",)),
    "human": Surface(human, ("policy:human",)),
}

#: Seat-facing in name only, with the reason they are not compared here.
EXEMPT = {
    # The end of a game is public (score, ending); fog's results_for leaves out the
    # ply count, checked in test_fog_leaks; these histories stop before the end.
    "reducer:results_for",
    "family:feed_line",  # the spectator feed, never shown to a seat
    "reducer:standing",  # perfect-information games only (the gauntlet)
    "reducer:zone_visibility",  # a fixed policy of zones, no state in it
}


def census() -> set[str]:
    """Every surface a seat may read, found in the code: the policy kinds, the
    RL environment classes, the reducers' and families' functions of a seat, and
    the episode runner's per-seat outputs."""
    import gymnasium as gymnasium_lib
    from pettingzoo import AECEnv, ParallelEnv

    found = {f"policy:{kind.kind}" for kind in typing.get_args(Policy)}
    envs = (AECEnv, ParallelEnv, gymnasium_lib.Env)
    for module in (coworld.pettingzoo, coworld.gymnasium):
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, envs) and obj.__module__ == module.__name__:
                found.add(f"env:{name}")
    found.add(f"env:{coworld.VecEnv.__name__}")
    reducers = {Reducer, *type(coworld.game("hanabi")).__mro__, *type(coworld.game("hex")).__mro__}
    reducers |= set(type(coworld.game("dark-hex-4")).__mro__)
    for cls in reducers:
        for name, fn in vars(cls).items():
            if callable(fn) and not name.startswith("_") and "seat" in _params(fn):
                found.add(f"reducer:{name}")
    for fam in set(FAMILIES.values()):
        module = family_module(next(g for g, f in FAMILIES.items() if f == fam))
        for name, fn in vars(module).items():
            if inspect.isfunction(fn) and fn.__module__ == module.__name__:
                if not name.startswith("_") and "seat" in _params(fn):
                    found.add(f"family:{name}")
        if hasattr(module, "legal_text"):
            found.add("legal_text")
    found |= {f"episode:{p}" for p in _params(Episode.__init__) if p.startswith("seat")}
    return found


def _params(fn: Any) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


# ---- the tests ----------------------------------------------------------------


def test_every_surface_has_an_entry():
    covered = {key for s in SURFACES.values() for key in s.covers}
    missing = census() - covered - EXEMPT
    assert not missing, f"seat-facing surfaces without an entry in SURFACES: {sorted(missing)}"
    stale = covered - census()
    assert not stale, f"SURFACES entries for surfaces that no longer exist: {sorted(stale)}"


def test_every_hidden_information_game_is_covered():
    assert HIDDEN == ["phantom-ttt-3", "dark-hex-4", "dark-hex-5", "recon-hex-5", "hanabi"]


CASES = [pytest.param(p, id=p.label) for g in HIDDEN for p in pairs(g)]


@pytest.mark.parametrize("pair", CASES)
def test_the_pair_hides_something_and_shows_the_observer_nothing_else(pair):
    """The two histories differ in what the observer may not know (the spectator
    view), and the observer's own moves and turns are the same."""
    end_a, end_b = states(pair, pair.a)[-1], states(pair, pair.b)[-1]
    assert end_a.active_seat == end_b.active_seat == pair.observer
    assert end_a.view() != end_b.view()
    mine_a = [
        m
        for s, m in zip(states(pair, pair.a), pair.a.moves, strict=False)
        if s.active_seat == pair.observer
    ]
    mine_b = [
        m
        for s, m in zip(states(pair, pair.b), pair.b.moves, strict=False)
        if s.active_seat == pair.observer
    ]
    assert mine_a == mine_b


@pytest.mark.parametrize("surface", sorted(SURFACES))
@pytest.mark.parametrize("pair", CASES)
def test_a_seat_reads_the_same_bytes_behind_indistinguishable_histories(pair, surface, tmp_path):
    entry = SURFACES[surface]
    extra = [tmp_path / "a"] if entry.needs_dir else []
    seen_a = entry.read(pair, pair.a, *extra)
    extra = [tmp_path / "b"] if entry.needs_dir else []
    seen_b = entry.read(pair, pair.b, *extra)
    assert seen_a, f"{surface} showed the observer nothing"
    bytes_a, bytes_b = (json.dumps(s, sort_keys=True, default=str) for s in (seen_a, seen_b))
    if bytes_a == bytes_b:
        return
    if len(seen_a) != len(seen_b):
        pytest.fail(f"{surface}: {len(seen_a)} items against {len(seen_b)}")
    first = next(i for i, (x, y) in enumerate(zip(seen_a, seen_b, strict=True)) if x != y)
    pytest.fail(
        f"{surface}: item {first}: {str(seen_a[first])[:300]} != {str(seen_b[first])[:300]}"
    )


def test_a_collision_that_keeps_the_turn_is_invisible_in_every_stream():
    """The audit's case: in dark-hex-4, b2, b2, a1 (seat 1 collides and keeps the
    turn) against b2, a1. Where the parallel API serves the game it would show
    seat 0 three observations against two; it is refused, and every other
    stream of seat 0 is the same."""
    pair = Pair("dark-hex-4", 0, Side({}, ("b2", "b2", "a1")), Side({}, ("b2", "a1")))
    assert states(pair, pair.a)[-1].active_seat == states(pair, pair.b)[-1].active_seat == 0
    for name, entry in SURFACES.items():
        if entry.needs_dir:
            continue
        assert entry.read(pair, pair.a) == entry.read(pair, pair.b), name
    assert parallel(pair, pair.a)[0] == "refused"


def test_the_end_of_an_episode_reaches_the_winner_alike():
    """Reward timing: seat 0 completes a1-b1-c1 while seat 1 places (A) or first
    collides with each of seat 0's stones (B, two more plies). Seat 0's rewards,
    flags, ending and its own ply count arrive on the same step of its own
    stream, in VecEnv and PettingZoo AEC."""
    a = Side({}, ("a1", "b2", "b1", "a3", "c1"), SEED)
    b = Side({}, ("a1", "a1", "c3", "b1", "b1", "c2", "c1"), OTHER_SEED)
    pair = Pair("phantom-ttt-3", 0, a, b)

    def vec_stream(side: Side) -> list[Any]:
        env = coworld.VecEnv(pair.game, 1, side.seed, threads=1)
        env.reset()
        out = []
        for move in side.moves:
            mover = int(env.info["seat"][0])
            env.step(np.array([env.action_id(move)]))
            if mover == 0 or env.terminated[0]:
                out.append(
                    [float(env.rewards[0, 0]), bool(env.terminated[0])]
                    + [int(env.info["ending"][0]), int(env.info["plies"][0, 0])]
                )
        return out

    def aec_stream(side: Side) -> list[Any]:
        env = coworld.pettingzoo.env(pair.game)
        env.reset(seed=side.seed)
        out = []
        for move in [*side.moves, None]:
            if env.agent_selection == "player_0":
                _, reward, term, trunc, info = env.last()
                out.append([reward, term, trunc, info])
            if move is not None:
                env.step(action_names(env.state_).index(move))
        _, reward, term, trunc, info = env.last()
        return [*out, [env.agent_selection, reward, term, trunc, info]]

    ends = [states(pair, s)[-1].results for s in (a, b)]
    assert ends[0]["score"] == ends[1]["score"] == [1, -1]
    assert ends[0]["plies"] != ends[1]["plies"]
    assert vec_stream(a) == vec_stream(b)
    assert vec_stream(a)[-1] == [1.0, True, coworld.ENDINGS.index("line"), 3]
    assert aec_stream(a) == aec_stream(b)
