"""Finding the JSON object in a model's reply, wherever the model put it.

One extraction for every family; what differs between families is data, a
`JsonPolicy`: fog and the gauntlet take the first object (preferring one that
holds `move`) among prose and stray braces, Hanabi takes exactly one object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import ReplyRejected

#: How many `{` positions are tried before giving up (bounds the work on hostile text).
MAX_ATTEMPTS = 64
#: One decoder for every reply: building one costs more than decoding a short reply.
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class JsonPolicy:
    """How a family's replies hold their JSON object."""

    #: Prefer the first object holding this key over earlier ones (lenient mode).
    key: str | None = None
    #: The reply holds exactly one object: the first `{` must open a well-formed
    #: object and no second object may follow it.
    exactly_one: bool = False
    #: The example quoted when no object is found.
    example: str = '{"move": "...", "say": "...", "notes": "..."}'


LENIENT = JsonPolicy()


def extract_json_object(
    text: object, *, key: str | None = None, policy: JsonPolicy = LENIENT
) -> dict[str, Any]:
    """The JSON object in `text`: bare, inside markdown fences, or with prose around
    it, read as `policy` says (`key` overrides the policy's preferred key).

    Raises `ReplyRejected` (cause "unparseable") and nothing else."""
    if not isinstance(text, str):
        raise ReplyRejected(f"the reply is {type(text).__name__}, not text", "unparseable")
    if policy.exactly_one:
        return _exactly_one(text, policy)
    return _first(text, key if key is not None else policy.key, policy)


def _decode(text: str, start: int) -> tuple[Any, int] | None:
    try:
        return _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None


def _none_found(policy: JsonPolicy) -> ReplyRejected:
    return ReplyRejected(
        f"no JSON object found in the reply; answer with one JSON object such as {policy.example}",
        "unparseable",
    )


def _first(text: str, key: str | None, policy: JsonPolicy) -> dict[str, Any]:
    first: dict[str, Any] | None = None
    start = text.find("{")
    for _ in range(MAX_ATTEMPTS):
        if start < 0:
            break
        decoded = _decode(text, start)
        if decoded is None:
            start = text.find("{", start + 1)
            continue
        obj, end = decoded
        if isinstance(obj, dict):
            if key is None or key in obj:
                return obj
            if first is None:
                first = obj
        start = text.find("{", end)
    if first is not None:
        return first
    raise _none_found(policy)


def _exactly_one(text: str, policy: JsonPolicy) -> dict[str, Any]:
    start = text.find("{")
    if start < 0:
        raise _none_found(policy)
    try:
        obj, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as e:
        raise ReplyRejected(
            f"the JSON object is malformed ({e.msg} at character {e.pos - start})", "unparseable"
        ) from None
    except RecursionError:
        raise ReplyRejected("the JSON object is nested too deeply", "unparseable") from None
    following = text.find("{", end)
    if following >= 0 and _decode(text, following) is not None:
        raise ReplyRejected(
            "the reply holds more than one JSON object; send exactly one", "unparseable"
        )
    return obj
