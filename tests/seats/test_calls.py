"""The calls sidecar: each text stored once, a stated size cap, and an earlier
attempt's calls never overwritten."""

from __future__ import annotations

import json

from coworld.calls import ACCOUNTING_ROOM_BYTES, CallsSidecar, expand_calls
from tests.support.episodes import (  # noqa: F401 (credentials: autouse, a test key)
    credentials,
    garbage_then_good,
    good,
    run,
)


def test_a_retry_refers_to_its_observation_instead_of_storing_it_again(tmp_path):
    _, _, mock = run("connect-four", garbage_then_good, tmp_path)
    path = tmp_path / "episode.calls.jsonl"
    calls = expand_calls(path)
    assert [c["messages"] for c in calls] == [r["messages"] for r in mock.requests]
    retry = mock.requests[1]["messages"]
    assert len(retry) == 3 and retry[0] == mock.requests[0]["messages"][0]
    text = path.read_text()
    # every observation appears once in the file, though each is sent twice
    for request in mock.requests[::2]:
        assert text.count(json.dumps(request["messages"][0]["content"])) == 1


def test_a_rerun_moves_the_earlier_calls_aside(tmp_path):
    _, _, first = run("connect-four", good, tmp_path)
    before = (tmp_path / "episode.calls.jsonl").read_text()
    _, _, second = run("connect-four", good, tmp_path, seed=5)
    assert (tmp_path / "episode.prior-1.calls.jsonl").read_text() == before
    assert len(expand_calls(tmp_path / "episode.calls.jsonl")) == len(second.requests)
    assert len(expand_calls(tmp_path / "episode.prior-1.calls.jsonl")) == len(first.requests)


def test_the_sidecar_never_grows_past_its_cap(tmp_path):
    cap = ACCOUNTING_ROOM_BYTES + 100_000
    sidecar = CallsSidecar(tmp_path / "e.jsonl", cap=cap)
    records = 0
    while not sidecar._closed_by_cap:
        sidecar.write(
            {
                "type": "call",
                "ply": records,
                "usage": {"input_tokens": 10},
                "system": "rules " * 1000,
                "messages": [{"role": "user", "content": f"board {records} " + "x" * 20_000}],
                "raw": "{}",
            }
        )
        records += 1
    sidecar.write({"type": "call", "ply": records, "usage": {}})  # ignored once truncated
    sidecar.close()
    path = tmp_path / "e.calls.jsonl"
    assert cap - 1000 < path.stat().st_size <= cap
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[-1] == {"type": "truncated", "capBytes": cap}
    full = [x for x in lines if x.get("messages")]
    lean = [x for x in lines[:-1] if x.get("bulk") == "omitted"]
    # the write that would have crossed the cap became the marker
    assert 1 <= len(full) <= 5 and len(full) + len(lean) == len(lines) - 1 == records - 1
    # the rules text is stored once; accounting survives the bulk cap
    assert path.read_text().count("rules " * 1000) == 1
    assert all(x["usage"] == {"input_tokens": 10} for x in lean)
    assert len(expand_calls(path)) == len(lines)


def test_the_sidecar_counts_its_size_in_bytes_and_makes_its_directory(tmp_path):
    """Non-ASCII text counts by its UTF-8 bytes (the cap is on the file's size); a
    missing directory is made; an empty earlier sidecar is not kept as a prior."""
    replay = tmp_path / "new" / "e.jsonl"
    sidecar = CallsSidecar(replay)
    for n in range(3):
        sidecar.write({"type": "call", "ply": n, "system": "règles ♟", "raw": "é" * n})
    sidecar.close()
    path = tmp_path / "new" / "e.calls.jsonl"
    assert sidecar.size == path.stat().st_size > 0
    assert [c["system"] for c in expand_calls(path)] == ["règles ♟"] * 3
    path.write_bytes(b"")
    again = CallsSidecar(replay)
    again.close()
    assert again.prior is None and sorted(p.name for p in path.parent.iterdir()) == [
        "e.calls.jsonl"
    ]
