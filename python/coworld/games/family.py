"""What a family module gives the episode runner: the rules, the observation a
seat reads, the reader of its reply, its fallback baseline and its feed line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..seats.jsonreply import JsonPolicy
from ..seats.reply import Reply


class FamilyModule(Protocol):
    """A module under `coworld.games` named by a catalogue entry's `family`."""

    @property
    def FALLBACK(self) -> str:
        """The baseline that moves for a seat whose reply is refused twice."""
        ...

    @property
    def REPLY_POLICY(self) -> JsonPolicy:
        """How its replies hold their JSON object."""
        ...

    @property
    def RULES_TEXT(self) -> str | Mapping[str, str]:
        """The rules a seat is told: one text, or one per game id of the family."""
        ...

    def observation_text(
        self,
        state: Any,
        seat: int,
        *,
        notes: str,
        operator_prompt: str,
        aliases: Sequence[str],
    ) -> str:
        """The seat's turn, built from its own `view_for` only."""
        ...

    def parse_reply(self, text: str, state: Any, seat: int, aliases: Sequence[str]) -> Reply:
        """A legal move plus its text fields, or `ReplyRejected` and nothing else.
        JSON extraction is `seats.jsonreply` under the family's policy; the move
        text goes through the core's tolerant reader (`state.read_move`)."""
        ...

    def feed_line(
        self, before: Any, after: Any, seat: int, move: str, labels: Sequence[str]
    ) -> str:
        """The spectator feed's line for one ply."""
        ...
