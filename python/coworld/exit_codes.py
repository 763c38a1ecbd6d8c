"""One exit-code convention for every command."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    WORSE = 1
    INCONCLUSIVE = 2
    BAD_INPUT = 3
    INFRASTRUCTURE = 4
    BUDGET = 5
    INTERRUPTED = 130
