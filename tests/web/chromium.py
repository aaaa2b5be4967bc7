"""Where the tests find Chromium and how they start it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import IN_CI

CHROMIUM = os.environ.get("FAQ_TEST_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def chromium_executable() -> str:
    """Chromium's path; a skip without it, a failure under CI=true (.ci/run installs it)."""
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return CHROMIUM
    if IN_CI:
        pytest.fail(f"Chromium not found at {CHROMIUM} (required under CI=true; .ci/run installs it)")
    pytest.skip(f"Chromium not found at {CHROMIUM}")
