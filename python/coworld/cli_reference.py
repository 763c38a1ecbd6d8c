"""The reference side of the `coworld` command: `--version`, `rules`, `check`, and
the exit codes every command's `--help` lists."""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .exit_codes import ExitCode

#: What each exit status means for each command (`--help` prints it).
EXIT_CODES: dict[str, tuple[tuple[ExitCode, str], ...]] = {}
_DONE = (ExitCode.OK, "done")
_BAD = (ExitCode.BAD_INPUT, "bad input (usage, file, config, policy or game id)")
_INFRA = (ExitCode.INFRASTRUCTURE, "stopped by infrastructure (API outage, database or disk)")
_BUDGET = (ExitCode.BUDGET, "stopped by the budget cap before the run finished")
_CTRL_C = (ExitCode.INTERRUPTED, "interrupted (Ctrl-C)")
EXIT_CODES.update(
    {
        "coworld": (_DONE, _BAD, _CTRL_C),
        "games": (_DONE, _BAD),
        "rules": (_DONE, _BAD),
        "check": ((ExitCode.OK, "done: the file is valid"), (ExitCode.BAD_INPUT, "problems found")),
        "demo": (_DONE, _BAD, _INFRA, _BUDGET, _CTRL_C),
        "play": (_DONE, _BAD, _INFRA, _CTRL_C),
        "simulate": (_DONE, _BAD, _CTRL_C),
        "recheck": (
            (ExitCode.OK, "done: every line re-derives"),
            (ExitCode.WORSE, "the replay does not re-derive"),
            _BAD,
        ),
        "view": (_DONE, _BAD, _CTRL_C),
        "league run": (_DONE, _BAD, _INFRA, _BUDGET, _CTRL_C),
        "league plan": (_DONE, _BAD),
        "league table": (_DONE, _BAD),
        "league compare": (
            (ExitCode.OK, "done: no policy got worse"),
            (ExitCode.WORSE, "a policy got significantly worse"),
            _BAD,
        ),
        "gate": (
            (ExitCode.OK, "done: not worse"),
            (ExitCode.WORSE, "worse"),
            (ExitCode.INCONCLUSIVE, "inconclusive at --max-episodes, or no variation"),
            _BAD,
            _INFRA,
            _BUDGET,
            _CTRL_C,
        ),
    }
)


def exit_code_text(command: str) -> str:
    """The `exit codes:` block of one command's help."""
    codes = EXIT_CODES.get(command, EXIT_CODES["coworld"])
    return "Exit codes:\n" + "\n".join(f"  {int(code):>3}  {meaning}" for code, meaning in codes)


class HelpFormatter(argparse.HelpFormatter):
    """Wraps prose paragraphs to the terminal; keeps lists (indented lines) and the
    exit codes as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(
            "\n".join(indent + line for line in para.splitlines())
            if para.startswith("Exit codes:") or any(ln.startswith(" ") for ln in para.splitlines())
            else textwrap.fill(
                " ".join(para.split()), width, initial_indent=indent, subsequent_indent=indent
            )
            for para in text.split("\n\n")
        )


def add_exit_codes(parser: argparse.ArgumentParser, command: str = "coworld") -> None:
    """Append the exit codes to the help of `parser` and of every subcommand under it."""
    parser.formatter_class = HelpFormatter
    parser.epilog = "\n\n".join(filter(None, [parser.epilog, exit_code_text(command)]))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                add_exit_codes(sub, name if command == "coworld" else f"{command} {name}")


def add_version(parser: argparse.ArgumentParser) -> None:
    from . import __version__

    parser.add_argument("--version", action="version", version=f"coworld {__version__}")


def add_commands(sub: Any) -> None:
    """`coworld rules GAME` and `coworld check FILE...`."""
    from . import GAMES

    p = sub.add_parser(
        "rules",
        help="print the rules a Claude seat is given for a game",
        description="Print the rules text a Claude seat is given as its system prompt "
        "(the policy's own prompt follows it under \"# Your operator's instructions\"). "
        "In a rotate episode a seat is given the rules of the drawn game only.",
    )
    p.add_argument("game", choices=GAMES, metavar="GAME", help="a game id (see `coworld games`)")
    p.set_defaults(run=_cmd_rules)
    p = sub.add_parser(
        "check",
        help="validate league, policy, replay, calls, transcript or standings files",
        description="Validate files without running them, against the format schemas "
        "(python/coworld/schemas) and the loaders: a league (.toml with `policies`), a "
        "policy (.md, .toml, .py), a replay or its sidecars (.jsonl), standings.json. "
        "One line per problem.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="files to check")
    p.set_defaults(run=_cmd_check)


def rules_text(game_id: str) -> str:
    """The rules a Claude seat of `game_id` is given (before its operator's prompt)."""
    from .games import family_module

    rules: str | Mapping[str, str] = family_module(game_id).RULES_TEXT
    return rules if isinstance(rules, str) else rules[game_id]


def _cmd_rules(args: argparse.Namespace) -> int:
    sys.stdout.write(rules_text(args.game).rstrip("\n") + "\n")
    return ExitCode.OK


def _cmd_check(args: argparse.Namespace) -> int:
    from .check import check_file

    bad = 0
    for name in args.files:
        found = check_file(Path(name))
        for line in found:
            print(line)
        if found:
            bad += 1
        else:
            print(f"{name}: ok")
    return ExitCode.BAD_INPUT if bad else ExitCode.OK
