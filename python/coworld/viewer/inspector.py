"""The replay inspector's data: each Claude decision of a replay as its calls sidecar
kept it (the observation sent, the raw reply, thinking, the retry and its reason,
tokens and cost). Served to spectators only (`/api/calls`), never on a seat's link."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..calls import calls_path, expand_calls
from ..replay import ReplayUnreadable


def calls_of(replay: Path) -> dict[str, Any]:
    """{"calls": [...]} of the replay's sidecar (empty when it has none), each call
    with its messages resolved; `note` says why a sidecar could not be read."""
    sidecar = calls_path(replay)
    if not sidecar.is_file():
        return {"calls": [], "note": "no calls sidecar beside this replay"}
    try:
        records = expand_calls(sidecar)
    except (ReplayUnreadable, KeyError) as err:
        return {"calls": [], "note": f"{sidecar.name}: {err}"}
    calls = [_decision_call(r) for r in records if r.get("type") == "call"]
    truncated = any(r.get("type") == "truncated" for r in records)
    return {"calls": calls, "note": "the sidecar reached its size cap" if truncated else None}


def _decision_call(record: dict[str, Any]) -> dict[str, Any]:
    """One attempt: what was sent last (the observation, or the retry message), what
    came back, and its accounting."""
    messages = record.get("messages") or []
    user = [m.get("content") for m in messages if m.get("role") == "user"]
    return {
        "ply": record.get("ply"),
        "seat": record.get("seat"),
        "attempt": record.get("attempt"),
        "outcome": record.get("outcome"),
        "cause": record.get("cause"),
        "reason": record.get("reason"),
        "observation": user[0] if user else None,
        "retryMessage": user[-1] if len(user) > 1 else None,
        "raw": record.get("raw"),
        "thinking": record.get("thinking"),
        "usage": record.get("usage"),
        "latency": record.get("latency"),
        "bulkOmitted": record.get("bulk") == "omitted",
    }
