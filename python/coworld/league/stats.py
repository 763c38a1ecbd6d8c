"""Paired statistics: seed pairs, clustered intervals, Bradley-Terry ratings with
bootstrap intervals, and the pentanomial generalised SPRT.

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
from scipy.optimize import brentq, minimize
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from ..errors import ConfigError
from ..games import entry
from .storage import Block

#: The name of the row over every game: a policy's standing and its pooled rating.
OVERALL = "overall"

#: Natural-log odds to Elo: 400 / ln 10.
ELO = 400.0 / math.log(10.0)
PENTA = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


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


#: Each pairing's virtual draw (one game, half a point each): keeps a perfect record
#: finite and changes well-measured ratings by a fraction of a point.
PRIOR_GAMES = 1.0


def _incidence(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """(K, P): +1 at each pairing's first policy, -1 at its second."""
    m = np.zeros((len(a), p))
    m[np.arange(len(a)), a] += 1.0
    m[np.arange(len(a)), b] -= 1.0
    return m


def bt_fit(
    players: Sequence[str],
    a: np.ndarray,
    b: np.ndarray,
    wins: np.ndarray,
    games: np.ndarray,
    prior: float = PRIOR_GAMES,
) -> np.ndarray:
    """Bradley-Terry maximum likelihood on the Elo scale, centred on mean 0: scipy's
    exact trust-region Newton on the (convex) negative log-likelihood.

    `a`, `b` (K,) index `players`; `wins`, `games` (K,) are the points and games of a
    against b. P(i beats j) = 1 / (1 + 10^(-(r_i - r_j) / 400)), a draw half a win.
    The gauge (ratings are defined up to a constant) is fixed by the penalty
    (sum theta)^2 / 2P, which the centred optimum satisfies anyway."""
    w = np.asarray(wins, dtype=float) + prior / 2
    n = np.asarray(games, dtype=float) + prior
    m = _incidence(a, b, len(players))
    gauge = np.full((len(players),) * 2, 1.0 / len(players))

    def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d = m @ theta
        # -[w log s(d) + (n - w) log s(-d)] with log s(x) = -logaddexp(0, -x)
        value = (w * np.logaddexp(0, -d) + (n - w) * np.logaddexp(0, d)).sum()
        return float(value + theta @ gauge @ theta / 2), (
            n / (1 + np.exp(-d)) - w
        ) @ m + gauge @ theta

    def hess(theta: np.ndarray) -> np.ndarray:
        q = 1 / (1 + np.exp(-(m @ theta)))
        return (m.T * (n * q * (1 - q))) @ m + gauge

    res = minimize(
        nll,
        np.zeros(len(players)),
        jac=True,
        hess=hess,
        method="trust-exact",
        options={"gtol": 1e-10},
    )
    return (res.x - res.x.mean()) * ELO


def bt_refit(
    start: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    wins: np.ndarray,
    games: np.ndarray,
    prior: float = PRIOR_GAMES,
) -> np.ndarray:
    """Many Bradley-Terry fits at once by batched Newton steps from `start` (P,) Elo:
    the bootstrap's replicates, each a small perturbation of the data `bt_fit` fitted.
    `wins`, `games` (R, K); returns (R, P) Elo centred on mean 0. The gauge is fixed
    by the penalty (sum theta)^2 / 2P, which the centred optimum satisfies anyway."""
    w = wins + prior / 2
    n = games + prior
    reps, p = w.shape[0], start.shape[0]
    incidence = _incidence(a, b, p)
    gauge = np.full((p, p), 1.0 / p)
    theta = np.tile(start / ELO, (reps, 1))
    for _ in range(100):
        d = theta @ incidence.T
        q = 1.0 / (1.0 + np.exp(-d))
        grad = (n * q - w) @ incidence + theta @ gauge
        hess = np.einsum("rk,ki,kj->rij", n * q * (1 - q), incidence, incidence) + gauge
        try:
            step = np.linalg.solve(hess, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            # a singular system (a direction the data do not fix): the least-squares
            # step, which leaves that direction where it is instead of crashing
            step = (np.linalg.pinv(hess, hermitian=True) @ grad[..., None])[..., 0]
        step *= np.minimum(1.0, 1.0 / np.maximum(np.abs(step).max(axis=1, keepdims=True), 1e-300))
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return (theta - theta.mean(axis=1, keepdims=True)) * ELO


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


def _rng(seed: int, salt: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed & (2**63 - 1), salt]))


