"""Old entry URLs in a real Chromium: a removed entry's 410 page (its last question, when, the closest current
entries, a search box) is axe-clean and fits at 320 and 1366 px, light and dark, and its links lead somewhere; a
moved entry's URL lands, through its 301, on the page that answers 200."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlmodel import Session, select

from app.db import DataStore
from app.ingest.pipeline import run_ingest
from app.models import Entry
from measure.localserver import running_server
from tests.conftest import settings_for
from tests.web.test_readers import AXE, AXE_ALL

pytestmark = pytest.mark.browser

INSTALL = ("How do I install the portal?", "Run `make install` in a clean clone; it creates `.venv` with the pinned "
           "dependencies and installs the project in editable mode.")
OFFLINE = ("How do I install the portal offline?", "Copy the wheels with `pip download`, then run `make install` "
           "with `PIP_NO_INDEX=1`; the portal never downloads anything at run time.")
PORT = ("How do I change the port?", "Set `PORT=8080 make run`, or pass `--port 8080` to `faq serve`.")
LOGS = ("Where are the server logs?", "Access logs go to standard error as JSON lines, for example "
        "`journalctl -u faq`.")
# A question with an identifier longer than a phone is wide: its quotation must wrap, not widen the page.
ELASTIC = ("Why does torch.distributed.elastic.multiprocessing.errors.ChildFailedError_raised_by_the_launcher appear?",
           "One of the worker processes of the portal's offline install failed; its own log says why.")
ZH_INSTALL = ("如何安装门户？", "在干净的克隆中运行 `make install`，它会创建带有固定依赖的 `.venv`。")
ZH_OFFLINE = ("如何离线安装门户？", "先用 `pip download` 下载 wheel，再以 `PIP_NO_INDEX=1` 运行 `make install`。")
ZH_LOGS = ("服务器日志在哪里？", "访问日志以 JSON 行写到标准错误，例如 `journalctl -u faq`。")


def _write(content: Path, name: str, title: str, entries: list[tuple[str, str]]) -> None:
    text = f"# {title}\n\n" + "".join(f"## {question}\n\n{answer}\n\n" for question, answer in entries)
    (content / name).write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def old(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """A real `faq serve` over two ingests: between them an English and a Chinese entry were removed and the port
    entry merged into the logs entry (its URL now redirects); with the first ingest's ids by question."""
    folder = tmp_path_factory.mktemp("removed")
    content = folder / "content"
    content.mkdir()
    settings = settings_for(folder, content)
    _write(content, "portal.md", "Portal FAQ", [INSTALL, OFFLINE, PORT, LOGS, ELASTIC])
    _write(content, "portal.zh.md", "门户常见问题", [ZH_INSTALL, ZH_OFFLINE, ZH_LOGS])
    run_ingest(settings, progress=False)
    store = DataStore(settings)
    try:
        with Session(store.current().engine) as session:
            first = {entry.title: entry.id for entry in session.exec(select(Entry))}
    finally:
        store.close()
    # The install and elastic entries are removed and the port entry merged into the logs entry.
    _write(content, "portal.md", "Portal FAQ", [OFFLINE, (LOGS[0], LOGS[1] + "\n\n" + PORT[1])])
    _write(content, "portal.zh.md", "门户常见问题", [ZH_INSTALL, ZH_LOGS])  # the offline entry removed
    run_ingest(settings, progress=False)
    with running_server({"FAQ_DATA_DIR": str(settings.data_dir)}, ready_path="/readyz", timeout=120) as (base, _, _):
        yield base, first



@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [320, 1366])
def test_a_removed_entry_page_is_axe_clean_fits_and_leads_to_current_entries(
        browser: Any, old: tuple[str, dict[str, str]], width: int, scheme: str) -> None:
    server, first = old
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="en-US", bypass_csp=True)
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    found: dict[str, list[str]] = {}
    try:
        for kind, question, lang in (("English", INSTALL[0], "en"), ("Chinese", ZH_OFFLINE[0], "zh-Hans"),
                                     ("long identifier", ELASTIC[0], "en")):
            answer = page.goto(f"{server}/entries/{first[question]}")
            assert answer is not None and answer.status == 410, kind
            assert page.locator("html").get_attribute("lang") == lang
            assert page.locator("blockquote.removed-question").inner_text() == question
            assert page.evaluate("document.documentElement.scrollWidth") <= width, kind
            assert page.evaluate("""() => [...document.querySelectorAll("body *")]
                .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
                .map(e => e.tagName + "." + e.className)""") == [], kind
            closest = page.locator("main ul a[href^='/entries/']")
            assert closest.count() >= 1 or kind == "long identifier", kind  # (that one's words match nothing now)
            for href in closest.evaluate_all("links => links.map(a => a.getAttribute('href'))"):
                assert page.request.get(server + href).status == 200, href
            assert page.locator("main form[action='/search'] input[name='q']").input_value() == question
            page.add_script_tag(path=str(AXE))
            found[kind] = page.evaluate(AXE_ALL)
        page.goto(f"{server}/entries/{first[INSTALL[0]]}")
        with page.expect_navigation():
            page.locator("main ul a[href^='/entries/']").first.click()
        assert page.locator("main article, main h1").first.is_visible()
        page.goto(f"{server}/entries/{first[INSTALL[0]]}")
        with page.expect_navigation():
            page.locator("main form[action='/search'] button").click()
        assert urlsplit(page.url).path == "/search" and page.locator("h1").first.is_visible()
    finally:
        context.close()
    assert {kind: v for kind, v in found.items() if v} == {}


def test_a_moved_entry_lands_on_its_new_page(browser: Any, old: tuple[str, dict[str, str]]) -> None:
    server, first = old
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    try:
        answer = page.goto(f"{server}/entries/{first[PORT[0]]}")
        assert answer is not None and answer.status == 200
        assert answer.request.redirected_from is not None
        assert answer.request.redirected_from.response().status == 301
        assert urlsplit(page.url).path == f"/entries/{first[LOGS[0]]}"
        assert page.locator("h1").first.inner_text() == LOGS[0]
    finally:
        context.close()
