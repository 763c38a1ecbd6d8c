"""`coworld demo` and `coworld league run | plan | table | compare`."""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from ..errors import ConfigError
from ..exit_codes import ExitCode
from ..league.backends import backend_names
from ..tables import Table
from .options import int_in
from .output import console
from .standings import print_standings

if TYPE_CHECKING:
    from ..league import LeagueConfig, LeagueReport


def add_parsers(sub: Any) -> None:
    """`demo`, then `league` and its commands."""
    p = sub.add_parser("demo", help="run the built-in default league (every baseline, every game)")
    p.add_argument(
        "--episodes", type=int_in(1), default=None, help="episodes per pairing (default 400)"
    )
    p.add_argument(
        "--fresh", action="store_true", help="discard earlier results of the demo league"
    )
    p.set_defaults(run=_cmd_demo)

    league = sub.add_parser("league", help="run, read and compare leagues")
    lsub = league.add_subparsers(dest="league_command", metavar="COMMAND", required=True)
    p = lsub.add_parser("run", help="run (or resume) a league file")
    p.add_argument("league", help="a league file (.toml); its keys: docs/leagues.md")
    p.add_argument(
        "--backend",
        choices=backend_names(),
        default="local",
        help="where the league plays: this machine, or a Ray cluster (default: local)",
    )
    p.add_argument(
        "--address", help="Ray cluster address (ray backend; default: start a local one)"
    )
    p.add_argument("--fresh", action="store_true", help="discard earlier results of this league")
    p.add_argument(
        "--redo",
        choices=("infra",),
        help="infra: play again every episode left void by API failures",
    )
    p.add_argument(
        "--patience",
        type=float,
        default=None,
        help="seconds a call may wait out API failures before its episode is void "
        "(default: the league's infra_patience, else 300)",
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="Claude episodes in rounds through the Message Batches API, at half price",
    )
    p.add_argument(
        "--cancel",
        action="store_true",
        help="cancel the batches an earlier run left in flight (recording what they "
        "answered) and stop",
    )
    p.set_defaults(run=_cmd_league_run)
    p = lsub.add_parser("plan", help="estimate a league's Claude calls, tokens and cost")
    p.add_argument("league", help="a league file (.toml)")
    p.set_defaults(run=_cmd_league_plan)
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


def _cmd_demo(args: argparse.Namespace) -> int:
    """The main job on the built-in defaults: the demo league."""
    import tomllib
    from importlib.resources import files

    from ..league import parse_league

    raw = tomllib.loads(files("coworld.league").joinpath("demo.toml").read_text())
    if args.episodes:
        raw["episodes"] = args.episodes
    config = parse_league(raw, base_dir=Path.cwd())
    return _run_league(config, backend="local", address=None, fresh=args.fresh)


def _run_league(
    config: LeagueConfig,
    *,
    backend: str,
    address: str | None,
    fresh: bool,
    redo_infra: bool = False,
) -> int:
    from ..league import LeagueRun
    from ..seats.claude import has_credentials
    from ..seats.policy import ClaudePolicy

    for notice in config.notices:
        console.print(f"[yellow]{escape(config.name)}: {escape(notice)}[/]")
    if any(isinstance(p, ClaudePolicy) for p in config.policies) and not has_credentials():
        console.print(
            "[yellow]ANTHROPIC_API_KEY is not set: Claude seats are played by each "
            "family's fallback baseline and recorded as origin 'fallback'.[/]"
        )
    report = LeagueRun(
        config, backend=backend, address=address, fresh=fresh, redo_infra=redo_infra
    ).run()
    print_standings(config.database, config.name, partial=bool(report.incomplete))
    _print_report(config, report)
    return _league_exit(report)


def _print_report(config: LeagueConfig, report: LeagueReport) -> None:
    """What the run did beyond the standings: incomplete pairings, API pauses, a budget
    stop, counts, the files it wrote, stops and voids."""
    if report.incomplete:
        shown = ", ".join(f"{k} ({done}/{n})" for k, done, n in report.incomplete[:6])
        more = len(report.incomplete) - 6
        console.print(
            f"[yellow]partial standings: {len(report.incomplete)} pairings incomplete: "
            f"{escape(shown)}{f', and {more} more' if more > 0 else ''}[/]"
        )
    for pause in report.pauses:
        since = time.strftime("%H:%M:%S", time.localtime(pause.since))
        length = f"{pause.until - pause.since:.0f} s" if pause.until else "until the end"
        console.print(
            f"[yellow]API unavailable ({escape(pause.cause)}) from {since}: "
            f"dispatching paused for {length}[/]"
        )
    if report.budget_stopped:
        console.print(
            "[yellow]budget reached: the league stopped cleanly; rerun the same "
            "command after raising \\[budget] to continue.[/]"
        )
    console.print(
        f"{report.played_now} episodes played now, {report.episodes} in the league, "
        f"{report.seconds:.1f} s"
    )
    if report.played_now == 0 and not report.missing:
        console.print("every scheduled episode was already in the database (add --fresh to replay)")
    for kind, path in report.exports.items():
        console.print(f"{kind:>4}: {path}")
    console.print(f"database: {report.database}")
    console.print(f"watch the replays: [bold]coworld view {escape(str(config.out))}[/]")
    if report.stopped:
        console.print(
            f"[red]the league stopped: {escape(report.stopped)}; "
            f"{report.missing} scheduled episodes are not scored; rerun to resume[/]"
        )
    if report.voided:
        causes = ", ".join(f"{n} {c}" for c, n in sorted(report.voided.items()))
        console.print(
            f"[red]{sum(report.voided.values())} episodes are void ({escape(causes)}): "
            "not scored; rerun with --redo infra to play them again[/]"
        )


