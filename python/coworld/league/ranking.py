"""Standings: mean episode score per policy with 95% confidence intervals,
overall and per game; the head-to-head matrix; reliability; exports; and the
regression test behind `coworld league compare`.

Statistics, stated once:
- A sample is one policy's score in one episode (its seats' mean when it holds
  several seats of a Hanabi table, which are not independent draws).
- Both seat orders of a pairing play the same seed: the episodes of one seed
  and one set of policies are a seed pair (stats.py), and the standard error is
  the cluster-robust one over seed pairs within opponent sets. The 95% interval
  is a score-type (Wilson) interval on the game's score range with the effective
  sample size that standard error implies and the t(0.975, pairs - opponent sets)
  quantile (stats.bounded_interval): mean +/- t * se inside the range, never past
  its ends (one opponent set, one episode per unit: se is the plain sd / sqrt(n)).
- Overall = the equal-weight mean of the policy's per-game means, Hanabi scaled
  to 0..1 (score / 25) so no game dominates; its standard error combines the
  per-game ones: sqrt(sum se_g^2) / G.
- Ratings: Bradley-Terry on the Elo scale over every two-player game's head-to-head
  results, per game and pooled, with 95% bootstrap intervals over seed pairs
  (stats.py). Hanabi is cooperative and keeps the mean score at every seat count
  (a two-seat Hanabi table is two policies sharing a score, not a match).
- compare: a policy is significantly worse on a game when the 95% interval of
  (current - baseline), Newcombe's hybrid score interval from the two bounded
  intervals, lies wholly below zero. Each (policy, game) is tested at 5%; with many cells expect
  about one false alarm in twenty cells, so gate on what you care about.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from ..games import entry
from ..schemas import STANDINGS as STANDINGS_SCHEMA
from .bradley_terry import ratings, unrated
from .flags import standing_flags, warnings
from .reader import group_rows
from .records import Block, EpisodeRow
from .stats import (
    OVERALL,
    Rating,
    bounded_difference,
    bounded_interval,
    cluster_se,
    clustered_samples,
    head_to_head_block,
)


def t_quantile(p: float, dof: int) -> float:
    """Student's t quantile: exact for dof 1 and 2, else the Cornish-Fisher expansion
    (off by < 0.005 at dof 3, < 1e-4 from dof 10 on)."""
    z = NormalDist().inv_cdf(p)
    if dof <= 0:
        return math.inf
    if dof == 1:
        return math.tan(math.pi * (p - 0.5))
    if dof == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / dof + g2 / dof**2 + g3 / dof**3 + g4 / dof**4


@dataclass(frozen=True)
class Stat:
    n: int
    mean: float
    sd: float
    se: float
    lo: float
    hi: float


def summarize(
    values: Sequence[float] | np.ndarray, bounds: tuple[float, float] = (-1.0, 1.0)
) -> Stat:
    """Mean, sd, se and the bounded 95% interval of independent scores in `bounds`."""
    v = np.asarray(values, dtype=float)
    n = int(v.size)
    if n == 0:
        return Stat(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = float(v.mean())
    if n == 1:
        return Stat(1, mean, math.nan, math.nan, math.nan, math.nan)
    sd = float(v.std(ddof=1))
    se = sd / math.sqrt(n)
    lo, hi = bounded_interval(mean, se, n, *bounds, t_quantile(0.975, n - 1))
    return Stat(n, mean, sd, se, lo, hi)


Results = Sequence[Block] | Sequence[EpisodeRow]


def as_blocks(results: Results) -> list[Block]:
    """Blocks as they are; episode rows grouped into blocks."""
    items = list(results)
    if items and isinstance(items[0], EpisodeRow):
        return group_rows(items)  # type: ignore[arg-type]
    return items  # type: ignore[return-value]


def summarize_paired(
    values: np.ndarray,
    units: np.ndarray,
    strata: np.ndarray,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> Stat:
    """Mean over episodes; standard error over seed pairs within opponent sets
    (stats.cluster_se) and its bounded t-interval (stats.bounded_interval)."""
    se, dof = cluster_se(values, units, strata)
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if values.size > 1 else math.nan
    if math.isnan(se):
        return Stat(int(values.size), mean, sd, math.nan, math.nan, math.nan)
    n_units = int(units.max()) + 1
    lo, hi = bounded_interval(mean, se, n_units, *bounds, t_quantile(0.975, dof))
    return Stat(int(values.size), mean, sd, se, lo, hi)


def score_bounds(game: str) -> tuple[float, float]:
    """The lowest and highest score a seat of `game` can get."""
    score = entry(game)["score"]
    return float(score["min"]), float(score["max"])


@dataclass(frozen=True)
class Standing:
    policy: str
    game: str
    n: int
    mean: float
    lo: float
    hi: float
    sd: float
    se: float
    #: independent units behind the interval: seed pairs (episodes when unpaired)
    pairs: int = 0


def _on_overall_scale(game: str, s: Stat) -> tuple[float, float]:
    """A game's mean and standard error on the overall scale: a -1..1 game as it is, any
    other score range (Hanabi's shared 0..25) mapped onto 0..1."""
    low, high = entry(game)["score"]["min"], entry(game)["score"]["max"]
    if (low, high) == (-1, 1):
        return s.mean, s.se
    return (s.mean - low) / (high - low), s.se / (high - low)


def standings(results: Results, paired: bool = True) -> list[Standing]:
    """Per game and overall, sorted by game then mean (best first). `paired=False`
    treats every episode as independent (what the intervals were before pairing)."""
    per_game: dict[tuple[str, str], Stat] = {}
    units: dict[tuple[str, str], int] = {}
    for key, c in clustered_samples(as_blocks(results)).items():
        bounds = score_bounds(key[1])
        if paired:
            per_game[key] = summarize_paired(c.values, c.units, c.strata, bounds)
            units[key] = int(c.units.max()) + 1
        else:
            per_game[key] = summarize(c.values, bounds)
            units[key] = int(c.values.size)
    table = [
        Standing(p, g, s.n, s.mean, s.lo, s.hi, s.sd, s.se, units[(p, g)])
        for (p, g), s in per_game.items()
    ]
    by_policy: dict[str, list[tuple[str, Stat]]] = defaultdict(list)
    for (p, g), s in per_game.items():
        by_policy[p].append((g, s))
    for policy, games in by_policy.items():
        scaled = [_on_overall_scale(g, s) for g, s in games]
        mean = sum(m for m, _ in scaled) / len(scaled)
        se = math.sqrt(sum(0 if math.isnan(e) else e * e for _, e in scaled)) / len(scaled)
        n = sum(s.n for _, s in games)
        pairs = sum(units[(policy, g)] for g, _ in games)
        # the overall scale's range: the mean of each game's range on it
        low = sum(-1.0 if score_bounds(g) == (-1, 1) else 0.0 for g, _ in games) / len(games)
        lo, hi = bounded_interval(mean, se, pairs, low, 1.0, 1.96)
        table.append(Standing(policy, OVERALL, n, mean, lo, hi, math.nan, se, pairs))
    order = {g: i for i, g in enumerate(sorted({s.game for s in table} - {OVERALL}))}
    order[OVERALL] = -1
    return sorted(table, key=lambda s: (order[s.game], -s.mean, s.policy))


def head_to_head(results: Results) -> dict[str, dict[str, dict[str, float]]]:
    """game -> policy A -> policy B -> A's mean score against B (both seat orders)."""
    sums: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    )
    for block in as_blocks(results):
        if not head_to_head_block(block):  # never a cooperative game's two-seat table
            continue
        a, b = block.seats
        for me, them, column in ((a, b, 0), (b, a, 1)):
            cell = sums[block.game][me][them]
            cell[0] += float(block.score[:, column].sum())
            cell[1] += block.score.shape[0]
    return {
        g: {a: {b: total / n for b, (total, n) in inner.items()} for a, inner in m.items()}
        for g, m in sums.items()
    }


