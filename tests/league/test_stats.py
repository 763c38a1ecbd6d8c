"""Paired statistics: clustered intervals, Bradley-Terry against hand-computed
cases, bootstrap determinism, and the pentanomial GSPRT against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coworld.league.bradley_terry import bt_fit, bt_ratings, bt_refit, ratings
from coworld.league.ranking import standings
from coworld.league.records import Block
from coworld.league.sprt import SprtBounds, elo_to_score, gsprt_llr, pentanomial
from coworld.league.stats import ELO, cluster_se, head_to_head_units


def duel(game, a, b, scores_ab, scores_ba, start=0):
    """Both seat orders of a pairing on episodes start.. (a's score given per episode)."""
    n = len(scores_ab)
    idx = np.arange(start, start + n)
    ab = np.array([[s, -s] for s in scores_ab], dtype=float)
    ba = np.array([[-s, s] for s in scores_ba], dtype=float)
    return [Block(game, (a, b), ab, index=idx), Block(game, (b, a), ba, index=idx)]


def test_cluster_se_by_hand():
    # units {0: [1, 3]}, {1: [2]}, {2: [6]}; mean 3, residual sums -2, -1, 3
    se, dof = cluster_se(np.array([1.0, 3.0, 2.0, 6.0]), np.array([0, 0, 1, 2]))
    assert dof == 2
    assert se == pytest.approx(math.sqrt((4 + 1 + 9) / 16 * 3 / 2))
    # one episode per unit: the plain standard error
    v = np.array([1.0, 2.0, 4.0, 7.0])
    se, _ = cluster_se(v, np.arange(4))
    assert se == pytest.approx(v.std(ddof=1) / 2)
    # two strata (opponents) with means 2 and 4: residuals -1, 1, -2, 2; C = 4, S = 2
    se, dof = cluster_se(np.array([1.0, 3.0, 2.0, 6.0]), np.arange(4), np.array([0, 0, 1, 1]))
    assert dof == 2
    assert se == pytest.approx(math.sqrt(10 / 16 * 4 / 2))


def test_pairing_cancels_the_first_mover_advantage():
    # seat 0 always wins: every seed pair is one win and one loss for each policy
    blocks = duel("connect-four", "x", "y", [1] * 50, [-1] * 50)
    paired = {s.policy: s for s in standings(blocks) if s.game == "connect-four"}
    unpaired = {s.policy: s for s in standings(blocks, paired=False) if s.game == "connect-four"}
    assert paired["x"].mean == unpaired["x"].mean == 0.0
    assert paired["x"].pairs == 50 and unpaired["x"].pairs == 100
    assert paired["x"].hi - paired["x"].lo == 0.0  # no seed pair says anything else
    assert unpaired["x"].se == pytest.approx(1.0 / math.sqrt(99) * math.sqrt(100 / 100))


def test_bradley_terry_matches_a_hand_computed_case():
    # A beats B 3 of 4, B beats C 3 of 4, A beats C 9 of 10: exactly a BT model with
    # log-odds ln 3 per step, so the maximum likelihood ratings are +-400 log10(3).
    a, b = np.array([0, 1, 0]), np.array([1, 2, 2])
    elo = bt_fit(["A", "B", "C"], a, b, np.array([3.0, 3.0, 9.0]), np.array([4.0, 4.0, 10.0]), 0)
    step = 400 * math.log10(3)
    assert elo == pytest.approx([step, 0.0, -step], abs=1e-3)


def test_draws_count_half_and_the_prior_is_one_virtual_draw():
    # 2 wins, 2 draws, 0 losses = 3 of 4 points; the prior adds half a point of one game
    blocks = duel("hex", "A", "B", [1, 0], [1, 0])
    pairs = head_to_head_units(blocks)
    assert [(p.a, p.b, p.points.tolist(), p.games.tolist()) for p in pairs] == [
        ("A", "B", [2.0, 1.0], [2.0, 2.0])
    ]
    table = {r.policy: r for r in bt_ratings(pairs, "hex", seed=1)}
    diff = table["A"].elo - table["B"].elo
    assert diff == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-3)
    assert table["A"].games == table["B"].games == 4


