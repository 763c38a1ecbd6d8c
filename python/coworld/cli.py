"""The `coworld` command."""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from rich.console import Console
from rich.markup import escape

from . import GAMES, _core, simulate
from .cli_reference import add_commands, add_exit_codes, add_version
from .errors import (
    I64,
    MAX_EPISODES,
    MAX_OPENINGS,
    MAX_THREADS,
    ConfigError,
    CoworldError,
    InfrastructureStop,
)
from .exit_codes import ExitCode
from .games import catalog
from .seats.infra import DEFAULT_PATIENCE_SECONDS
from .tables import Table

if TYPE_CHECKING:
    from .league import LeagueConfig
    from .league.gate import GateStep
    from .league.stats import Rating

console = Console()


def _cmd_games(args: argparse.Namespace) -> int:
    narrow = console.width < 100  # then widths that fit 80 columns with every id whole
    table = Table(title="coworld games", pad_edge=not narrow)
    table.add_column("id", no_wrap=True)
    for column in ("family", "seats", "info", "baselines", "origin"):
        table.add_column(
            column,
            min_width=15 if narrow and column == "origin" else None,  # abrupt_dark_hex
            max_width=12 if narrow and column == "baselines" else None,  # conventions,
        )
    for gid, e in catalog().items():
        seats = e["seats"]
        span = "" if seats["min"] == seats["max"] else f" ({seats['min']}-{seats['max']})"
        table.add_row(
            gid,
            e["family"],
            f"{seats['default']}{span}",
            "hidden" if e["hidden"] else "perfect",
            ", ".join(b["name"] for b in e["baselines"]),
            e["origin"],
        )
    console.print(table)
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .seats.policy import POLICY_FILES
    from .sim_report import as_csv, as_json, endings, report_rows
    from .simulate import SimResult

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


def _run_league(
    config: LeagueConfig,
    *,
    backend: str,
    address: str | None,
    fresh: bool,
    redo_infra: bool = False,
) -> int:
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
    report = LeagueRun(
        config, backend=backend, address=address, fresh=fresh, redo_infra=redo_infra
    ).run()
    _print_standings(config.database, config.name, partial=bool(report.incomplete))
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
    return _league_exit(report)


def _league_exit(report: Any) -> ExitCode:
    """A league's exit code: a budget stop, a policy that ended its worker process
    (the runner's "fix the policy": bad input), or voids and stops by the API."""
    if report.budget_stopped:
        return ExitCode.BUDGET
    if report.policy_stopped and not report.voided:
        return ExitCode.BAD_INPUT
    return ExitCode.INFRASTRUCTURE if report.stopped or report.voided else ExitCode.OK


def _print_standings(
    database: str | Path, league: str | None = None, *, partial: bool = False
) -> None:
    from .league import LeagueDB, standings
    from .league.bradley_terry import ratings, unrated
    from .league.engine import CUT_CAUSES
    from .league.flags import alike_pairings, standing_flags, warnings
    from .league.ranking import reliability

    db = LeagueDB.open_existing(database)
    try:
        names = db.leagues()
        if not names:
            console.print("the database holds no league yet")
            return
        league = league or names[-1]
        if league not in names:
            raise ConfigError(
                f"{database}: no league named {league!r}; it holds {', '.join(names)}", "league"
            )
        blocks = db.blocks(league)
        count = db.count(league)
        voided = sum(1 for v in db.open_voids(league).values() if v[-1].cause not in CUT_CAUSES)
        spent, scored = db.spent(league), db.usage(league, voided=False)
        seed = int(db.config(league).get("seed", 0))
        alike = alike_pairings(db, league)
    finally:
        db.close()
    flagged = standing_flags(blocks, alike)
    void_note = f", {voided} void and not scored" if voided else ""
    title = "partial standings" if partial else "mean episode score"
    table = Table(title=f"league {league}: {title}, 95% CI ({count} episodes{void_note})")
    columns = ["game", "policy", "n", "seed pairs", "mean", "95% CI"]
    for col in columns + (["flags"] if flagged else []):
        table.add_column(col, justify="left" if col in ("game", "policy", "flags") else "right")
    last = None
    for s in standings(blocks):
        if last is not None and s.game != last:
            table.add_section()
        last = s.game
        ci = "-" if s.lo != s.lo else f"[{s.lo:+.3f}, {s.hi:+.3f}]"
        row = [s.game, s.policy, str(s.n), str(s.pairs), f"{s.mean:+.3f}", ci]
        if flagged:
            row.append(", ".join(flagged.get((s.policy, s.game), [])))
        table.add_row(*row)
    console.print(table)
    if flagged:
        console.print(
            "flags: alike = every episode of a pairing was the same game; fallback = most "
            "of the policy's decisions were played by the fallback baseline"
        )
    for line in warnings(blocks, alike):
        console.print(f"[yellow]warning: {escape(line)}[/]", soft_wrap=True)
    _print_ratings(ratings(blocks, seed), unrated(blocks))
    rel = {p: r for p, r in reliability(blocks).items() if r["decisions"]}
    if rel:
        console.print(_reliability_table(rel))
    if spent.calls:
        console.print(
            f"spent {spent.tokens:,} tokens (${spent.cost_usd:.2f}) in {spent.calls:,} calls; "
            f"scored episodes {scored.tokens:,} tokens (${scored.cost_usd:.2f}), the rest "
            "went to void, interrupted or killed episodes"
        )


