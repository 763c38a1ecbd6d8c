"""Finding the one JSON object in a model's reply, wherever the model put it."""

from __future__ import annotations

import json
from typing import Any

from ..errors import ReplyRejected

#: How many `{` positions are tried before giving up (bounds the work on hostile text).
MAX_ATTEMPTS = 64


def extract_json_object(text: object, *, key: str | None = None) -> dict[str, Any]:
    """The first JSON object in `text`: bare, inside markdown fences, or with prose
    around it. With `key`, the first object holding that key wins over earlier ones.

    Raises `ReplyRejected` (cause "unparseable") and nothing else."""
    if not isinstance(text, str):
        raise ReplyRejected(f"the reply is {type(text).__name__}, not text", "unparseable")
    decoder = json.JSONDecoder()
    first: dict[str, Any] | None = None
    start = text.find("{")
    for _ in range(MAX_ATTEMPTS):
        if start < 0:
            break
        try:
            obj, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        if isinstance(obj, dict):
            if key is None or key in obj:
                return obj
            if first is None:
                first = obj
        start = text.find("{", end)
    if first is not None:
        return first
    raise ReplyRejected(
        "no JSON object found in the reply; answer with one JSON object such as "
        '{"move": "...", "say": "...", "notes": "..."}',
        "unparseable",
    )
