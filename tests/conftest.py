"""Fixtures shared by test modules: a local Messages API server for a test
(`mock_api`, `api`); one Ray cluster per session, whose workers reach one such
server; and every replay, calls sidecar, transcript and standings.json coworld
writes under a test's tmp_path is checked against the format schemas
(`coworld.schemas`) after the test (mark a test `unchecked_files` when it makes
coworld write broken files on purpose)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.mock_anthropic import MockAnthropic, first_legal

#: Fixtures a test names wherever it lives: `browser` (a headless Chromium).
pytest_plugins = ["tests.support.browser"]


@pytest.fixture
def mock_api(monkeypatch) -> Iterator[Callable[..., Any]]:
    """Start a local Messages API server and point the real client at it with a test
    key: `mock = mock_api(script, usage=...)`, or `mock_api(script, server=MockBatches)`.
    The environment names the latest started; every one stops after the test."""
    with contextlib.ExitStack() as stack:

        def start(script=first_legal, server=MockAnthropic, **options):
            mock = stack.enter_context(server(script, **options))
            monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
            monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.base_url)
            return mock

        yield start


@pytest.fixture
def api(mock_api) -> MockAnthropic:
    """The usual server: the first legal column, until the test sets `api.script`."""
    return mock_api(first_legal)


@pytest.fixture(scope="session")
def ray_api():
    """A Messages API server for Claude episodes on Ray workers (a test may set its
    `script` for a while; `ray_script` puts it back)."""
    with MockAnthropic(first_legal) as mock:
        yield mock


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory, ray_api):
    ray = pytest.importorskip("ray")
    os.environ.setdefault("HOME", str(tmp_path_factory.mktemp("home")))
    # on a loaded machine Ray's GCS can take longer than its default 30 s to start
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "180")
    # Ray's workers inherit the environment of `ray.init`: the mock's address and a
    # test key reach them; the driver's own environment is restored at once.
    saved = {k: os.environ.get(k) for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    os.environ.update(ANTHROPIC_API_KEY="sk-test", ANTHROPIC_BASE_URL=ray_api.base_url)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    yield ray
    ray.shutdown()


@pytest.fixture
def ray_env(ray_api, monkeypatch) -> MockAnthropic:
    """The driver's own calls (the start-up check) reach the Ray mock too."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", ray_api.base_url)
    return ray_api


@pytest.fixture
def ray_script(ray_api):
    """Set the Ray mock's script for one test: `ray_script(f)`."""

    def use(script):
        ray_api.script = script

    yield use
    ray_api.script = first_legal


def _declares_a_schema(path: Path) -> bool:
    """Whether coworld wrote `path`: its header names a schema (a calls sidecar: its
    replay's does). Files a test writes by hand, without one, are its own business."""
    if path.name.endswith(".calls.jsonl"):
        stem = path.name[: -len(".calls.jsonl")]
        return _declares_a_schema(path.with_name(stem.split(".prior-")[0] + ".jsonl"))
    try:
        with path.open("rb") as fh:
            first = json.loads(fh.readline() if path.suffix == ".jsonl" else fh.read())
    except (OSError, ValueError):
        return False
    if not isinstance(first, dict):
        return False
    header = first.get("header")  # an SDK transcript's
    return "schema" in first or (isinstance(header, dict) and "format" in header)


@pytest.fixture(autouse=True)
def _written_files_follow_the_schemas(request):
    yield
    tmp = request.node.funcargs.get("tmp_path")
    if tmp is None or request.node.get_closest_marker("unchecked_files"):
        return
    from coworld import schemas

    written = [f for f in sorted(Path(tmp).rglob("*")) if schemas.kind_of(f) and f.is_file()]
    found = [p for f in written if _declares_a_schema(f) for p in schemas.problems(f)]
    assert not found, "files that break their schema:\n" + "\n".join(found[:20])
