"""Batch simulation of scripted baselines, run whole in the Rust core."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _core
from .errors import I64, MAX_EPISODES, MAX_OPENINGS, MAX_THREADS, integer_arg

ENDINGS: tuple[str, ...] = tuple(_core.ENDINGS)


@dataclass(frozen=True)
class SimResult:
    """Per-episode arrays of a batch (row `i` is episode `i`)."""

    game: str
    policies: tuple[str, ...]
    seed: int
    score: np.ndarray  # (episodes, seats) int32: +1/0/-1, or Hanabi's shared score
    plies: np.ndarray  # (episodes,) uint32
    ending: np.ndarray  # (episodes,) uint8 codes into ENDINGS
    played: np.ndarray  # (episodes,) uint8 codes into coworld.GAMES (`rotate` resolved)
    seeds: np.ndarray  # (episodes,) int64: each episode's own seed

    @property
    def episodes(self) -> int:
        return int(self.plies.shape[0])

    def ending_names(self) -> list[str]:
        return [ENDINGS[c] for c in self.ending]

    def mean_score(self) -> np.ndarray:
        """Mean score per seat."""
        return self.score.mean(axis=0)


def simulate(
    game: str,
    policies: Sequence[str],
    episodes: int,
    seed: int = 0,
    threads: int | None = None,
    config: Mapping[str, Any] | None = None,
    start: int = 0,
    openings: int = 0,
) -> SimResult:
    """Play `episodes` whole episodes in Rust, one baseline per seat, on `threads`
    threads (None: every core) with the GIL released. Episode `i` uses a seed
    derived from `seed` and `i`, so the arrays do not depend on the thread count.
    Seed 0 draws a base seed, recorded in `SimResult.seed`. `start` skips to
    episode `start` of the same sequence (a resumed batch). Each episode first plays
    `openings` random legal plies drawn from its seed alone (as `Episode` does)."""
    base = integer_arg("seed", seed, *I64) or _core.draw_seed()
    raw = _core.simulate(
        game,
        list(policies),
        integer_arg("episodes", episodes, 0, MAX_EPISODES),
        base,
        None if threads is None else integer_arg("threads", threads, 1, MAX_THREADS),
        json.dumps(dict(config)) if config else None,
        integer_arg("start", start, 0),
        integer_arg("openings", openings, 0, MAX_OPENINGS),
    )
    return SimResult(
        game=game,
        policies=tuple(policies),
        seed=base,
        score=raw["score"],
        plies=raw["plies"],
        ending=raw["ending"],
        played=raw["game"],
        seeds=raw["seed"],
    )
