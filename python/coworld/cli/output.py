"""The console every command prints to, and the exit code of an error that ended one."""

from __future__ import annotations

from rich.console import Console

from ..exit_codes import ExitCode

console = Console()


def error_code(err: BaseException) -> ExitCode:
    """The exit code of an error that ended a command: infrastructure and budget stops
    have their own; anything else a user can cause is bad input."""
    from ..seats.budget import BudgetExhausted
    from ..seats.infra import InfraFailure

    if isinstance(err, InfraFailure):
        return ExitCode.INFRASTRUCTURE
    if isinstance(err, BudgetExhausted):
        return ExitCode.BUDGET
    if isinstance(err, OSError) and not isinstance(
        err, FileNotFoundError | IsADirectoryError | NotADirectoryError | PermissionError
    ):
        return ExitCode.INFRASTRUCTURE  # a disk or database failure, not the user's input
    return ExitCode.BAD_INPUT
