"""`coworld play` (one episode with a live feed, its replay written) and `coworld
recheck` (a replay re-derived from its seed)."""

from __future__ import annotations

import argparse
from typing import Any

from rich.markup import escape

from .. import _core
from ..errors import ConfigError
from ..exit_codes import ExitCode
from ..games import GAMES, catalog
from .options import SEED, int_in, seconds
from .output import console


def add_parsers(sub: Any) -> None:
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
    p.add_argument("--seed", type=SEED, default=0, help="episode seed; 0 draws one (default)")
    p.add_argument("--out", help="replay path (default runs/episodes/GAME-SEED.jsonl)")
    p.add_argument(
        "--entropy",
        help="the episode's own entropy (a replay header's `entropy`: 32 hex digits); with "
        "its --seed it replays the aliases and Python policies' RNG draws (default: fresh)",
    )
    p.add_argument(
        "--budget",
        type=seconds(True),
        default=None,
        help="playBudgetSeconds (default 900; with a human seat and no --timeout, a week)",
    )
    p.add_argument(
        "--timeout",
        type=seconds(True),
        default=None,
        help="llmTimeoutSeconds (default 60); also a human seat's seconds per move "
        "(default: no clock)",
    )
    p.add_argument(
        "--pace", type=seconds(False), default=0.0, help="paceSeconds between plies (default 0)"
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
        type=int_in(1, 65535),
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
        type=seconds(False),
        default=60.0,
        help="with --live, seconds to wait for a browser before the first move (default 60)",
    )
    p.set_defaults(run=_cmd_play)

    p = sub.add_parser("recheck", help="re-simulate a replay from its seed and verify every event")
    p.add_argument("replay", help="a replay file (.jsonl)")
    p.set_defaults(run=_cmd_recheck)


def _cmd_play(args: argparse.Namespace) -> int:
    from ..clock import Clock
    from ..episode import Episode, seat_label
    from ..episode import run as run_episode
    from ..seats.claude import has_credentials
    from ..seats.human import HumanPolicy, HumanTable
    from ..seats.policy import BaselinePolicy, ClaudePolicy, load_policy
    from ..seats.python_policy import PythonPolicy
    from ..viewer.play import HUMAN_PAGE_GRACE_SECONDS, play_budget, serve_play

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
    from ..replay import ReplayMalformed, ReplayMismatch, recheck

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