def _reliability_table(rel: dict[str, dict[str, Any]]) -> Table:
    """Retry and fallback rates per policy and cause, in 80 columns: every seat that
    decides for itself (a Python policy is never retried: its retried share is 0)."""
    from .league.ranking import FALLBACK_CAUSES

    t = Table(title="reliability (Claude and Python seats): share of decisions")
    for col in ("policy", "decisions", "cause", "retried", "fallback", "tokens", "cost $"):
        t.add_column(col, justify="left" if col in ("policy", "cause") else "right")
    for p, r in rel.items():
        causes = [c for c in FALLBACK_CAUSES if r.get(f"retry_rate:{c}") or r[f"fallback_rate:{c}"]]
        for i, cause in enumerate(causes or ["-"]):
            first = i == 0
            t.add_row(
                escape(p) if first else "",
                f"{r['decisions']:,}" if first else "",
                cause,
                f"{r.get(f'retry_rate:{cause}', 0.0):.2%}" if cause != "-" else "",
                f"{r[f'fallback_rate:{cause}']:.2%}" if cause != "-" else "",
                f"{r['tokens']:,}" if first else "",
                f"{r['cost_usd']:.2f}" if first else "",
            )
        t.add_section()
    return t


def _print_ratings(rated: list[Rating], why_unrated: Sequence[str] = ()) -> None:
    for line in why_unrated:
        console.print(f"no Bradley-Terry ratings for {escape(line)}")
    if not rated:
        return
    table = Table(
        title="Bradley-Terry ratings (Elo, draws as half), 95% bootstrap CI over seed pairs"
    )
    for col in ("game", "policy", "games", "Elo", "95% CI"):
        table.add_column(col, justify="left" if col in ("game", "policy") else "right")
    last = None
    notes: dict[str, int] = {}  # each distinct note once, numbered, under the table
    for r in rated:
        if last is not None and r.game != last:
            table.add_section()
        last = r.game
        mark = f" ({notes.setdefault(r.note, len(notes) + 1)})" if r.note else ""
        table.add_row(
            r.game,
            r.policy + mark,
            str(r.games),
            f"{r.elo:+.0f}",
            f"[{r.lo:+.0f}, {r.hi:+.0f}]",
        )
    console.print(table)
    for note, number in notes.items():
        console.print(f"({number}) {escape(note)}")


