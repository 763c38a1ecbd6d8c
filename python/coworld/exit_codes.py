"""The exit statuses every `coworld` command shares (listed in each `--help`)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    #: done (gate: not worse; compare: no policy got worse)
    OK = 0
    #: a regression was found (gate: worse; compare: a policy got worse)
    WORSE = 1
    #: the test could not decide, or the sample cannot measure (no variation, too few pairs)
    INCONCLUSIVE = 2
    #: usage error, unreadable or invalid file/config/policy, unknown game
    BAD_INPUT = 3
    #: stopped by infrastructure (API outage past the patience, rejected requests,
    #: database or disk failure): incomplete through no fault of a policy
    INFRASTRUCTURE = 4
    #: stopped by the budget cap before the run finished
    BUDGET = 5
    #: interrupted (Ctrl-C)
    INTERRUPTED = 130


__all__ = ["ExitCode"]
