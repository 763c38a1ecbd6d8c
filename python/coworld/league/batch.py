"""A league's Claude episodes in batch mode: the run's collector (`BatchClient`)
on the league database, its progress lines, the end of a run (Ctrl-C twice:
the batch in flight canceled) and `--cancel` for batches a killed run left."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from rich.console import Console
from rich.markup import escape

from ..errors import ConfigError
from ..seats.batch_client import BatchClient, RoundStatus
from ..seats.budget import Budget
from ..seats.infra import InfraPolicy
from ..usage import Usage
from .backends import Backend
from .backends.local import LocalBackend
from .batch_store import BatchStore
from .config import LeagueConfig

#: Seconds between the first polls of a batch (growing 1.5x to the second figure),
#: and how long every episode must have been waiting before a round is built.
POLL_SECONDS = (float(os.environ.get("COWORLD_BATCH_POLL", "5")), 60.0)
GATHER_SECONDS = float(os.environ.get("COWORLD_BATCH_GATHER", "0.5"))


def batch_client(
    config: LeagueConfig,
    backend: Backend,
    ledger: Budget | None,
    infra: InfraPolicy,
    *,
    fresh: bool,
    console: Console | None,
    on_call: Callable[[str, int, Usage], None],
) -> BatchClient:
    """The run's collector (`console`: where its round lines go, None: nowhere).
    Batch mode plays in the driver (the local backend)."""
    if not isinstance(backend, LocalBackend):
        raise ConfigError("a league in batch mode runs on the local backend", "mode")
    store = BatchStore(config.database, config.name)
    if fresh:
        store.forget()
    return BatchClient(
        store,
        ledger=ledger,
        infra=infra,
        on_call=on_call,
        stopping=lambda: backend.interrupted,
        on_status=status_printer(console) if console is not None else None,
        gather_seconds=GATHER_SECONDS,
        poll_seconds=POLL_SECONDS,
    )


def status_printer(console: Console) -> Callable[[RoundStatus], None]:
    """Print a round's line when its counts change (each poll would repeat it)."""
    last: dict[int, dict[str, int]] = {}

    def show(status: RoundStatus) -> None:
        if last.get(status.number) != status.counts:
            last[status.number] = dict(status.counts)
            console.print(escape(status.line()))

    return show


def finish(backend: Backend, client: BatchClient) -> None:
    """End the round loop once the episodes are done; after a second Ctrl-C the
    batch in flight is canceled and what it had answered is recorded."""
    assert isinstance(backend, LocalBackend)
    backend.submit(client.stop(cancel=backend.cancelled)).result()


def cancel_batches(config: LeagueConfig, console: Console) -> int:
    """`league run --cancel`: cancel the batches an earlier run submitted and did
    not read, recording the answers they hold. Returns how many were canceled."""
    store = BatchStore(config.database, config.name)
    try:
        unread = store.unread()
        if not unread:
            return 0
        client = BatchClient(store, on_status=status_printer(console), poll_seconds=POLL_SECONDS)
        asyncio.run(client.stop(cancel=True))
        return len(unread)
    finally:
        store.close()
