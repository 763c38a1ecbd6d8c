"""What a league shows while it plays: one progress bar (episodes, their rate, the
time left, tokens and cost, and a pause while the API is unavailable). Nothing
here decides anything."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from ..seats.infra import Pause

#: The progress callback: (episodes, tokens, cost, batch) just finished.
Advance = Callable[..., None]


def quiet(*_: object, **__: object) -> None:
    """An `Advance` that shows nothing."""


class LeagueProgress:
    """The bar of one league run, as a context manager yielding its `Advance`."""

    def __init__(
        self,
        name: str,
        total: int | None,
        already: int,
        console: Console,
        show: bool,
        pause: Callable[[], Pause | None],
    ) -> None:
        self.progress = Progress(
            PauseColumn(pause),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} ep/s"),
            TimeRemainingColumn(),
            TextColumn("tokens {task.fields[tokens]}  ${task.fields[cost]}"),
            console=console,
            disable=not show,
            transient=False,
        )
        self.task = self.progress.add_task(
            f"league {name}", total=total, completed=already, rate="-", tokens=0, cost="0.00"
        )
        self.t0: float | None = None
        self.n, self.tokens, self.cost = 0, 0, 0.0

    def __enter__(self) -> Advance:
        self.progress.start()
        return self.advance

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def advance(
        self, episodes: int, tokens: int = 0, cost: float = 0.0, batch: bool = False
    ) -> None:
        """The rate counts runner episodes only, from the first one's start: a batch
        of scripted chunks would make it meaningless."""
        if not batch and self.t0 is None:
            self.t0 = time.monotonic()
        self.n += 0 if batch else episodes
        self.tokens += tokens
        self.cost += cost
        rate = self.n / max(time.monotonic() - (self.t0 or 0.0), 1e-9)
        self.progress.update(
            self.task,
            advance=episodes,
            rate=f"{rate:,.1f}" if self.n else "-",
            tokens=f"{self.tokens:,}",
            cost=f"{self.cost:.2f}",
        )


class PauseColumn(ProgressColumn):
    """ "paused: API unavailable (529) since 12:01:07" while the breaker is open."""

    def __init__(self, pause: Callable[[], Pause | None]) -> None:
        super().__init__()
        self.pause = pause

    def render(self, task: Task) -> Text:
        pause = self.pause()
        if pause is None:
            return Text("")
        since = time.strftime("%H:%M:%S", time.localtime(pause.since))
        return Text(
            f"paused: API unavailable ({pause.cause.removeprefix('http-')}) since {since}",
            style="yellow",
        )
