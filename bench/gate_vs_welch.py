"""The sequential gate against a fixed-size test: episodes per decision and false
pass / fail rates over simulated gates.

    python bench/gate_vs_welch.py [--gates-per-elo 120]

Each simulated gate draws seed pairs of a candidate against a reference whose true
Elo difference is one of TRUE_ELO (both sides of the bounds elo0 = -10, elo1 = 0).
A seed pair is two games, one in each seat, each a win/draw/loss from a logistic
Elo model with 20% draws and a first-mover edge of EDGE (which the pair cancels),
so the pentanomial counts are those a real gate sees.

- gate: coworld.league.stats.gsprt_llr after every batch of 16 seed pairs (the
  `coworld gate` defaults: alpha = beta = 0.05; the cap is lifted to CAP_EPISODES);
- fixed-N Welch: N seed pairs, sized beforehand for the same alpha and beta at
  elo0 / elo1 (given the true per-pair sd at elo -5, its best case), then pass if
  the one-sided Welch/z statistic (mean - s0) / (sd / sqrt N) exceeds z(1 - alpha).
False pass: passing when the truth is at or below elo0; false fail: failing when it
is at or above elo1. Between the two the hypotheses are indifferent.
"""

from __future__ import annotations

import argparse
import math
import time
from statistics import NormalDist

import numpy as np

from coworld.league.sprt import PENTA, SprtBounds, elo_to_score, gsprt_llr

TRUE_ELO = (-30.0, -20.0, -15.0, -10.0, -5.0, 0.0, 5.0, 10.0, 20.0)
ELO0, ELO1, ALPHA, BETA = -10.0, 0.0, 0.05, 0.05
BATCH, CAP_EPISODES = 16, 100_000  # a cap far above any decision: the gate decides
DRAW, EDGE = 0.2, 0.05


def pair_probs(elo: float) -> np.ndarray:
    """P(candidate's pair points = 0, 1/4, 1/2, 3/4, 1) at a true Elo difference."""
    s = elo_to_score(elo)
    games = []
    for edge in (EDGE, -EDGE):  # first seat, then second
        win = s + edge - DRAW / 2
        games.append(np.array([1 - win - DRAW, DRAW, win]))  # loss, draw, win
    return np.convolve(games[0], games[1])  # points 0, 1/2, 1, 3/2, 2 (in halves)


def fixed_n() -> int:
    sd = math.sqrt(float(pair_probs(-5) @ (PENTA - pair_probs(-5) @ PENTA) ** 2))
    z = NormalDist().inv_cdf
    gap = elo_to_score(ELO1) - elo_to_score(ELO0)
    return math.ceil(((z(1 - ALPHA) + z(1 - BETA)) * sd / gap) ** 2)


def gate(rng: np.random.Generator, probs: np.ndarray, bounds: SprtBounds) -> tuple[int, int]:
    """(decision 0 pass / 1 fail / 2 inconclusive, episodes)."""
    counts = np.zeros(5)
    cap_pairs = CAP_EPISODES // 2
    pairs = 0
    while pairs < cap_pairs:
        step = min(BATCH, cap_pairs - pairs)
        counts += rng.multinomial(step, probs)
        pairs += step
        llr = gsprt_llr(counts, ELO0, ELO1)
        if llr >= bounds.upper:
            return 0, 2 * pairs
        if llr <= bounds.lower:
            return 1, 2 * pairs
    return 2, 2 * pairs


def welch(rng: np.random.Generator, probs: np.ndarray, n: int) -> int:
    x = PENTA[rng.choice(5, size=n, p=probs)]
    z = (x.mean() - elo_to_score(ELO0)) / (x.std(ddof=1) / math.sqrt(n))
    return 0 if z > NormalDist().inv_cdf(1 - ALPHA) else 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gates-per-elo", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--boundary-gates",
        type=int,
        default=500,
        help="gates at elo0 and elo1, where the error rates are measured (binomial SE)",
    )
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    bounds = SprtBounds.of(ALPHA, BETA)
    n = fixed_n()
    t0 = time.monotonic()
    print(
        f"{args.gates_per_elo} gates per true Elo ({args.boundary_gates} at {ELO0:+g} and "
        f"{ELO1:+g}), {len(TRUE_ELO)} true Elo values; "
        f"H0 {ELO0:+g}, H1 {ELO1:+g}, alpha {ALPHA}, beta {BETA}; gate batches of {BATCH} "
        f"pairs, cap {CAP_EPISODES} episodes; fixed-N Welch: {n} pairs = {2 * n} episodes"
    )
    print(
        f"{'true Elo':>8} | {'gate pass':>9} {'fail':>6} {'incon.':>6} {'episodes':>9} | "
        f"{'Welch pass':>10} {'fail':>6} {'episodes':>9}"
    )
    totals = {"gate": [], "welch": [], "gate_err": [], "welch_err": []}
    for elo in TRUE_ELO:
        probs = pair_probs(elo)
        count = args.boundary_gates if elo in (ELO0, ELO1) else args.gates_per_elo
        g = np.array([gate(rng, probs, bounds) for _ in range(count)])
        w = np.array([welch(rng, probs, n) for _ in range(count)])
        print(
            f"{elo:>+8.0f} | {np.mean(g[:, 0] == 0):>9.1%} {np.mean(g[:, 0] == 1):>6.1%} "
            f"{np.mean(g[:, 0] == 2):>6.1%} {g[:, 1].mean():>9.0f} | "
            f"{np.mean(w == 0):>10.1%} {np.mean(w == 1):>6.1%} {2 * n:>9}"
        )
        totals["gate"] += g[:, 1].tolist()
        totals["welch"] += [2 * n] * len(w)
        if elo <= ELO0:
            totals["gate_err"].append(("false pass", elo, float(np.mean(g[:, 0] == 0)), count))
            totals["welch_err"].append(("false pass", elo, float(np.mean(w == 0)), count))
        if elo >= ELO1:
            totals["gate_err"].append(("false fail", elo, float(np.mean(g[:, 0] == 1)), count))
            totals["welch_err"].append(("false fail", elo, float(np.mean(w == 1)), count))
    gate_mean, welch_mean = np.mean(totals["gate"]), np.mean(totals["welch"])
    print(
        f"mean episodes per decision: gate {gate_mean:.0f}, fixed-N Welch {welch_mean:.0f} "
        f"({welch_mean / gate_mean:.2f}x fewer with the gate)"
    )
    for name in ("gate", "welch"):
        worst: dict[str, tuple[float, float, int]] = {}
        for kind, elo, rate, count in totals[f"{name}_err"]:
            if rate >= worst.get(kind, (-1.0, 0.0, 0))[0]:
                worst[kind] = (rate, elo, count)
        text = ", ".join(
            f"worst {kind} {r:.1%} +- {math.sqrt(r * (1 - r) / c):.1%} (true {e:+g}, {c} gates)"
            for kind, (r, e, c) in worst.items()
        )
        print(f"{name}: {text}")
    print(f"{len(totals['gate'])} simulated gates, {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
