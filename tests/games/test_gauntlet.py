"""Board Gauntlet through the public Python surface: the numbered rules, every ending,
rotation, the batch simulator, JSON views, `standing` against an independent
Python reference, and bad input."""

from __future__ import annotations

import json
import random
from collections import deque

import numpy as np
import pytest

import coworld
from coworld.errors import IllegalMove

ROTATION = ["connect-four", "breakthrough", "hex", "quoridor"]  # the rotation order, pinned
GAUNTLET = tuple(coworld.catalog()["rotate"]["rotation"])


def play(game_id: str, moves: str, seed: int = 1):
    g = coworld.game(game_id)
    s = g.init(seed=seed)
    for m in moves.split():
        s = g.apply(s, m)
    return s


def refusal(state, text: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as info:
        state.apply(text)
    return info.value


def random_states(game_id: str, games: int, seed: int):
    """Every state of `games` uniformly random games, in order."""
    rng = random.Random(seed)
    g = coworld.game(game_id)
    for _ in range(games):
        s = g.init(seed=rng.randrange(1, 1 << 31))
        yield s
        while not s.is_terminal:
            s = g.apply(s, rng.choice(s.legal_moves()))
            yield s


# ---------------------------------------------------------------- connect-four


def test_connect_four_full_file_is_illegal() -> None:
    s = play("connect-four", "a a a a a a")
    err = refusal(s, "a")
    assert err.kind == "illegal"
    assert "file a is full" in str(err)
    assert err.legal == ["b", "c", "d", "e", "f", "g"]
    assert "b, c, d, e, f, g" in str(err)
    assert s.apply("7").moves[-1] == "g"  # digits 1..7 map to a..g


def test_connect_four_board_full_is_a_draw() -> None:
    order = "a b a b a b b a b a b a c d c d c d d c d c d c e f e f e f f e f e f e g g g g g g"
    s = play("connect-four", order)
    r = s.results
    assert (r["ending"], r["reason"], r["score"], r["winner"]) == (
        "board-full",
        "complete",
        [0, 0],
        None,
    )
    assert r["plies"] == 42 and r["game"] == "connect-four"


# ---------------------------------------------------------------- breakthrough


def test_breakthrough_no_straight_capture_but_diagonal_capture() -> None:
    s = play("breakthrough", "c2-c3 c5-c4")
    assert "c3-c4" not in s.legal_moves()
    err = refusal(s, "c3-c4")
    assert err.kind == "illegal" and "no straight capture" in err.reason
    s = s.apply("d2-d3")
    assert {"c4-d3", "c4-b3"} <= set(s.legal_moves())
    s = s.apply("c4-d3")
    assert s.view()["captures"] == [0, 1]
    assert s.view()["pieces"]["d3"] == 1
    assert s.view()["pieceCount"] == [11, 12]


def test_breakthrough_home_rank_ends_the_game() -> None:
    seen = set()
    for s in random_states("breakthrough", 60, 4):
        if s.is_terminal:
            r = s.results
            seen.add(r["ending"])
            if r["ending"] == "home-rank":
                last = r["winner"]
                to = s.moves[-1].split("-")[1]
                assert to[1] == ("6" if last == 0 else "1")
    assert "home-rank" in seen


# ---------------------------------------------------------------- hex


def test_hex_corner_touches_only_b1_and_a2() -> None:
    # Red holds a1 and b2..g2. a1-b2 is not an adjacency ((r+1, c+1)), so no connection;
    # a2 (beside b2 on rank 2) completes one.
    s = play("hex", "a1 a7 b2 b7 c2 c7 d2 d7 e2 e7 f2 f7 g2")
    assert not s.is_terminal
    s = s.apply("a6").apply("a2")
    r = s.results
    assert (r["ending"], r["winner"], r["score"]) == ("connection", 0, [1, -1])
    assert r["winningPath"][0][0] == "a" and r["winningPath"][-1][0] == "g"
    assert "a1" not in r["winningPath"]
    assert r["distToWin"][0] == 0


def test_hex_every_game_ends_in_a_connection_along_a_real_chain() -> None:
    for s in random_states("hex", 100, 5):
        if s.is_terminal:
            r = s.results
            assert r["ending"] == "connection" and r["plies"] <= 49
            path = r["winningPath"]
            stones = s.view()["stones"]
            assert all(stones[c] == r["winner"] for c in path)
            for a, b in zip(path, path[1:], strict=False):
                assert b in hex_neighbours(a, 7)


# ---------------------------------------------------------------- quoridor


def test_quoridor_jump_blocked_by_a_wall_gives_side_steps() -> None:
    s = play("quoridor", "e2 e8 e3 e7 e4 e6 a1h e5")
    assert sorted(m for m in s.legal_moves() if len(m) == 2) == ["d4", "e3", "e6", "f4"]
    s = play("quoridor", "e2 e8 e3 e7 e4 e6 a1h e5 c1h e5h")
    assert sorted(m for m in s.legal_moves() if len(m) == 2) == ["d4", "d5", "e3", "f4", "f5"]
    assert "cannot reach e6" in refusal(s, "e6").reason


def test_quoridor_side_steps_at_the_board_edge_and_blocked_side_step() -> None:
    moves = "e2 a1h e3 c1h e4 a2h e5 c2h e6 a3h e7 c3h e8 a4h"
    s = play("quoridor", moves)
    assert sorted(m for m in s.legal_moves() if len(m) == 2) == ["d8", "d9", "e7", "f8", "f9"]
    s = play("quoridor", moves.replace("a4h", "d8v"))
    assert sorted(m for m in s.legal_moves() if len(m) == 2) == ["e7", "f8", "f9"]
    s = play("quoridor", moves).apply("d9")
    r = s.results
    assert (r["ending"], r["winner"], r["wallsUsed"]) == ("goal-row", 0, [0, 7])


def test_quoridor_wall_refusals() -> None:
    s = play("quoridor", "e3h")
    assert refusal(s, "e3v").reason == "e3v crosses the wall at e3h"
    assert refusal(s, "d3h").reason == "d3h overlaps the wall at e3h"
    assert refusal(s, "f3h").reason == "f3h overlaps the wall at e3h"
    s = play("quoridor", "a1h e8 c1h e7 e1h e6 g1h e5")
    err = refusal(s, "h1v")
    assert err.kind == "illegal" and "red's pawn on e1 no path to rank 9" in err.reason
    s = play("quoridor", "e2 a8h e3 c8h e4 e8h e3h g8h")
    assert "blue's pawn on e9 no path to rank 1" in refusal(s, "h8v").reason


# ---------------------------------------------------------------- rotation


@pytest.mark.parametrize("seed", [4, 1, 2, 3, -1, -2, 7, -5])
def test_rotate_resolves_by_euclidean_seed_mod_4(seed: int) -> None:
    expected = ROTATION[seed % 4]  # Python's % is Euclidean for a positive divisor
    g = coworld.game("rotate")
    s = g.init(seed=seed)
    assert s.resolved_game == expected
    assert s.config["game"] == "rotate" and s.config["resolvedGame"] == expected
    assert s.view()["game"] == expected
    rng = random.Random(seed)
    while not s.is_terminal:
        s = g.apply(s, rng.choice(s.legal_moves()))
    assert s.results["game"] == expected


def test_rotate_seed_zero_is_drawn_and_recorded() -> None:
    s = coworld.game("rotate").init(seed=0)
    assert s.seed != 0 and s.config["seed"] == s.seed
    assert s.config["resolvedGame"] == ROTATION[s.seed % 4]


def test_rotate_through_the_simulator() -> None:
    a = coworld.simulate("rotate", ["random", "random"], 400, seed=9, threads=1)
    b = coworld.simulate("rotate", ["random", "tactician"], 400, seed=9, threads=2)
    expected = [coworld.GAMES.index(ROTATION[int(x) % 4]) for x in a.seeds]
    assert a.played.tolist() == expected
    assert set(a.played.tolist()) == {coworld.GAMES.index(x) for x in ROTATION}
    assert (a.seeds == b.seeds).all() and (a.played == b.played).all()


# ---------------------------------------------------------------- batch simulation


@pytest.mark.parametrize("game_id", GAUNTLET)
def test_simulate_is_thread_independent_and_zero_sum(game_id: str) -> None:
    one = coworld.simulate(game_id, ["tactician", "random"], 120, seed=3, threads=1)
    two = coworld.simulate(game_id, ["tactician", "random"], 120, seed=3, threads=2)
    for field in ("score", "plies", "ending", "played", "seeds"):
        assert np.array_equal(getattr(one, field), getattr(two, field)), field
    assert (one.score.sum(axis=1) == 0).all()
    caps = {"connect-four": 42, "breakthrough": 100, "hex": 49, "quoridor": 200}
    assert one.plies.max() <= caps[game_id]
    # The tactician beats uniform random.
    assert one.mean_score()[0] > 0.3, one.mean_score()


def test_simulate_replays_episode_by_episode_through_baseline_move() -> None:
    """An episode of the batch replays move for move through `baseline_move`."""
    for game_id in GAUNTLET:
        sim = coworld.simulate(game_id, ["tactician", "random"], 3, seed=21, threads=1)
        for i in range(3):
            g = coworld.game(game_id)
            s = g.init(seed=int(sim.seeds[i]))
            while not s.is_terminal:
                policy = ["tactician", "random"][s.active_seat]
                s = g.apply(s, s.baseline_move(policy))
            assert s.results["score"] == sim.score[i].tolist()
            assert s.results["plies"] == int(sim.plies[i])
            assert s.results["ending"] == coworld.ENDINGS[int(sim.ending[i])]


def test_ply_cap_and_wall_clock_adjudicate_by_standing() -> None:
    capped = 0
    for s in random_states("quoridor", 40, 8):
        if s.is_terminal and s.results["ending"] == "ply-cap":
            capped += 1
            r = s.results
            a, b = r["standing"]
            assert r["plies"] == 200 and r["reason"] == "complete"
            assert r["winner"] == (None if a == b else (0 if a > b else 1))
    assert capped > 0
    s = play("breakthrough", "c2-c3 c5-c4 c3-b4")
    d = s.settle_deadline()
    r = d.results
    assert r["ending"] == "wall-clock" and r["reason"] == "deadline"
    a, b = r["standing"]
    assert a == s.standing(0) and b == s.standing(1)
    assert r["winner"] == (None if a == b else (0 if a > b else 1))
    assert sum(r["score"]) == 0


# ---------------------------------------------------------------- views and standing


def hex_neighbours(cell: str, n: int) -> set[str]:
    """Hex adjacency, written out: (r, c) touches (r, c+-1), (r+-1, c), (r-1, c+1), (r+1, c-1)."""
    c, r = ord(cell[0]) - ord("a"), int(cell[1:]) - 1
    out = set()
    for dc, dr in ((-1, 0), (1, 0), (0, -1), (0, 1), (1, -1), (-1, 1)):
        if 0 <= c + dc < n and 0 <= r + dr < n:
            out.add(f"{chr(ord('a') + c + dc)}{r + dr + 1}")
    return out


def reference_standing(view: dict, seat: int) -> int:
    """`standing`, computed from the view alone, independently of the core."""
    game = view["game"]
    if game == "connect-four":
        discs = view["stones"]
        total = 0
        for f in range(7):
            for r in range(6):
                for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    cells = [(f + k * df, r + k * dr) for k in range(4)]
                    if not all(0 <= x < 7 and 0 <= y < 6 for x, y in cells):
                        continue
                    owners = [discs.get(f"{'abcdefg'[x]}{y + 1}") for x, y in cells]
                    if 1 - seat in owners:
                        continue
                    total += [0, 1, 4, 16, 10000][owners.count(seat)]
        return total
    if game == "breakthrough":
        # Advance: ranks ahead of the seat's back rank (red rank r: r - 1; blue: 6 - r).
        adv = [
            int(c[1]) - 1 if seat == 0 else 6 - int(c[1])
            for c, s in view["pieces"].items()
            if s == seat
        ]
        return 100 * len(adv) + 10 * sum(adv) + 40 * max(adv, default=0)
    if game == "hex":
        return 1000 - 10 * reference_dist_to_win(view["stones"], seat)
    blocked = quoridor_blocked_steps(view["walls"])
    assert blocked == set(view["blockedSteps"])
    pawn = view["pawns"][seat]
    goal = "9" if seat == 0 else "1"
    dist = {pawn: 0}
    queue = deque([pawn])
    found = 99
    while queue:
        cell = queue.popleft()
        if cell[1] == goal:
            found = dist[cell]
            break
        f, r = ord(cell[0]) - ord("a"), int(cell[1])
        for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= f + df < 9 and 1 <= r + dr <= 9:
                nxt = f"{chr(ord('a') + f + df)}{r + dr}"
                step = "-".join(sorted([cell, nxt], key=lambda x: (int(x[1]), x[0])))
                if step not in blocked and nxt not in dist:
                    dist[nxt] = dist[cell] + 1
                    queue.append(nxt)
    return 1000 - 10 * found + 2 * view["wallsLeft"][seat]


def quoridor_blocked_steps(walls: list[dict]) -> set[str]:
    """Quoridor walls: xNh blocks (x,N)-(x,N+1) and (x+1,N)-(x+1,N+1); xNv blocks
    (x,N)-(x+1,N) and (x,N+1)-(x+1,N+1)."""
    out = set()
    for w in walls:
        x, n, o = w["wall"][0], int(w["wall"][1]), w["wall"][2]
        x1 = chr(ord(x) + 1)
        if o == "h":
            out |= {f"{x}{n}-{x}{n + 1}", f"{x1}{n}-{x1}{n + 1}"}
        else:
            out |= {f"{x}{n}-{x1}{n}", f"{x}{n + 1}-{x1}{n + 1}"}
    return out


def reference_dist_to_win(stones: dict, seat: int, n: int = 7) -> int:
    """0-1 BFS: own cells cost 0, empty 1, opponent impassable; 99 when unreachable."""
    cells = [f"{chr(ord('a') + c)}{r + 1}" for r in range(n) for c in range(n)]
    cost = {c: 0 if stones.get(c) == seat else 1 for c in cells if stones.get(c) != 1 - seat}
    on_source = (lambda c: c[0] == "a") if seat == 0 else (lambda c: c[1:] == "1")
    on_target = (lambda c: c[0] == "abcdefg"[n - 1]) if seat == 0 else (lambda c: c[1:] == str(n))
    dist = {c: cost[c] for c in cost if on_source(c)}
    queue = deque(sorted(dist, key=dist.get))
    while queue:
        c = queue.popleft()
        for nb in hex_neighbours(c, n):
            if nb in cost and dist[c] + cost[nb] < dist.get(nb, 1 << 30):
                dist[nb] = dist[c] + cost[nb]
                (queue.appendleft if cost[nb] == 0 else queue.append)(nb)
    return min((d for c, d in dist.items() if on_target(c)), default=99)


@pytest.mark.parametrize("game_id", GAUNTLET)
def test_standing_matches_the_python_reference(game_id: str) -> None:
    games = {"connect-four": 60, "breakthrough": 60, "hex": 60, "quoridor": 8}[game_id]
    checked = 0
    for s in random_states(game_id, games, 11):
        view = s.view()
        for seat in (0, 1):
            want = reference_standing(view, seat)
            assert s.standing(seat) == want, (s.moves, seat)
            assert view["standing"][seat] == want
        if game_id == "hex":
            assert view["distToWin"] == [reference_dist_to_win(view["stones"], k) for k in (0, 1)]
        checked += 1
    assert checked > games * 5


@pytest.mark.parametrize("game_id", [*GAUNTLET, "rotate"])
def test_views_round_trip_through_json_and_replay(game_id: str) -> None:
    g = coworld.game(game_id)
    for s in random_states(game_id, 5, 12):
        view = g.view(s)
        assert json.loads(json.dumps(view)) == view
        assert g.view_for(s, 0) == view == g.view_for(s, 1)
        assert view["history"] == s.moves
        assert view["legalMoves"] == g.legal_moves(s)
        assert view["activeSeat"] == s.active_seat
        replayed = coworld._core.State.replay(game_id, None, s.seed, view["history"])
        assert replayed.view() == view
        if s.is_terminal:
            assert json.loads(json.dumps(s.results)) == s.results


def test_apply_never_panics_on_any_legal_move() -> None:
    """Every legal move of every reached state applies, and the result is consistent."""
    for game_id in GAUNTLET:
        for s in random_states(game_id, 3 if game_id == "quoridor" else 15, 13):
            for m in s.legal_moves():
                t = s.apply(m)
                assert t.plies == s.plies + 1 and t.moves[-1] == m


# ---------------------------------------------------------------- bad input

MALFORMED = {
    "connect-four": ["", "h", "0", "8", "dd", "d4", "left", "🙂"],
    "breakthrough": ["", "b2", "b2-g3", "b2-b7", "b2c3d4", "b2xc3", "pass", "🙂"],
    "hex": ["", "h1", "a0", "a8", "d44", "4d", "d", "🙂"],
    "quoridor": ["", "j1", "e0", "e10", "i8h", "e9h", "e3x", "e3hv", "🙂"],
}


@pytest.mark.parametrize("game_id", GAUNTLET)
def test_malformed_moves_are_unparseable_and_name_the_legal_moves(game_id: str) -> None:
    s = coworld.game(game_id).init(seed=1)
    legal = s.legal_moves()
    for text in MALFORMED[game_id]:
        err = refusal(s, text)
        assert err.kind == "unparseable", text
        assert err.legal == legal
        assert ", ".join(legal[:3]) in str(err)
    assert s.plies == 0 and s.moves == []


ILLEGAL = {
    "connect-four": ("a a a a a a", ["a", "1"]),
    "breakthrough": ("", ["c3-c4", "a5-a4", "a2-a4", "a1-a2", "b1-c2"]),
    "hex": ("d4", ["d4", "D 4"]),
    "quoridor": ("e3h", ["e3v", "e3h", "d3h", "e3", "e9", "a1"]),
}


@pytest.mark.parametrize("game_id", GAUNTLET)
def test_illegal_moves_say_why_and_keep_the_state(game_id: str) -> None:
    prefix, bad = ILLEGAL[game_id]
    s = play(game_id, prefix)
    before = s.view()
    for text in bad:
        err = refusal(s, text)
        assert err.kind == "illegal", text
        assert err.reason and err.legal == s.legal_moves()
        assert "legal moves:" in str(err)
    assert s.view() == before


def test_non_string_moves_and_moves_after_the_end_are_refused() -> None:
    g = coworld.game("hex")
    s = g.init(seed=1)
    for bad in (None, 5, b"d4", ["d4"]):
        with pytest.raises(IllegalMove):
            g.apply(s, bad)  # type: ignore[arg-type]
    over = play("connect-four", "a b a b a b a")
    assert over.is_terminal
    err = refusal(over, "c")
    assert err.kind == "illegal" and "over" in str(err)
    with pytest.raises(IllegalMove):
        over.read_move("c")


def test_the_tolerant_reader_normalises_as_the_spec_says() -> None:
    assert play("connect-four", "").read_move(" 4 ") == "d"
    assert play("breakthrough", "").read_move("**B2 -> C3**") == "b2-c3"
    assert play("hex", "").read_move("(D, 4)") == "d4"
    s = play("quoridor", "")
    assert s.read_move("E-3 H") == "e3h" and s.read_move("e 2.") == "e2"


def test_standing_is_exposed_on_the_reducer() -> None:
    g = coworld.game("quoridor")
    s = g.init(seed=1)
    assert g.standing(s, 0) == 1000 - 10 * 8 + 2 * 10
    with pytest.raises(coworld.ConfigError):
        g.view_for(s, 2)
