"""The pentanomial generalised SPRT (as fastchess runs it): a seed pair's outcome
is the candidate's mean points over its two games, one of {0, 1/4, 1/2, 3/4, 1};
the log-likelihood ratio of H0 (elo0) against H1 (elo1) over those counts, the
stopping bounds from alpha and beta, and the Elo with its interval."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

PENTA = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def elo_to_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def pentanomial(points: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Counts of complete seed pairs by the candidate's mean points: 0, 1/4, 1/2, 3/4, 1.
    Units short of two games (one order still missing) are left out."""
    full = games == 2
    idx = np.rint(points[full] * 2).astype(int)  # points 0..2 in halves -> 0..4
    return np.bincount(idx, minlength=5)[:5].astype(float)


def _constrained_mle(probs: np.ndarray, scores: np.ndarray, s: float) -> np.ndarray:
    """The distribution nearest `probs` (maximum likelihood) whose mean score is s:
    p_i = probs_i / (1 + theta (a_i - s)), theta solving sum p_i (a_i - s) = 0
    (Van den Bergh, "Comments on Normalized Elo", proposition 1.1)."""
    dev = scores - s

    def f(theta: float) -> float:
        return float((probs * dev / (1 + theta * dev)).sum())

    lo, hi = -1.0 / dev.max(), -1.0 / dev.min()
    span = hi - lo
    theta = brentq(f, lo + 1e-12 * span, hi - 1e-12 * span, xtol=1e-14)
    return probs / (1 + theta * dev)


def gsprt_llr(counts: np.ndarray, elo0: float, elo1: float, scores: np.ndarray = PENTA) -> float:
    """Log-likelihood ratio of H1 (elo = elo1) over H0 (elo = elo0) for counts of
    outcomes worth `scores` (default the pentanomial 0, 1/4, .., 1), as fastchess
    computes it (logistic Elo; empty cells count 1e-3)."""
    counts = np.asarray(counts, dtype=float)
    if counts.sum() == 0:
        return 0.0
    reg = np.where(counts == 0, 1e-3, counts)
    total = reg.sum()
    probs = reg / total
    p0 = _constrained_mle(probs, scores, elo_to_score(elo0))
    p1 = _constrained_mle(probs, scores, elo_to_score(elo1))
    return float(total * (probs * (np.log(p1) - np.log(p0))).sum())


@dataclass(frozen=True)
class SprtBounds:
    lower: float
    upper: float

    @classmethod
    def of(cls, alpha: float, beta: float) -> SprtBounds:
        return cls(math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


def penta_elo(counts: np.ndarray, scores: np.ndarray = PENTA) -> tuple[float, float, float]:
    """Elo estimate from outcome counts and its 95% interval (normal, over pairs)."""
    n = counts.sum()
    if n < 2:
        return math.nan, math.nan, math.nan
    mean = float((counts * scores).sum() / n)
    sd = math.sqrt(float((counts * (scores - mean) ** 2).sum() / (n - 1)))
    half = 1.96 * sd / math.sqrt(n)
    return score_to_elo(mean), score_to_elo(mean - half), score_to_elo(mean + half)
