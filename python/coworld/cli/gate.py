"""`coworld gate`: the sequential test (pentanomial GSPRT) of a candidate against a
reference, or of one policy on two engine builds."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from ..errors import MAX_OPENINGS, CoworldError
from ..games import GAMES
from ..seats.infra import DEFAULT_PATIENCE_SECONDS
from .options import SEED, THREADS, default_openings, int_in, seconds, usd
from .output import console, error_code

if TYPE_CHECKING:
    from ..league.gate import GateStep


def add_parser(sub: Any) -> None:
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
    p.add_argument("--batch", type=int_in(1), default=16, help="seed pairs per game per batch (16)")
    p.add_argument(
        "--max-episodes",
        type=int_in(1),
        default=4000,
        help="cap on episodes over all games (4000)",
    )
    p.add_argument("--seed", type=SEED, default=1, help="base seed (1)")
    p.add_argument(
        "--openings",
        type=int_in(0, MAX_OPENINGS),
        default=None,
        help="random legal plies each seed pair opens with, the same in both seat orders "
        "(default per game: " + default_openings() + ")",
    )
    p.add_argument("--out", default="runs/gate", help="output directory (runs/gate)")
    p.add_argument(
        "--concurrency", type=int_in(1, 1024), default=4, help="Claude episodes in flight (4)"
    )
    p.add_argument("--threads", type=THREADS, default=None, help="batch-simulator threads")
    p.add_argument("--timeout", type=seconds(True), default=60.0, help="llmTimeoutSeconds (60)")
    p.add_argument(
        "--budget",
        type=usd,
        default=None,
        metavar="USD",
        help="cap on what the gate's Claude calls cost, every run of it included (none)",
    )
    p.add_argument(
        "--patience",
        type=seconds(True),
        default=DEFAULT_PATIENCE_SECONDS,
        help="seconds the API may be unavailable before the gate stops (exit 4) (300)",
    )
    p.add_argument("--fresh", action="store_true", help="discard earlier results of this gate")
    p.set_defaults(run=_cmd_gate)


def _cmd_gate(args: argparse.Namespace) -> int:
    """Exit 0 not worse, 1 worse, 2 inconclusive; 3 for bad input (never 2)."""
    from pathlib import Path

    from ..clock import Clock
    from ..league.gate import GateConfig, Recorded, run_gate
    from ..seats.policy import load_policy

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
        return error_code(err)
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
