"""Adaptive schedules (`schedule = "adaptive"`): spend episodes where the ranking is
still in doubt.

Round 1 plays `episodes` seed pairs of every pairing (a table set: both seat orders
of two policies; a Hanabi self-play table alone). After each round, each game's
ranking quantity (two-seat games: Bradley-Terry Elo; Hanabi: mean score) is
bootstrapped over seed pairs (stats.py), and the game's confidence is the share of
replicates that order every policy exactly as the estimate does. A game below
`confidence` gets more seed pairs for its neighbours in the order whose replicates
swap them at least (1 - confidence) / (policies - 1) of the time (their intervals
overlap most): the table set that best informs their difference (`doubtful`)
grows by max(first round, a quarter of what it has). The league stops when
every game is confident, a budget is reached, or every doubtful pairing holds
MAX_ROUNDS times its first round.

Deterministic given the league seed: round k's decision reads only the episodes
with index below round k's targets, and its bootstrap is seeded from the league
seed, the round and the game. So a resumed league (after kill -9) recomputes the
same rounds from its database and plays on where it stopped.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..games import FAMILIES
from .bradley_terry import bt_bootstrap
from .config import LeagueConfig
from .engine import Step
from .records import Block
from .schedule import Pairing
from .stats import ELO, Bootstrap, PairData, head_to_head_units, mean_bootstrap, order_confidence
from .storage import LeagueDB

MAX_ROUNDS = 64
GROWTH = 4
RESAMPLES = 500

Key = tuple[str, str]  # (game, sorted policies of the table set joined by "/")


def table_key(p: Pairing) -> Key:
    return p.game, "/".join(sorted(set(p.seats)))


@dataclass(frozen=True)
class Round:
    number: int
    episodes: int  # in the league after this round
    confidence: dict[str, float]  # per game
    next: list[Key]  # table sets that grow next (empty: done)

    def line(self) -> str:
        """The round in one line: its episodes, each game's confidence, what grows."""
        conf = ", ".join(f"{g} {c:.3f}" for g, c in self.confidence.items())
        nxt = ", ".join(f"{k[1]} ({k[0]})" for k in self.next) or "done"
        return (
            f"round {self.number}: {self.episodes} episodes; order confidence {conf}; next: {nxt}"
        )


def restrict(blocks: list[Block], targets: dict[Key, int]) -> list[Block]:
    """The episodes each table set held when its target was `targets[key]`."""
    out = []
    for b in blocks:
        if b.index is None:
            continue
        keep = b.index < targets.get((b.game, "/".join(sorted(set(b.seats)))), 0)
        out.append(Block(b.game, b.seats, b.score[keep], index=b.index[keep]))
    return out


def assess(blocks: list[Block], game: str, seed: int) -> tuple[Bootstrap, list[PairData]] | None:
    """The game's ranking quantity, bootstrapped, and its head-to-head data (None with
    fewer than two policies)."""
    mine = [b for b in blocks if b.game == game and b.score.shape[0]]
    pairs: list[PairData] = []
    if FAMILIES[game] == "hanabi":
        bs = mean_bootstrap(mine, seed, RESAMPLES) if mine else None
    else:
        pairs = head_to_head_units(mine)
        bs = bt_bootstrap(pairs, seed, RESAMPLES) if pairs else None
    return (bs, pairs) if bs is not None and len(bs.players) > 1 else None


def doubtful(
    bs: Bootstrap, pairs: list[PairData], game: str, confidence: float, first: int
) -> list[tuple[float, Key]]:
    """Table sets that would best settle the game's order, most doubtful first: for each
    pair of neighbours the replicates swap at least (1 - confidence) / (policies - 1)
    of the time (the most doubtful one when none does), the table set whose next batch
    shrinks the variance of their rating difference most per episode (two-seat games:
    often their own head-to-head, but a common opponent when that is deterministic);
    Hanabi: the two policies' mixed table and each one's self-play table."""
    _, order, swap = order_confidence(bs)
    share = (1 - confidence) / (len(bs.players) - 1)
    picks = [i for i in np.argsort(-swap, kind="stable") if swap[i] >= share] or [
        int(np.argmax(swap))
    ]
    out: list[tuple[float, Key]] = []
    for i in picks:
        a, b = bs.players[order[i]], bs.players[order[i + 1]]
        if FAMILIES[game] == "hanabi":
            keys = [(game, "/".join(sorted((a, b)))), (game, a), (game, b)]
        else:
            keys = [(game, best_table(bs, pairs, a, b, first))]
        out += [(float(swap[i]), k) for k in keys]
    return out


