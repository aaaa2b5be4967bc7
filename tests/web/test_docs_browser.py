"""/docs in a real Chromium: Swagger UI renders the OpenAPI 3.1 schema from the portal alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.config import Settings
from measure.localserver import running_server
from tests.web.chromium import LAUNCH_ARGS, chromium_executable

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(seeded: Settings) -> Iterator[str]:
    """A real `faq serve` on loopback over the seeded data."""
    with running_server({"FAQ_DATA_DIR": str(seeded.data_dir)}) as (base, _, _):
        yield base


def test_docs_lists_the_operations_offline_without_errors(server: str) -> None:
    from playwright.sync_api import sync_playwright

    requests: list[str] = []
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(), args=LAUNCH_ARGS)
        try:
            tab = browser.new_page(locale="en-US")
            tab.on("request", lambda request: requests.append(request.url))
            tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            tab.on("pageerror", lambda error: errors.append(str(error)))
            tab.goto(server + "/docs")
            tab.wait_for_selector(".opblock-summary-path", timeout=20_000)
            paths = tab.locator(".opblock-summary-path").all_inner_texts()
            versions = [v.strip() for v in tab.locator(".info .version").all_inner_texts()]
            page_text = tab.locator("body").inner_text()
        finally:
            browser.close()
    assert "/api/v1/search" in paths and "/api/v1/suggest" in paths and "/sitemap.xml" in paths, paths
    assert "OAS 3.1" in versions, versions
    assert "does not specify a valid version field" not in page_text
    assert errors == []
    assert requests and [url for url in requests if not url.startswith(server + "/")] == []