def _cmd_league_run(args: argparse.Namespace) -> int:
    from .league import load_league

    config = load_league(args.league)
    if args.patience is not None:
        if args.patience <= 0:
            raise ConfigError("--patience must be greater than 0 seconds", "infra_patience")
        config = replace(config, infra_patience=args.patience)
    if args.batch:
        config = replace(config, mode="batch")
    if args.cancel:
        from .league.batch import cancel_batches

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
    from .league import load_league
    from .league.plan import METHOD, plan

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
            f"{r.input_tokens_max + r.output_tokens_max:,.0f}",
            f"{r.cost_usd:,.2f}",
            f"{r.batch_cost_usd:,.2f}",
        )
    console.print(t)
    calls = sum(r.calls for r in rows)
    calls_max = sum(r.calls_max for r in rows)
    tokens = sum(r.input_tokens_max + r.output_tokens_max for r in rows)
    cost = sum(r.cost_usd for r in rows)
    batch = sum(r.batch_cost_usd for r in rows)
    console.print(
        f"total: about {calls:,.0f} calls; up to {calls_max:,} calls, {tokens:,.0f} tokens, "
        f"${cost:,.2f} realtime or ${batch:,.2f} in batch mode ({METHOD}). "
        f"The budget reserves up to {max(r.reserve_per_call for r in rows):,} tokens "
        "per call in flight.",
        soft_wrap=False,
    )
    return 0


def _cmd_league_table(args: argparse.Namespace) -> int:
    _print_standings(args.database, args.league)
    return 0


def _cmd_league_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .league.ranking import compare, load_standings, voided

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
        verdict = "[red]WORSE[/]" if d.worse else ("better" if d.lo > 0 else _undecided(d))
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
    undecided = [d for d in diffs if not d.worse and not d.lo > 0]
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


def _undecided(d: Any) -> str:
    """What compare found when the interval holds 0: not a sameness, only no
    significant difference (or no interval at all)."""
    if d.lo != d.lo:
        return "no interval"
    return "not significant"


def _cmd_gate(args: argparse.Namespace) -> int:
    """Exit 0 not worse, 1 worse, 2 inconclusive; 3 for bad input (never 2)."""
    from pathlib import Path

    from .clock import Clock
    from .league.gate import GateConfig, Recorded, run_gate
    from .seats.policy import load_policy

    try:
        games = tuple(g.strip() for g in args.games.split(",") if g.strip())
        if not games:
            raise CoworldError("--games: name at least one two-seat game, e.g. --games hex")
        for g in games:
            if g not in GAMES:
                raise CoworldError(f"--games: unknown game {g!r}; known games: {', '.join(GAMES)}")
        candidate = load_policy(args.candidate)
        recorded = None
        if args.anchor:  # a build gate: REFERENCE is a league database [#policy]
            path, _, name = args.reference.partition("#")
            recorded = Recorded(Path(path), name or candidate.name)
        config = GateConfig(
            candidate=candidate,
            reference=load_policy(args.anchor or args.reference),
            recorded=recorded,
            games=games,
            elo0=args.elo0,
            elo1=args.elo1,
            alpha=args.alpha,
            beta=args.beta,
            batch=args.batch,
            max_episodes=args.max_episodes,
            seed=args.seed,
            out=Path(args.out),
            concurrency=args.concurrency,
            threads=args.threads,
            clock=Clock(llm_timeout_seconds=args.timeout),
            max_cost_usd=args.budget,
            infra_patience=args.patience,
            openings=args.openings,
        )
        config.check()
        bounds = config.bounds
        what = f"{config.candidate.name} vs {config.reference.name}"
        if recorded is not None:
            what = (
                f"{config.candidate.name} (this build) vs {recorded.policy} recorded in "
                f"{recorded.database}, both against {config.reference.name}"
            )
        console.print(
            f"gate {what} on {', '.join(games)}: "
            f"H0 elo {config.elo0:+g}, H1 elo {config.elo1:+g}, alpha {config.alpha}, "
            f"beta {config.beta}; LLR bounds [{bounds.lower:+.2f}, {bounds.upper:+.2f}]; "
            "openings "
            + ", ".join(f"{g} {config.league().openings_for(g)}" for g in games)
            + " plies"
        )

        def show(step: GateStep) -> None:
            elo = (
                "-" if step.elo != step.elo else f"{step.elo:+.1f} [{step.lo:+.1f}, {step.hi:+.1f}]"
            )
            label = "outcomes(0..1 by 1/8)" if recorded is not None else "penta(LL..WW)"
            penta = label + " " + " ".join(str(int(c)) for c in step.counts)
            console.print(
                f"batch {step.batch:>3}: {step.pairs:>5} pairs {step.episodes:>6} episodes  "
                f"LLR {step.llr:+.2f} in [{bounds.lower:+.2f}, {bounds.upper:+.2f}]  "
                f"Elo {elo}  {penta}"
            )

        result = run_gate(config, fresh=args.fresh, on_step=show)
    except CoworldError as err:
        console.print(f"[bold red]error:[/] {escape(str(err))}", soft_wrap=True)
        return _error_code(err)
    colour = {0: "green", 1: "red", 2: "yellow"}.get(result.exit_code, "red")
    last = result.steps[-1]
    if result.spent.calls:
        spent = result.spent
        budget = config.max_cost_usd
        cap = f" of the ${budget:.2f} budget" if budget is not None else ""
        console.print(
            f"spent {spent.tokens:,} tokens (${spent.cost_usd:.2f}{cap}) in {spent.calls:,} "
            "Claude calls, every run of this gate included"
        )
    if result.reason:
        console.print(f"[{colour}]{result.verdict}[/]: {escape(result.reason)}", soft_wrap=True)
    else:
        stopped = f" ({escape(result.stopped)}; rerun to resume)" if result.stopped else ""
        console.print(
            f"[{colour}]{result.verdict}[/]{stopped}: LLR {last.llr:+.2f} after {last.pairs} "
            f"seed pairs ({last.episodes} episodes); database {config.league().database}"
        )
    return result.exit_code


