"""What a league plays and keeps: an episode's identity (`EpisodeKey`) and the
records built on it. The engine and the backends build them, workers send them
back, storage persists them: every side imports them from here, and this module
imports nothing of theirs (no database, no backend)."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..seats.infra import REJECTED
from ..usage import Usage


@dataclass(frozen=True)
class EpisodeKey:
    """One episode of a league: which pairing, which index in it, and what that
    fixes (the game, the seed, the policy in each seat)."""

    pairing: str
    idx: int
    game: str
    seed: int
    seats: tuple[str, ...]


class Keyed:
    """An episode record's identity, read through its key."""

    key: EpisodeKey

    @property
    def pairing(self) -> str:
        return self.key.pairing

    @property
    def idx(self) -> int:
        return self.key.idx

    @property
    def game(self) -> str:
        return self.key.game

    @property
    def seed(self) -> int:
        return self.key.seed

    @property
    def seats(self) -> tuple[str, ...]:
        return self.key.seats


@dataclass(frozen=True)
class EpisodeRow(Keyed):
    """One episode, as the runner played it (or a scripted episode expanded from its chunk)."""

    key: EpisodeKey
    played: str
    score: tuple[float, ...]
    reason: str
    ending: str
    plies: int
    replay: str | None = None
    usage: Usage = field(default_factory=Usage)
    decisions: tuple[dict[str, Any], ...] | None = None
    started: str | None = None
    finished: str | None = None


@dataclass(frozen=True)
class VoidEpisode(Keyed):
    """An episode that could not finish cleanly (the API unavailable past the patience,
    the budget, an interrupt): recorded with its cause and usage, never scored."""

    key: EpisodeKey
    cause: str
    detail: str = ""
    plies: int = 0
    usage: Usage = field(default_factory=Usage)
    started: str | None = None
    finished: str | None = None


#: What an episode comes back as.
Played = EpisodeRow | VoidEpisode


@dataclass(frozen=True)
class Chunk:
    """Scripted episodes start..start+n of one pairing, as the batch simulator returned them."""

    pairing: str
    game: str
    seats: tuple[str, ...]
    start: int
    seed: np.ndarray  # (n,) int64
    score: np.ndarray  # (n, seats) int32
    plies: np.ndarray  # (n,) uint32
    ending: np.ndarray  # (n,) uint8 codes into coworld.ENDINGS
    played: np.ndarray  # (n,) uint8 codes into coworld.GAMES

    @property
    def count(self) -> int:
        return int(self.plies.shape[0])


@dataclass(frozen=True)
class Block:
    """Scores of some episodes of one pairing, as columns: what ranking reads."""

    game: str
    seats: tuple[str, ...]
    score: np.ndarray  # (n, seats) float
    decisions: tuple[tuple[dict[str, Any], ...], ...] | None = None  # per episode, per seat
    #: (n,) each episode's index in its pairing: the seed pair it belongs to (None: unknown)
    index: np.ndarray | None = None


def now() -> str:
    """The time, UTC, to the second (formatted once a second: a call's row needs it)."""
    return _utc(int(time.time()))


@functools.lru_cache(maxsize=1)
def _utc(second: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))


#: The void cause of an episode whose files could not be written (the league stops).
DISK = "disk"
#: The void cause of an episode whose worker process ended before it answered.
WORKER_DIED = "worker-died"
#: Episodes cut short by the league itself, or by a request the API rejected (the
#: policy must change): a plain rerun plays them, and they do not count toward an
#: episode's re-queue limit.
CUT_CAUSES = ("budget", "interrupted", REJECTED, DISK)