#: The model's own failure causes (retried once, then the fallback), and the one
#: for a seat without credentials. Infrastructure failures are never decisions.
CAUSES = ("unparseable", "illegal", "timeout", "refusal", "truncated", "empty")
#: Every cause a fallback move can have: a Claude seat's (after its retry), a seat
#: without credentials, and a Python policy's exception (`error`; its other
#: failures share the model's causes and are not retried).
FALLBACK_CAUSES = (*CAUSES, "error", "no-credentials")
#: The origins of a decision (episode.Decision.origin); all but `scripted` are
#: decisions a policy makes for itself.
ORIGINS = ("scripted", "model", "retry", "policy", "fallback")


def reliability(results: Results) -> dict[str, dict[str, Any]]:
    """Per policy that decides for itself (a Claude seat or a Python policy, not a
    scripted baseline): its decisions (every one not scripted), retry rates by
    cause (Claude only), fallback rates by cause, tokens, cost."""
    acc: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for block in as_blocks(results):
        for episode in block.decisions or ():
            for policy, counts in zip(block.seats, episode, strict=True):
                for key, value in counts.items():
                    acc[policy][key] += value
    out: dict[str, dict[str, Any]] = {}
    for policy, d in sorted(acc.items()):
        decisions = sum(d.get(o, 0) for o in ORIGINS if o != "scripted")
        if not decisions:
            continue
        retried = {c: d.get(f"retried:{c}", 0) for c in CAUSES}
        entry: dict[str, Any] = {
            "decisions": int(decisions),
            "retries": int(sum(retried.values())),
            "fallbacks": int(d.get("fallback", 0)),
            "tokens": int(d.get("tokens", 0)),
            "cost_usd": round(d.get("cost_usd", 0.0), 4),
        }
        for cause in CAUSES:
            entry[f"retry_rate:{cause}"] = retried[cause] / decisions
        for cause in FALLBACK_CAUSES:
            entry[f"fallback_rate:{cause}"] = d.get(f"fallback:{cause}", 0) / decisions
        out[policy] = entry
    return out


