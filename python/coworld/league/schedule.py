"""Who plays whom: round robins for two-seat games, self-play and mixed tables
for Hanabi, and the seeds that make both orders of a pairing play the same deals."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from itertools import permutations

from .. import _core
from ..errors import ConfigError
from ..games import FAMILIES, entry
from ..seats.policy import BaselinePolicy, Policy
from .config import LeagueConfig
from .records import EpisodeKey


@dataclass(frozen=True)
class Pairing:
    """One schedule entry: a game and the policy in each seat, played `episodes` times."""

    game: str
    seats: tuple[str, ...]
    base_seed: int
    episodes: int

    @property
    def key(self) -> str:
        return f"{self.game}|{'/'.join(self.seats)}"

    def seed(self, index: int) -> int:
        """Episode `index`'s seed: the same for every pairing of the game."""
        return _core.episode_seed(self.base_seed, index)

    def episode(self, index: int) -> EpisodeKey:
        """Episode `index` of this pairing."""
        return EpisodeKey(self.key, index, self.game, self.seed(index), self.seats)


def game_seed(league_seed: int, game: str) -> int:
    """Each game's base seed, a pure function of the league seed and the id."""
    return _core.episode_seed(league_seed, zlib.crc32(game.encode()))


def fielded(policies: tuple[Policy, ...], game: str, hanabi_seats: int) -> list[Policy]:
    """The policies that can take a seat in `game`: Claude policies always, baselines
    only where the game fields them (for `rotate`, every game of the rotation)."""
    settings = f'{{"seats": {hanabi_seats}}}' if game == "hanabi" else None
    rotation = entry(game)["rotation"] or (game,)
    states = [_core.State(g, settings if g == "hanabi" else None, 1) for g in rotation]
    names = set.intersection(*(set(s.policy_names) for s in states))
    players = [p for p in policies if not isinstance(p, BaselinePolicy) or p.base in names]
    for p in players:
        if isinstance(p, BaselinePolicy):
            try:
                states[0].check_baseline(p.name)
            except ConfigError as err:
                raise ConfigError(f"`policies`: {p.name!r}: {err}", err.field) from err
    return players


def build_schedule(config: LeagueConfig) -> list[Pairing]:
    schedule: list[Pairing] = []
    used: set[str] = set()
    for game in config.games:
        players = fielded(config.policies, game, config.hanabi_seats)
        used.update(p.name for p in players)
        base = game_seed(config.seed, game)
        names = [p.name for p in players]
        if FAMILIES[game] == "hanabi":
            tables = [tuple([n] * config.hanabi_seats) for n in names]
            tables += [
                tuple(a if s % 2 == 0 else b for s in range(config.hanabi_seats))
                for a, b in permutations(names, 2)
            ]
        else:
            tables = list(permutations(names, 2)) or [(n, n) for n in names]
        schedule += [Pairing(game, t, base, config.episodes) for t in tables]
    for p in config.policies:
        if p.name not in used:
            raise ConfigError(
                f"`policies`: {p.name!r} is not a baseline of any listed game "
                "and not a policy file",
                "policies",
            )
    return schedule
