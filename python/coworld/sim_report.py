"""What `coworld simulate` reports: per policy and seat order, the mean score with its
bounded 95% interval and the win/draw/loss counts, as a table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .games import entry
from .simulate import SimResult

#: The seat order a row covers with --swap: both orders on the same seeds.
BOTH = "both"


@dataclass(frozen=True)
class SimRow:
    policy: str
    #: the seat the policy held ("0", "1", ..), or "both" (both orders, paired by seed)
    seat: str
    episodes: int
    mean: float
    lo: float
    hi: float
    #: win/draw/loss counts in two-seat -1..1 games (None for a shared score: Hanabi)
    wins: int | None
    draws: int | None
    losses: int | None


def report_rows(runs: Sequence[SimResult]) -> list[SimRow]:
    """A row per policy and seat of each run; with two runs (the second the first's
    policies in the other order, on the same seeds) also a row per policy over both,
    its interval over seed pairs (the two games of one seed are not independent)."""
    from .league.ranking import score_bounds, summarize, summarize_paired

    bounds = score_bounds(runs[0].game)
    rows = []
    for run in runs:
        for seat, name in enumerate(run.policies):
            s = summarize(run.score[:, seat].astype(float), bounds)
            rows.append(SimRow(name, str(seat), s.n, s.mean, s.lo, s.hi, *_wdl(run, seat)))
    if len(runs) == 2:
        for seat, name in enumerate(runs[0].policies):
            other = 1 - seat  # the second run is the first's two policies swapped
            values = np.concatenate([runs[0].score[:, seat], runs[1].score[:, other]])
            units = np.tile(np.arange(runs[0].episodes), 2)
            s = summarize_paired(values.astype(float), units, np.zeros_like(units), bounds)
            first, second = _wdl(runs[0], seat), _wdl(runs[1], other)
            wdl = (None,) * 3 if None in first else tuple(map(sum, zip(first, second, strict=True)))
            rows.append(SimRow(name, BOTH, s.n, s.mean, s.lo, s.hi, *wdl))
    return rows


def _wdl(run: SimResult, seat: int) -> tuple[Any, Any, Any]:
    """(wins, draws, losses) of `seat` in a two-seat -1..1 game, else Nones."""
    score = entry(run.game)["score"]
    if run.score.shape[1] != 2 or (score["min"], score["max"]) != (-1, 1):
        return None, None, None
    col = run.score[:, seat]
    return int((col > 0).sum()), int((col == 0).sum()), int((col < 0).sum())


def endings(runs: Sequence[SimResult]) -> dict[str, int]:
    names = [n for run in runs for n in run.ending_names()]
    return {e: names.count(e) for e in sorted(set(names))}


def as_json(runs: Sequence[SimResult], rows: Sequence[SimRow]) -> str:
    first = runs[0]
    return json.dumps(
        {
            "game": first.game,
            "seed": first.seed,
            "episodes": first.episodes,
            "orders": [list(r.policies) for r in runs],
            "interval": "95% score (Wilson) interval on the game's score range",
            "rows": [_finite(asdict(r)) for r in rows],
            "endings": endings(runs),
        },
        indent=2,
    )


def as_csv(rows: Sequence[SimRow]) -> str:
    out = io.StringIO()
    fields = list(SimRow.__dataclass_fields__)
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in _finite(asdict(r)).items()})
    return out.getvalue()


def _finite(row: dict[str, Any]) -> dict[str, Any]:
    """NaN (an interval of one episode) as None: JSON has no NaN."""
    return {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
