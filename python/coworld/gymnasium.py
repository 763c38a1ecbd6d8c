"""`coworld.gymnasium.make(game, opponent=...)`: one seat of a coworld game as a
single-agent Gymnasium environment (extra `rl`: `pip install -e '.[rl]'` in a checkout).

The learner plays `seat`; every other seat is played by the `opponent` baseline
(default: the family's fallback baseline: fog `probe`, gauntlet `tactician`,
Hanabi `conventions`) with the same per-decision stream as `coworld play`. The
observation is the learner's tensor (docs/vecenv.md); the legal-action mask is
`info["action_mask"]` (int8). The reward is the learner's score when the episode
ends. An illegal action is, as for any coworld seat, replaced by the family's
fallback move and recorded (`info["illegal"]`), unless `illegal="raise"`; an
action that is not an integer id (a float, a bool, a string) always raises
`coworld.IllegalMove`.
`rotate` plays, each episode, the game of the rotation its seed draws, in
VecEnv's padded space (docs/vecenv.md); legality is read from the mask, so an id
of another game is illegal even where its text is a legal move here.

`opponent` is any baseline name the rest of coworld accepts, parameters
included (`"tactician?eps=0.3"`, `"mcts?sims=20"`); an unknown baseline or key
is a `ConfigError` naming it. Every seat but the learner's plays it (Hanabi at
3-5 seats too).

Seeds follow Gymnasium: `reset(seed=s)` seeds `self.np_random`, from which each
reset draws the episode's engine seed (`state.seed`; `coworld play --seed`
replays it), so later unseeded resets continue a reproducible sequence; the
opponents' moves come from that engine seed's per-decision streams. An episode
the opponents finish before the learner's first decision is skipped (the next
engine seed is drawn), as in VecEnv: a reset always leaves the learner to move.

Importing this module registers every game id as `coworld/<game id>-v0`
(`gymnasium.make("coworld/connect-four-v0", opponent="tactician")`; without
the import, `gymnasium.make("coworld.gymnasium:coworld/hex-v0")`), with
Gymnasium's usual wrappers. `render_mode="ansi"`: `render()` returns the
learner's own text view, the one a Claude seat reads on its turn (built from its
`view_for` only, so a fog board shows only the stones it has proven and a
Hanabi hand only what hints told it), then, once the episode is over, its
result as that seat learns it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import _core
from ._rl import action_id, check_opponent, seat_text
from .errors import ConfigError, IllegalMove
from .games import GAMES, family_module
from .games import game as make_game
from .vecenv import action_names, encode


def make(
    game: str,
    opponent: str | None = None,
    *,
    seat: int = 0,
    config: Mapping[str, Any] | None = None,
    illegal: Literal["fallback", "raise"] = "fallback",
    render_mode: str | None = None,
) -> CoworldEnv:
    """The learner's seat of a game against `opponent` (module docstring)."""
    return CoworldEnv(
        game, opponent, seat=seat, config=config, illegal=illegal, render_mode=render_mode
    )


class CoworldEnv(gym.Env):
    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        game: str,
        opponent: str | None = None,
        *,
        seat: int = 0,
        config: Mapping[str, Any] | None = None,
        illegal: Literal["fallback", "raise"] = "fallback",
        render_mode: str | None = None,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ConfigError(f"render_mode is None or 'ansi', not {render_mode!r}", "render_mode")
        self.render_mode = render_mode
        self.reducer = make_game({"game": game, **dict(config or {})})
        probe = self.reducer.init(seed=1)
        if not 0 <= seat < probe.num_seats:
            raise _config_error(f"seat {seat} does not exist; seats are 0..{probe.num_seats - 1}")
        self.fallback = family_module(probe.resolved_game).FALLBACK
        self.opponent = opponent or self.fallback
        check_opponent(probe, game, self.opponent)
        if illegal not in ("fallback", "raise"):
            raise _config_error("illegal is 'fallback' or 'raise'", "illegal")
        self.seat, self.illegal = seat, illegal
        self._names = action_names(probe)
        obs, _ = encode(probe, seat)
        self.observation_space = spaces.Box(0.0, 1.0, obs.shape, np.float32)
        self.action_space = spaces.Discrete(len(self._names))
        self.state: _core.State | None = None
        self._mask = np.zeros(len(self._names), bool)

    def _advance(self) -> None:
        assert self.state is not None
        while not self.state.is_terminal and self.state.active_seat != self.seat:
            self.state = self.state.apply(self.state.baseline_move(self.opponent))

    def _observe(self, **extra: Any) -> tuple[np.ndarray, dict[str, Any]]:
        assert self.state is not None
        obs, mask = encode(self.state, self.seat)
        if self.state.is_terminal:
            mask = np.zeros_like(mask)
        self._mask = mask  # the next step's legality, without encoding the state again
        return obs, {"action_mask": mask.astype(np.int8), **extra}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        # An episode the opponents end before the learner decides (Hanabi: three
        # bombs before a late seat's first turn) has nothing to learn from: the
        # next seed is drawn instead, as VecEnv skips such episodes.
        while True:
            engine_seed = int(self.np_random.integers(1, 2**53))  # 53 bits, as seed 0 draws
            self.state = self.reducer.init(seed=engine_seed)
            self._advance()
            if not self.state.is_terminal:
                return self._observe()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        assert self.state is not None, "call reset() first"
        if self.state.is_terminal:
            raise RuntimeError("the episode is over: call reset()")
        action = action_id(action, self.state)  # not an integer: raises in either mode
        mask = self._mask
        known = 0 <= action < len(mask)
        move = self._names[action] if known else "no move"
        illegal = not (known and mask[action])
        if illegal:
            if self.illegal == "raise":
                raise IllegalMove(
                    f"action {action} ({move}) is not legal here",
                    move=move,
                    legal=self.state.legal_moves(),
                )
            move = self.state.baseline_move(self.fallback)
        self.state = self.state.apply(move)
        self._advance()
        results = self.state.results
        done = results is not None
        reward = float(results["score"][self.seat]) if results is not None else 0.0
        obs, info = self._observe(illegal=illegal)
        return obs, reward, done, False, info

    def render(self) -> str | None:  # type: ignore[override]
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: pass render_mode='ansi'")
            return None
        assert self.state is not None, "call reset() first"
        return seat_text(self.reducer, self.state, self.seat)


#: The Gymnasium ids this module registers, one per game id.
ENV_IDS: dict[str, str] = {g: f"coworld/{g}-v0" for g in GAMES}
for _game, _id in ENV_IDS.items():
    if _id not in gym.registry:
        gym.register(_id, entry_point="coworld.gymnasium:CoworldEnv", kwargs={"game": _game})


def _config_error(message: str, field: str = "seat") -> Exception:
    from .errors import ConfigError

    return ConfigError(message, field)
