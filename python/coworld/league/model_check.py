"""The start-up model check: one call per distinct request (model and parameters)
before a league plays, with each policy's real parameters, so an unknown model or
a refused key is a config error naming the policy file and a rejected request
stops the league, instead of a league of void episodes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import ConfigError, InfrastructureStop
from ..seats.budget import Budget, BudgetExhausted
from ..seats.claude import ClaudeClient
from ..seats.infra import InfraFailure, InfraPolicy, ModelTimeout, RequestRejected
from ..seats.policy import ClaudePolicy
from ..usage import Usage

PING: list[dict[str, Any]] = [{"role": "user", "content": "ping"}]
CHECK_PROMPT = "Reply with one word."


def check_models(
    league: str,
    policies: Iterable[object],
    *,
    timeout: float,
    infra: InfraPolicy,
    ledger: Budget | None,
    record: Callable[[Usage], None],
) -> bool:
    """Ping each distinct request once; `record` hears every billed answer. False:
    the budget cannot cover a check (the league plays nothing)."""
    requests = {
        (p.model, p.max_tokens, p.temperature, p.effort, p.thinking): p
        for p in policies
        if isinstance(p, ClaudePolicy)
    }
    if not requests:
        return True

    async def ping() -> bool:
        client = ClaudeClient(timeout=timeout, infra=infra, ledger=ledger)
        try:
            for policy in requests.values():
                try:  # the check is a call like any other: within the budget
                    await client.ask(policy, CHECK_PROMPT, PING, record)
                except BudgetExhausted:
                    return False
                except RequestRejected as err:
                    raise InfrastructureStop(f"league {league}: {err}") from None
                except InfraFailure as err:
                    if err.fatal:
                        raise ConfigError(
                            f"{policy.path or policy.name}: model {policy.model!r} cannot "
                            f"be used: {err}",
                            "model",
                        ) from err
                    continue  # unavailable for now: the breaker handles it in the run
                except ModelTimeout:
                    continue
        finally:
            await client.close()
        return True

    return asyncio.run(ping())
