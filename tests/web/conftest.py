"""Fixtures the browser suites share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.chromium import LAUNCH_ARGS, chromium_executable


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for a test module."""
    from playwright.sync_api import sync_playwright

    executable = chromium_executable()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        yield launched
        launched.close()
