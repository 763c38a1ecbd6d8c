"""Reading a Messages API answer as it streams in.

The client asks for a streamed answer because its first event tells the API's
acceptance from the model's generation: until an event arrives, the wait is the
infrastructure's (a connection accepted and never answered is an outage, not a
slow model); after it, the time is the model's. The events are assembled into
the message JSON the API would have sent unstreamed.

A 200 answer that cannot be read (an HTML page from a proxy, an `error` object,
no `usage`, a stream that ends early) raises `Unusable`: an infrastructure
failure, retried like a 529, with whatever usage the answer reported.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import orjson

#: The cause of an `error` the API sends inside a 200 answer, by its type: the
#: HTTP status it stands for (so that an overload is retried as a 529 is).
ERROR_CAUSES = {
    "invalid_request_error": "http-400",
    "authentication_error": "http-401",
    "permission_error": "http-403",
    "not_found_error": "http-404",
    "request_too_large": "http-413",
    "rate_limit_error": "http-429",
    "api_error": "http-500",
    "timeout_error": "http-504",
    "overloaded_error": "http-529",
}
#: The cause of any other answer the client cannot read.
UNREADABLE = "unreadable"
_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


class Unusable(Exception):
    """A 200 answer the client cannot read. `usage`: the usage it reported (billed),
    or None."""

    def __init__(self, cause: str, detail: str, usage: Mapping[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.cause = cause
        self.detail = detail
        self.usage = billed_usage(usage)


def billed_usage(raw: Any) -> dict[str, int] | None:
    """The token counts of a `usage` object that holds any (others are dropped)."""
    if not isinstance(raw, Mapping):
        return None
    usage = {k: v for k in _USAGE_FIELDS if type(v := raw.get(k)) is int and v >= 0}
    return usage or None


async def text_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The lines of a body read as bytes (the HTTP client's own line reader decodes
    text chunk by chunk and looks up the charset each time: ~3x the CPU)."""
    tail = b""
    async for chunk in chunks:
        *lines, tail = (tail + chunk).split(b"\n")
        for line in lines:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
    if tail:
        yield tail.decode("utf-8", "replace")


async def first_line(lines: AsyncIterator[str]) -> str:
    """The answer's first non-blank line: the API has accepted the request."""
    try:
        async for line in lines:
            if line.strip():
                return line
    except Exception as err:  # the transport's own error types: the connection broke
        raise Unusable(
            "connection", f"the connection broke before the answer: {err}"[:240]
        ) from None
    raise Unusable(UNREADABLE, "the answer was empty")


async def read_answer(first: str, lines: AsyncIterator[str]) -> dict[str, Any]:
    """The message, from its event stream (or from a whole JSON body, as a server
    that ignores `stream` sends). Raises `Unusable` for anything else."""
    if first.lstrip().startswith("{"):
        text = first + "\n".join(await _rest(lines))
        try:
            return checked(orjson.loads(text))
        except ValueError:
            raise Unusable(UNREADABLE, f"the answer is not JSON: {_excerpt(text)}") from None
    if not first.startswith(("event:", "data:", ":")):
        rest = " ".join((await _rest(lines))[:3])
        raise Unusable(UNREADABLE, f"the answer is not an event stream: {_excerpt(first, rest)}")
    stream = _Assembly()
    stream.line(first)
    try:
        async for line in lines:
            if stream.line(line):
                return checked(stream.message)
    except Unusable:
        raise
    except Exception as err:  # the transport's own error types: the connection broke
        raise Unusable(
            "connection",
            f"the connection broke while the answer streamed in: {err}"[:240],
            stream.usage,
        ) from None
    raise Unusable(UNREADABLE, "the event stream ended before the message did", stream.usage)


class _Assembly:
    """The message built from its events, one `data:` line at a time."""

    def __init__(self) -> None:
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.usage: dict[str, Any] = {}

    def line(self, line: str) -> bool:
        """Take one line of the stream; True once the message is complete."""
        if not line.startswith("data:"):
            return False
        try:
            return self._event(orjson.loads(line[5:]))  # ~3x faster than json's
        except (ValueError, LookupError, TypeError, AttributeError) as err:
            raise Unusable(
                UNREADABLE, f"an event could not be read ({err!r}): {_excerpt(line)}", self.usage
            ) from None

    def _event(self, event: dict[str, Any]) -> bool:
        kind = event["type"]
        if kind == "message_start":
            self.message = dict(event["message"])
            self.usage.update(self.message.get("usage") or {})
        elif kind == "content_block_start":
            self.blocks[event["index"]] = dict(event["content_block"])
        elif kind == "content_block_delta":
            block, delta = self.blocks[event["index"]], event["delta"]
            for key in ("text", "thinking"):
                if delta["type"] == f"{key}_delta":
                    block[key] = block.get(key, "") + delta[key]
        elif kind == "message_delta":
            self.message.update({k: v for k, v in event["delta"].items() if v is not None})
            self.usage.update(
                {k: v for k, v in (event.get("usage") or {}).items() if v is not None}
            )
        elif kind == "error":
            raise _error(event, self.usage)
        elif kind == "message_stop":
            self.message["content"] = [self.blocks[i] for i in sorted(self.blocks)]
            self.message["usage"] = self.usage
            return True
        return False


def checked(message: Any) -> dict[str, Any]:
    """`message` if it is a message the seat can read: content blocks and usage."""
    if not isinstance(message, dict):
        raise Unusable(UNREADABLE, f"the answer is {type(message).__name__}, not a message")
    if message.get("type") == "error":
        raise _error(message, None)
    usage = billed_usage(message.get("usage"))
    if usage is None or "input_tokens" not in usage or "output_tokens" not in usage:
        raise Unusable(UNREADABLE, "the answer reports no usage", usage)
    content = message.get("content")
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        raise Unusable(UNREADABLE, "the answer has no list of content blocks", usage)
    if any(not isinstance(b.get("text", ""), str) for b in content):
        raise Unusable(UNREADABLE, "a content block's text is not a string", usage)
    return message


def _error(event: Mapping[str, Any], usage: Mapping[str, Any] | None) -> Unusable:
    error = event.get("error")
    error = error if isinstance(error, Mapping) else {}
    kind = str(error.get("type", ""))
    message = str(error.get("message", ""))[:200]
    return Unusable(
        ERROR_CAUSES.get(kind, UNREADABLE), f"the API answered an error: {kind} {message}", usage
    )


async def _rest(lines: AsyncIterator[str]) -> list[str]:
    """The remaining lines of an answer that is not an event stream."""
    try:
        return [line async for line in lines]
    except Exception as err:  # the transport's own error types: the connection broke
        raise Unusable(
            "connection", f"the connection broke during the answer: {err}"[:240]
        ) from None


def _excerpt(*parts: str) -> str:
    return repr(" ".join(parts)[:80])
