"""The exit codes every `coworld` command shares."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a command's exit status means, the same for every command."""

    #: Done (gate: not worse; compare: no policy got worse).
    OK = 0
    #: A regression was found (gate: worse; compare: a policy got worse).
    WORSE = 1
    #: The test could not decide, or the sample cannot measure.
    INCONCLUSIVE = 2
    #: Bad input: usage error, unreadable or invalid file, config or policy, unknown game.
    BAD_INPUT = 3
    #: Stopped by infrastructure (API outage past the patience, database or disk failure).
    INFRASTRUCTURE = 4
    #: Stopped by the budget cap before the run finished.
    BUDGET = 5
    #: Interrupted (Ctrl-C).
    INTERRUPTED = 130