def best_table(bs: Bootstrap, pairs: list[PairData], a: str, b: str, first: int) -> str:
    """The pairing whose next batch most reduces Var(r_a - r_b) per episode, from the
    Bradley-Terry information matrix I = sum_k n_k w_k x_k x_k^T (x_k = e_i - e_j; per
    seed pair w_k = (g p (1 - p))^2 / var(points), the quasi-likelihood information,
    so a pairing that always ends the same way is already known exactly) and the
    Sherman-Morrison update of c^T I^+ c for c = e_a - e_b."""
    index = {p: i for i, p in enumerate(bs.players)}
    size = len(bs.players)
    rows = []
    info = np.zeros((size, size))
    for p in pairs:
        x = np.zeros(size)
        x[index[p.a]], x[index[p.b]] = 1.0, -1.0
        n = len(p.points)
        g = float(p.games.mean())
        prob = 1.0 / (1.0 + np.exp(-(bs.point[index[p.a]] - bs.point[index[p.b]]) / ELO))
        slope = g * prob * (1 - prob)
        # observed variance of a seed pair's points, floored by one pseudo-pair's worth
        var = max(float(p.points.var(ddof=1)) if n > 1 else 0.0, g * 0.25 / (n + 1))
        w = slope * slope / var
        info += n * w * np.outer(x, x)
        rows.append((p, x, w, max(first, n // GROWTH)))
    inv = np.linalg.pinv(info)
    c = np.zeros(size)
    c[index[a]], c[index[b]] = 1.0, -1.0
    best, best_gain = "/".join(sorted((a, b))), -1.0
    for p, x, w, step in rows:
        u = float(c @ inv @ x)
        gain = step * w * u * u / (1 + step * w * float(x @ inv @ x)) / (2 * step)
        if gain > best_gain + 1e-15:
            best, best_gain = f"{p.a}/{p.b}", gain
    return best


def round_seed(seed: int, number: int, game: str) -> int:
    return zlib.crc32(f"{seed}:{number}:{game}".encode())


def plan_round(
    blocks: list[Block],
    targets: dict[Key, int],
    orders: dict[Key, int],
    *,
    seed: int,
    number: int,
    confidence: float,
    first: int,
    max_episodes: int | None = None,
) -> tuple[dict[str, float], dict[Key, int], list[Key]]:
    """One decision: each game's order confidence over the episodes below `targets`,
    the next targets and the table sets that grow (none: stop). `orders[key]` is the
    number of seatings in a table set (episodes per seed pair)."""
    blocks = restrict(blocks, targets)
    confidences: dict[str, float] = {}
    wanted: list[tuple[float, Key]] = []
    for game in dict.fromkeys(g for g, _ in targets):
        found = assess(blocks, game, round_seed(seed, number, game))
        confidences[game] = 1.0 if found is None else order_confidence(found[0])[0]
        if found is not None and confidences[game] < confidence:
            wanted += doubtful(*found, game, confidence, first)
    grown = dict(targets)
    chosen: list[Key] = []
    for _, key in sorted(wanted, key=lambda w: -w[0]):
        now = grown[key]
        step = min(max(first, now // GROWTH), first * MAX_ROUNDS - now)
        if key in chosen or step <= 0:
            continue
        if max_episodes is not None:
            used = sum(t * orders[k] for k, t in grown.items())
            step = min(step, (max_episodes - used) // orders[key])
            if step <= 0:
                continue
        grown[key] = now + step
        chosen.append(key)
    return confidences, grown, chosen


def play_adaptive(
    play: Callable[[list[Pairing]], Step],
    base: list[Pairing],
    db: LeagueDB,
    config: LeagueConfig,
    on_round: Callable[[Round], None] | None = None,
) -> int:
    """Play the adaptive schedule of `config` (its first round: `base`) into `db`
    through `play`, which plays what a schedule's targets lack; returns the
    episodes played now."""
    orders: dict[Key, int] = defaultdict(int)
    for p in base:
        orders[table_key(p)] += 1
    targets = {k: config.episodes for k in orders}
    played, number = 0, 0
    while True:
        number += 1
        step = play([replace(p, episodes=targets[table_key(p)]) for p in base])
        played += step.played
        if step.halt is not None:  # budget, outage, refusal: another round would play nothing
            break
        confidence, grown, chosen = plan_round(
            db.blocks(config.name),
            targets,
            orders,
            seed=config.seed,
            number=number,
            confidence=config.confidence,
            first=config.episodes,
            max_episodes=config.max_episodes,
        )
        if on_round:
            on_round(
                Round(number, sum(t * orders[k] for k, t in targets.items()), confidence, chosen)
            )
        if not chosen:
            break
        targets = grown
    return played
