"""`coworld.pettingzoo.env(game)`: any coworld game as a PettingZoo AEC environment
(extra `rl`: `pip install coworld[rl]`).

Agents are `player_0`, `player_1`, ... (seat order). An observation is a dict
`{"observation": float32 tensor, "action_mask": int8}` built by the same encoder
as `coworld.VecEnv` (docs/vecenv.md): the agent's own seat view only; the mask is
all zeros unless it is that agent's turn. Rewards are the seats' scores when
the episode ends. Only the AEC API is offered: every coworld game is strictly
turn-based (one seat acts per ply; a fog seat may act twice in a row), so a
parallel (simultaneous-move) API would only wrap the same sequence.

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
from pettingzoo import AECEnv

from . import _core
from .errors import IllegalMove
from .games import game as make_game
from .vecenv import action_names, encode


def env(game: str, config: Mapping[str, Any] | None = None) -> CoworldAEC:
    """The AEC environment of a game id (`rotate`: VecEnv's padded rotation space)."""
    return CoworldAEC(game, config)


class CoworldAEC(AECEnv):
    metadata = {"render_modes": [], "name": "coworld_v0", "is_parallelizable": False}

    def __init__(self, game: str, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        # VecEnv's checks (settings) with one env; its sizes describe the spaces.
        probe = _core.VecEnv(game, 1, 1, None, json.dumps(dict(config)) if config else None, 1)
        self.reducer = make_game({"game": game, **dict(config or {})})
        self.metadata = {**self.metadata, "name": f"coworld_{game.replace('-', '_')}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(probe.num_seats)]
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Box(0.0, 1.0, tuple(probe.obs_shape), np.float32)
        mask_space = spaces.Box(0, 1, (probe.num_actions,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_space, "action_mask": mask_space})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(probe.num_actions) for a in self.possible_agents}
        self._names: list[str] = probe.action_names
        self.state_: _core.State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # Engine seeds are non-zero; any int maps to one, None draws one.
        engine_seed = 0 if seed is None else _core.episode_seed(int(seed), 0)
        self.state_ = self.reducer.init(seed=engine_seed)
        assert action_names(self.state_) == self._names
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._agent_to_move()

    def _agent_to_move(self) -> str:
        assert self.state_ is not None and self.state_.active_seat is not None
        return self.possible_agents[self.state_.active_seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.state_ is not None, "call reset() first"
        seat = self._seats[agent]
        obs, mask = encode(self.state_, seat)
        if self.state_.active_seat != seat:
            mask = np.zeros_like(mask)
        return {"observation": obs, "action_mask": mask.astype(np.int8)}

    def step(self, action: int | None) -> None:
        assert self.state_ is not None, "call reset() first"
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.state_ = self.reducer.apply(self.state_, self._move(int(action)))  # type: ignore[arg-type]
        results = self.state_.results
        if results is not None:
            score = results["score"]
            self.rewards = {a: float(score[self._seats[a]]) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
            seat = self._seats[agent]
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self._agent_to_move()
        self._accumulate_rewards()

    def _move(self, action: int) -> str:
        """The move text of a legal id (by the mask: under `rotate` another game's
        id may share a legal move's text, as hex's and quoridor's `a1`)."""
        assert self.state_ is not None and self.state_.active_seat is not None
        _, mask = encode(self.state_, self.state_.active_seat)
        if not 0 <= action < len(mask) or not mask[action]:
            name = self._names[action] if 0 <= action < len(mask) else "no move"
            raise IllegalMove(
                f"action {action} ({name}) is not legal here",
                move=name,
                legal=self.state_.legal_moves(),
            )
        return self._names[action]

    def render(self) -> None:
        return None

    def close(self) -> None:
        return None
