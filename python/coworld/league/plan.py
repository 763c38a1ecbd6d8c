"""`coworld league plan`: what a league's Claude episodes will cost, before a run.

Two figures per pairing:
- "about": calls from the mean length of PILOT batch-simulator games in which every
  seat that is not a built-in baseline (Claude and Python policies alike: the batch
  simulator runs baselines only) is played by its family's fallback baseline, and
  input at 4 bytes a token of the first position's prompt. A stand-in plays shorter
  or longer games than a model does, so this is a guide, not a bound.
- "up to": an upper bound. Calls: every decision a Claude seat can be asked for
  before the game's ply cap (turns alternate, so a seat decides at most
  ceil(cap / seats) times; in the fog games a seat's attempts, collisions included,
  are at most the board's cells, half the cap). Input per call: the longest prompt
  (system prompt, observation with a full notes field) met in PROMPT_PILOTS games
  played to their end with random and with fallback stand-ins (the two that play
  the longest games), at 2 bytes a token, all billed as cache writes; output at
  `max_tokens`. A decision's one retry is another call that the bound does not
  count: games end well before their cap, which covers retries in practice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..episode import Episode
from ..games import catalog
from ..prices import batch_price, price_of
from ..seats.budget import BYTES_PER_TOKEN as BOUND_BYTES_PER_TOKEN
from ..seats.budget import worst_case
from ..seats.policy import BaselinePolicy, ClaudePolicy, Policy
from ..seats.reply import NOTES_LIMIT
from ..simulate import simulate
from ..usage import Usage
from .config import LeagueConfig
from .schedule import Pairing, build_schedule

#: Pilot episodes per pairing in the batch simulator (the "about" figure).
PILOT = 64
#: Episodes per pairing walked through the prompt builder (the longest prompt).
PROMPT_PILOTS = 4
BYTES_PER_TOKEN = 4
METHOD = (
    f"about: plies of {PILOT} pilot games per pairing with the fallback baseline in every "
    "Claude and Python seat, input at 4 bytes a token; up to: every decision the ply cap "
    "allows, the longest prompt of pilot games at 2 bytes a token billed as cache writes, "
    "output at max_tokens; a retry is one more call, not counted"
)


@dataclass(frozen=True)
class PlanRow:
    pairing: str
    episodes: int
    calls: float  # expected Claude calls (no retries)
    input_tokens: float  # expected
    output_tokens_max: float  # at max_tokens, for every call the ply cap allows
    cost_usd: float  # the upper bound: every call the ply cap allows at its worst
    reserve_per_call: int  # the budget's reservation for one call, in tokens
    calls_max: int = 0  # every decision the ply cap allows
    input_tokens_max: float = 0.0  # the longest prompt at 2 bytes a token, every call
    #: The upper bound at the Message Batches rate (batch mode): half of each price.
    batch_cost_usd: float = 0.0

    @property
    def tokens_max(self) -> float:
        return self.input_tokens_max + self.output_tokens_max


@dataclass(frozen=True)
class PlanTotal:
    """A plan's rows summed; the budget's largest reservation for one call."""

    calls: float
    calls_max: int
    tokens_max: float
    cost_usd: float
    batch_cost_usd: float
    reserve_per_call: int


def plan_total(rows: Sequence[PlanRow]) -> PlanTotal:
    return PlanTotal(
        sum(r.calls for r in rows),
        sum(r.calls_max for r in rows),
        sum(r.tokens_max for r in rows),
        sum(r.cost_usd for r in rows),
        sum(r.batch_cost_usd for r in rows),
        max(r.reserve_per_call for r in rows),
    )


def plan(config: LeagueConfig) -> list[PlanRow]:
    rows = []
    policies = {p.name: p for p in config.policies}
    for p in build_schedule(config):
        seats = [policies[n] for n in p.seats]
        claude = [i for i, s in enumerate(seats) if isinstance(s, ClaudePolicy)]
        if claude:
            rows.append(_estimate(config, p, seats, claude))
    return rows


def decisions_max(game: str, seats: int) -> int:
    """The most decisions one seat can be asked for in an episode of `game`."""
    return math.ceil(catalog()[game]["plyCap"] / seats)


def _estimate(config: LeagueConfig, p: Pairing, seats: list[Policy], claude: list[int]) -> PlanRow:
    settings = config.settings_for(p.game)
    episode = Episode({"game": p.game, **(settings or {})}, seats, seed=p.seed(0))
    fallback = episode.family.FALLBACK
    names = [s.name if isinstance(s, BaselinePolicy) else fallback for s in seats]
    pilot = simulate(p.game, names, PILOT, p.base_seed, config.threads, settings)
    calls = float(np.mean(pilot.plies)) * len(claude) / len(seats) * p.episodes  # turns alternate
    seat_calls_max = decisions_max(p.game, len(seats)) * p.episodes
    longest = _longest_prompts(config, p, seats, claude)
    input_tokens = input_max = output_max = cost = batch_cost = 0.0
    reserve = 0
    for i in claude:
        policy = seats[i]
        assert isinstance(policy, ClaudePolicy)
        system = episode.system_prompt(policy)
        observation = episode.family.observation_text(
            episode.state, i, notes="", operator_prompt=policy.prompt, aliases=episode.aliases
        )
        input_tokens += (len(system.encode()) + len(observation.encode())) / BYTES_PER_TOKEN
        per_call_max = longest[i] // BOUND_BYTES_PER_TOKEN + 16
        input_max += per_call_max * seat_calls_max
        output_max += policy.max_tokens * seat_calls_max
        price = price_of(policy.model, policy.price)
        cost += seat_calls_max * price.worst(per_call_max, policy.max_tokens)
        batch_cost += seat_calls_max * batch_price(price).worst(per_call_max, policy.max_tokens)
        messages = [{"role": "user", "content": observation}]
        reserve = max(reserve, worst_case(policy, system, messages).tokens)
    return PlanRow(
        p.key,
        p.episodes,
        calls,
        input_tokens * calls / len(claude),
        output_max,
        cost,
        reserve,
        seat_calls_max * len(claude),
        input_max,
        batch_cost,
    )


def _longest_prompts(
    config: LeagueConfig, p: Pairing, seats: list[Policy], claude: list[int]
) -> dict[int, int]:
    """Per Claude seat, the longest prompt in bytes (system prompt and observation
    with a full notes field) over pilot games played to their end, half of them with
    `random` in every seat and half with the family's fallback baseline."""
    spec = {"game": p.game, **(config.settings_for(p.game) or {})}
    longest = dict.fromkeys(claude, 0)
    notes = "n" * NOTES_LIMIT
    for k in range(PROMPT_PILOTS):
        episode = Episode(spec, seats, seed=p.seed(k))
        stand_in = "random" if k % 2 == 0 else episode.family.FALLBACK
        state = episode.state
        while (seat := state.active_seat) is not None:
            policy = seats[seat]
            if isinstance(policy, ClaudePolicy):
                observation = episode.family.observation_text(
                    state, seat, notes=notes, operator_prompt=policy.prompt, aliases=episode.aliases
                )
                size = len(episode.system_prompt(policy).encode()) + len(observation.encode())
                longest[seat] = max(longest[seat], size)
            state = state.apply(state.baseline_move(stand_in))
    return longest


def episode_bounds(config: LeagueConfig, p: Pairing) -> tuple[int, Usage]:
    """For admitting episodes near the budget: the most calls an episode of `p` makes
    without retries (every decision the ply cap allows), and one call's worst case
    at its first prompt."""
    policies = {q.name: q for q in config.policies}
    seats = [policies[n] for n in p.seats]
    claude = [s for s in seats if isinstance(s, ClaudePolicy)]
    episode = Episode(
        {"game": p.game, **(config.settings_for(p.game) or {})}, seats, seed=p.seed(0)
    )
    worst = Usage()
    for i, policy in enumerate(seats):
        if isinstance(policy, ClaudePolicy):
            observation = episode.family.observation_text(
                episode.state, i, notes="", operator_prompt=policy.prompt, aliases=episode.aliases
            )
            messages = [{"role": "user", "content": observation}]
            call = worst_case(policy, episode.system_prompt(policy), messages)
            if config.mode == "batch":  # every row of the price at half
                call.cost_usd /= 2
            worst = max(worst, call, key=lambda u: u.cost_usd)
    return decisions_max(p.game, len(seats)) * len(claude), worst