def _league_exit(report: LeagueReport) -> ExitCode:
    """A league's exit code: a budget stop, a policy that ended its worker process
    (the runner's "fix the policy": bad input), or voids and stops by the API."""
    if report.budget_stopped:
        return ExitCode.BUDGET
    if report.policy_stopped and not report.voided:
        return ExitCode.BAD_INPUT
    return ExitCode.INFRASTRUCTURE if report.stopped or report.voided else ExitCode.OK


def _cmd_league_run(args: argparse.Namespace) -> int:
    from ..league import load_league

    config = load_league(args.league)
    if args.patience is not None:
        if args.patience <= 0:
            raise ConfigError("--patience must be greater than 0 seconds", "infra_patience")
        config = replace(config, infra_patience=args.patience)
    if args.batch:
        config = replace(config, mode="batch")
    if args.cancel:
        from ..league.batch import cancel_batches

        canceled = cancel_batches(config, console)
        console.print(f"{canceled} batches of league {escape(config.name)} canceled")
        return 0
    return _run_league(
        config,
        backend=args.backend,
        address=args.address,
        fresh=args.fresh,
        redo_infra=args.redo == "infra",
    )


def _cmd_league_plan(args: argparse.Namespace) -> int:
    from ..league import load_league
    from ..league.plan import METHOD, plan, plan_total

    config = load_league(args.league)
    rows = plan(config)
    if not rows:
        console.print(f"league {escape(config.name)} has no Claude seats: it costs nothing")
        return 0
    t = Table(title=f"league {escape(config.name)}: estimated Claude calls and cost")
    for col in ("pairing", "episodes", "calls", "calls max", "tokens max", "max $", "batch $"):
        t.add_column(col, justify="left" if col == "pairing" else "right")
    for r in rows:
        t.add_row(
            escape(r.pairing.replace("|", ": ").replace("/", " / ")),  # wraps between ids
            f"{r.episodes:,}",
            f"{r.calls:,.0f}",
            f"{r.calls_max:,}",
            f"{r.tokens_max:,.0f}",
            f"{r.cost_usd:,.2f}",
            f"{r.batch_cost_usd:,.2f}",
        )
    console.print(t)
    total = plan_total(rows)
    console.print(
        f"total: about {total.calls:,.0f} calls; up to {total.calls_max:,} calls, "
        f"{total.tokens_max:,.0f} tokens, ${total.cost_usd:,.2f} realtime or "
        f"${total.batch_cost_usd:,.2f} in batch mode ({METHOD}). The budget reserves up to "
        f"{total.reserve_per_call:,} tokens per call in flight.",
        soft_wrap=False,
    )
    return 0


def _cmd_league_table(args: argparse.Namespace) -> int:
    print_standings(args.database, args.league)
    return 0


def _cmd_league_compare(args: argparse.Namespace) -> int:
    from ..league.ranking import compare, load_standings, voided
    from ..league.summary import NO_INTERVAL, NOT_SIGNIFICANT, WORSE, verdict

    diffs = compare(load_standings(Path(args.baseline)), load_standings(Path(args.current)))
    for side, path in (("baseline", args.baseline), ("current", args.current)):
        n = voided(Path(path))
        if n:
            console.print(
                f"[yellow]{side}: {n} void episodes are not scored (only complete, clean "
                "episodes are compared)[/]"
            )
    table = Table(title="current - baseline, mean score with 95% CI (worse: CI wholly below 0)")
    for col in ("game", "policy", "baseline", "current", "diff", "95% CI", "verdict"):
        table.add_column(col, justify="left" if col in ("game", "policy", "verdict") else "right")
    for d in diffs:
        found = verdict(d)
        table.add_row(
            d.game,
            d.policy,
            f"{d.baseline:+.3f}",
            f"{d.current:+.3f}",
            f"{d.diff:+.3f}",
            f"[{d.lo:+.3f}, {d.hi:+.3f}]",
            "[red]WORSE[/]" if found == WORSE else found,
        )
    console.print(table)
    worse = [d for d in diffs if verdict(d) == WORSE]
    if worse:
        console.print(
            f"[red]{len(worse)} significantly worse: "
            + ", ".join(f"{d.policy} on {d.game}" for d in worse)
            + "[/]"
        )
        return 1
    undecided = [d for d in diffs if verdict(d) in (NOT_SIGNIFICANT, NO_INTERVAL)]
    if undecided:
        shown = "; ".join(
            f"{d.policy} on {d.game} {d.diff:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}]"
            for d in undecided[:3]
        )
        more = f"; and {len(undecided) - 3} more" if len(undecided) > 3 else ""
        console.print(
            f"{len(undecided)} not significantly different (the 95% interval of the "
            f"difference holds 0): {escape(shown)}{more}"
        )
    console.print("[green]no policy is significantly worse than its baseline[/]")
    return ExitCode.OK
