"""The exceptions a user of coworld can meet. The Rust core raises these too."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

#: The engine's seed range (a signed 64-bit integer).
I64 = (-(2**63), 2**63 - 1)
#: The most worker threads a batch may ask for (the core's limit, a league file's too).
MAX_THREADS = 1024
#: The most episodes one `simulate` call plays (its result columns are held in memory).
MAX_EPISODES = 2**32
#: The most random opening plies an episode may start with (a game ends long before).
MAX_OPENINGS = 1000


class CoworldError(Exception):
    """Base class of every error coworld raises on purpose."""


class InfrastructureStop(CoworldError):
    """The run cannot go on through no fault of a policy or an input: the API
    rejected a request, the database or the disk failed. What was stored stays."""


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


def config_field_error(field: str, reason: str) -> ConfigError:
    """A ConfigError in the core's own format: ``config field `n`: ...``."""
    return ConfigError(f"config field `{field}`: {reason}", field)


def integer_arg(field: str, value: Any, lo: int, hi: int | None = None) -> int:
    """`value` as an int in lo..hi (a bool or a float is refused, not rounded)."""
    try:
        if isinstance(value, bool | np.bool_):
            raise TypeError
        v = operator.index(value)
    except TypeError:
        raise config_field_error(field, f"must be an integer, not {value!r}") from None
    if v < lo or (hi is not None and v > hi):
        span = f"in {lo}..{hi}" if hi is not None else f">= {lo}"
        raise config_field_error(field, f"must be an integer {span}, not {v}")
    return v
