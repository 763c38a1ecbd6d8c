"""Chromium for the tests that look at pages as a person does (the viewer, the replay
inspector, human seats): Debian's chromium driven by playwright, one per module."""

from __future__ import annotations

import os
import shutil

import pytest


def chromium_path() -> str | None:
    return (
        os.environ.get("COWORLD_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


@pytest.fixture(scope="module")
def browser():
    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have Debian's chromium (.ci/run installs it)")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield b
        b.close()
