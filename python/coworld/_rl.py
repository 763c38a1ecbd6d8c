"""What the PettingZoo and Gymnasium adapters share: the episode seed stream, the
opponent check and the `ansi` texts of a state, the spectator's and a seat's
(extra `rl`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from .errors import ConfigError, IllegalMove
from .games import entry


def action_id(action: Any, state: _core.State) -> int:
    """An action as an integer id: a Python or numpy integer, or a 0-d integer
    array. Anything else (a float, a bool, a string, None) raises `IllegalMove`
    (cause `unparseable`) instead of being truncated to some id."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if isinstance(action, int | np.integer) and not isinstance(action, bool | np.bool_):
        return int(action)
    raise IllegalMove(
        f"an action is an integer id, not {action!r} ({type(action).__name__})",
        kind="unparseable",
        move=repr(action),
        legal=state.legal_moves(),
    )


class SeedStream:
    """Episode seeds of an env, VecEnv's way: `reset(seed=s)` plays
    `episode_seed(s, 0)` and each later unseeded reset the next index
    (`episode_seed(s, 1)`, ...); an unseeded first reset draws the base at random
    (as engine seed 0 does everywhere), after which the sequence is fixed too."""

    def __init__(self) -> None:
        self.base: int | None = None
        self.index = 0

    def next(self, seed: int | None) -> int:
        if seed is not None:
            self.base, self.index = int(seed) % 2**63, 0
        elif self.base is None:
            self.base, self.index = _core.draw_seed(), 0
        episode = _core.episode_seed(self.base, self.index)
        self.index += 1
        return episode


def check_opponent(state: _core.State, game: str, name: str) -> None:
    """Refuse a baseline (parameters included: `tactician?eps=0.3`) that some game
    the env may play does not field, as the episode runner and the league do."""
    rotation = entry(game)["rotation"]
    config = None if rotation else state.config_json
    base = name.split("?", 1)[0]
    for g in rotation or [state.resolved_game]:
        s = state if g == state.resolved_game else _core.State(g, config, 1)
        if base not in s.policy_names:
            raise ConfigError(
                f"opponent {name!r} is not a baseline of {g}; baselines: "
                + ", ".join(s.policy_names),
                "opponent",
            )
        try:
            s.check_baseline(name)
        except ConfigError as err:
            raise ConfigError(f"opponent {name!r}: {err}", err.field) from err


def ansi(state: _core.State) -> str:
    """The spectator's picture of a state (everything, hidden information
    included), the seat to move or the result last."""
    from .games import FAMILIES

    view = state.view()
    family = FAMILIES[state.resolved_game]
    if family == "gauntlet":
        from .games.gauntlet import board_text

        lines = [board_text(view)]
    elif family == "fog":
        from .games.fog import board_lines

        stones = view["stones"]
        picture = {
            **view,
            "ownStones": [c for c, s in stones.items() if s == 0],
            "provenStones": [c for c, s in stones.items() if s == 1],
        }
        lines = [*board_lines(picture, 0), "X = seat 0, O = seat 1, . = empty"]
    else:
        from .games.hanabi import status_lines, table_lines

        lines = [*status_lines(view), *table_lines(view)]
        for seat, hand in enumerate(view["hands"]):
            lines.append(f"seat {seat}: " + ", ".join(card["card"] for card in hand))
    results: dict[str, Any] | None = state.results
    if results is None:
        lines.append(f"ply {state.plies}, seat {state.active_seat} to move")
    else:
        lines.append(f"over after {state.plies} plies: scores {results['score']}")
    return "\n".join(lines) + "\n"


def seat_text(reducer: Any, state: _core.State, seat: int) -> str:
    """What `seat` may know, as text: while the episode runs, the observation a
    Claude seat reads on its turn (its `view_for` only); once it is over, the
    results as that seat learns them (a fog seat never the ply count)."""
    from .games import family_module

    if state.results is None:
        names = [f"player_{i}" for i in range(state.num_seats)]
        family = family_module(state.resolved_game)
        return family.observation_text(state, seat, notes="", operator_prompt="", aliases=names)
    results_for = getattr(reducer, "results_for", None)
    results = results_for(state, seat) if results_for else state.results
    score = results["score"][seat]
    return f"over ({results['reason']}, {results['ending']}): your score {score:g}\n"
