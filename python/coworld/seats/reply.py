"""What a seat's reply becomes once read: one legal move plus its optional text."""

from __future__ import annotations

from dataclasses import dataclass

#: Text limits, in runes (code points); longer text is truncated, never rejected.
SAY_LIMIT = 140
NOTES_LIMIT = 400
BANNER_LIMIT = 80


def truncate(text: object, limit: int) -> str:
    """`text` as a string of at most `limit` runes (None and non-strings become "" or str())."""
    if text is None:
        return ""
    return str(text)[:limit]


@dataclass(frozen=True)
class Reply:
    """A parsed reply. `move` is canonical and legal in the state it was read against.

    say and banner reach spectators only; notes reach their author only; guess
    (fog) is audited, never scored.
    """

    move: str
    say: str = ""
    notes: str = ""
    guess: tuple[str, ...] = ()
    banner: str = ""
