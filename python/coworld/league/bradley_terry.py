"""Bradley-Terry ratings of head-to-head games: the fit (with a virtual draw per
pairing as its prior), bootstrap intervals over seed pairs resampled within each
pairing, and what bounds each rating (or why nothing does)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from scipy.optimize import minimize
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from .records import Block
from .stats import (
    ELO,
    Bootstrap,
    PairData,
    Rating,
    head_to_head_block,
    head_to_head_game,
    head_to_head_units,
    resample_values,
    seeded_rng,
)

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
    rng = seeded_rng(seed, resamples)
    for p in pairs:
        k = k_index[(p.a, p.b)]
        wins[k] += p.points.sum()
        games[k] += p.games.sum()
        draw, values = resample_values(np.stack([p.points, p.games], axis=1), resamples, rng)
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


def ratings(blocks: Sequence[Block], seed: int = 0, overall: str = "overall") -> list[Rating]:
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