def _resample(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(R, n) multinomial counts: how often each of n units is drawn in each replicate."""
    return rng.multinomial(n, np.full(n, 1.0 / n), resamples)


def _resample_values(
    rows: np.ndarray, resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Resampling units by their distinct rows: (R, V) counts of each distinct row and
    the (V, columns) rows. Drawing n units with replacement is a multinomial over the
    units, and so over their distinct values with the values' frequencies: the same
    distribution, with a handful of categories instead of n."""
    values, counts = np.unique(rows, axis=0, return_counts=True)
    return rng.multinomial(rows.shape[0], counts / rows.shape[0], resamples), values


def bt_bootstrap(pairs: Sequence[PairData], seed: int, resamples: int = 1000) -> Bootstrap:
    """Bradley-Terry ratings over `pairs` and their replicates, units resampled within
    each pairing (a stratified bootstrap over seed pairs); deterministic given `seed`."""
    players = sorted({p.a for p in pairs} | {p.b for p in pairs})
    index = {name: i for i, name in enumerate(players)}
    keys = sorted({(p.a, p.b) for p in pairs})
    k_index = {k: i for i, k in enumerate(keys)}
    a = np.array([index[x] for x, _ in keys])
    b = np.array([index[y] for _, y in keys])
    wins, games = np.zeros(len(keys)), np.zeros(len(keys))
    boot_w, boot_n = np.zeros((resamples, len(keys))), np.zeros((resamples, len(keys)))
    rng = _rng(seed, resamples)
    for p in pairs:
        k = k_index[(p.a, p.b)]
        wins[k] += p.points.sum()
        games[k] += p.games.sum()
        draw, values = _resample_values(np.stack([p.points, p.games], axis=1), resamples, rng)
        boot_w[:, k] += draw @ values[:, 0]
        boot_n[:, k] += draw @ values[:, 1]
    played = np.bincount(a, weights=games, minlength=len(players)) + np.bincount(
        b, weights=games, minlength=len(players)
    )
    point = bt_fit(players, a, b, wins, games)
    return Bootstrap(players, point, bt_refit(point, a, b, boot_w, boot_n), played)


def _took(p: PairData) -> tuple[bool, bool]:
    """Whether `p.a`, and whether `p.b`, took a point (a win or a draw) from the other."""
    return bool(p.points.sum() > 0), bool((p.games - p.points).sum() > 0)


def _graph(pairs: Sequence[PairData], players: list[str], directed: bool) -> np.ndarray:
    """Component labels (P,) of the comparison graph: who played whom (`directed`
    False), or who took a point from whom (a win or a draw; `directed` True, strong
    components)."""
    index = {name: i for i, name in enumerate(players)}
    edges: list[tuple[int, int]] = []
    for p in pairs:
        a, b = index[p.a], index[p.b]
        a_took, b_took = _took(p)
        if not directed or a_took:
            edges.append((a, b))
        if directed and b_took:
            edges.append((b, a))
    rows, cols = zip(*edges, strict=True) if edges else ((), ())
    graph = csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(len(players),) * 2)
    return connected_components(graph, directed=directed, connection="strong")[1]


#: What holds a rating finite when nothing in the data bounds it.
PRIOR_NOTE = "the Elo is held finite only by the prior's virtual draw per pairing"


