"""Hanabi tables at every seat count keep the mean score (a two-seat Hanabi table is
two policies sharing a score, not a match), and the Bradley-Terry ratings never
crash: a policy that never loses or never wins, or a comparison graph in pieces, is
rated with its open side and the reason said."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from coworld.cli import main as cli
from coworld.league import LeagueDB, LeagueRun
from coworld.league.bradley_terry import PRIOR_NOTE, bt_refit, ratings, unrated
from coworld.league.ranking import export, head_to_head, standings
from coworld.league.records import Block
from coworld.league.stats import head_to_head_game, head_to_head_units
from tests.support.leagues import make_league


def duel(game, a, b, scores_ab, scores_ba):
    """Both seat orders of a pairing (a's score per episode, +1/0/-1)."""
    idx = np.arange(len(scores_ab))
    ab = np.array([[s, -s] for s in scores_ab], dtype=float)
    ba = np.array([[-s, s] for s in scores_ba], dtype=float)
    return [Block(game, (a, b), ab, index=idx), Block(game, (b, a), ba, index=idx)]


def hanabi_pair(a, b, scores):
    """A two-seat Hanabi table both ways: both seats share each episode's score."""
    idx = np.arange(len(scores))
    shared = np.repeat(np.asarray(scores, dtype=float)[:, None], 2, axis=1)
    return [Block("hanabi", (a, b), shared, index=idx), Block("hanabi", (b, a), shared, index=idx)]


def strict_json(text):
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


# ---- the cause: a two-seat Hanabi table is not a two-player game ------------


def test_only_two_player_win_loss_games_are_head_to_head():
    assert not head_to_head_game("hanabi")
    assert all(head_to_head_game(g) for g in ("connect-four", "hex", "dark-hex-5", "rotate"))


def test_a_two_seat_hanabi_table_is_not_rated_or_in_the_matrix():
    blocks = hanabi_pair("conventions", "cautious", [14, 17, 9]) + duel(
        "hex", "x", "y", [1, -1, 1], [1, 1, -1]
    )
    assert {p.game for p in head_to_head_units(blocks)} == {"hex"}
    assert set(head_to_head(blocks)) == {"hex"}
    rated = ratings(blocks, seed=1)
    assert {r.game for r in rated} == {"hex", "overall"}
    assert {r.policy for r in rated} == {"x", "y"}
    assert unrated(blocks) == [
        "hanabi: cooperative (the seats share one score), ranked by mean score above, "
        "not rated head to head"
    ]
    # its mean score stands, each policy's the table's shared score
    hanabi = {s.policy: s.mean for s in standings(blocks) if s.game == "hanabi"}
    assert hanabi == {"conventions": pytest.approx(40 / 3), "cautious": pytest.approx(40 / 3)}


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_a_hanabi_league_runs_and_tables_at_any_seat_count(tmp_path, capsys, seats):
    # the tester's league file, as `coworld league run` reads it
    (tmp_path / "n5.toml").write_text(
        'name = "n5"\npolicies = ["conventions", "cautious"]\nepisodes = 4\n'
        f'replays = 0\nout = "n5out"\n[games.hanabi]\nseats = {seats}\n'
    )
    assert cli(["league", "run", str(tmp_path / "n5.toml")]) == 0
    doc = strict_json((tmp_path / "n5out" / "standings.json").read_text())
    assert doc["episodes"] == 4 * 4  # two self-play tables and two mixed, 4 episodes each
    assert doc["ratings"] == [] and doc["headToHead"] == {}
    assert doc["unrated"] == [
        "hanabi: cooperative (the seats share one score), ranked by mean score above, "
        "not rated head to head"
    ]
    assert {(s["game"], s["policy"]) for s in doc["standings"]} == {
        (g, p) for g in ("hanabi", "overall") for p in ("conventions", "cautious")
    }
    db = LeagueDB.open_existing(tmp_path / "n5out" / "league.db")
    try:
        assert {len(b.seats) for b in db.blocks("n5")} == {seats}
    finally:
        db.close()
    capsys.readouterr()
    assert cli(["league", "table", str(tmp_path / "n5out" / "league.db")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "conventions" in out and "cautious" in out
    assert "no Bradley-Terry ratings for hanabi: cooperative" in out


def test_a_two_seat_hanabi_league_beside_a_two_player_game_rates_only_that_game(tmp_path):
    config = make_league(
        tmp_path,
        name="mix",
        games={"hanabi": {"seats": 2}, "connect-four": {}},
        policies=["random", "tactician", "conventions"],
        episodes=6,
        seed=None,  # drawn
        out="out",
    )
    report = LeagueRun(config, progress=False).run()
    doc = strict_json(report.exports["json"].read_text())
    assert {r["game"] for r in doc["ratings"]} == {"connect-four", "overall"}
    # one rated game: the pooled table is that game's, Hanabi not pooled into it
    per_game = [(r["policy"], r["elo"]) for r in doc["ratings"] if r["game"] == "connect-four"]
    overall = [(r["policy"], r["elo"]) for r in doc["ratings"] if r["game"] == "overall"]
    assert overall == per_game and {p for p, _ in per_game} == {"random", "tactician"}
    assert set(doc["headToHead"]) == {"connect-four"}


# ---- the rating itself never crashes ----------------------------------------


def test_a_policy_that_never_loses_has_no_upper_bound_and_says_so():
    blocks = duel("hex", "A", "B", [1] * 10, [1] * 10)  # A wins all 20 games
    table = {r.policy: r for r in ratings(blocks, seed=3) if r.game == "hex"}
    a, b = table["A"], table["B"]
    # every replicate is the same sweep: the closed side is the estimate itself
    assert a.hi == math.inf and a.lo == pytest.approx(a.elo) and a.elo > 0
    assert b.lo == -math.inf and b.hi == pytest.approx(b.elo) and b.elo < 0
    assert a.note == f"no point lost to B: no upper bound; {PRIOR_NOTE}"
    assert b.note == f"no point taken from A: no lower bound; {PRIOR_NOTE}"
    # one draw is a point taken: the likelihood is bounded, no note
    blocks = duel("hex", "A", "B", [1] * 9 + [0], [1] * 10)
    table = {r.policy: r for r in ratings(blocks, seed=3) if r.game == "hex"}
    assert all(r.note == "" and math.isfinite(r.lo) and math.isfinite(r.hi) for r in table.values())


def test_a_chain_of_clean_sweeps_opens_the_middle_both_ways():
    blocks = (
        duel("hex", "A", "B", [1] * 5, [1] * 5)
        + duel("hex", "B", "C", [1] * 5, [1] * 5)
        + duel("hex", "A", "C", [1, 1], [1, 1])
    )
    table = {r.policy: r for r in ratings(blocks, seed=3) if r.game == "hex"}
    assert [table[p].hi == math.inf for p in "ABC"] == [True, True, False]
    assert [table[p].lo == -math.inf for p in "ABC"] == [False, True, True]
    assert "no bound" in table["B"].note


def test_a_comparison_graph_in_pieces_is_rated_piece_by_piece():
    rng = np.random.default_rng(5)
    mixed = [rng.choice([-1, 0, 1], 30).tolist() for _ in range(4)]
    blocks = duel("hex", "A", "B", mixed[0], mixed[1]) + duel("hex", "C", "D", mixed[2], mixed[3])
    rated = [r for r in ratings(blocks, seed=3) if r.game == "hex"]
    by = {r.policy: r for r in rated}
    assert by["A"].elo + by["B"].elo == pytest.approx(0, abs=1e-6)
    assert by["C"].elo + by["D"].elo == pytest.approx(0, abs=1e-6)
    assert by["A"].note.startswith("rated within group 1 of 2 (A, B): no games link the groups")
    assert by["D"].note.startswith("rated within group 2 of 2 (C, D)")
    assert all(math.isfinite(r.lo) and r.lo <= r.elo <= r.hi for r in rated)
    # each piece alone is rated exactly as it is inside the whole
    alone = {r.policy: r.elo for r in ratings(blocks[:2], seed=3) if r.game == "hex"}
    assert by["A"].elo == pytest.approx(alone["A"]) and by["B"].elo == pytest.approx(alone["B"])


def test_a_singular_newton_system_takes_the_least_squares_step():
    # points beyond the games played (what a Hanabi score read as a win gave): the
    # curvature underflows to zero and the Hessian is singular
    out = bt_refit(np.zeros(2), np.array([0]), np.array([1]), np.array([[32.0]]), np.array([[4.0]]))
    assert np.isfinite(out).all() and out[0, 0] > 0 > out[0, 1]


def test_open_bounds_are_json_null_and_the_table_prints_the_reason(tmp_path, capsys):
    blocks = duel("hex", "A", "B", [1] * 6, [1] * 6) + hanabi_pair("A", "B", [10, 12])
    paths = export(blocks, "sweep", tmp_path, seed=2)
    doc = strict_json(paths["json"].read_text())
    hex_a = next(r for r in doc["ratings"] if r["game"] == "hex" and r["policy"] == "A")
    assert hex_a["hi"] is None and "no upper bound" in hex_a["note"]
    from coworld.cli.standings import print_ratings

    capsys.readouterr()
    print_ratings(ratings(blocks, seed=2), unrated(blocks))
    out = " ".join(capsys.readouterr().out.split())
    assert "+inf]" in out and "-inf," in out
    assert "(1) no point lost to B: no upper bound" in out
    assert "no Bradley-Terry ratings for hanabi: cooperative" in out


# ---- `coworld play` takes Hanabi's seat count from its seats ----------------


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_play_takes_the_hanabi_seat_count_from_the_seats_given(tmp_path, capsys, seats):
    out = tmp_path / "h.jsonl"
    argv = ["play", "hanabi", *["-s", "random"] * seats, "--seed", "7", "--out", str(out)]
    assert cli(argv) == 0
    said = " ".join(capsys.readouterr().out.split())
    header, *_, last = (json.loads(line) for line in out.read_text().splitlines())
    assert header["config"]["seats"] == header["settings"]["seats"] == seats
    assert len(header["seats"]) == seats
    score = last["results"]["score"]
    assert len(score) == seats and len(set(score)) == 1
    assert f"shared score {score[0]}:" in said  # not "draw" or a winner at two seats
    assert cli(["recheck", str(out)]) == 0


@pytest.mark.parametrize("seats", [1, 6])
def test_play_names_hanabis_seat_range(tmp_path, capsys, seats):
    argv = ["play", "hanabi", *["-s", "random"] * seats, "--out", str(tmp_path / "h.jsonl")]
    assert cli(argv) == 3
    said = " ".join(capsys.readouterr().out.split())
    assert "hanabi takes 2 to 5 seats" in said and f"got {seats} polic" in said
    assert not (tmp_path / "h.jsonl").exists()


def test_play_of_a_game_without_a_seats_setting_is_unchanged(tmp_path, capsys):
    argv = ["play", "hex", *["-s", "random"] * 3, "--out", str(tmp_path / "h.jsonl")]
    assert cli(argv) == 3
    assert "hex takes 2 seats; got 3 policies" in " ".join(capsys.readouterr().out.split())
