"""Paired statistics: seed pairs, clustered intervals, head-to-head units and
bootstraps over them. Bradley-Terry ratings are in `bradley_terry.py`, the
pentanomial generalised SPRT in `sprt.py`.

Both seat orders of a pairing play the same seed, so the two episodes of a seed
are one *seed pair* (a unit): the first-mover advantage and the deal cancel
inside it. Every variance here is estimated over units, never over episodes:
- a policy's mean score keeps its episode weighting; its standard error is the
  cluster-robust (sandwich) one over units within strata (its opponents: the
  schedule fixes who plays whom, so that mix is not noise), which is the plain
  sd/sqrt(n) with one opponent set and one episode per unit;
- Bradley-Terry intervals resample units within each pairing (a stratified
  bootstrap), so a seed pair is always kept or dropped whole;
- the gate scores each unit as the candidate's mean points over its two games,
  one of {0, 1/4, 1/2, 3/4, 1} (the pentanomial outcome fastchess uses).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..errors import ConfigError
from ..games import entry
from .records import Block

#: The name of the row over every game: a policy's standing and its pooled rating.
OVERALL = "overall"

#: Natural-log odds to Elo: 400 / ln 10.
ELO = 400.0 / math.log(10.0)


# ---- units ------------------------------------------------------------------


def unit_keys(block: Block, tables: dict[str, int]) -> np.ndarray:
    """Each episode's unit within its game as an int64: the set of policies at the
    table (coded through `tables`) and the episode index, which every seat order of
    that set shares. Blocks without indices (hand-made rows) make every episode its
    own unit."""
    n = block.score.shape[0]
    if block.index is None:
        code = tables.setdefault(f"#{len(tables)}", len(tables))
        return (np.int64(code) << 40) + np.arange(n, dtype=np.int64)
    code = tables.setdefault("/".join(sorted(set(block.seats))), len(tables))
    return (np.int64(code) << 40) + np.asarray(block.index, dtype=np.int64)


@dataclass(frozen=True)
class Clustered:
    """A policy's episode scores on one game, the unit (seed pair) of each episode and
    its stratum (the table set: which policies it played with)."""

    values: np.ndarray  # (episodes,)
    units: np.ndarray  # (episodes,) int: unit id, 0..units-1
    strata: np.ndarray  # (episodes,) int: stratum id, 0..strata-1


def clustered_samples(blocks: Iterable[Block]) -> dict[tuple[str, str], Clustered]:
    """(policy, game) -> its score per episode (seats' mean at a multi-seat table),
    with the seed pair and the table set of each episode."""
    values: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    keys: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    tables: dict[str, int] = {}
    for block in blocks:
        k = unit_keys(block, tables)
        for policy in dict.fromkeys(block.seats):
            columns = [i for i, p in enumerate(block.seats) if p == policy]
            values[(policy, block.game)].append(block.score[:, columns].mean(axis=1))
            keys[(policy, block.game)].append(k)
    out = {}
    for key, parts in values.items():
        k = np.concatenate(keys[key])
        _, units = np.unique(k, return_inverse=True)
        _, strata = np.unique(k >> 40, return_inverse=True)
        out[key] = Clustered(np.concatenate(parts), units.ravel(), strata.ravel())
    return out


def cluster_se(
    values: np.ndarray, units: np.ndarray, strata: np.ndarray | None = None
) -> tuple[float, int]:
    """Standard error of the mean of `values` and its degrees of freedom, with units as
    clusters inside fixed strata: se^2 = C/(C-S) * sum_c r_c^2 / N^2, r_c the sum of
    the cluster's deviations from its stratum's mean (the sandwich estimator of a
    stratified design: who played whom is fixed by the schedule, not sampled). One
    stratum and one episode per unit give the plain sd / sqrt(n)."""
    strata = np.zeros(values.size, dtype=np.int64) if strata is None else strata
    n_units = int(units.max()) + 1 if units.size else 0
    n_strata = int(strata.max()) + 1 if strata.size else 0
    dof = n_units - n_strata
    if dof < 1:
        return math.nan, max(dof, 0)
    means = np.bincount(strata, weights=values) / np.bincount(strata)
    resid = np.bincount(units, weights=values - means[strata], minlength=n_units)
    var = (resid**2).sum() / values.size**2 * n_units / dof
    return float(math.sqrt(var)), dof


def bounded_interval(
    mean: float, se: float, units: int, low: float, high: float, q: float
) -> tuple[float, float]:
    """A score-type (Wilson) interval for a mean known to lie in [low, high]: never past
    the bounds, and never empty at them. The mean is rescaled to p in [0, 1]; Wilson's
    interval is taken with the effective sample size the standard error implies,
    n = p(1 - p) / se^2 (so inside the range it is mean +/- q * se to first order).
    At a bound se is 0 and n is the number of independent units (Wilson's own case:
    all wins in n give [n / (n + q^2), 1]); inside the range an se of 0 (every unit
    scored alike) keeps the point, as mean +/- q * se does. `q` is the quantile
    (1.96, or Student's t for the units' degrees of freedom)."""
    if units < 1 or not math.isfinite(mean) or not high > low:
        return math.nan, math.nan
    width = high - low
    p = min(max((mean - low) / width, 0.0), 1.0)
    s = se / width if math.isfinite(se) else math.nan
    if 0 < p < 1 and s == 0:
        return mean, mean
    n = p * (1 - p) / (s * s) if 0 < p < 1 else float(units)
    if not math.isfinite(q) or n != n:
        return low, high
    z2 = q * q
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = q / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # at a bound the interval ends exactly there (the formula does, up to rounding)
    lo = 0.0 if p == 0 else max(centre - half, 0.0)
    hi = 1.0 if p == 1 else min(centre + half, 1.0)
    return low + lo * width, low + hi * width


def bounded_difference(
    a: tuple[float, float, float], b: tuple[float, float, float]
) -> tuple[float, float]:
    """Newcombe's hybrid score interval of a - b from each mean's own bounded interval
    (mean, lo, hi): it inherits their respect for the bounds, where the plain
    mean +/- 1.96 se of a difference runs past them."""
    (ma, la, ha), (mb, lb, hb) = a, b
    d = ma - mb
    lo = d - math.sqrt((ma - la) ** 2 + (hb - mb) ** 2)
    hi = d + math.sqrt((ha - ma) ** 2 + (mb - lb) ** 2)
    return lo, hi


# ---- Bradley-Terry ----------------------------------------------------------


@dataclass(frozen=True)
class PairData:
    """Head-to-head results of one unordered pairing on one game, one row per seed
    pair: the first policy's points (win 1, draw 1/2) and the games in the unit."""

    game: str
    a: str
    b: str
    points: np.ndarray  # (units,) points of `a`
    games: np.ndarray  # (units,) games in the unit (2 when both orders played)
    index: np.ndarray | None = None  # (units,) the unit's episode index (its seed)


@cache
def head_to_head_game(game: str) -> bool:
    """Whether a game's results are rated head to head: a two-player game scored as a
    win, draw or loss (+1/0/-1 per seat). Not Hanabi at any seat count: its two-seat
    table is two policies *sharing* one 0..25 score (cooperative), ranked by the mean
    score. Ids outside the catalogue (hand-made rows) count when scored -1..1."""
    try:
        e = entry(game)
    except ConfigError:
        return True
    return e["seats"]["max"] == 2 and (e["score"]["min"], e["score"]["max"]) == (-1, 1)


def head_to_head_block(block: Block) -> bool:
    """A block of one head-to-head game between two different policies."""
    return (
        len(block.seats) == 2 and block.seats[0] != block.seats[1] and head_to_head_game(block.game)
    )


def head_to_head_units(blocks: Iterable[Block]) -> list[PairData]:
    """Every head-to-head game's results between two different policies, by seed pair
    (`head_to_head_game`: never a cooperative game's two-seat table)."""
    keys: dict[tuple[str, str, str], list[np.ndarray]] = defaultdict(list)
    points: dict[tuple[str, str, str], list[np.ndarray]] = defaultdict(list)
    tables: dict[str, int] = {}
    for block in blocks:
        if not head_to_head_block(block):
            continue
        a, b = sorted(block.seats)
        keys[(block.game, a, b)].append(unit_keys(block, tables))
        # +1/0/-1 -> 1, 1/2, 0 points for `a`
        points[(block.game, a, b)].append((block.score[:, block.seats.index(a)] + 1.0) / 2.0)
    out = []
    for (game, a, b), parts in sorted(keys.items()):
        uniq, units = np.unique(np.concatenate(parts), return_inverse=True)
        units = units.ravel()
        pts = np.bincount(units, weights=np.concatenate(points[(game, a, b)]))
        index = uniq & ((1 << 40) - 1)
        out.append(PairData(game, a, b, pts, np.bincount(units).astype(float), index))
    return out


@dataclass(frozen=True)
class Rating:
    policy: str
    game: str
    games: int
    elo: float
    lo: float  # -inf: no lower bound (see `note`)
    hi: float  # +inf: no upper bound (see `note`)
    #: why the rating is bounded or only relative ("" when it is neither)
    note: str = ""


@dataclass(frozen=True)
class Bootstrap:
    """Point estimates (P,) and bootstrap replicates (R, P) of one ranking quantity."""

    players: list[str]
    point: np.ndarray
    boot: np.ndarray
    games: np.ndarray  # (P,) games (episodes) behind each estimate


def seeded_rng(seed: int, salt: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed & (2**63 - 1), salt]))


