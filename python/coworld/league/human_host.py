"""A league's human seats: one viewer serves the league's pages and the link of each
human seat of the episode in play. Episodes with a human seat are played one at a
time; each deals fresh links, printed and shown on the league page (`/api/humans`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from ..seats.human import HumanPolicy, HumanTable, SeatedEpisode

if TYPE_CHECKING:
    from ..seats.policy import Policy
    from ..viewer import ViewerServer

#: A person is never hurried: an episode with a human seat has a week of wall clock.
HUMAN_PLAY_BUDGET_SECONDS = 604_800.0


def fields_a_human(policies: Any) -> bool:
    return any(isinstance(p, HumanPolicy) for p in policies)


class HumanHost:
    def __init__(self, out: Path, console: Console, host: str = "127.0.0.1") -> None:
        from ..viewer import ViewerServer

        self.console = console
        self.table = HumanTable()
        self.table.on_attach = self._announce
        out.mkdir(parents=True, exist_ok=True)
        self.server: ViewerServer = ViewerServer(out, host=host, humans=self.table).start()
        console.print(
            f"human seats: the league page [bold]{self.server.url}/[/] shows each link "
            f"(listening on {host} only)"
        )

    def seated(self, policy: Policy) -> Policy:
        """`policy` with this league's table if it is a human seat."""
        return replace(policy, table=self.table) if isinstance(policy, HumanPolicy) else policy

    def _announce(self, episode: SeatedEpisode, tokens: dict[int, str]) -> None:
        for seat, token in sorted(tokens.items()):
            self.console.print(
                escape(f"{episode.state.resolved_game} seed {episode.seed}: seat {seat} ")
                + f"({episode.aliases[seat]}), human: [bold]{self.server.url}/seat/{token}[/]",
                soft_wrap=True,
            )

    def close(self) -> None:
        self.server.stop()
