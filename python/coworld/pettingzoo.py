"""`coworld.pettingzoo.env(game)`: any coworld game as a PettingZoo AEC environment,
and `coworld.pettingzoo.parallel_env(game)` as a Parallel one (extra `rl`:
`pip install -e '.[rl]'` in a checkout).

Agents are `player_0`, `player_1`, ... (seat order). An observation is a dict
`{"observation": float32 tensor, "action_mask": int8}` built by the same encoder
as `coworld.VecEnv` (docs/vecenv.md): the agent's own seat view only; the mask is
all zeros unless it is that agent's turn. Rewards are the seats' scores when
the episode ends.

Seeds: `reset(seed=s)` plays engine seed `episode_seed(s, 0)` and each later
`reset()` the next (`episode_seed(s, 1)`, ...), as a VecEnv numbers its
episodes, so a seeded run is reproducible reset after reset; a first `reset()`
without a seed draws the base at random. `state_.seed` is the episode's engine
seed (`coworld play --seed` replays it).

An illegal action id (not marked by the mask, or out of range) raises
`coworld.IllegalMove` and nothing moves. `render_mode="ansi"`: `render()`
returns the spectator's text picture of the position.

Every coworld game is strictly turn-based: one seat acts per ply. The Parallel
env steps one ply per `step`: every live agent gets its observation each step,
only the seat to move has a non-zero mask, and `step` reads only that seat's
action (the others' are ignored and may be left out). So it refuses the games
where a mover can keep the turn (`phantom-ttt-3`, `dark-hex-4`: a collision
keeps the mover), with a `ConfigError`: there the number of observations a
waiting seat received would count the opponent's collisions, which no seat is
told. Their AEC env observes a seat on its own turns only, and so does VecEnv.

`rotate` is served like every game: each episode plays the game of the rotation
its seed draws, in VecEnv's padded space (docs/vecenv.md); an action id of any
other game is illegal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from . import _core
from ._rl import SeedStream, action_id, ansi
from .errors import ConfigError, IllegalMove
from .games import game as make_game
from .vecenv import action_names

Obs = dict[str, np.ndarray]


def env(
    game: str, config: Mapping[str, Any] | None = None, *, render_mode: str | None = None
) -> CoworldAEC:
    """The AEC environment of a game id (`rotate`: VecEnv's padded rotation space)."""
    return CoworldAEC(game, config, render_mode=render_mode)


def parallel_env(
    game: str, config: Mapping[str, Any] | None = None, *, render_mode: str | None = None
) -> CoworldParallel:
    """The Parallel environment of a game id: one ply per step (module docstring).
    A game where a mover can keep the turn is refused (`ConfigError`, field `game`)."""
    return CoworldParallel(game, config, render_mode=render_mode)


def mover_keeps_turn(state: _core.State) -> bool:
    """Whether a mover can play twice in a row in `state`'s game: the non-abrupt fog
    variants, where a collision keeps the turn (the waiting seat is not told)."""
    return state.config.get("abrupt") is False


def _refuse_parallel(game: str, state: _core.State) -> None:
    if mover_keeps_turn(state):
        raise ConfigError(
            f"parallel_env({game!r}) is refused: a collision keeps the mover's turn, so "
            "the waiting seat's observations per step would count the opponent's hidden "
            f"collisions; use coworld.pettingzoo.env({game!r}) (AEC), which observes a "
            "seat on its own turns only",
            "game",
        )


class _Game:
    """The spaces, seeds and per-ply encoding both environments share."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1, "name": "coworld_v0"}

    def _setup(self, game: str, config: Mapping[str, Any] | None, render_mode: str | None) -> None:
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode is None or 'ansi', not {render_mode!r}", "render_mode")
        self.render_mode = render_mode
        # VecEnv's checks (settings) with one env; its sizes describe the spaces.
        probe = _core.VecEnv(game, 1, 1, None, json.dumps(dict(config)) if config else None, 1)
        self.reducer = make_game({"game": game, **dict(config or {})})
        self.metadata = {**self.metadata, "name": f"coworld_{game.replace('-', '_')}_v0"}
        self.possible_agents: list[str] = [f"player_{i}" for i in range(probe.num_seats)]
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Box(0.0, 1.0, tuple(probe.obs_shape), np.float32)
        mask_space = spaces.Box(0, 1, (probe.num_actions,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_space, "action_mask": mask_space})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(probe.num_actions) for a in self.possible_agents}
        self._names: list[str] = probe.action_names
        self._seeds = SeedStream()
        self.state_: _core.State | None = None
        self._mask: np.ndarray | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _new_state(self, seed: int | None) -> _core.State:
        state = self.reducer.init(seed=self._seeds.next(seed))
        assert action_names(state) == self._names
        self._set(state)
        return state

    def _set(self, state: _core.State) -> None:
        self.state_ = state
        self._mask = None  # the seat to move's, once encoded

    def _observation(self, seat: int) -> Obs:
        """Fresh arrays (a caller may keep or edit them): the seat's tensor and its
        int8 mask, all zeros off turn."""
        assert self.state_ is not None, "call reset() first"
        obs, mask = _core.encode(self.state_, seat)
        if self.state_.active_seat != seat:
            return {"observation": obs, "action_mask": np.zeros(len(mask), np.int8)}
        self._mask = mask
        return {"observation": obs, "action_mask": mask.astype(np.int8)}

    def _apply(self, action: Any) -> _core.State:
        """The state after the seat to move plays action id `action` (by the mask:
        under `rotate` another game's id may share a legal move's text, as hex's
        and quoridor's `a1`); an illegal id raises and nothing moves."""
        state = self.state_
        assert state is not None and state.active_seat is not None, "call reset() first"
        mask = self._mask
        if mask is None:
            mask = self._mask = _core.encode(state, state.active_seat)[1]
        action = action_id(action, state)
        if not 0 <= action < len(mask) or not mask[action]:
            name = self._names[action] if 0 <= action < len(mask) else "no move"
            raise IllegalMove(
                f"action {action} ({name}) is not legal here",
                move=name,
                legal=state.legal_moves(),
            )
        after = state.apply(self._names[action])
        self._set(after)
        return after

    def _render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() without a render_mode: pass render_mode='ansi'")
            return None
        assert self.state_ is not None, "call reset() first"
        return ansi(self.state_)


class CoworldAEC(_Game, AECEnv):
    """`coworld.pettingzoo.env(game)` (module docstring)."""

    metadata: dict[str, Any] = {**_Game.metadata, "is_parallelizable": False}

    def __init__(
        self, game: str, config: Mapping[str, Any] | None = None, *, render_mode: str | None = None
    ) -> None:
        AECEnv.__init__(self)
        self._setup(game, config, render_mode)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        state = self._new_state(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        assert state.active_seat is not None
        self.agent_selection = self.possible_agents[state.active_seat]

    def observe(self, agent: str) -> Obs:
        return self._observation(self._seats[agent])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        state = self._apply(action)
        results = state.results
        if results is not None:
            score = results["score"]
            self.rewards = {a: float(score[self._seats[a]]) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
            seat = self._seats[agent]
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
            self._accumulate_rewards()
        else:
            # No reward before the end: the running sums stay as they are.
            self.agent_selection = self.possible_agents[state.active_seat]  # type: ignore[index]

    def render(self) -> str | None:
        return self._render()

    def close(self) -> None:
        return None


class CoworldParallel(_Game, ParallelEnv):
    """`coworld.pettingzoo.parallel_env(game)`: one ply per step (module docstring)."""

    def __init__(
        self, game: str, config: Mapping[str, Any] | None = None, *, render_mode: str | None = None
    ) -> None:
        self._setup(game, config, render_mode)
        _refuse_parallel(game, self.reducer.init(seed=1))
        self.agents: list[str] = []

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        self._new_state(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: {} for a in self.agents}

    def _observations(self) -> dict[str, Obs]:
        return {a: self._observation(self._seats[a]) for a in self.agents}

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, Obs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Play the seat to move's action (the others' are ignored); a missing one
        raises `IllegalMove`."""
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        state = self.state_
        assert state is not None and state.active_seat is not None
        mover = self.possible_agents[state.active_seat]
        if mover not in actions:
            raise IllegalMove(
                f"{mover} is to move and has no action in {sorted(actions)}",
                kind="unparseable",
                move="no move",
                legal=state.legal_moves(),
            )
        state = self._apply(actions[mover])
        observations = self._observations()
        results = state.results
        agents = self.agents
        if results is None:
            rewards = dict.fromkeys(agents, 0.0)
            terminations = dict.fromkeys(agents, False)
        else:
            rewards = {a: float(results["score"][self._seats[a]]) for a in agents}
            terminations = dict.fromkeys(agents, True)
            self.agents = []
        infos: dict[str, dict[str, Any]] = {a: {} for a in agents}
        return observations, rewards, terminations, dict.fromkeys(agents, False), infos

    def render(self) -> str | None:
        return self._render()

    def close(self) -> None:
        return None
