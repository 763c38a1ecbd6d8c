"""A league's Claude session: what its Claude calls share and what they decide
about dispatching. The run's one client with its circuit breaker and budget
ledger, the start-up model check, admission near the budget cap, holding while
the API is unavailable, and which void causes stop the league. The engine
(`engine.py`) consults it through its `Session` protocol and knows nothing else
of Claude."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace

from rich.console import Console

from ..seats.budget import Ledger
from ..seats.claude import ClaudeClient, has_credentials
from ..seats.infra import REJECTED, CircuitBreaker, InfraPolicy, Pause, retryable_cause
from ..seats.policy import ClaudePolicy, Policy
from ..usage import Usage
from .admission import Admission
from .backends import Backend
from .config import LeagueConfig
from .model_check import check_models
from .plan import episode_bounds
from .records import EpisodeKey, Played, VoidEpisode
from .schedule import Pairing
from .storage import LeagueDB
from .work import EpisodeJob, Shared


class ClaudeSession:
    """See the module doc. `open` once per run (not once per round of a gate or an
    adaptive schedule), then `may_start` before each episode, `finished` and
    `retryable` after it, `close` at the end."""

    def __init__(
        self,
        config: LeagueConfig,
        backend: Backend,
        infra: InfraPolicy,
        console: Console,
        *,
        fresh: bool = False,
        show_progress: bool = True,
    ) -> None:
        self.config = config
        self.backend = backend
        self.infra = infra
        self.console = console
        self.fresh = fresh
        self.show_progress = show_progress
        self.ledger: Ledger | None = None
        self.breaker: CircuitBreaker | None = None
        self.admission: Admission | None = None
        #: What the league had spent when this run started.
        self.spent_before: Usage | None = None
        #: The cause of an API refusal (401, 404, ...): the league stops dispatching.
        self.refused: str | None = None
        #: A request the API rejected as invalid (its policy and message): the league stops.
        self.rejected: str | None = None
        #: The pause that outlasted the patience: the league stopped dispatching.
        self.gave_up: Pause | None = None
        #: The budget cannot cover another call (or episode): the league stopped dispatching.
        self.budget_stopped = False
        self._shared: Shared | None = None

    # ---- what the engine asks -------------------------------------------------

    @property
    def halted(self) -> bool:
        return bool(self.gave_up or self.refused or self.rejected or self.budget_stopped)

    def open(self, db: LeagueDB) -> Shared:
        """The run's client (None without credentials: the fallback plays), its
        ledger (spend so far from the database), and the writer of each call."""
        if self._shared is None:
            self._shared = self._start(db)
        return self._shared

    def may_start(self, p: Pairing, idx: int, db: LeagueDB) -> bool:
        """Whether episode `idx` of `p` may start now: not while the API is
        unavailable, not once the budget cannot cover another call, and near the
        cap not before the episodes in flight finish (this pass ends; the next
        takes it up)."""
        if self.breaker is not None:
            self.gave_up = self.gave_up or outlasted_pause(
                self.breaker, self.infra.patience_seconds, lambda: self.backend.interrupted
            )
        if self.halted:
            return False
        if self._budget_exhausted():
            self.budget_stopped = True
            return False
        if not self._admits(p):
            return False
        if self.admission is not None:
            self.admission.started(p.key, idx)
        return True

    def finished(self, result: Played) -> None:
        if self.admission is not None:
            self.admission.finished(result)

    def retryable(self, void: VoidEpisode) -> bool:
        """Whether `void` may be played again; its cause may stop the league."""
        if void.cause == "budget":
            self.budget_stopped = True
        elif void.cause == REJECTED:
            self.rejected = void.detail  # the policy's parameters: no retry helps
        elif not retryable_cause(void.cause):
            self.refused = void.cause  # a bad key or model: no retry helps
        else:
            return True
        return False

    def records_every_episode(self, policies: Iterable[Policy]) -> bool:
        """An episode with a Claude seat always writes its replay: its calls are
        the record of what was paid for."""
        return any(isinstance(p, ClaudePolicy) for p in policies)

    def prepare(self, job: EpisodeJob) -> EpisodeJob:
        """A client built for `job` elsewhere (a worker process, a Ray task) retries
        infrastructure failures as the run's does."""
        return replace(job, infra=self.infra)

    def pause(self) -> Pause | None:
        """The API's unavailability now, if any (for the progress bar)."""
        return self.breaker.paused if self.breaker is not None else None

    @property
    def pauses(self) -> list[Pause]:
        return list(self.breaker.pauses) if self.breaker is not None else []

    def stop_reason(self) -> str | None:
        """Why the API stopped the league, in words (None: it did not)."""
        if self.refused:
            return f"the API refused the calls ({self.refused}); check the key and the models"
        if self.gave_up:
            return (
                f"the API was unavailable ({self.gave_up.cause}) for longer than the "
                f"patience ({self.infra.patience_seconds:g} s)"
            )
        return None

    def close(self) -> None:
        """End batch mode's round loop (after a second Ctrl-C: cancel its batch)."""
        if self._shared is not None and self._shared.batch is not None:
            from .batch import finish

            finish(self.backend, self._shared.batch)

    # ---- the run's client ----------------------------------------------------

    def _start(self, db: LeagueDB) -> Shared:
        if not has_credentials():
            return Shared()
        name, c = self.config.name, self.config
        before = db.spent(name)
        if before.tokens < db.usage(name).tokens:  # a database from before per-call records
            before = db.usage(name)
        self.ledger = Ledger(c.max_tokens, c.max_cost_usd, spent=before)
        self.spent_before = before
        if c.capped and before.calls:
            self.console.print(budget_line(c, before))
        self.breaker = CircuitBreaker(self.infra)
        client = ClaudeClient(
            timeout=c.clock.llm_timeout_seconds,
            infra=self.infra,
            breaker=self.breaker,
            ledger=self.ledger,
        )
        if not check_models(
            name,
            c.policies,
            timeout=c.clock.llm_timeout_seconds,
            infra=self.infra,
            ledger=self.ledger,
            record=lambda usage: db.add_call(name, "preflight", 0, usage),
        ):
            self.budget_stopped = True
        self.admission = admission = Admission(self.ledger)

        def on_call(key: EpisodeKey, usage: Usage) -> None:
            db.add_call(name, key.pairing, key.idx, usage)
            admission.on_call(key.pairing, key.idx, usage)

        batch = None
        if c.mode == "batch":
            from .batch import batch_client

            batch = batch_client(
                c,
                self.backend,
                self.ledger,
                self.infra,
                fresh=self.fresh,
                console=self.console if self.show_progress else None,
                on_call=admission.on_call,
            )
        return Shared(client, on_call, batch=batch)

    # ---- gating ---------------------------------------------------------------

    def _budget_exhausted(self) -> bool:
        """No further call fits the budget (every backend's calls reach this ledger:
        in this process, through the driver's ledger service, or mirrored from Ray's
        ledger actor)."""
        return self.ledger is not None and self.ledger.exhausted

    def _admits(self, p: Pairing) -> bool:
        """Whether the budget left covers finishing every episode in flight and one
        more of `p` (`admission`). With none in flight one episode may always try
        (its first call must still fit): at most it is lost, and it measures."""
        if self.admission is None:
            return True
        if p.key not in self.admission.pairings:
            self.admission.know(p.key, *episode_bounds(self.config, p))
        return self.admission.in_flight == 0 or self.admission.admits(p.key)


def budget_line(c: LeagueConfig, spent: Usage) -> str:
    """The budget a resumed league starts with: its caps, spent and what remains."""
    parts = []
    if c.max_tokens is not None:
        parts.append(
            f"{c.max_tokens:,} tokens ({spent.tokens:,} spent, "
            f"{max(0, c.max_tokens - spent.tokens):,} remain)"
        )
    if c.max_cost_usd is not None:
        parts.append(
            f"${c.max_cost_usd:.2f} ({spent.cost_usd:.2f} spent, "
            f"{max(0.0, c.max_cost_usd - spent.cost_usd):.2f} remain)"
        )
    return f"resuming league {c.name}: budget " + " and ".join(parts)


def outlasted_pause(
    breaker: CircuitBreaker, patience: float, interrupted: Callable[[], bool]
) -> Pause | None:
    """Hold dispatching while the API is unavailable. With no call left to probe it,
    let one episode through (its first call is the probe). The pause, when it
    outlasted the patience: the league stops (a rerun resumes it)."""
    while (pause := breaker.paused) is not None and not interrupted():
        if time.time() - pause.since > patience:
            return pause
        if breaker.waiting == 0:
            return None
        time.sleep(0.02)
    return None
