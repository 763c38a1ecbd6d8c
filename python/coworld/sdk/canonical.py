"""Canonical JSON: the one serialisation every SDK comparison is made on.

Views, transcripts and leak checks compare observations as canonical JSON text
(sorted keys, no whitespace, no NaN), so "bit-identical" means identical text,
and two views that differ only in dict insertion order are the same view.
"""

from __future__ import annotations

import json
import re
from typing import Any

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def canonical_json(value: Any) -> str:
    """`value` as canonical JSON text: sorted keys, compact separators, UTF-8, no NaN."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def as_json(value: Any) -> Any:
    """`value` after a JSON round trip (tuples become lists, int keys become strings)."""
    return json.loads(canonical_json(value))


def json_path(parts: tuple[Any, ...]) -> str:
    """A JSONPath for `parts`: `$.zones["hand:1"].count`, `$.history[3]`."""
    text = "$"
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.match(part):
            text += f".{part}"
        else:
            text += f"[{json.dumps(part)}]"
    return text


class _Absent:
    """Marks a key or index that one side lacks."""

    def __repr__(self) -> str:
        return "<absent>"


_MISSING = _Absent()


def first_difference(left: Any, right: Any) -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ, as (JSONPath, left part, right part).

    Both sides are compared after a JSON round trip. Objects are walked in sorted
    key order and arrays by index, so "first" is the first difference in the
    canonical text. A key present on one side only is reported with `"<absent>"`
    on the other; arrays of different length differ at the first missing index.
    None when the canonical texts are equal.
    """
    return _walk(as_json(left), as_json(right), ())


def _walk(left: Any, right: Any, parts: tuple[Any, ...]) -> tuple[str, Any, Any] | None:
    if isinstance(left, dict) and isinstance(right, dict):
        for key in sorted(set(left) | set(right)):
            found = _walk(left.get(key, _MISSING), right.get(key, _MISSING), (*parts, key))
            if found:
                return found
        return None
    if isinstance(left, list) and isinstance(right, list):
        for index in range(max(len(left), len(right))):
            a = left[index] if index < len(left) else _MISSING
            b = right[index] if index < len(right) else _MISSING
            found = _walk(a, b, (*parts, index))
            if found:
                return found
        return None
    if left is _MISSING or right is _MISSING or canonical_json(left) != canonical_json(right):
        return json_path(parts), left, right
    return None


def short(value: Any, limit: int = 80) -> str:
    """A value as JSON text cut to `limit` characters, for error messages."""
    text = repr(value) if value is _MISSING else canonical_json(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
