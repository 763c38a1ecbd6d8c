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
import operator
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import _core
from .errors import I64, MAX_THREADS, ConfigError, CoworldError, config_field_error, integer_arg
from .simulate import ENDINGS


class UnknownMove(CoworldError, KeyError, ValueError):
    """`action_id` got a text that is not a move of the game: a `KeyError` (as a
    dict lookup would raise) that is also a `ValueError`."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def _opponents(opponents: Any) -> list[str | None] | None:
    if opponents is None:
        return None
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        raise config_field_error(
            "opponents",
            f"a list with one entry per seat (None or a baseline name), not {opponents!r}",
        )
    for seat, entry in enumerate(opponents):
        if entry is not None and not isinstance(entry, str):
            raise config_field_error(
                "opponents", f"opponents[{seat}] must be None or a baseline name, not {entry!r}"
            )
    return list(opponents)


def _config(config: Any) -> str | None:
    if config is None:
        return None
    if not isinstance(config, Mapping):
        raise config_field_error("config", f"must be a mapping of settings, not {config!r}")
    if not config:
        return None
    try:
        return json.dumps(dict(config))
    except (TypeError, ValueError) as e:
        raise config_field_error("config", f"must be JSON-serialisable: {e}") from None


def episode_seed(seed: int, index: int) -> int:
    """The engine seed of episode `index` of a run based on `seed`: `VecEnv(game, n,
    seed)` plays env i's k-th episode since `reset()` on `episode_seed(seed, k * n +
    i)` (the PettingZoo adapter's `reset(seed=s)` on index 0, then 1, 2, ...).

    It is for rebuilding an episode after the fact: `coworld play GAME --seed S`
    (Hanabi: one `-s` per seat) or `coworld.game(...).init(seed=S)` replays it move
    for move. Never feed it to a policy: the engine seed determines the hidden deal
    (Hanabi's deck, a fog game's unseen stones) and the baselines' draws, so a
    policy that sees it can read what it must not know. `seed` is any 64-bit
    integer, `index` 0..2**64 - 1; raises `coworld.ConfigError` naming the field."""
    return _core.episode_seed(
        integer_arg("seed", seed, *I64), integer_arg("index", index, 0, 2**64 - 1)
    )


class VecEnv:
    """`VecEnv(game, n, seed, opponents=None)`.

    `n`: envs, 1..2**24; `seed`: any 64-bit integer, 0 draws one (53 bits; kept in
    `seed`, so the run can be rebuilt). `opponents`: one entry per
    seat, `None` for a seat the caller plays and a baseline name (`"tactician"`,
    `"mcts?sims=20"`, `"conventions"`, ...) for a seat the core plays; omitted,
    the caller plays every seat (Hanabi: its length sets the seat count unless
    `config` has `seats`). `threads` (a positive integer) None uses every core;
    results are identical for any thread count. `rotate` plays, in each episode,
    the game of the rotation its seed draws, behind one padded space (`games`,
    `action_games` and `info["game"]` say which; docs/vecenv.md). Bad arguments
    raise `coworld.ConfigError` naming the field.
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
        if not isinstance(game, str):
            raise config_field_error("game", f"must be a game id (a string), not {game!r}")
        #: The base seed episodes are numbered from (`episode_seed(seed, k * n + i)`).
        self.seed: int = integer_arg("seed", seed, *I64) or _core.draw_seed()
        self._env = _core.VecEnv(
            game,
            integer_arg("n", n, 1, 2**24),  # the core's MAX_ENVS
            self.seed,
            _opponents(opponents),
            _config(config),
            None if threads is None else integer_arg("threads", threads, 1, MAX_THREADS),
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
        #: `plies`: `(n, seats)`, per seat that episode's length (fog: that learner
        #: seat's own decisions, 0 for a seat the core plays, as the total counts
        #: collisions no seat is told of), else 0; `game`: the game the live
        #: episode plays, as an index into `games`.
        self.info: dict[str, np.ndarray] = {
            "seat": self._env.seat,
            "ending": self._env.ending,
            "plies": self._env.plies,
            "game": self._env.episode_game,
        }
        self._started = False

    def __repr__(self) -> str:
        return f"<coworld.VecEnv {self.game} n={self.num_envs} actions={self.num_actions}>"

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """Start a fresh episode in every env: `(obs, mask)`."""
        self._env.reset()
        self._started = True
        return self.obs, self.mask

    def step(
        self, actions: np.ndarray | Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """One action id per env (any integer dtype, shape `(n,)`):
        `(obs, mask, rewards, terminated, truncated, info)`. Other dtypes (floats,
        bools) or shapes raise `coworld.ConfigError` (field `actions`); an illegal
        id raises `coworld.IllegalMove` naming the env and its legal ids, and no
        env moves."""
        self._env.step(self._actions(actions))
        return self.obs, self.mask, self.rewards, self.terminated, self.truncated, self.info

    def _actions(self, actions: Any) -> np.ndarray:
        """`actions` as the core takes them: contiguous int64 of shape (n,)."""
        a = actions
        if not isinstance(a, np.ndarray):
            try:
                a = np.asarray(actions)
            except (TypeError, ValueError):  # ragged lists
                raise self._bad_actions(actions) from None
        if a.dtype.kind not in "iu" or a.shape != (self.num_envs,):
            raise self._bad_actions(a)
        if a.dtype == np.int64 and np.may_share_memory(a, self.info["seat"]):
            return a.copy()  # the core rewrites `seat` while it reads the actions
        if a.dtype == np.uint64:  # ids past 2**63 - 1 stay out of range, not negative
            a = np.minimum(a, I64[1])
        return np.ascontiguousarray(a, dtype=np.int64)

    def _bad_actions(self, a: Any) -> ConfigError:
        got = (
            f"got dtype {a.dtype} and shape {a.shape}"
            if isinstance(a, np.ndarray)
            else f"got {type(a).__name__}"
        )
        return config_field_error(
            "actions",
            f"one integer action id per env: shape ({self.num_envs},) of an integer dtype "
            f"(floats and bools are refused, not rounded); {got}",
        )

    def sample_legal(self) -> np.ndarray:
        """A uniformly random legal action id per env (from the core's own
        streams): a new int64 array of shape `(n,)` on each call."""
        return self._env.sample_legal()

    def action_id(self, move: str, env: int | None = None) -> int:
        """The id of a canonical move text (`"d4"`, `"hint 2 rank 3"`) in the game
        env `env`'s live episode plays (`rotate` needs `env`: `a1` is a hex and a
        quoridor move, with different ids)."""
        if env is None and len(self.games) > 1:
            raise ValueError(f"{self.game}: pass env=, whose live game decides the id")
        if env is None:
            game = 0
        else:
            i = _index("env", env, self.num_envs, f"{self.game} VecEnv has envs")
            if len(self.games) > 1 and not self._started:
                raise config_field_error(
                    "reset", "call reset() first: env's live game decides the id"
                )
            game = int(self.info["game"][i])
        try:
            return self._ids[game][move]
        except (KeyError, TypeError):
            live = f" (env {env}'s live game)" if len(self.games) > 1 else ""
            raise UnknownMove(
                f"{move!r} is not a move of {self.games[game]}{live}; "
                "env.action_names lists every id's move text"
            ) from None

    def action_name(self, action: int) -> str:
        """The canonical move text of an action id (0..num_actions - 1)."""
        return self.action_names[_index("action", action, self.num_actions, f"{self.game} has ids")]

    @staticmethod
    def ending_name(code: int) -> str:
        """The name of an `info["ending"]` code (-1, no ending, is refused)."""
        note = " (-1 in info['ending']: the step ended no episode)" if code == -1 else ""
        return ENDINGS[_index("ending", code, len(ENDINGS), "codes are", note)]


def _index(what: str, value: Any, size: int, has: str, note: str = "") -> int:
    """`value` as an index in 0..size-1, else an IndexError naming the range
    (no negative indexing from the end)."""
    try:
        if isinstance(value, bool | np.bool_):
            raise TypeError
        i = operator.index(value)
    except TypeError:
        raise IndexError(f"{what} must be an integer, not {value!r}") from None
    if not 0 <= i < size:
        raise IndexError(f"{what} {i} is out of range: {has} 0..{size - 1}{note}")
    return i


def encode(state: _core.State, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The observation tensor `seat` gets in `state` and the active seat's mask,
    exactly as a VecEnv writes them. `seat` is 0..num_seats - 1 (else a
    `ConfigError` naming `seat`)."""
    return _core.encode(state, integer_arg("seat", seat, 0))


def action_names(state: _core.State) -> list[str]:
    """Every action id's canonical move text, in id order, for `state`'s game."""
    return _core.action_names(state)