def _cmd_play(args: argparse.Namespace) -> int:
    from .clock import Clock
    from .episode import Episode, seat_label
    from .episode import run as run_episode
    from .seats.claude import has_credentials
    from .seats.human import HumanPolicy, HumanTable
    from .seats.policy import BaselinePolicy, ClaudePolicy, load_policy
    from .seats.python_policy import PythonPolicy
    from .viewer.play import HUMAN_PAGE_GRACE_SECONDS, play_budget, serve_play

    for flag, value in (("--budget", args.budget), ("--timeout", args.timeout)):
        if value is not None and value <= 0:
            raise ConfigError(f"{flag} must be greater than 0 seconds, not {value:g}", flag)
    humans = HumanTable(timeout=args.timeout)  # no clock for a person unless --timeout
    policies = [
        HumanPolicy(table=humans) if isinstance(p, HumanPolicy) else p
        for p in (load_policy(s) for s in args.seat)
    ]
    has_humans = any(isinstance(p, HumanPolicy) for p in policies)
    for notice in {n for p in policies if (n := getattr(p, "default_notice", None))}:
        console.print(f"[yellow]{escape(notice)}[/]", soft_wrap=True)
    # A game with a seat-count setting (Hanabi) is played at one seat per -s, as
    # VecEnv takes it from `opponents`; the replay's header records it for recheck.
    spec: str | dict[str, Any] = args.game
    seats = catalog()[args.game]["seats"]
    if "seats" in catalog()[args.game]["settings"]:
        if not seats["min"] <= len(policies) <= seats["max"]:
            raise ConfigError(
                f"{args.game} takes {seats['min']} to {seats['max']} seats (one -s each); "
                f"got {len(policies)} {'policy' if len(policies) == 1 else 'policies'}",
                "seat",
            )
        spec = {"game": args.game, "seats": len(policies)}
    clock = Clock(
        play_budget_seconds=args.budget or play_budget(has_humans, args.timeout),
        llm_timeout_seconds=args.timeout or 60.0,
        pace_seconds=args.pace,
    )
    # Draw the seed here so the replay is named after it and no two plays share a file.
    seed = args.seed or _core.draw_seed()
    out = args.out or f"runs/episodes/{args.game}-{seed}.jsonl"

    def show(event: dict) -> None:
        if event["type"] == "ply":
            # a move its seat made itself is plain; a retry or fallback names its cause
            origin = (
                f"  [{event['origin']}: {event['cause']}]"
                if event["origin"] in ("retry", "fallback")
                else ""
            )
            say = f'  "{event["say"]}"' if event.get("say") else ""
            # markers like [fallback: timeout] and model text are shown literally
            console.print(f"{event['ply'] + 1:>4}  " + escape(f"{event['feed']}{origin}{say}"))
            for why in _python_failures(event):  # a bot's exception, limit or bad answer
                console.print("        " + escape(why), style="yellow", soft_wrap=True)
            if waiting is not None:
                waiting.update(thinking(episode.state.active_seat))
        elif event["type"] == "deadline":
            console.print("[yellow]wall clock: the episode settles now[/]")

    episode = Episode(
        spec,
        policies,
        seed=seed,
        clock=clock,
        out=out,
        record_calls=not args.no_calls,
        seat_transcripts=args.transcripts,
        on_event=show,
        entropy=args.entropy,
    )
    if any(isinstance(p, ClaudePolicy) for p in policies) and not has_credentials():
        console.print(
            f"[yellow]ANTHROPIC_API_KEY is not set: Claude seats are played by the "
            f"{episode.family.FALLBACK} baseline and recorded as origin 'fallback'.[/]"
        )
    names = ", ".join(f"{a} ({p.name})" for a, p in zip(episode.aliases, policies, strict=True))
    variant = episode.state.config.get("variant")  # fog: its port, or "original variant (...)"
    label = f" · {variant} ·" if variant else ""
    console.print(f"[bold]{episode.state.resolved_game}[/]{label} seed {episode.seed}: {names}")

    viewer = serve_play(args, out, episode, humans if has_humans else None, console)

    # A model or a Python policy may take seconds a move: say who the feed waits on
    # (a terminal only; the status line is erased when the next move prints).
    def thinking(seat: int | None) -> str:
        if seat is None or isinstance(policies[seat], BaselinePolicy):
            return "playing"
        return escape(f"waiting for {episode.aliases[seat]} ({policies[seat].name})")

    waiting = None
    if not all(isinstance(p, BaselinePolicy) for p in policies):
        waiting = console.status(thinking(episode.state.active_seat))
        waiting.start()
    try:
        results = run_episode(episode)
    finally:
        if waiting is not None:
            waiting.stop()
        if viewer is not None and not args.live:
            if episode.state.is_terminal:  # let each seat's page show the end
                humans.wait_for_pages(HUMAN_PAGE_GRACE_SECONDS)
            viewer.stop()
    winner = results.get("winner")
    who = (
        "draw"
        if winner is None
        else f"{episode.aliases[winner]} ({seat_label(2, winner, '')}) wins"
    )
    if catalog()[episode.state.resolved_game]["score"] != {"min": -1, "max": 1}:
        who = f"shared score {results['score'][0]}"  # Hanabi at any seat count
    console.print(
        f"[bold]{who}[/]: {results['reason']} / {results['ending']} after "
        f"{results['plies']} plies; score {results['score']}"
    )
    for seat, origins in enumerate(results.get("decisions") or ()):
        own = sum(origins.get(o, 0) for o in ("model", "retry", "policy", "fallback"))
        if origins.get("fallback") and isinstance(policies[seat], PythonPolicy):
            console.print(
                f"[yellow]{escape(episode.aliases[seat])} ({escape(policies[seat].name)}): the "
                f"{episode.family.FALLBACK} fallback played {origins['fallback']} of its {own} "
                "moves; the result is largely the fallback's[/]"
            )
    console.print(f"replay: {out}   (check it: coworld recheck {out})")
    if viewer is not None and args.live:
        console.print("the viewer keeps serving the replay; Ctrl-C stops it")
        try:
            import threading

            threading.Event().wait()
        except KeyboardInterrupt:
            viewer.stop()
    return 0