def export(
    results: Results,
    league: str,
    out_dir: Path,
    seed: int = 0,
    alike: Sequence[tuple[str, tuple[str, ...], int]] = (),
) -> dict[str, Path]:
    """standings.csv, standings.json and standings.png in `out_dir`; `seed` (the
    league's) makes the rating bootstrap reproducible; `alike` lists the pairings whose
    episodes were all one game (flags.alike_pairings), flagged in standings.json."""
    out_dir.mkdir(parents=True, exist_ok=True)
    blocks = as_blocks(results)
    table = standings(blocks)
    rated = ratings(blocks, seed)
    flagged = standing_flags(blocks, alike)
    paths = {
        "csv": out_dir / "standings.csv",
        "json": out_dir / "standings.json",
        "png": out_dir / "standings.png",
    }
    with paths["csv"].open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(Standing.__dataclass_fields__))
        writer.writeheader()
        for s in table:
            writer.writerow(asdict(s))
    doc = {
        "schema": STANDINGS_SCHEMA,
        "league": league,
        "episodes": sum(b.score.shape[0] for b in blocks),
        "standings": [
            {**json_safe(asdict(s)), "flags": flagged.get((s.policy, s.game), [])} for s in table
        ],
        "warnings": warnings(blocks, alike),
        "ratings": [json_safe(asdict(r)) for r in rated],
        "unrated": unrated(blocks),
        "headToHead": head_to_head(blocks),
        "reliability": reliability(blocks),
    }
    paths["json"].write_text(json.dumps(doc, indent=2))
    plot(table, paths["png"], title=f"league {league}: mean score, 95% CI", rated=rated)
    return paths


