"""`coworld.VecEnv`: n episodes of one game stepped in lockstep inside Rust.

Every array is allocated once and rewritten in place by each call (copy what
you keep). The observation is always that of the seat to move in each env
(`info["seat"]`); action ids, masks and observation planes are documented per
game in docs/vecenv.md. A finished episode is reset at once: the step that
ends it reports `terminated`, the final score of every seat in `rewards` and
its ending in `info`, and already returns the next episode's first observation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import _core
from .simulate import ENDINGS


class VecEnv:
    """`VecEnv(game, n, seed, opponents=None)`.

    `opponents`: one entry per seat, `None` for a seat the caller plays and a
    baseline name (`"tactician"`, `"probe"`, `"conventions"`, ...) for a seat
    the core plays; omitted, the caller plays every seat. `threads` None uses
    every core; results are identical for any thread count. `rotate` plays, in
    each episode, the game of the rotation its seed draws, behind one padded
    space (`games`, `action_games` and `info["game"]` say which; docs/vecenv.md).
    """

    def __init__(
        self,
        game: str,
        n: int,
        seed: int,
        opponents: Sequence[str | None] | None = None,
        *,
        config: Mapping[str, Any] | None = None,
        threads: int | None = None,
    ) -> None:
        self._env = _core.VecEnv(
            game,
            int(n),
            int(seed),
            None if opponents is None else list(opponents),
            json.dumps(dict(config)) if config else None,
            threads,
        )
        self.game: str = self._env.game
        self.num_envs: int = self._env.num_envs
        self.num_seats: int = self._env.num_seats
        self.num_actions: int = self._env.num_actions
        self.obs_shape: tuple[int, ...] = tuple(self._env.obs_shape)
        self.action_names: list[str] = self._env.action_names
        self.learner_seats: list[int] = self._env.learner_seats
        #: The games episodes may play (`rotate`: the rotation; else `[game]`) and,
        #: per action id, the index in `games` of the game it belongs to.
        self.games: list[str] = self._env.games
        self.action_games: np.ndarray = np.array(self._env.action_games, dtype=np.int8)
        self._ids: list[dict[str, int]] = [{} for _ in self.games]
        for i, name in enumerate(self.action_names):
            self._ids[self.action_games[i]][name] = i
        self.obs: np.ndarray = self._env.obs
        self.mask: np.ndarray = self._env.mask
        self.rewards: np.ndarray = self._env.rewards
        self.terminated: np.ndarray = self._env.terminated
        self.truncated: np.ndarray = self._env.truncated
        #: `seat`: the seat to move per env; `ending`: code (index into
        #: `coworld.ENDINGS`) of the episode the last step finished, else -1;
        #: `plies`: that episode's length, else 0; `game`: the game the live
        #: episode plays, as an index into `games`.
        self.info: dict[str, np.ndarray] = {
            "seat": self._env.seat,
            "ending": self._env.ending,
            "plies": self._env.plies,
            "game": self._env.episode_game,
        }

    def __repr__(self) -> str:
        return f"<coworld.VecEnv {self.game} n={self.num_envs} actions={self.num_actions}>"

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """Start a fresh episode in every env: `(obs, mask)`."""
        self._env.reset()
        return self.obs, self.mask

    def step(
        self, actions: np.ndarray | Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """One action id per env: `(obs, mask, rewards, terminated, truncated, info)`.
        An illegal id raises `coworld.IllegalMove` naming the env, and no env moves."""
        self._env.step(np.ascontiguousarray(actions, dtype=np.int64))
        return self.obs, self.mask, self.rewards, self.terminated, self.truncated, self.info

    def sample_legal(self) -> np.ndarray:
        """A uniformly random legal action id per env (from the core's own streams)."""
        return self._env.sample_legal()

    def action_id(self, move: str, env: int | None = None) -> int:
        """The id of a canonical move text (`"d4"`, `"hint 2 rank 3"`) in the game
        env `env`'s live episode plays (`rotate` needs `env`: `a1` is a hex and a
        quoridor move, with different ids)."""
        if env is None and len(self.games) > 1:
            raise ValueError(f"{self.game}: pass env=, whose live game decides the id")
        game = 0 if env is None else int(self.info["game"][env])
        try:
            return self._ids[game][move]
        except KeyError:
            raise KeyError(f"{move!r} is not a move of {self.games[game]}'s action space") from None

    def action_name(self, action: int) -> str:
        """The canonical move text of an action id."""
        return self.action_names[action]

    @staticmethod
    def ending_name(code: int) -> str:
        return ENDINGS[code]


def encode(state: _core.State, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The observation tensor `seat` gets in `state` and the active seat's mask,
    exactly as a VecEnv writes them."""
    return _core.encode(state, seat)


def action_names(state: _core.State) -> list[str]:
    """Every action id's canonical move text, in id order, for `state`'s game."""
    return _core.action_names(state)
