"""Damaged replays: `recheck`, the viewer and its list of live games each say what is
wrong, in one line, and never show a cut file as live."""

from __future__ import annotations

import os
import time

import pytest

from coworld.cli import main as cli


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "No such file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "not UTF-8 text"),
        (b"this is not json\n", "line 1: not a JSON line"),
        (b'{"type": "header", "config": {"ga\n', "line 1: not a JSON line"),
        (b'{"type": "header"}\n', "line 1: an event lacks the field 'config'"),
        (b"[1, 2]\n", "line 1: not a JSON object"),
    ],
)
def test_recheck_of_a_bad_file_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "r.jsonl"
    if content is not None:
        path.write_bytes(content)
    assert cli(["recheck", str(path)]) == 3
    out = capsys.readouterr().out
    assert message in out and str(path) in out and out.strip().count("\n") == 0


def test_the_viewer_refuses_a_garbage_replay_with_a_reason(tmp_path):
    from starlette.testclient import TestClient

    from coworld.viewer import create_app

    (tmp_path / "g.jsonl").write_bytes(b"garbage\n")
    client = TestClient(create_app(tmp_path))
    response = client.get("/api/replay", params={"path": "g.jsonl"})
    assert response.status_code == 400 and "not a JSON line" in response.json()["error"]


def test_a_cut_replay_is_not_shown_as_live(tmp_path):
    from coworld.viewer.server import LIVE_IDLE_SECONDS, _in_progress

    cut = tmp_path / "cut.jsonl"
    cut.write_text('{"type": "header"}\n')
    assert _in_progress(tmp_path) == [cut]
    old = time.time() - LIVE_IDLE_SECONDS - 1
    os.utime(cut, (old, old))
    assert _in_progress(tmp_path) == []