def json_safe(d: dict[str, Any]) -> dict[str, Any]:
    """NaN (unknown) and +-inf (an open rating bound, said in its note) as JSON null."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


def plot(table: Sequence[Standing], path: Path, title: str, rated: Sequence[Rating] = ()) -> None:
    """Mean score per game (left); Bradley-Terry Elo per game where there is one (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(s.game for s in table))
    if not games:  # nothing scored yet (a league stopped before its first episode)
        path.unlink(missing_ok=True)
        return
    columns = 2 if rated else 1
    fig, axes = plt.subplots(
        len(games), columns, figsize=(8 * columns, 1.2 + 0.45 * len(table)), squeeze=False
    )
    for row, game in enumerate(games):
        _bars(axes[row, 0], [s for s in table if s.game == game], f"{game}: mean score")
        if rated:
            elo = [r for r in rated if r.game == game]
            if elo:
                _bars(axes[row, 1], elo, f"{game}: Bradley-Terry Elo")
            else:
                axes[row, 1].axis("off")
    fig.suptitle(title + (" | Elo, 95% bootstrap CI" if rated else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@dataclass(frozen=True)
class Difference:
    policy: str
    game: str
    baseline: float
    current: float
    diff: float
    lo: float
    hi: float
    worse: bool


def compare(baseline: Sequence[Standing], current: Sequence[Standing]) -> list[Difference]:
    """Per (policy, game) present in both: current - baseline with its 95% interval."""
    base = {(s.policy, s.game): s for s in baseline}
    out = []
    for s in current:
        b = base.get((s.policy, s.game))
        if b is None:
            continue
        diff = s.mean - b.mean
        lo, hi = bounded_difference((s.mean, s.lo, s.hi), (b.mean, b.lo, b.hi))
        out.append(Difference(s.policy, s.game, b.mean, s.mean, diff, lo, hi, hi < 0))
    return out


def voided(path: Path) -> int | None:
    """Void episodes (the API's, not budget or Ctrl-C cuts) left unscored in the latest
    league of a database; None for an exported standings.json (it does not say)."""
    if path.suffix == ".json":
        return None
    from .storage import LeagueDB

    db = LeagueDB.open_existing(path)
    try:
        leagues = db.leagues()
        if not leagues:
            return 0
        open_voids = db.open_voids(leagues[-1]).values()
        return sum(1 for v in open_voids if v[-1].cause not in ("budget", "interrupted"))
    finally:
        db.close()


def _bars(ax: Any, table: Sequence[Standing | Rating], title: str) -> None:
    rows = list(table)[::-1]
    y = list(range(len(rows)))
    centre = [r.mean if isinstance(r, Standing) else r.elo for r in rows]
    err = [
        # a percentile interval can miss its estimate when data are few: no bar then;
        # an open side (a rating no data bound, +-inf) is drawn as an arrow instead
        [
            0 if not math.isfinite(r.lo) else max(0.0, c - r.lo)
            for r, c in zip(rows, centre, strict=True)
        ],
        [
            0 if not math.isfinite(r.hi) else max(0.0, r.hi - c)
            for r, c in zip(rows, centre, strict=True)
        ],
    ]
    ax.errorbar(centre, y, xerr=err, fmt="o", capsize=3)
    for r, c, row in zip(rows, centre, y, strict=True):
        if isinstance(r, Rating) and r.hi == math.inf:
            ax.annotate("open ->", (c, row), xytext=(6, 3), textcoords="offset points", fontsize=7)
        if isinstance(r, Rating) and r.lo == -math.inf:
            ax.annotate(
                "<- open", (c, row), xytext=(-36, 3), textcoords="offset points", fontsize=7
            )
    ax.set_yticks(y, [r.policy for r in rows])
    ax.set_title(title, fontsize=9, loc="left")
    ax.axvline(0, color="grey", lw=0.5)


def load_standings(path: Path) -> list[Standing]:
    """Standings from an exported standings.json, or computed from a league database."""
    if path.suffix == ".json":
        doc = json.loads(path.read_text())
        nan = math.nan
        return [
            Standing(
                s["policy"],
                s["game"],
                int(s["n"]),
                pairs=int(s.get("pairs") or 0),
                **{
                    k: nan if s[k] is None else float(s[k])
                    for k in ("mean", "lo", "hi", "sd", "se")
                },
            )
            for s in doc["standings"]
        ]
    from .storage import LeagueDB

    db = LeagueDB.open_existing(path)
    try:
        leagues = db.leagues()
        return standings(db.blocks(leagues[-1])) if leagues else []
    finally:
        db.close()
