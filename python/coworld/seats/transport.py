"""The Messages API's wire for a league: keep-alive HTTP/1.1 connections to the
API's host, under the `anthropic` client's own configuration.

The SDK builds each request through several layers (options models, httpx
requests and responses, anyio streams): about 2.3 ms of CPU per call, more than
the rest of a decision (and `h11` alone, tried next, 0.1 ms). Here the SDK still
owns everything that defines a request (base URL, API key, version and client
headers, taken from the client once) and every error (an HTTP error becomes the
exception the SDK raises for it, built by the SDK from the answer); this module
only moves the bytes: a fixed request head, and the answer's head and body read
by its `content-length` (or chunks). The key stays in memory, in the head.
"""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
import urllib.request
from typing import Any

#: Idle connections kept (a league at concurrency 64 reuses them all).
MAX_IDLE = 256

#: (status, headers, body) of an answer.
Exchange = tuple[int, list[tuple[bytes, bytes]], bytes]


class ConnectionLost(Exception):
    """The connection failed, or closed before the answer was complete."""


class Wire:
    """POSTs JSON to one host over a pool of keep-alive connections."""

    def __init__(self, base_url: Any, headers: dict[str, str], connect_timeout: float) -> None:
        self.host = str(base_url.host)
        self.tls = base_url.scheme == "https"
        self.port = base_url.port or (443 if self.tls else 80)
        self.prefix = base_url.raw_path.decode().rstrip("/")
        host = self.host if base_url.port is None else f"{self.host}:{self.port}"
        fixed = [("Host", host)] + [
            (k, v) for k, v in headers.items() if k.lower() not in ("host", "content-length")
        ]
        self._head = "".join(f"{k}: {v}\r\n" for k, v in fixed).encode()
        self.connect_timeout = connect_timeout
        self._ssl = _tls_context() if self.tls else None  # as the SDK's client sets it up
        self._idle: list[_Connection] = []

    async def post(self, path: str, body: dict[str, Any]) -> Exchange:
        """The answer to one POST. Raises ConnectionLost when the connection fails;
        a connection whose answer was not read in full (an error, a cancelled
        call) is closed, never reused."""
        data = json.dumps(body).encode()
        head = (
            f"POST {self.prefix}{path} HTTP/1.1\r\n".encode()
            + self._head
            + f"Content-Length: {len(data)}\r\n\r\n".encode()
        )
        conn = await self._idle_connection() or await self._open()
        try:
            answer = await conn.request(head, data)
        except BaseException:
            conn.close()
            raise
        if conn.reusable() and len(self._idle) < MAX_IDLE:
            self._idle.append(conn)
        else:
            conn.close()
        return answer

    async def _idle_connection(self) -> _Connection | None:
        while self._idle:
            conn = self._idle.pop()
            if conn.reusable():
                return conn
            conn.close()  # the server closed it while idle
        return None

    async def _open(self) -> _Connection:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(
                    self.host,
                    self.port,
                    ssl=self._ssl,
                    server_hostname=self.host if self.tls else None,
                ),
                self.connect_timeout,
            )
        except (OSError, TimeoutError) as err:
            raise ConnectionLost(f"cannot connect to {self.host}:{self.port}: {err}") from err
        return _Connection(reader, writer)

    def close(self) -> None:
        for conn in self._idle:
            conn.close()
        self._idle.clear()


class _Connection:
    """One HTTP/1.1 connection: a request out, its answer read in full."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.keep = True  # False from a request until its answer is read in full

    def reusable(self) -> bool:
        return self.keep and not self.reader.at_eof() and not self.writer.is_closing()

    async def request(self, head: bytes, data: bytes) -> Exchange:
        self.keep = False
        try:
            self.writer.write(head + data)
            await self.writer.drain()
            version, status, headers = _parse_head(await self.reader.readuntil(b"\r\n\r\n"))
            fields = {k.lower(): v.lower() for k, v in headers}
            if b"chunked" in fields.get(b"transfer-encoding", b""):
                body = await self._chunked()
            elif b"content-length" in fields:
                body = await self.reader.readexactly(int(fields[b"content-length"]))
            else:  # no length: the body runs to the end of the connection
                return status, headers, await self.reader.read()
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as e:
            raise ConnectionLost(f"the connection failed: {e!r}") from e
        self.keep = version == b"HTTP/1.1" and fields.get(b"connection") != b"close"
        return status, headers, body

    async def _chunked(self) -> bytes:
        parts = []
        while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)
        while await self.reader.readuntil(b"\r\n") != b"\r\n":  # trailers
            pass
        return b"".join(parts)

    def close(self) -> None:
        self.writer.close()


def direct(base_url: Any) -> bool:
    """Whether requests to `base_url` go straight to its host: no proxy in the
    environment applies to it (the SDK's client would use one; this wire does not)."""
    proxies = urllib.request.getproxies()
    proxy = proxies.get(base_url.scheme) or proxies.get("all")
    return not proxy or bool(urllib.request.proxy_bypass(str(base_url.host)))


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The SDK's HTTP client's own TLS setup (trust store, SSL_CERT_FILE), made once
    per process (it costs tens of ms)."""
    import httpx2

    return httpx2.create_ssl_context()


def _parse_head(block: bytes) -> tuple[bytes, int, list[tuple[bytes, bytes]]]:
    """(version, status, headers) of an answer's head."""
    lines = block[:-4].split(b"\r\n")
    version, status = lines[0].split(b" ", 2)[:2]
    if not version.startswith(b"HTTP/1."):
        raise ValueError(f"not an HTTP/1.x answer: {lines[0][:40]!r}")
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers.append((name.strip(), value.strip()))
    return version, int(status), headers
