"""The `coworld` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import GAMES, simulate
from .errors import CoworldError
from .games import FAMILIES

if TYPE_CHECKING:
    from .league import LeagueConfig

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
    """The main job on the built-in defaults: the demo league."""
    import tomllib
    from importlib.resources import files
    from pathlib import Path

    from .league import parse_league

    raw = tomllib.loads(files("coworld.league").joinpath("demo.toml").read_text())
    if args.episodes:
        raw["episodes"] = args.episodes
    config = parse_league(raw, base_dir=Path.cwd())
    return _run_league(config, backend="local", address=None, fresh=args.fresh)


def _run_league(config: LeagueConfig, *, backend: str, address: str | None, fresh: bool) -> int:
    from .league import LeagueRun
    from .seats.claude import has_credentials
    from .seats.policy import ClaudePolicy

    for notice in config.notices:
        console.print(f"[yellow]{escape(config.name)}: {escape(notice)}[/]")
    if any(isinstance(p, ClaudePolicy) for p in config.policies) and not has_credentials():
        console.print(
            "[yellow]ANTHROPIC_API_KEY is not set: Claude seats are played by each "
            "family's fallback baseline and recorded as origin 'fallback'.[/]"
        )
    report = LeagueRun(config, backend=backend, address=address, fresh=fresh).run()
    _print_standings(config.database, config.name)
    if report.budget_stopped:
        console.print(
            "[yellow]budget reached: the league stopped cleanly; rerun the same "
            "command after raising [budget] to continue.[/]"
        )
    console.print(
        f"{report.played_now} episodes played now, {report.episodes} in the league, "
        f"{report.seconds:.1f} s"
    )
    if report.played_now == 0:
        console.print("every scheduled episode was already in the database (add --fresh to replay)")
    for kind, path in report.exports.items():
        console.print(f"{kind:>4}: {path}")
    console.print(f"database: {report.database}")
    console.print(f"watch the replays: [bold]coworld view {config.out}[/]")
    return 0


def _print_standings(database: str | Path, league: str | None = None) -> None:
    from .league import LeagueDB, standings
    from .league.ranking import reliability

    db = LeagueDB.open_existing(database)
    try:
        names = db.leagues()
        if not names:
            console.print("the database holds no league yet")
            return
        league = league or names[-1]
        blocks = db.blocks(league)
        count = db.count(league)
    finally:
        db.close()
    table = Table(title=f"league {league}: mean episode score, 95% CI ({count} episodes)")
    for col in ("game", "policy", "n", "mean", "95% CI"):
        table.add_column(col, justify="left" if col in ("game", "policy") else "right")
    last = None
    for s in standings(blocks):
        if last is not None and s.game != last:
            table.add_section()
        last = s.game
        ci = "-" if s.lo != s.lo else f"[{s.lo:+.3f}, {s.hi:+.3f}]"
        table.add_row(s.game, s.policy, str(s.n), f"{s.mean:+.3f}", ci)
    console.print(table)
    rel = {p: r for p, r in reliability(blocks).items() if r["decisions"]}
    if rel:
        t = Table(title="reliability (Claude seats)")
        for col in (
            "policy",
            "decisions",
            "retries",
            "fallbacks",
            "unparseable",
            "illegal",
            "timeout",
            "api-error",
            "no-credentials",
            "tokens",
            "cost $",
        ):
            t.add_column(col, justify="right" if col != "policy" else "left")
        for p, r in rel.items():
            t.add_row(
                p,
                str(r["decisions"]),
                str(r["retries"]),
                str(r["fallbacks"]),
                *(
                    f"{r['fallback_rate:' + c]:.1%}"
                    for c in ("unparseable", "illegal", "timeout", "api-error", "no-credentials")
                ),
                f"{r['tokens']:,}",
                f"{r['cost_usd']:.2f}",
            )
        console.print(t)


def _cmd_league_run(args: argparse.Namespace) -> int:
    from .league import load_league

    config = load_league(args.league)
    return _run_league(config, backend=args.backend, address=args.address, fresh=args.fresh)


def _cmd_league_table(args: argparse.Namespace) -> int:
    _print_standings(args.database, args.league)
    return 0


def _cmd_league_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .league.ranking import compare, load_standings

    diffs = compare(load_standings(Path(args.baseline)), load_standings(Path(args.current)))
    table = Table(title="current - baseline, mean score with 95% CI (worse: CI wholly below 0)")
    for col in ("game", "policy", "baseline", "current", "diff", "95% CI", "verdict"):
        table.add_column(col, justify="left" if col in ("game", "policy", "verdict") else "right")
    for d in diffs:
        verdict = "[red]WORSE[/]" if d.worse else ("better" if d.lo > 0 else "same")
        table.add_row(
            d.game,
            d.policy,
            f"{d.baseline:+.3f}",
            f"{d.current:+.3f}",
            f"{d.diff:+.3f}",
            f"[{d.lo:+.3f}, {d.hi:+.3f}]",
            verdict,
        )
    console.print(table)
    worse = [d for d in diffs if d.worse]
    if worse:
        console.print(
            f"[red]{len(worse)} significantly worse: "
            + ", ".join(f"{d.policy} on {d.game}" for d in worse)
            + "[/]"
        )
        return 1
    console.print("[green]no policy is significantly worse than its baseline[/]")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from .episode import Clock, Episode, seat_label
    from .seats.claude import has_credentials
    from .seats.policy import ClaudePolicy, load_policy

    policies = [load_policy(p) for p in args.seat]
    clock = Clock(
        play_budget_seconds=args.budget, llm_timeout_seconds=args.timeout, pace_seconds=args.pace
    )
    out = args.out or f"runs/episodes/{args.game}-{args.seed or 'drawn'}.jsonl"

    def show(event: dict) -> None:
        if event["type"] == "ply":
            origin = (
                ""
                if event["origin"] in ("scripted", "model")
                else f"  [{event['origin']}: {event['cause']}]"
            )
            say = f'  "{event["say"]}"' if event.get("say") else ""
            console.print(f"{event['ply'] + 1:>4}  {event['feed']}{origin}{say}")
        elif event["type"] == "deadline":
            console.print("[yellow]wall clock: the episode settles now[/]")

    episode = Episode(
        args.game,
        policies,
        seed=args.seed,
        clock=clock,
        out=out,
        record_calls=not args.no_calls,
        seat_transcripts=args.transcripts,
        on_event=show,
    )
    if any(isinstance(p, ClaudePolicy) for p in policies) and not has_credentials():
        console.print(
            f"[yellow]ANTHROPIC_API_KEY is not set: Claude seats are played by the "
            f"{episode.family.FALLBACK} baseline and recorded as origin 'fallback'.[/]"
        )
    names = ", ".join(f"{a} ({p.name})" for a, p in zip(episode.aliases, policies, strict=True))
    console.print(f"[bold]{episode.state.resolved_game}[/] seed {episode.seed}: {names}")
    import asyncio

    viewer = None
    if args.live:
        from pathlib import Path

        from .viewer import ViewerServer

        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text("")  # the viewer may open the stream before the first line
        viewer = ViewerServer(Path(out).parent, port=args.port).start()
        console.print(f"live: [bold]{viewer.url}/episode?path={Path(out).name}&live=1[/]")
    results = asyncio.run(episode.run())
    winner = results.get("winner")
    who = (
        "draw"
        if winner is None
        else f"{episode.aliases[winner]} ({seat_label(2, winner, '')}) wins"
    )
    if episode.seats > 2:
        who = f"shared score {results['score'][0]}"
    console.print(
        f"[bold]{who}[/]: {results['reason']} / {results['ending']} after "
        f"{results['plies']} plies; score {results['score']}"
    )
    console.print(f"replay: {out}   (check it: coworld recheck {out})")
    if viewer is not None:
        console.print("the viewer keeps serving the replay; Ctrl-C stops it")
        try:
            import threading

            threading.Event().wait()
        except KeyboardInterrupt:
            viewer.stop()
    return 0


def _cmd_recheck(args: argparse.Namespace) -> int:
    from .replay import recheck

    results = recheck(args.replay)
    console.print(
        f"[green]ok[/]: {args.replay} re-derives from its seed; "
        f"{results['ending']}, score {results['score']}"
    )
    return 0


def _cmd_view(args: argparse.Namespace) -> int:
    from pathlib import Path

    import uvicorn

    from .viewer import Site, create_app

    target = Path(args.path)
    if not target.exists():
        console.print(
            f"[red]error:[/] {target} does not exist; give a replay (.jsonl), a league "
            "directory or its league.db"
        )
        return 2
    site = Site(target)
    url = f"http://{args.host}:{args.port}/"
    if site.replay:
        url += f"episode?path={site.replay}"
    console.print(f"coworld viewer: [bold]{url}[/]   (Ctrl-C stops it)")
    uvicorn.run(create_app(target), host=args.host, port=args.port, log_level="warning")
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
        epilog=(
            "Start with `coworld games`, then `coworld play hex -s tactician -s random`,\n"
            "`coworld demo` (the default league) and `coworld league run LEAGUE.toml`."
        ),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("games", help="list the games, their seats and baselines")
    p.set_defaults(run=_cmd_games)

    p = sub.add_parser("demo", help="run the built-in default league (every baseline, every game)")
    p.add_argument("--episodes", type=int, default=None, help="episodes per pairing (default 400)")
    p.add_argument(
        "--fresh", action="store_true", help="discard earlier results of the demo league"
    )
    p.set_defaults(run=_cmd_demo)

    league = sub.add_parser("league", help="run, read and compare leagues")
    lsub = league.add_subparsers(dest="league_command", metavar="COMMAND", required=True)
    p = lsub.add_parser("run", help="run (or resume) a league file")
    p.add_argument("league", help="a league file (.toml); see README for the format")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument(
        "--address", help="Ray cluster address (ray backend; default: start a local one)"
    )
    p.add_argument("--fresh", action="store_true", help="discard earlier results of this league")
    p.set_defaults(run=_cmd_league_run)
    p = lsub.add_parser("table", help="print standings from a league database")
    p.add_argument("database", help="league.db or the league's output directory")
    p.add_argument("--league", help="which league in the database (default: the latest)")
    p.set_defaults(run=_cmd_league_table)
    p = lsub.add_parser(
        "compare", help="regression gate: exit 1 if a policy got significantly worse"
    )
    p.add_argument("baseline", help="league database/directory or exported standings.json")
    p.add_argument("current", help="league database/directory or exported standings.json")
    p.set_defaults(run=_cmd_league_compare)

    p = sub.add_parser("play", help="play one episode with a live feed and write its replay")
    p.add_argument("game", choices=GAMES, metavar="GAME", help="a game id (see `coworld games`)")
    p.add_argument(
        "-s",
        "--seat",
        action="append",
        required=True,
        help="a baseline name or a policy file (.toml/.md, or .py) per seat, in seat order",
    )
    p.add_argument("--seed", type=int, default=0, help="episode seed; 0 draws one (default)")
    p.add_argument("--out", help="replay path (default runs/episodes/GAME-SEED.jsonl)")
    p.add_argument("--budget", type=float, default=900.0, help="playBudgetSeconds (default 900)")
    p.add_argument("--timeout", type=float, default=60.0, help="llmTimeoutSeconds (default 60)")
    p.add_argument("--pace", type=float, default=0.0, help="paceSeconds between plies (default 0)")
    p.add_argument(
        "--no-calls",
        action="store_true",
        help="do not keep model prompts and raw replies beside the replay",
    )
    p.add_argument(
        "--transcripts",
        action="store_true",
        help="also write each seat's public (redacted) transcript",
    )
    p.add_argument(
        "--live", action="store_true", help="stream the episode to the browser viewer as it happens"
    )
    p.add_argument("--port", type=int, default=8765, help="viewer port with --live (default 8765)")
    p.set_defaults(run=_cmd_play)

    p = sub.add_parser("recheck", help="re-simulate a replay from its seed and verify every event")
    p.add_argument("replay", help="a replay file (.jsonl)")
    p.set_defaults(run=_cmd_recheck)

    p = sub.add_parser("view", help="watch replays and league results in the browser")
    p.add_argument("path", help="a replay (.jsonl), a league directory, or a league.db")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1 only)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.set_defaults(run=_cmd_view)

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
        "-n", "--episodes", type=int, default=1000, help="episodes to play (default 1000)"
    )
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
