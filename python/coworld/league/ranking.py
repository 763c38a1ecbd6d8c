"""Standings: mean episode score per policy with 95% confidence intervals,
overall and per game; the head-to-head matrix; reliability; exports; and the
regression test behind `coworld league compare`.

Statistics, stated once:
- A sample is one policy's score in one episode (its seats' mean when it holds
  several seats of a Hanabi table, which are not independent draws).
- The 95% interval is mean +/- t(0.975, n-1) * sd / sqrt(n).
- Overall = the equal-weight mean of the policy's per-game means, Hanabi scaled
  to 0..1 (score / 25) so no game dominates; its standard error combines the
  per-game ones: sqrt(sum se_g^2) / G.
- compare: a policy is significantly worse on a game when the 95% interval of
  (current - baseline), Welch's normal approximation, lies wholly below zero
  (z < -1.96). Each (policy, game) is tested at 5%; with many cells expect
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
from .storage import Block, EpisodeRow, group_rows

OVERALL = "overall"


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


def summarize(values: Sequence[float] | np.ndarray) -> Stat:
    v = np.asarray(values, dtype=float)
    n = int(v.size)
    if n == 0:
        return Stat(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = float(v.mean())
    if n == 1:
        return Stat(1, mean, math.nan, math.nan, math.nan, math.nan)
    sd = float(v.std(ddof=1))
    se = sd / math.sqrt(n)
    half = t_quantile(0.975, n - 1) * se
    return Stat(n, mean, sd, se, mean - half, mean + half)


Results = Sequence[Block] | Sequence[EpisodeRow]


def as_blocks(results: Results) -> list[Block]:
    """Blocks as they are; episode rows grouped into blocks."""
    items = list(results)
    if items and isinstance(items[0], EpisodeRow):
        return group_rows(items)  # type: ignore[arg-type]
    return items  # type: ignore[return-value]


def samples(results: Results) -> dict[tuple[str, str], np.ndarray]:
    """(policy, game) -> one score per episode the policy played."""
    parts: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    for block in as_blocks(results):
        for policy in dict.fromkeys(block.seats):
            columns = [i for i, p in enumerate(block.seats) if p == policy]
            parts[(policy, block.game)].append(block.score[:, columns].mean(axis=1))
    return {key: np.concatenate(arrays) for key, arrays in parts.items()}


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


def _on_overall_scale(game: str, s: Stat) -> tuple[float, float]:
    """A game's mean and standard error on the overall scale: a -1..1 game as it is, any
    other score range (Hanabi's shared 0..25) mapped onto 0..1."""
    low, high = entry(game)["score"]["min"], entry(game)["score"]["max"]
    if (low, high) == (-1, 1):
        return s.mean, s.se
    return (s.mean - low) / (high - low), s.se / (high - low)


def standings(results: Results) -> list[Standing]:
    """Per game and overall, sorted by game then mean (best first)."""
    per_game = {key: summarize(v) for key, v in samples(results).items()}
    table = [Standing(p, g, s.n, s.mean, s.lo, s.hi, s.sd, s.se) for (p, g), s in per_game.items()]
    by_policy: dict[str, list[tuple[str, Stat]]] = defaultdict(list)
    for (p, g), s in per_game.items():
        by_policy[p].append((g, s))
    for policy, games in by_policy.items():
        scaled = [_on_overall_scale(g, s) for g, s in games]
        mean = sum(m for m, _ in scaled) / len(scaled)
        se = math.sqrt(sum(0 if math.isnan(e) else e * e for _, e in scaled)) / len(scaled)
        n = sum(s.n for _, s in games)
        table.append(
            Standing(policy, OVERALL, n, mean, mean - 1.96 * se, mean + 1.96 * se, math.nan, se)
        )
    order = {g: i for i, g in enumerate(sorted({s.game for s in table} - {OVERALL}))}
    order[OVERALL] = -1
    return sorted(table, key=lambda s: (order[s.game], -s.mean, s.policy))


def head_to_head(results: Results) -> dict[str, dict[str, dict[str, float]]]:
    """game -> policy A -> policy B -> A's mean score against B (both seat orders)."""
    sums: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    )
    for block in as_blocks(results):
        if len(block.seats) != 2 or block.seats[0] == block.seats[1]:
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
CAUSES = ("unparseable", "illegal", "timeout")
FALLBACK_CAUSES = (*CAUSES, "no-credentials")


def reliability(results: Results) -> dict[str, dict[str, Any]]:
    """Per policy that decides for itself (not a scripted baseline): decisions by
    origin, retry and fallback rates by cause, tokens, cost."""
    acc: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for block in as_blocks(results):
        for episode in block.decisions or ():
            for policy, counts in zip(block.seats, episode, strict=True):
                for key, value in counts.items():
                    acc[policy][key] += value
    out: dict[str, dict[str, Any]] = {}
    for policy, d in sorted(acc.items()):
        decisions = sum(d.get(o, 0) for o in ("scripted", "model", "retry", "fallback"))
        if decisions == d.get("scripted", 0):
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
            entry[f"retry_rate:{cause}"] = retried[cause] / decisions if decisions else 0.0
        for cause in FALLBACK_CAUSES:
            entry[f"fallback_rate:{cause}"] = (
                d.get(f"fallback:{cause}", 0) / decisions if decisions else 0.0
            )
        out[policy] = entry
    return out


def export(results: Results, league: str, out_dir: Path) -> dict[str, Path]:
    """standings.csv, standings.json and standings.png in `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    blocks = as_blocks(results)
    table = standings(blocks)
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
        "league": league,
        "episodes": sum(b.score.shape[0] for b in blocks),
        "standings": [_clean(asdict(s)) for s in table],
        "headToHead": head_to_head(blocks),
        "reliability": reliability(blocks),
    }
    paths["json"].write_text(json.dumps(doc, indent=2))
    plot(table, paths["png"], title=f"league {league}: mean score, 95% CI")
    return paths


def _clean(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in d.items()}


def plot(table: Sequence[Standing], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(s.game for s in table))
    if not games:  # nothing scored yet (a league stopped before its first episode)
        path.unlink(missing_ok=True)
        return
    fig, axes = plt.subplots(len(games), 1, figsize=(8, 1.2 + 0.45 * len(table)), squeeze=False)
    for ax, game in zip(axes[:, 0], games, strict=True):
        rows = [s for s in table if s.game == game][::-1]
        y = range(len(rows))
        means = [s.mean for s in rows]
        err = [
            [0 if math.isnan(s.lo) else s.mean - s.lo for s in rows],
            [0 if math.isnan(s.hi) else s.hi - s.mean for s in rows],
        ]
        ax.errorbar(means, list(y), xerr=err, fmt="o", capsize=3)
        ax.set_yticks(list(y), [s.policy for s in rows])
        ax.set_title(game, fontsize=9, loc="left")
        ax.axvline(0, color="grey", lw=0.5)
    fig.suptitle(title, fontsize=10)
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
        se = math.sqrt(_sq(s.se) + _sq(b.se))
        lo, hi = diff - 1.96 * se, diff + 1.96 * se
        out.append(Difference(s.policy, s.game, b.mean, s.mean, diff, lo, hi, hi < 0))
    return out


def _sq(x: float) -> float:
    return 0.0 if x is None or math.isnan(x) else x * x


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
                *(nan if s[k] is None else float(s[k]) for k in ("mean", "lo", "hi", "sd", "se")),
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
