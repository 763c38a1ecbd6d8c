"""The `coworld` command: the parser and `main`; each command group lives in a module
of its own (games, league, gate, play, view, simulate; rules and check in
coworld.cli_reference)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from typing import NoReturn

from rich.markup import escape

from ..cli_reference import add_commands, add_exit_codes, add_version
from ..errors import CoworldError, InfrastructureStop
from ..exit_codes import ExitCode
from ..games import GAMES
from . import games, gate, league, play, simulate, view
from .output import console, error_code

__all__ = ["build_parser", "console", "main"]


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 3 (bad input) in every command, not argparse's 2, which a CI
    script would read as "inconclusive"; subcommands inherit the class."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitCode.BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="coworld",
        description=(
            "coworld runs leagues of game policies - scripted baselines, Claude-played "
            "prompts and your own Python bots - on hidden- and perfect-information games "
            "with a Rust core.\n\n"
            f"games: {', '.join(GAMES)}"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "Start with `coworld games`, then `coworld play hex -s tactician -s random`,\n"
            "`coworld rules GAME` (what a Claude seat is told), `coworld check FILE`,\n"
            "`coworld demo` (the default league) and `coworld league run LEAGUE.toml`.\n"
            "Your own bot: a .py file with act(view, legal_moves), fielded as `-s my_bot.py`\n"
            "(examples/random_bot.py). Reinforcement learning: coworld.VecEnv in Python,\n"
            "coworld.pettingzoo and coworld.gymnasium (pip extra `rl`; docs/vecenv.md)."
        ),
    )
    add_version(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_commands(sub)  # rules, check
    # in the order `coworld --help` lists them
    games.add_parser(sub)
    league.add_parsers(sub)  # demo, league
    gate.add_parser(sub)
    play.add_parsers(sub)  # play, recheck
    view.add_parser(sub)
    simulate.add_parser(sub)
    add_exit_codes(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    from ..seats.budget import BudgetExhausted

    try:
        return int(args.run(args))
    except InfrastructureStop as err:  # a rejected request, a database or disk failure
        console.print(f"[bold red]stopped:[/] {escape(str(err))}", soft_wrap=True)
        return ExitCode.INFRASTRUCTURE
    except (CoworldError, BudgetExhausted) as err:
        console.print(f"[bold red]error:[/] {escape(str(err))}", soft_wrap=True)
        return error_code(err)
    except sqlite3.Error as err:  # a league database that fails outside a league's run
        console.print(f"[bold red]stopped:[/] league database: {escape(str(err))}", soft_wrap=True)
        return ExitCode.INFRASTRUCTURE
    except OSError as err:  # a file or directory the command cannot create or read
        where = f"{err.filename}: " if err.filename else ""
        console.print(
            f"[bold red]error:[/] {escape(where + (err.strerror or str(err)))}", soft_wrap=True
        )
        return error_code(err)
    except KeyboardInterrupt as err:  # a league's own says what it stored
        console.print(
            f"interrupted: {escape(str(err))}" if str(err) else "interrupted", soft_wrap=True
        )
        return ExitCode.INTERRUPTED
