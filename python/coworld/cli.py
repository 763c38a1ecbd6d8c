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


def _cmd_play(args: argparse.Namespace) -> int:
    from .episode import Clock, Episode
    from .seats.claude import has_credentials
    from .seats.policy import ClaudePolicy, load_policy

    policies = [load_policy(p) for p in args.seat]
    clock = Clock(play_budget_seconds=args.budget, llm_timeout_seconds=args.timeout,
                  pace_seconds=args.pace)
    out = args.out or f"runs/episodes/{args.game}-{args.seed or 'drawn'}.jsonl"

    def show(event: dict) -> None:
        if event["type"] == "ply":
            origin = "" if event["origin"] in ("scripted", "model") else f"  [{event['origin']}: {event['cause']}]"
            say = f'  "{event["say"]}"' if event.get("say") else ""
            console.print(f"{event['ply'] + 1:>4}  {event['feed']}{origin}{say}")
        elif event["type"] == "deadline":
            console.print("[yellow]wall clock: the episode settles now[/]")

    episode = Episode(args.game, policies, seed=args.seed, clock=clock, out=out,
                      record_calls=not args.no_calls, seat_transcripts=args.transcripts,
                      on_event=show)
    if any(isinstance(p, ClaudePolicy) for p in policies) and not has_credentials():
        console.print(f"[yellow]ANTHROPIC_API_KEY is not set: Claude seats are played by the "
                      f"{episode.family.FALLBACK} baseline and recorded as origin 'fallback'.[/]")
    names = ", ".join(f"{a} ({p.name})" for a, p in zip(episode.aliases, policies, strict=True))
    console.print(f"[bold]{episode.state.resolved_game}[/] seed {episode.seed}: {names}")
    import asyncio

    results = asyncio.run(episode.run())
    winner = results.get("winner")
    who = "draw" if winner is None else f"{episode.aliases[winner]} wins"
    if episode.seats > 2:
        who = f"shared score {results['score'][0]}"
    console.print(f"[bold]{who}[/]: {results['reason']} / {results['ending']} after "
                  f"{results['plies']} plies; score {results['score']}")
    console.print(f"replay: {out}   (check it: coworld recheck {out})")
    return 0


def _cmd_recheck(args: argparse.Namespace) -> int:
    from .replay import recheck

    results = recheck(args.replay)
    console.print(f"[green]ok[/]: {args.replay} re-derives from its seed; "
                  f"{results['ending']}, score {results['score']}")
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

    p = sub.add_parser("play", help="play one episode with a live feed and write its replay")
    p.add_argument("game", choices=GAMES, metavar="GAME", help="a game id (see `coworld games`)")
    p.add_argument("-s", "--seat", action="append", required=True,
                   help="a baseline name or a policy file (.toml/.md) per seat, in seat order")
    p.add_argument("--seed", type=int, default=0, help="episode seed; 0 draws one (default)")
    p.add_argument("--out", help="replay path (default runs/episodes/GAME-SEED.jsonl)")
    p.add_argument("--budget", type=float, default=900.0, help="playBudgetSeconds (default 900)")
    p.add_argument("--timeout", type=float, default=60.0, help="llmTimeoutSeconds (default 60)")
    p.add_argument("--pace", type=float, default=0.0, help="paceSeconds between plies (default 0)")
    p.add_argument("--no-calls", action="store_true",
                   help="do not keep model prompts and raw replies beside the replay")
    p.add_argument("--transcripts", action="store_true",
                   help="also write each seat's public (redacted) transcript")
    p.set_defaults(run=_cmd_play)

    p = sub.add_parser("recheck", help="re-simulate a replay from its seed and verify every event")
    p.add_argument("replay", help="a replay file (.jsonl)")
    p.set_defaults(run=_cmd_recheck)

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
