"""The exceptions a user of coworld can meet. The Rust core raises these too."""

from __future__ import annotations

from collections.abc import Sequence


class CoworldError(Exception):
    """Base class of every error coworld raises on purpose."""


class IllegalMove(CoworldError, ValueError):
    """A move was refused. `kind` is "unparseable" (not a move of this game at
    all) or "illegal" (a move the rules forbid here); `legal` lists the moves
    that are allowed, in canonical notation."""

    def __init__(
        self,
        message: str,
        kind: str = "illegal",
        move: str = "",
        legal: Sequence[str] = (),
        reason: str = "",
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.move = move
        self.legal = list(legal)
        self.reason = reason or message


class ConfigError(CoworldError, ValueError):
    """A config, league file or argument is malformed; `field` names the culprit."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class ReplyRejected(CoworldError, ValueError):
    """A seat's reply cannot be used. `cause` is "unparseable" (no move could be
    read from it) or "illegal" (a move was read but the rules forbid it);
    `reason` is quoted back to the seat in its one retry."""

    def __init__(self, reason: str, cause: str = "unparseable") -> None:
        super().__init__(reason)
        self.reason = reason
        self.cause = cause
