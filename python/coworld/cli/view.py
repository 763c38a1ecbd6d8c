"""`coworld view`: replays and league results in the browser."""

from __future__ import annotations

import argparse
from typing import Any

from ..exit_codes import ExitCode
from .options import int_in
from .output import console


def add_parser(sub: Any) -> None:
    p = sub.add_parser("view", help="watch replays and league results in the browser")
    p.add_argument("path", help="a replay (.jsonl), a league directory, or a league.db")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1 only)")
    p.add_argument("--port", type=int_in(1, 65535), default=8765, help="port (default 8765)")
    p.set_defaults(run=_cmd_view)


def _cmd_view(args: argparse.Namespace) -> int:
    from pathlib import Path

    import uvicorn

    from ..viewer import Site, create_app
    from ..viewer.server import bind

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
