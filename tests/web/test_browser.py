"""The pages in a real Chromium: search from the form, follow results, switch language."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture(scope="module")
def page(server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    executable = chromium_executable()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        context = browser.new_context(java_script_enabled=False, locale="en-US")
        tab = context.new_page()
        yield tab
        context.close()
        browser.close()


def test_browser_search_form_finds_entry_and_follows_translation(page, server: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(server + "/")
    assert page.locator("html").get_attribute("lang") == "en"
    page.fill("input[name=q]", "内存碎片")
    page.click("button[type=submit]")
    page.wait_for_url("**/search?**")
    first = page.locator("li.result").first
    assert "内存碎片" in first.locator("mark").all_inner_texts()
    first.locator("a.title").click()
    page.wait_for_url("**/entries/**")
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    assert "内存碎片化" in page.locator("h1").inner_text()
    page.locator("aside.links a[hreflang=en]").first.click()
    page.wait_for_url("**/entries/**")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("h1").inner_text().startswith("How to handle CUDA memory fragmentations")


def test_browser_renders_chinese_results_page_screenshot(page, server: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page.goto(server + "/search?q=%E6%A2%AF%E5%BA%A6&lang=zh")  # 梯度
    assert page.locator("li.result").count() >= 1
    shot = tmp_path / "search.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def test_browser_language_switch_stays_on_the_entry_and_related_leads_across(page, server: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(server + "/search?q=bitsandbytes+undefined+symbol")
    page.locator("li.result a.title").first.click()
    page.wait_for_url("**/entries/**")
    assert page.locator("h1").inner_text().startswith("bitsandbytes/libbitsandbytes_cpu.so")
    switch = page.locator("p.lang-switch")
    # An English browser reads the Chinese entry with English chrome: the interface is the reader's.
    assert "This entry has no English version." in switch.inner_text()
    assert page.locator("html").get_attribute("lang") == "zh-Hans"  # what the page shows is Chinese
    assert page.locator("header.site").get_attribute("lang") == "en"
    related = page.locator("aside.links ul.entry-links").last.locator("a")
    titles = related.all_inner_texts()
    assert any(t.startswith("运行推理时我遇到了导入错误") for t in titles)
    related.filter(has_text="运行推理时我遇到了导入错误").click()
    page.wait_for_url("**/entries/**")
    page.locator("p.lang-switch a", has_text="Read in English").click()
    page.wait_for_url("**/entries/**")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("h1").inner_text() == "I am getting import errors when running inference."
