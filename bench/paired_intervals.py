"""How much seed pairing narrows the standings' 95% intervals.

    python bench/paired_intervals.py [LEAGUE_DB]

Without an argument it runs the demo league (python/coworld/league/demo.toml) into
a temporary directory first. For every (game, policy) it prints the width of the
95% interval three ways: every episode independent (the standings before this
change), episodes independent within opponent sets, and seed pairs within opponent
sets (the standings now: both seat orders of a seed as one unit, stats.py).
"""

from __future__ import annotations

import sys
import tempfile
import tomllib
from importlib.resources import files
from pathlib import Path

import numpy as np

from coworld.league import LeagueDB, LeagueRun, parse_league
from coworld.league.ranking import OVERALL, standings, t_quantile
from coworld.league.stats import cluster_se, clustered_samples


def demo_database(tmp: Path) -> Path:
    raw = tomllib.loads(files("coworld.league").joinpath("demo.toml").read_text())
    raw["out"] = str(tmp / "demo")
    config = parse_league(raw, base_dir=tmp)
    LeagueRun(config, progress=False).run()
    return config.database


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(sys.argv[1]) if len(sys.argv) > 1 else demo_database(Path(tmp))
        db = LeagueDB.open_existing(path)
        league = db.leagues()[-1]
        blocks = db.blocks(league)
        db.close()
    paired = {(s.game, s.policy): s for s in standings(blocks)}
    plain = {(s.game, s.policy): s for s in standings(blocks, paired=False)}
    samples = clustered_samples(blocks)
    print(f"league {league}: 95% interval width per (game, policy)")
    print("  before: every episode independent (sd/sqrt(n), the previous standings)")
    print("  by opponent: episodes independent within opponent sets (stratified)")
    print("  paired: seed pairs within opponent sets (the standings now)")
    print(
        f"{'game':<14} {'policy':<12} {'episodes':>8} {'pairs':>6} {'before':>8} "
        f"{'by opp.':>8} {'paired':>8} {'paired/by opp.':>15} {'paired/before':>14}"
    )
    effects: dict[str, list[tuple[float, float]]] = {}
    for game, policy in sorted(paired):
        p, b = paired[(game, policy)], plain[(game, policy)]
        wp, wb = p.hi - p.lo, b.hi - b.lo
        if game == OVERALL:
            wo = float("nan")  # the overall row combines per-game errors; see per game
        else:
            c = samples[(policy, game)]
            se, dof = cluster_se(c.values, np.arange(c.values.size), c.strata)
            wo = 2 * t_quantile(0.975, dof) * se
        pair_effect = wp / wo if wo > 0 else float("nan")
        total = wp / wb if wb > 0 else float("nan")
        if total == total:
            effects.setdefault("overall" if game == OVERALL else "per game", []).append(
                (pair_effect, total)
            )
        print(
            f"{game:<14} {policy:<12} {p.n:>8} {p.pairs:>6} {wb:>8.4f} {wo:>8.4f} "
            f"{wp:>8.4f} {pair_effect:>15.3f} {total:>14.3f}"
        )
    for group, values in effects.items():
        v = np.array(values)
        for j, what in ((0, "paired/by-opponent (pairing alone)"), (1, "paired/before")):
            col = v[:, j][~np.isnan(v[:, j])]
            if col.size:
                print(
                    f"{group}: {what}: median {np.median(col):.3f}, mean {col.mean():.3f}, "
                    f"range {col.min():.3f}..{col.max():.3f} over {col.size} cells"
                )


if __name__ == "__main__":
    main()
