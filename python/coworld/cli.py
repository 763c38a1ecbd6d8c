"""The `coworld` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from . import GAMES, simulate
from .errors import CoworldError
from .games import FAMILIES

console = Console()


def _cmd_games(args: argparse.Namespace) -> int:
    from . import _core

    table = Table(title="coworld games")
    table.add_column("id")
    table.add_column("family")
    table.add_column("seats", justify="right")
    table.add_column("baselines")
    for gid in GAMES:
        state = _core.State(gid, None, 1)
        table.add_row(gid, FAMILIES[gid], str(state.num_seats), ", ".join(state.policy_names))
    console.print(table)
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    result = simulate(args.game, args.policy, args.episodes, args.seed, args.threads)
    table = Table(title=f"{args.game}: {result.episodes} episodes, base seed {result.seed}")
    table.add_column("seat", justify="right")
    table.add_column("policy")
    table.add_column("mean score", justify="right")
    means = result.mean_score()
    for seat, name in enumerate(args.policy):
        table.add_row(str(seat), name, f"{means[seat]:+.3f}")
    console.print(table)
    names = result.ending_names()
    console.print("endings: " + ", ".join(f"{e} {names.count(e)}" for e in sorted(set(names))))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    """The main job on the built-in defaults (grows into the default league)."""
    from . import _core

    table = Table(title="coworld demo: every baseline pairing, 200 episodes each")
    for col in ("game", "seat 0", "seat 1", "mean score (seat 0)", "endings"):
        table.add_column(col)
    for gid in GAMES:
        try:
            names = _core.State(gid, None, 1).policy_names
        except CoworldError:
            continue  # a family not built yet
        if _core.State(gid, None, 1).num_seats != 2:
            continue
        for a in names:
            for b in names:
                r = simulate(gid, [a, b], 200, seed=args.seed)
                ends = r.ending_names()
                summary = ", ".join(f"{e} {ends.count(e)}" for e in sorted(set(ends)))
                table.add_row(gid, a, b, f"{r.mean_score()[0]:+.2f}", summary)
    console.print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="coworld",
        description=(
            "coworld runs leagues of game policies - scripted baselines and Claude-played "
            "prompts - on hidden- and perfect-information games with a Rust core.\n\n"
            f"games: {', '.join(GAMES)}"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Start with `coworld games`, then `coworld simulate hex -p tactician -p random`.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("games", help="list the games, their seats and baselines")
    p.set_defaults(run=_cmd_games)

    p = sub.add_parser("demo", help="run the main job on the built-in defaults")
    p.add_argument("--seed", type=int, default=1, help="base seed (default 1)")
    p.set_defaults(run=_cmd_demo)

    p = sub.add_parser("simulate", help="run scripted episodes in the Rust batch simulator")
    p.add_argument("game", choices=GAMES, metavar="GAME", help="a game id (see `coworld games`)")
    p.add_argument("-p", "--policy", action="append", required=True,
                   help="a baseline per seat, in seat order (repeat the flag)")
    p.add_argument("-n", "--episodes", type=int, default=1000, help="episodes to play (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="base seed; 0 draws one (default)")
    p.add_argument("--threads", type=int, default=None, help="worker threads (default: every core)")
    p.set_defaults(run=_cmd_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        return int(args.run(args))
    except CoworldError as err:
        console.print(f"[bold red]error:[/] {err}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
