"""Adaptive vs uniform schedules: episodes until the order is right at 95%, and how
often the order they settle on is wrong.

    python bench/adaptive_vs_uniform.py [--leagues 200] [--source dial:connect-four]

Each simulated league has 8 policies of graded strength and runs twice from the same
seeds: once with the adaptive schedule (coworld.league.adaptive.plan_round, the code
`schedule = "adaptive"` runs) and once uniformly (every pairing grows by the same
step each round). Both start with FIRST seed pairs per pairing, both stop when the
bootstrap says the whole order is right with 95% confidence (the same test, the same
RESAMPLES), and both stop at MAX_ROUNDS x FIRST seed pairs per pairing.

Sources:
  dial:GAME   `BASE?eps=e` for the 8 values of EPS (the strength dial; BASE is
              tactician on connect-four, sweep on dark-hex-5), played by the Rust
              batch simulator; truth: smaller eps is stronger (checked by --truth)
  synthetic   8 policies at SYNTHETIC_ELO, each game drawn from a Bradley-Terry model
              with 20% draws and a first-mover edge (no engine needed)
Leagues run in memory (the storage is not what is measured).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from coworld.league.adaptive import GROWTH, MAX_ROUNDS, assess, plan_round
from coworld.league.records import Block
from coworld.league.stats import order_confidence

FIRST = 10  # seed pairs per pairing in the first round
EPS = (0.0, 0.2, 0.35, 0.5, 0.6, 0.7, 0.85, 1.0)  # adjacent gaps 34-147 Elo (--truth)
#: graded, unevenly spaced strengths (close pairs among clear gaps, as real policies are)
SYNTHETIC_ELO = (0.0, -40.0, -120.0, -160.0, -280.0, -320.0, -440.0, -480.0)

Play = Callable[[str, str, int, int], np.ndarray]  # (a, b, start, count) -> (count, 2)


def synthetic(seed: int) -> tuple[list[str], Play, str]:
    names = [f"p{i}" for i in range(8)]
    elo = dict(zip(names, SYNTHETIC_ELO, strict=True))

    def play(a: str, b: str, start: int, count: int) -> np.ndarray:
        rng = np.random.default_rng([seed, names.index(a), names.index(b), start])
        s = 1 / (1 + 10 ** (-(elo[a] - elo[b]) / 400)) + 0.05  # seat 0 moves first
        draw = 0.2
        win = np.clip(s - draw / 2, 0, 1 - draw)
        u = rng.random(count)
        first = np.where(u < win, 1, np.where(u < win + draw, 0, -1))
        return np.stack([first, -first], axis=1).astype(float)

    return names, play, "connect-four"  # a two-seat game id: ranked by Bradley-Terry


#: the baseline each game's dial turns (the strongest of the game)
DIAL_BASE = {"connect-four": "tactician", "dark-hex-5": "sweep"}


def dial_names(game: str) -> list[str]:
    base = DIAL_BASE[game]
    return [base if e == 0 else f"{base}?eps={e:g}" for e in EPS]


def dial(game: str, seed: int) -> tuple[list[str], Play, str]:
    from coworld import simulate

    names = dial_names(game)

    def play(a: str, b: str, start: int, count: int) -> np.ndarray:
        return simulate(game, [a, b], count, seed, threads=1, start=start).score.astype(float)

    return names, play, game


def run_league(
    names: list[str], play: Play, game: str, adaptive: bool, seed: int
) -> tuple[int, bool, bool]:
    """(episodes, order right, confident) for one league."""
    keys = {(game, f"{a}/{b}"): (a, b) for i, a in enumerate(names) for b in names[i + 1 :]}
    keys = {(game, "/".join(sorted(ab))): ab for ab in keys.values()}
    orders = {k: 2 for k in keys}
    targets = {k: FIRST for k in keys}
    scores: dict[tuple[str, str], np.ndarray] = {}
    number = 0
    confident = False
    while True:
        number += 1
        for key, (a, b) in keys.items():
            for seats in ((a, b), (b, a)):
                have = scores.get(seats, np.zeros((0, 2)))
                need = targets[key] - have.shape[0]
                if need > 0:
                    scores[seats] = np.concatenate([have, play(*seats, have.shape[0], need)])
        blocks = [Block(game, seats, s, index=np.arange(s.shape[0])) for seats, s in scores.items()]
        conf, grown, chosen = plan_round(
            blocks, targets, orders, seed=seed, number=number, confidence=0.95, first=FIRST
        )
        if conf[game] >= 0.95:
            confident = True
            break
        if adaptive:
            if not chosen:
                break
            targets = grown
        else:
            step = {
                k: min(max(FIRST, t // GROWTH), FIRST * MAX_ROUNDS - t) for k, t in targets.items()
            }
            if all(v <= 0 for v in step.values()):
                break
            targets = {k: t + step[k] for k, t in targets.items()}
    bs, _ = assess(blocks, game, seed)
    _, order, _ = order_confidence(bs)
    found = [bs.players[i] for i in order]
    episodes = sum(t * orders[k] for k, t in targets.items())
    return episodes, found == names, confident


def truth(game: str, pairs: int) -> None:
    """The dial's order from a large uniform league: Bradley-Terry over `pairs` seed
    pairs of every pairing, with 95% bootstrap intervals."""
    from coworld.league.bradley_terry import ratings

    names, play, game = dial(game, 2026)
    blocks = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for seats in ((a, b), (b, a)):
                blocks.append(Block(game, seats, play(*seats, 0, pairs), index=np.arange(pairs)))
    table = [r for r in ratings(blocks, seed=1) if r.game == game]
    print(f"{game}: {pairs} seed pairs per pairing; Bradley-Terry Elo (95% bootstrap CI)")
    for r in table:
        print(f"  {r.policy:<22} {r.elo:+7.1f}  [{r.lo:+7.1f}, {r.hi:+7.1f}]")
    found = [r.policy for r in table]
    print("order = dial order" if found == names else f"order differs from the dial: {found}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--leagues", type=int, default=200)
    ap.add_argument("--source", default="dial:connect-four")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--truth",
        type=int,
        default=0,
        help="instead: play N seed pairs of every dial pairing and print the fitted order",
    )
    args = ap.parse_args()
    if args.truth:
        truth(args.source.split(":", 1)[1], args.truth)
        return
    rows = {True: [], False: []}
    t0 = time.monotonic()
    for i in range(args.leagues):
        seed = args.seed * 100_003 + i
        if args.source == "synthetic":
            names, play, game = synthetic(seed)
        else:
            names, play, game = dial(args.source.split(":", 1)[1], seed)
        for adaptive in (True, False):
            rows[adaptive].append(run_league(names, play, game, adaptive, seed))
    print(
        f"{args.leagues} leagues of 8 policies ({args.source}), first round {FIRST} seed "
        f"pairs per pairing, stop at 95% order confidence or {MAX_ROUNDS}x the first round; "
        f"{time.monotonic() - t0:.0f} s"
    )
    for adaptive in (True, False):
        r = np.array(rows[adaptive], dtype=float)
        name = "adaptive" if adaptive else "uniform"
        print(
            f"{name:>9}: episodes mean {r[:, 0].mean():8.0f} median {np.median(r[:, 0]):8.0f}; "
            f"order wrong {1 - r[:, 1].mean():6.1%}; confident {r[:, 2].mean():6.1%}"
        )
    a, u = np.array(rows[True], dtype=float), np.array(rows[False], dtype=float)
    print(
        f"adaptive / uniform episodes: mean {a[:, 0].mean() / u[:, 0].mean():.3f}, "
        f"median of per-league ratios {np.median(a[:, 0] / u[:, 0]):.3f}"
    )


if __name__ == "__main__":
    main()