def resample(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(R, n) multinomial counts: how often each of n units is drawn in each replicate."""
    return rng.multinomial(n, np.full(n, 1.0 / n), resamples)


def resample_values(
    rows: np.ndarray, resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Resampling units by their distinct rows: (R, V) counts of each distinct row and
    the (V, columns) rows. Drawing n units with replacement is a multinomial over the
    units, and so over their distinct values with the values' frequencies: the same
    distribution, with a handful of categories instead of n."""
    values, counts = np.unique(rows, axis=0, return_counts=True)
    return rng.multinomial(rows.shape[0], counts / rows.shape[0], resamples), values


def mean_bootstrap(blocks: Sequence[Block], seed: int, resamples: int = 1000) -> Bootstrap:
    """Each policy's mean episode score (one game's blocks) and its replicates, seed pairs
    resampled within each table set (a stratified bootstrap): the ranking quantity of
    cooperative games."""
    tables: dict[str, int] = {}
    by_key: dict[str, list[tuple[Block, np.ndarray]]] = defaultdict(list)
    for block in blocks:
        by_key["/".join(sorted(set(block.seats)))].append((block, unit_keys(block, tables)))
    players = sorted({p for b in blocks for p in b.seats})
    index = {name: i for i, name in enumerate(players)}
    sums, counts = np.zeros(len(players)), np.zeros(len(players))
    boot_s = np.zeros((resamples, len(players)))
    boot_c = np.zeros((resamples, len(players)))
    rng = seeded_rng(seed, resamples)
    for key in sorted(by_key):
        parts = by_key[key]
        _, units = np.unique(np.concatenate([k for _, k in parts]), return_inverse=True)
        units = units.ravel()
        n = int(units.max()) + 1
        unit_sum, unit_cnt = np.zeros((n, len(players))), np.zeros((n, len(players)))
        offset = 0
        for block, _ in parts:
            u = units[offset : offset + block.score.shape[0]]
            offset += block.score.shape[0]
            for policy in dict.fromkeys(block.seats):
                cols = [i for i, p in enumerate(block.seats) if p == policy]
                np.add.at(unit_sum[:, index[policy]], u, block.score[:, cols].mean(axis=1))
                np.add.at(unit_cnt[:, index[policy]], u, 1.0)
        sums += unit_sum.sum(axis=0)
        counts += unit_cnt.sum(axis=0)
        draw = resample(n, resamples, rng)
        boot_s += draw @ unit_sum
        boot_c += draw @ unit_cnt
    with np.errstate(invalid="ignore", divide="ignore"):
        return Bootstrap(players, sums / counts, boot_s / boot_c, counts)


def order_confidence(bs: Bootstrap) -> tuple[float, np.ndarray, np.ndarray]:
    """The share of replicates that rank the players exactly as the point estimate does,
    the point order (best first), and each adjacent pair's swap share (P-1,)."""
    order = np.argsort(-bs.point, kind="stable")
    ranked = bs.boot[:, order]
    swapped = ranked[:, :-1] <= ranked[:, 1:]
    return float((~swapped.any(axis=1)).mean()), order, swapped.mean(axis=0)
