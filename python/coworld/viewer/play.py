"""What `coworld play` serves: the live spectator page (`--live`) and the link of each
human seat, on one viewer server; and the clock a person at a seat plays under."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from .server import ViewerServer

#: Seconds each human seat's page is given to show the final position.
HUMAN_PAGE_GRACE_SECONDS = 10.0


def play_budget(has_humans: bool, timeout: float | None) -> float:
    """The episode's wall clock unless --budget is given: 900 s, or (a person at a seat
    and no --timeout) a week, so a person is never hurried."""
    return 604_800.0 if has_humans and timeout is None else 900.0


def serve_play(
    args: argparse.Namespace, out: str, episode: Any, humans: Any, console: Console
) -> Any:
    """Start the viewer for `play`: the live spectator page (--live), the link of
    each human seat. Returns the server, or None when neither is wanted."""
    if not args.live and humans is None:
        return None
    path = None
    if args.live:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text("")  # the viewer may open the stream before the first line
        path = Path(out).parent
    viewer = ViewerServer(path, host=args.host, port=args.port, humans=humans).start()
    where = "127.0.0.1 only (--host to change)" if args.host == "127.0.0.1" else args.host
    console.print(f"viewer listening on {where}, port {viewer.port}")
    if humans is not None:
        for seat, token in sorted(humans.attach(episode).items()):
            label = seat_name(episode, seat)
            console.print(  # one line, never wrapped: the link must stay whole
                f"seat {seat} ({label}), human: [bold]{viewer.url}/seat/{token}[/]",
                soft_wrap=True,
            )
    if args.live:
        console.print(
            f"live: [bold]{viewer.url}/episode?path={Path(out).name}&live=1[/]", soft_wrap=True
        )
        if humans is not None:
            console.print(
                "[yellow]the live page shows every seat's hidden state: a seat's player "
                "should not open it[/]"
            )
        elif args.live_wait > 0:
            console.print(
                f"waiting up to {args.live_wait:g} s for a browser to open the live page "
                "(--live-wait 0 starts at once; --pace S slows the game down)"
            )
            if not viewer.wait_for_spectator(args.live_wait):
                console.print("no browser came; playing on (the page replays it from the start)")
    return viewer


def seat_name(episode: Any, seat: int) -> str:
    """A seat as the terminal names it: its colour in two-seat games, and its alias."""
    from ..episode import seat_label

    colour = seat_label(episode.seats, seat, episode.aliases[seat])
    alias = episode.aliases[seat]
    return alias if colour == alias else f"{colour}, {alias}"
