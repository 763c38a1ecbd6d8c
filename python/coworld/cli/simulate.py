"""`coworld simulate`: scripted episodes in the Rust batch simulator, as a table, JSON
or CSV."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.markup import escape

from ..errors import MAX_EPISODES, MAX_OPENINGS, ConfigError
from ..exit_codes import ExitCode
from ..games import GAMES, catalog
from ..simulate import SimResult, simulate
from ..tables import Table
from .options import SEED, THREADS, int_in
from .output import console


def add_parser(sub: Any) -> None:
    p = sub.add_parser("simulate", help="run scripted episodes in the Rust batch simulator")
    p.add_argument("game", choices=GAMES, metavar="GAME", help="a game id (see `coworld games`)")
    p.add_argument(
        "-p",
        "--policy",
        action="append",
        required=True,
        help="a baseline per seat, in seat order (repeat the flag)",
    )
    p.add_argument(
        "-n",
        "--episodes",
        type=int_in(1, MAX_EPISODES),
        default=1000,
        help="episodes to play (default 1000)",
    )
    p.add_argument("--seed", type=SEED, default=0, help="base seed; 0 draws one (default)")
    p.add_argument(
        "--threads", type=THREADS, default=None, help="worker threads (default: every core)"
    )
    p.add_argument(
        "--swap",
        action="store_true",
        help="also play the other seat order on the same seeds (two-seat games); adds a "
        "row per policy over both orders",
    )
    p.add_argument(
        "--openings",
        type=int_in(0, MAX_OPENINGS),
        default=0,
        help="random legal plies each episode opens with, from its seed alone (default 0)",
    )
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the report as JSON")
    form.add_argument("--csv", action="store_true", help="print the rows as CSV")
    p.set_defaults(run=_cmd_simulate)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from ..seats.policy import POLICY_FILES
    from ..sim_report import as_csv, as_json, endings, report_rows

    for p in args.policy:
        if p.endswith(POLICY_FILES):
            raise ConfigError(
                f"{p}: simulate runs built-in baselines; use a league for Python policies "
                "(and for Claude policies): `coworld league run LEAGUE.toml`",
                "policy",
            )
    if args.swap and len(args.policy) != 2:
        raise ConfigError("--swap takes a two-seat game's two policies", "swap")
    # a game with a seat-count setting (Hanabi) is played at one seat per -p, as in play
    settings = {"seats": len(args.policy)} if "seats" in catalog()[args.game]["settings"] else None

    def play(policies: list[str], seed: int) -> SimResult:
        return simulate(
            args.game, policies, args.episodes, seed, args.threads, settings, openings=args.openings
        )

    runs = [play(args.policy, args.seed)]
    if args.swap:  # the other seat order on the same seeds
        runs.append(play(args.policy[::-1], runs[0].seed))
    run = runs[0]
    rows = report_rows(runs)
    if args.json or args.csv:
        sys.stdout.write(as_json(runs, rows) + "\n" if args.json else as_csv(rows))
        return ExitCode.OK
    orders = " and swapped" if args.swap else ""
    table = Table(
        title=f"{args.game}: {run.episodes} episodes{orders}, base seed {run.seed}, "
        "mean score with 95% score interval"
    )
    for col in ("policy", "seat", "episodes", "mean", "95% interval", "won", "drawn", "lost"):
        table.add_column(col, justify="left" if col == "policy" else "right")
    for r in rows:
        ci = "-" if r.lo != r.lo else f"[{r.lo:+.3f}, {r.hi:+.3f}]"
        wdl = ["-" if x is None else str(x) for x in (r.wins, r.draws, r.losses)]
        table.add_row(escape(r.policy), r.seat, str(r.episodes), f"{r.mean:+.3f}", ci, *wdl)
    console.print(table)
    console.print("endings: " + ", ".join(f"{e} {n}" for e, n in endings(runs).items()))
    return ExitCode.OK
