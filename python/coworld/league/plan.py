"""`coworld league plan`: what a league's Claude episodes will cost, before a run.

Calls per episode come from the ply counts of a pilot in the batch simulator, with
each Claude seat played by its family's fallback baseline (a stand-in: a model
plays longer or shorter games than its fallback); the one-retry rate is not
known before a run and is left out. Input tokens per call come from the real
prompt of the first position (system prompt and observation) at 4 bytes a token
(later positions grow a little); output tokens are bounded by `max_tokens`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..episode import Episode
from ..seats.budget import worst_case
from ..seats.claude import price_of
from ..seats.policy import ClaudePolicy
from ..simulate import simulate
from .config import LeagueConfig
from .schedule import Pairing, build_schedule

#: Pilot episodes per pairing.
PILOT = 64
BYTES_PER_TOKEN = 4


@dataclass(frozen=True)
class PlanRow:
    pairing: str
    episodes: int
    calls: float  # expected Claude calls (no retries)
    input_tokens: float  # expected
    output_tokens_max: float  # bounded by max_tokens
    cost_usd: float  # expected input cost + worst-case output cost
    reserve_per_call: int  # the budget's reservation for one call, in tokens


def plan(config: LeagueConfig) -> list[PlanRow]:
    rows = []
    policies = {p.name: p for p in config.policies}
    for p in build_schedule(config):
        seats = [policies[n] for n in p.seats]
        claude = [i for i, s in enumerate(seats) if isinstance(s, ClaudePolicy)]
        if claude:
            rows.append(_estimate(config, p, seats, claude))
    return rows


def _estimate(config: LeagueConfig, p: Pairing, seats: list, claude: list[int]) -> PlanRow:
    episode = Episode(
        {"game": p.game, **(config.settings_for(p.game) or {})}, seats, seed=p.seed(0)
    )
    fallback = episode.family.FALLBACK
    names = [fallback if i in claude else s.name for i, s in enumerate(seats)]
    pilot = simulate(p.game, names, PILOT, p.base_seed, config.threads, config.settings_for(p.game))
    plies = float(np.mean(pilot.plies))
    share = len(claude) / len(seats)  # seats move in turn
    calls_per_episode = plies * share
    calls = calls_per_episode * p.episodes
    input_tokens = output_max = cost = 0.0
    reserve = 0
    for i in claude:
        policy = seats[i]
        system = episode._system_prompt(policy)
        observation = episode.family.observation_text(
            episode.state, i, notes="", operator_prompt=policy.prompt, aliases=episode.aliases
        )
        per_call_in = (len(system.encode()) + len(observation.encode())) / BYTES_PER_TOKEN
        seat_calls = calls / len(claude)
        price = price_of(policy.model, policy.price).tier(int(per_call_in))
        input_tokens += per_call_in * seat_calls
        output_max += policy.max_tokens * seat_calls
        cost += seat_calls * (per_call_in * price.input + policy.max_tokens * price.output) / 1e6
        messages = [{"role": "user", "content": observation}]
        reserve = max(reserve, worst_case(policy, system, messages).tokens)
    return PlanRow(p.key, p.episodes, calls, input_tokens, output_max, cost, reserve)
