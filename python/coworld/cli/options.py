"""Argument types of the commands: each rejects a bad value with one usage line."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from ..errors import I64, MAX_THREADS
from ..games import catalog


def int_in(lo: int, hi: int | None = None) -> Callable[[str], int]:
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


def seconds(positive: bool) -> Callable[[str], float]:
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


def usd(text: str) -> float:
    """An argparse type: a finite amount of US dollars, at least 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < math.inf:  # NaN fails too
        raise argparse.ArgumentTypeError(f"must be a finite amount of USD, at least 0, not {text}")
    return value


def default_openings() -> str:
    """The gate's default openings per game, as `gate --help` lists them."""
    by_count: dict[int, list[str]] = {}
    for gid, e in catalog().items():
        if e["seats"]["max"] == 2:
            by_count.setdefault(int(e["openings"]), []).append(gid)
    return "; ".join(f"{n} for {', '.join(ids)}" for n, ids in sorted(by_count.items()))


SEED = int_in(*I64)
THREADS = int_in(1, MAX_THREADS)
