"""The editors' report page, /admin (issue 27, item 4), in a real Chromium: axe-clean on a phone and a desktop, light
and dark, nothing wider than the screen, everything a reader typed shown as text."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from app.config import Settings
from app.feedback import Feedback
from app.querylog import QueryLog
from measure.localserver import running_server
from tests.web.test_readers import AXE, AXE_ALL

pytestmark = pytest.mark.browser
TOKEN = "editors-browser-t0ken"


@pytest.fixture(scope="module")
def server(seeded: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `faq serve` with the admin token, over a copy of the seeded data (words and meaning) whose statistics
    hold searches that found nothing and unhelpful votes with comments that look like markup."""
    data = tmp_path_factory.mktemp("editors") / "data"
    shutil.copytree(seeded.data_dir, data, symlinks=True, ignore=shutil.ignore_patterns("queries.db"))
    settings = seeded.model_copy(update={"data_dir": data})
    log = QueryLog(settings)
    for query in ("kubernetes helm chart", "如何配置 kubernetes 集群", "<img src=x onerror=window.__pwned=1>"):
        log.record(query, 0)
    log.close()
    feedback = Feedback(settings)
    feedback.vote("10.0.0.1", "exec-docker-82244f", False, "<script>window.__pwned=1</script> step 2 " * 20)
    feedback.vote("10.0.0.2", "exec-docker-82244f", False, "缺少 Windows 的说明")
    env = {"FAQ_DATA_DIR": str(data), "FAQ_SEMANTIC": "true", "FAQ_ADMIN_TOKEN": TOKEN}
    with running_server(env, ready_path="/readyz", timeout=120) as (base, _, _):
        yield base



def test_admin_asks_a_browser_for_the_token(browser: Any, server: str) -> None:
    context = browser.new_context()
    try:
        answer = context.request.get(server + "/admin")  # a page would stop at the browser's sign-in prompt
        assert answer.status == 401 and answer.headers["www-authenticate"].startswith("Basic")
        with pytest.raises(Exception, match="ERR_INVALID_AUTH_CREDENTIALS"):
            context.new_page().goto(server + "/admin")
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [320, 1366])
def test_the_report_page_is_axe_clean_and_fits(browser: Any, server: str, width: int, scheme: str) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="en-US", bypass_csp=True,
                                  http_credentials={"username": "editor", "password": TOKEN})
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    found: dict[str, list[str]] = {}
    try:
        for kind, path in (("report", "/admin"), ("report, Chinese interface", "/admin?ui=zh"),
                           ("statistics", "/admin/queries")):
            answer = page.goto(server + path)
            assert answer is not None and answer.status == 200, path
            assert page.evaluate("document.documentElement.scrollWidth") <= width, kind
            page.add_script_tag(path=str(AXE))
            found[kind] = page.evaluate(AXE_ALL)
        page.goto(server + "/admin?ui=en")
        assert page.evaluate("window.__pwned") is None and page.locator("main img, main script").count() == 0
        assert page.locator("#zero-results li").count() == 3
        assert page.locator("#unhelpful li li", has_text="- <script>window.__pwned=1</script> step 2").count() == 1
        assert page.locator("#untranslated a[href^='/admin/entries/']").count() == \
            int(page.locator("tr:has(a[href='#untranslated']) td").last.inner_text())
    finally:
        context.close()
    assert {kind: v for kind, v in found.items() if v} == {}