def test_bootstrap_intervals_are_deterministic_and_cover_the_estimate():
    rng = np.random.default_rng(0)
    blocks = []
    for a, b, p in (("s", "m", 0.7), ("m", "w", 0.7), ("s", "w", 0.85)):
        blocks += duel(
            "connect-four",
            a,
            b,
            np.where(rng.random(200) < p, 1, -1).tolist(),
            np.where(rng.random(200) < p, 1, -1).tolist(),
        )
    one, two = ratings(blocks, seed=7), ratings(blocks, seed=7)
    assert one == two
    other = ratings(blocks, seed=8)
    assert [r.lo for r in other] != [r.lo for r in one]
    per_game = [r for r in one if r.game == "connect-four"]
    assert [r.policy for r in per_game] == ["s", "m", "w"]
    for r in per_game:
        assert r.lo < r.elo < r.hi
    # the pooled table of a single game is that game's table
    assert [(r.policy, r.elo) for r in one if r.game == "overall"] == [
        (r.policy, r.elo) for r in per_game
    ]


def test_batched_refits_equal_single_fits():
    a, b = np.array([0, 1, 0]), np.array([1, 2, 2])
    w = np.array([[3.0, 5.0, 7.0], [1.0, 2.0, 3.0]])
    n = np.array([[4.0, 8.0, 10.0], [4.0, 4.0, 6.0]])
    start = bt_fit(["A", "B", "C"], a, b, w[0], n[0])
    batch = bt_refit(start, a, b, w, n)
    for r in range(2):
        assert batch[r] == pytest.approx(bt_fit(["A", "B", "C"], a, b, w[r], n[r]), abs=1e-4)


def test_pentanomial_counts_only_complete_pairs():
    points = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.0, 1.0])
    games = np.array([2, 2, 2, 2, 2, 2, 1])
    assert pentanomial(points, games).tolist() == [1, 1, 1, 1, 2]


def test_gsprt_llr_reduces_to_the_binomial_sprt():
    # pairs only ever 0 or 1: the constrained MLE of mean s is (1 - s, s), so the LLR is
    # the binomial one; the empty cells' 1e-3 regularisation moves it by < 1e-5
    counts = np.array([430.0, 0, 0, 0, 570.0])
    s0, s1 = elo_to_score(-10), elo_to_score(0)
    hat = 0.57
    expected = 1000 * (hat * math.log(s1 / s0) + (1 - hat) * math.log((1 - s1) / (1 - s0)))
    assert gsprt_llr(counts, -10, 0) == pytest.approx(expected, rel=1e-4)


def test_gsprt_llr_agrees_with_the_normal_approximation():
    # near elo0/elo1 the GSPRT is the normal-approximation LLR
    # n (s1 - s0)(2 mean - s0 - s1) / (2 var) that fastchess used before it
    counts = np.array([55.0, 200, 490, 195, 60])  # mean 0.50125, between s0 and s1
    scores = np.array([0, 0.25, 0.5, 0.75, 1])
    n = counts.sum()
    mean = (counts * scores).sum() / n
    var = (counts * (scores - mean) ** 2).sum() / n
    s0, s1 = elo_to_score(-10), elo_to_score(0)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert gsprt_llr(counts, -10, 0) == pytest.approx(approx, rel=0.01)
    # evidence for the worse hypothesis when the mean score is below (s0 + s1) / 2
    worse, better = np.array([80.0, 220, 500, 160, 40]), np.array([40.0, 160, 500, 220, 80])
    assert gsprt_llr(worse, -10, 0) < 0 < gsprt_llr(better, -10, 0)


def test_sprt_bounds():
    b = SprtBounds.of(0.05, 0.05)
    assert b.upper == pytest.approx(math.log(19)) and b.lower == pytest.approx(-math.log(19))
    assert ELO == pytest.approx(173.7178, abs=1e-4)