def _python_failures(event: dict[str, Any]) -> list[str]:
    """Why a Python policy's decision fell back: the reason each failed attempt records
    (`ZeroDivisionError: division by zero (at bot.py line 4: ...)`)."""
    if event["origin"] != "fallback":
        return []
    return [
        f"{a['cause']}: {a['reason']}"
        for a in event.get("attempts") or ()
        if a.get("type") == "python" and a.get("reason")
    ]


def _cmd_recheck(args: argparse.Namespace) -> int:
    from .replay import ReplayMalformed, ReplayMismatch, recheck

    try:
        results = recheck(args.replay)
    except ReplayMismatch as err:  # name the file: the mismatch names the line
        console.print(f"[bold red]error:[/] {escape(f'{args.replay}: {err}')}", soft_wrap=True)
        return ExitCode.BAD_INPUT if isinstance(err, ReplayMalformed) else ExitCode.WORSE
    console.print(
        f"[green]ok[/]: {args.replay} re-derives from its seed; "
        f"{results['ending']}, score {results['score']}"
    )
    return 0


def _cmd_view(args: argparse.Namespace) -> int:
    from pathlib import Path

    import uvicorn

    from .viewer import Site, create_app
    from .viewer.server import bind

    target = Path(args.path)
    if not target.exists():
        console.print(
            f"[red]error:[/] {target} does not exist; give a replay (.jsonl), a league "
            "directory or its league.db"
        )
        return ExitCode.BAD_INPUT
    site = Site(target)
    sock = bind(args.host, args.port)  # a port in use: one line suggesting --port
    url = f"http://{args.host}:{args.port}/"
    if site.replay:
        url += f"episode?path={site.replay}"
    console.print(f"coworld viewer: [bold]{url}[/]   (Ctrl-C stops it)")
    config = uvicorn.Config(create_app(target), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _int_in(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in lo..hi, or a one-line usage error (never an
    OverflowError traceback from deep inside the core)."""
    span = f"in {lo}..{hi}" if hi is not None else f">= {lo}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < lo or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"must be an integer {span}, not {value}")
        return value

    parse.__name__ = "integer"  # argparse names the type in its message
    return parse


def _seconds(positive: bool) -> Callable[[str], float]:
    """An argparse type: finite seconds, above 0 (or at least 0), at most a week."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        low_ok = value > 0 if positive else value >= 0
        if not (low_ok and value <= 604_800):  # NaN fails too
            bound = "above 0" if positive else "at least 0"
            raise argparse.ArgumentTypeError(
                f"must be a number of seconds {bound} and at most 604800 (a week), not {text}"
            )
        return value

    parse.__name__ = "seconds"
    return parse


def _usd(text: str) -> float:
    """An argparse type: a finite amount of US dollars, at least 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < math.inf:  # NaN fails too
        raise argparse.ArgumentTypeError(f"must be a finite amount of USD, at least 0, not {text}")
    return value


def _default_openings() -> str:
    """The gate's default openings per game, as `gate --help` lists them."""
    by_count: dict[int, list[str]] = {}
    for gid, e in catalog().items():
        if e["seats"]["max"] == 2:
            by_count.setdefault(int(e["openings"]), []).append(gid)
    return "; ".join(f"{n} for {', '.join(ids)}" for n, ids in sorted(by_count.items()))


_SEED = _int_in(*I64)
_THREADS = _int_in(1, MAX_THREADS)


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 3 (bad input) in every command, not argparse's 2, which a CI
    script would read as "inconclusive"; subcommands inherit the class."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitCode.BAD_INPUT, f"{self.prog}: error: {message}\n")


def _error_code(err: BaseException) -> ExitCode:
    """The exit code of an error that ended a command: infrastructure and budget stops
    have their own; anything else a user can cause is bad input."""
    from .seats.budget import BudgetExhausted
    from .seats.infra import InfraFailure

    if isinstance(err, InfraFailure):
        return ExitCode.INFRASTRUCTURE
    if isinstance(err, BudgetExhausted):
        return ExitCode.BUDGET
    if isinstance(err, OSError) and not isinstance(
        err, FileNotFoundError | IsADirectoryError | NotADirectoryError | PermissionError
    ):
        return ExitCode.INFRASTRUCTURE  # a disk or database failure, not the user's input
    return ExitCode.BAD_INPUT


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

    p = sub.add_parser("games", help="list the games, their seats and baselines")
    p.set_defaults(run=_cmd_games)

    p = sub.add_parser("demo", help="run the built-in default league (every baseline, every game)")
    p.add_argument(
        "--episodes", type=_int_in(1), default=None, help="episodes per pairing (default 400)"
    )
    p.add_argument(
        "--fresh", action="store_true", help="discard earlier results of the demo league"
    )
    p.set_defaults(run=_cmd_demo)

    league = sub.add_parser("league", help="run, read and compare leagues")
    lsub = league.add_subparsers(dest="league_command", metavar="COMMAND", required=True)
    p = lsub.add_parser("run", help="run (or resume) a league file")
    p.add_argument("league", help="a league file (.toml); its keys: docs/leagues.md")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
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

    p = sub.add_parser(
        "gate",
        help="sequential test (pentanomial GSPRT): exit 0 not worse, 1 worse, 2 inconclusive",
        description=(
            "Play seed pairs of CANDIDATE against REFERENCE (baseline names or policy "
            "files) in batches until a generalised SPRT on the pentanomial results "
            "decides (with --anchor: the same policy on two engine builds, through a "
            "league database the other build recorded). Exit 0: not worse (H1, "
            "elo >= elo1); 1: worse (H0, elo <= elo0); "
            "2: inconclusive at --max-episodes, or when every seed pair replays the same "
            "games (deterministic policies: use --openings); 3: bad input; 4: stopped by "
            "infrastructure (an API outage past the patience, refused requests); 5: "
            "stopped by --budget. Resumable: rerun the same command after a kill."
        ),
    )
    p.add_argument("candidate", help="baseline name or policy file (.md/.toml/.py)")
    p.add_argument(
        "reference",
        help="baseline name or policy file; with --anchor, a league database (or its "
        "directory) another build recorded, optionally DB#POLICY (default: the candidate)",
    )
    p.add_argument(
        "--anchor",
        help="build gate: the opponent both builds play; the reference's episodes against "
        "it come from the database, the candidate's are played now on the same seeds",
    )
    p.add_argument("--games", required=True, help="comma-separated two-seat game ids")
    p.add_argument("--elo0", type=float, default=-10.0, help="H0: candidate - reference Elo (-10)")
    p.add_argument("--elo1", type=float, default=0.0, help="H1: candidate - reference Elo (0)")
    p.add_argument("--alpha", type=float, default=0.05, help="P(pass | H0) (0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="P(fail | H1) (0.05)")
    p.add_argument(
        "--batch", type=_int_in(1), default=16, help="seed pairs per game per batch (16)"
    )
    p.add_argument(
        "--max-episodes",
        type=_int_in(1),
        default=4000,
        help="cap on episodes over all games (4000)",
    )
    p.add_argument("--seed", type=_SEED, default=1, help="base seed (1)")
    p.add_argument(
        "--openings",
        type=_int_in(0, MAX_OPENINGS),
        default=None,
        help="random legal plies each seed pair opens with, the same in both seat orders "
        "(default per game: " + _default_openings() + ")",
    )
    p.add_argument("--out", default="runs/gate", help="output directory (runs/gate)")
    p.add_argument(
        "--concurrency", type=_int_in(1, 1024), default=4, help="Claude episodes in flight (4)"
    )
    p.add_argument("--threads", type=_THREADS, default=None, help="batch-simulator threads")
    p.add_argument("--timeout", type=_seconds(True), default=60.0, help="llmTimeoutSeconds (60)")
    p.add_argument(
        "--budget",
        type=_usd,
        default=None,
        metavar="USD",
        help="cap on what the gate's Claude calls cost, every run of it included (none)",
    )
    p.add_argument(
        "--patience",
        type=_seconds(True),
        default=DEFAULT_PATIENCE_SECONDS,
        help="seconds the API may be unavailable before the gate stops (exit 4) (300)",
    )
    p.add_argument("--fresh", action="store_true", help="discard earlier results of this gate")
    p.set_defaults(run=_cmd_gate)

    p = sub.add_parser(
        "play",
        help="play one episode with a live feed and write its replay",
        description="Play one episode with a live feed and write its replay. Hanabi is "
        "played at one seat per -s (2 to 5); the replay's header records the seat count, "
        "so `coworld recheck` re-derives it. --seed N plays the episode of engine seed N: "
        "a VecEnv's episode is rebuilt from coworld.episode_seed (docs/vecenv.md).",
    )
    p.add_argument("game", choices=GAMES, metavar="GAME", help="a game id (see `coworld games`)")
    p.add_argument(
        "-s",
        "--seat",
        action="append",
        required=True,
        help="a baseline name, a policy file (.toml/.md, or .py) or `human` (you, in the "
        "browser: docs/human-seats.md) per seat, in seat order; hanabi is played at as "
        "many seats as -s are given (2 to 5)",
    )
    p.add_argument("--seed", type=_SEED, default=0, help="episode seed; 0 draws one (default)")
    p.add_argument("--out", help="replay path (default runs/episodes/GAME-SEED.jsonl)")
    p.add_argument(
        "--entropy",
        help="the episode's own entropy (a replay header's `entropy`: 32 hex digits); with "
        "its --seed it replays the aliases and Python policies' RNG draws (default: fresh)",
    )
    p.add_argument(
        "--budget",
        type=_seconds(True),
        default=None,
        help="playBudgetSeconds (default 900; with a human seat and no --timeout, a week)",
    )
    p.add_argument(
        "--timeout",
        type=_seconds(True),
        default=None,
        help="llmTimeoutSeconds (default 60); also a human seat's seconds per move "
        "(default: no clock)",
    )
    p.add_argument(
        "--pace", type=_seconds(False), default=0.0, help="paceSeconds between plies (default 0)"
    )
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
    p.add_argument(
        "--port",
        type=_int_in(1, 65535),
        default=8765,
        help="viewer port with --live or a human seat (default 8765)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="viewer address with --live or a human seat (default 127.0.0.1 only)",
    )
    p.add_argument(
        "--live-wait",
        type=_seconds(False),
        default=60.0,
        help="with --live, seconds to wait for a browser before the first move (default 60)",
    )
    p.set_defaults(run=_cmd_play)

    p = sub.add_parser("recheck", help="re-simulate a replay from its seed and verify every event")
    p.add_argument("replay", help="a replay file (.jsonl)")
    p.set_defaults(run=_cmd_recheck)

    p = sub.add_parser("view", help="watch replays and league results in the browser")
    p.add_argument("path", help="a replay (.jsonl), a league directory, or a league.db")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1 only)")
    p.add_argument("--port", type=_int_in(1, 65535), default=8765, help="port (default 8765)")
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
        "-n",
        "--episodes",
        type=_int_in(1, MAX_EPISODES),
        default=1000,
        help="episodes to play (default 1000)",
    )
    p.add_argument("--seed", type=_SEED, default=0, help="base seed; 0 draws one (default)")
    p.add_argument(
        "--threads", type=_THREADS, default=None, help="worker threads (default: every core)"
    )
    p.add_argument(
        "--swap",
        action="store_true",
        help="also play the other seat order on the same seeds (two-seat games); adds a "
        "row per policy over both orders",
    )
    p.add_argument(
        "--openings",
        type=_int_in(0, MAX_OPENINGS),
        default=0,
        help="random legal plies each episode opens with, from its seed alone (default 0)",
    )
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the report as JSON")
    form.add_argument("--csv", action="store_true", help="print the rows as CSV")
    p.set_defaults(run=_cmd_simulate)
    add_exit_codes(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    from .seats.budget import BudgetExhausted

    try:
        return int(args.run(args))
    except InfrastructureStop as err:  # a rejected request, a database or disk failure
        console.print(f"[bold red]stopped:[/] {escape(str(err))}", soft_wrap=True)
        return ExitCode.INFRASTRUCTURE
    except (CoworldError, BudgetExhausted) as err:
        console.print(f"[bold red]error:[/] {escape(str(err))}", soft_wrap=True)
        return _error_code(err)
    except sqlite3.Error as err:  # a league database that fails outside a league's run
        console.print(f"[bold red]stopped:[/] league database: {escape(str(err))}", soft_wrap=True)
        return ExitCode.INFRASTRUCTURE
    except OSError as err:  # a file or directory the command cannot create or read
        where = f"{err.filename}: " if err.filename else ""
        console.print(
            f"[bold red]error:[/] {escape(where + (err.strerror or str(err)))}", soft_wrap=True
        )
        return _error_code(err)
    except KeyboardInterrupt as err:  # a league's own says what it stored
        console.print(
            f"interrupted: {escape(str(err))}" if str(err) else "interrupted", soft_wrap=True
        )
        return ExitCode.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
