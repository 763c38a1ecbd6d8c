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


#: What each status means, for `--help` epilogues and the docs.
MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "done (gate: not worse; compare: no policy got worse)",
    ExitCode.WORSE: "a regression was found (gate: worse; compare: a policy got worse)",
    ExitCode.INCONCLUSIVE: "inconclusive: the test could not decide, or the sample cannot "
    "measure (no variation, too few pairs)",
    ExitCode.BAD_INPUT: "bad input: usage error, unreadable or invalid file, config or "
    "policy, unknown game",
    ExitCode.INFRASTRUCTURE: "stopped by infrastructure (API outage past the patience, "
    "rejected requests, database or disk failure)",
    ExitCode.BUDGET: "stopped by the budget cap before the run finished",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
}


def exit_codes_help(*codes: ExitCode, meanings: dict[ExitCode, str] | None = None) -> str:
    """An `--help` epilogue listing `codes` (every code when none are named), each
    with its meaning (`meanings` words one for a command)."""
    shown = codes or tuple(ExitCode)
    said = {**MEANINGS, **(meanings or {})}
    return "Exit codes:\n" + "\n".join(f"  {int(c):>3}  {said[c]}" for c in shown)


__all__ = ["MEANINGS", "ExitCode", "exit_codes_help"]
