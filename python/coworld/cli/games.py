"""`coworld games`: the catalogue as a table."""

from __future__ import annotations

import argparse
from typing import Any

from ..games import catalog
from ..tables import Table
from .output import console


def add_parser(sub: Any) -> None:
    p = sub.add_parser("games", help="list the games, their seats and baselines")
    p.set_defaults(run=_cmd_games)


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