def _bounds(pairs: Sequence[PairData], players: list[str]) -> dict[str, tuple[bool, bool, str]]:
    """Per player of one connected comparison graph whose maximum likelihood ratings do
    not all exist: (has a lower bound, has an upper bound, why). They exist iff the
    graph of who took a point from whom is strongly connected (Zermelo, Ford); else a
    group (strong component) nobody outside took a point from drifts to +inf against
    the rest, one that took no point from outside to -inf, one between both ways."""
    label = _graph(pairs, players, directed=True)
    if label.max() == 0:
        return {}
    took_in: set[int] = set()  # groups someone outside took a point from
    took_out: set[int] = set()  # groups that took a point from someone outside
    against: dict[int, set[str]] = defaultdict(set)
    index = {name: i for i, name in enumerate(players)}
    for p in pairs:
        ga, gb = label[index[p.a]], label[index[p.b]]
        if ga == gb:
            continue
        against[ga].add(p.b)
        against[gb].add(p.a)
        a_took, b_took = _took(p)
        for taker, giver, took in ((ga, gb, a_took), (gb, ga, b_took)):
            if took:
                took_out.add(taker)
                took_in.add(giver)
    out = {}
    for i, name in enumerate(players):
        g = label[i]
        mates = [p for j, p in enumerate(players) if label[j] == g and p != name]
        who = f"with {', '.join(mates)}: " if mates else ""
        others = ", ".join(sorted(against[g]))
        if g not in took_in:
            why = f"{who}no point lost to {others}: no upper bound"
        elif g not in took_out:
            why = f"{who}no point taken from {others}: no lower bound"
        else:
            why = f"{who}between groups that never score against each other: no bound"
        out[name] = (g not in took_in, g not in took_out, f"{why}; {PRIOR_NOTE}")
    return out


def bt_ratings(
    pairs: Sequence[PairData], game: str, seed: int, resamples: int = 1000
) -> list[Rating]:
    """Ratings over `pairs` (one game, or several pooled as `game`), with 95% bootstrap
    intervals over seed pairs; deterministic given `seed`. Best first.

    Never a singular system: a comparison graph in several pieces (no games link
    them) is rated piece by piece, each centred on 0 and noted as comparable only
    within its group; a side no data bound (a group that never lost a point to the
    rest, or never took one) is reported open (+-inf) with the reason in `note`."""
    if not pairs:
        return []
    players = sorted({p.a for p in pairs} | {p.b for p in pairs})
    label = _graph(pairs, players, directed=False)
    groups = int(label.max()) + 1
    table = []
    for g in range(groups):
        members = [p for p, lab in zip(players, label, strict=True) if lab == g]
        mine = [p for p in pairs if p.a in members]
        bs = bt_bootstrap(mine, seed, resamples)
        lo, hi = np.percentile(bs.boot, [2.5, 97.5], axis=0)
        bounds = _bounds(mine, bs.players)
        for i, name in enumerate(bs.players):
            low, high, note = bounds.get(name, (True, True, ""))
            if groups > 1:
                part = f"rated within group {g + 1} of {groups} ({', '.join(members)}): "
                part += "no games link the groups, so its Elo compares only within its group"
                note = f"{part}; {note}" if note else part
            table.append(
                Rating(
                    name,
                    game,
                    int(bs.games[i]),
                    float(bs.point[i]),
                    float(lo[i]) if low else -math.inf,
                    float(hi[i]) if high else math.inf,
                    note,
                )
            )
    return sorted(table, key=lambda r: (-r.elo, r.policy))


def unrated(blocks: Iterable[Block]) -> list[str]:
    """Why a game the blocks hold has no Bradley-Terry ratings, one line per game."""
    out = []
    seen: dict[str, bool] = {}
    for block in blocks:
        seen[block.game] = seen.get(block.game, False) or head_to_head_block(block)
    for game, rated in sorted(seen.items()):
        if not head_to_head_game(game):
            out.append(
                f"{game}: cooperative (the seats share one score), ranked by mean score "
                "above, not rated head to head"
            )
        elif not rated:
            out.append(f"{game}: no games between two different policies to rate")
    return out


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
    rng = _rng(seed, resamples)
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
        draw = _resample(n, resamples, rng)
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


def ratings(blocks: Sequence[Block], seed: int = 0, overall: str = OVERALL) -> list[Rating]:
    """Bradley-Terry ratings per head-to-head game and pooled over them all (`overall`);
    `unrated` says why a game has none."""
    pairs = head_to_head_units(blocks)
    games = sorted({p.game for p in pairs})
    table = []
    for g in games:
        table += bt_ratings([p for p in pairs if p.game == g], g, seed)
    if len(games) > 1:
        table = bt_ratings(pairs, overall, seed) + table
    elif games:
        table = [Rating(r.policy, overall, r.games, r.elo, r.lo, r.hi) for r in table] + table
    return table


# ---- the pentanomial generalised SPRT --------------------------------------


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
