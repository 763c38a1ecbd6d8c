"""The calls sidecar (`*.calls.jsonl`): every model call of an episode, with its
prompt, raw reply, thinking and usage, kept beside the replay.

Two guarantees:
- A rerun of an episode never overwrites the calls of an earlier attempt (a
  `kill -9` leaves an unfinished replay; its calls were paid for): the old
  sidecar is moved aside to `NAME.prior-N.calls.jsonl` first.
- The file never grows past `CALLS_CAP_BYTES`. Each distinct text (system
  prompt, observation, retry message) is stored once per episode and later
  calls refer to it by `textId`; once the bulk would cross the cap, calls keep
  only their accounting fields (`bulk: "omitted"`), and a call that would cross
  the cap itself is replaced by one `truncated` line, after which nothing more
  is written (usage is in the replay's results and the league database)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

from .replay import create_file, encode_line, read_lines

#: The largest a calls sidecar gets per episode, in bytes.
CALLS_CAP_BYTES = 8 * 1024 * 1024
#: Room kept for the accounting-only records once the bulk is dropped.
ACCOUNTING_ROOM_BYTES = 512 * 1024
_BULK = ("system", "messages", "raw", "thinking")


def calls_path(replay: Path) -> Path:
    return replay.with_suffix(".calls.jsonl")


def move_prior_calls(replay: Path) -> Path | None:
    """Move an earlier attempt's sidecar aside (never overwrite paid-for calls)."""
    current = calls_path(replay)
    try:
        if os.stat(current).st_size == 0:
            return None
    except FileNotFoundError:
        return None
    n = 1
    while (aside := replay.with_suffix(f".prior-{n}.calls.jsonl")).exists():
        n += 1
    current.rename(aside)
    return aside


class CallsSidecar:
    """Writes call records, storing each distinct text once and keeping the cap."""

    def __init__(
        self, replay: Path, cap: int = CALLS_CAP_BYTES, *, flush_each: bool = True
    ) -> None:
        self.path = calls_path(replay)
        self.prior: Path | None = None
        try:  # the common case, no earlier sidecar: one system call, no check first
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            self.prior = move_prior_calls(replay)
            self._fh: IO[bytes] | None = create_file(self.path)
        except FileNotFoundError:  # no directory yet
            self._fh = create_file(self.path)
        else:
            self._fh = open(fd, "wb")  # noqa: SIM115 (closed by `close`)
        self.cap = cap
        self.size = 0
        self._texts: dict[str, int] = {}
        self._closed_by_cap = False
        self._marker = encode_line({"type": "truncated", "capBytes": cap})
        #: False: written out when the owner calls `flush` (see `JsonLinesWriter`).
        self.flush_each = flush_each

    def _with_refs(self, record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
        """The record with each text stored once: (record, the texts it adds)."""
        added: dict[str, int] = {}

        def ref(role: str, text: str) -> dict[str, Any]:
            known = self._texts.get(text, added.get(text))
            if known is not None:
                return {"role": role, "textId": known}
            added[text] = len(self._texts) + len(added)
            return {"role": role, "textId": added[text], "content": text}

        system = ref("system", record["system"]) if record.get("system") else None
        messages = [
            ref(m["role"], m["content"]) if isinstance(m.get("content"), str) else m
            for m in record.get("messages") or []
        ]
        return {**record, "system": system, "messages": messages}, added

    def write(self, record: dict[str, Any]) -> None:
        if self._fh is None or self._closed_by_cap:
            return
        bulk_room = self.cap - ACCOUNTING_ROOM_BYTES
        full, added = self._with_refs(record)
        line = encode_line(full)
        size = len(line)
        if self.size + size <= bulk_room:
            self._texts.update(added)
        else:
            lean = {k: v for k, v in record.items() if k not in _BULK}
            line = encode_line({**lean, "bulk": "omitted"})
            size = len(line)
        if self.size + size + len(self._marker) > self.cap:
            line, size, self._closed_by_cap = self._marker, len(self._marker), True
        self._fh.write(line)
        if self.flush_each:
            self._fh.flush()
        self.size += size

    def flush(self) -> None:
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def expand_calls(path: str | Path) -> list[dict[str, Any]]:
    """The call records of a sidecar with every `textId` reference resolved."""
    texts: dict[int, str] = {}
    calls = []
    for _, record in read_lines(path):
        if record.get("type") != "call":
            calls.append(record)
            continue

        def resolve(ref: Any) -> Any:
            if not isinstance(ref, dict) or "textId" not in ref:
                return ref
            if "content" in ref:
                texts[ref["textId"]] = ref["content"]
            return {"role": ref["role"], "content": texts[ref["textId"]]}

        system = resolve(record.get("system"))
        record["system"] = system["content"] if isinstance(system, dict) else system
        record["messages"] = [resolve(m) for m in record.get("messages") or []]
        calls.append(record)
    return calls
