"""Reading and searching as engineers do (issue 26), in a real Chromium: long pastes, phones, input methods,
honest corrections, no dead ends, the reader's page."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from app.config import Settings
from app.querylog import QueryLog
from measure.localserver import running_server
from tests.web.test_browser import LAUNCH_ARGS, _chromium

pytestmark = pytest.mark.browser
WIDTHS = (320, 360, 390, 1366)


def long_traceback(frames: int = 45) -> str:
    """A 45-frame traceback of about 7,000 characters that ends with its error, as readers paste them."""
    lines = ["Traceback (most recent call last):"]
    for k in range(frames):
        lines.append(f'  File "/opt/conda/envs/train/lib/python3.8/site-packages/pkg{k}/module_{k}.py", '
                     f"line {100 + k}, in call_{k}")
        lines.append(f"    result = helper_{k}(input_ids, attention_mask, LINE={k * 4 + 6})")
    lines.append("ImportError: cannot import name 'cache' from 'functools' (/usr/lib/python3.8/functools.py)")
    return "\n".join(lines)


ASK = "https://tracker.example/faq/issues/new?title={query}"
EDIT = "https://git.example/team/faq/edit/main/content/{path}#L{line}"
POPULAR_QUERY = "CUDA out of memory"


@pytest.fixture(scope="module")
def server(seeded: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `faq serve` searching by words and meaning, over a copy of the seeded data whose statistics say what
    readers search for, with the "ask the team" and "edit this page" links set."""
    data = tmp_path_factory.mktemp("readers") / "data"
    shutil.copytree(seeded.data_dir, data, symlinks=True, ignore=shutil.ignore_patterns("queries.db"))
    log = QueryLog(seeded.model_copy(update={"data_dir": data}))
    for _ in range(5):
        log.record(POPULAR_QUERY, 12)
    log.record("one reader's own words", 3)  # once: never shown to others
    log.close()
    env = {"FAQ_DATA_DIR": str(data), "FAQ_SEMANTIC": "true", "FAQ_ASK_URL": ASK, "FAQ_EDIT_URL": EDIT}
    with running_server(env, ready_path="/readyz", timeout=120) as (base, _, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=_chromium(), args=LAUNCH_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 800}, locale="en-US")
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    yield tab
    context.close()


def _paste(page: Any, text: str) -> None:
    """Paste `text` into the focused element as a browser does (a `paste` event with clipboard data)."""
    page.evaluate("""(text) => {
        const data = new DataTransfer();
        data.setData("text/plain", text);
        const event = new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true});
        if (document.activeElement.dispatchEvent(event)) document.execCommand("insertText", false, text);
    }""", text)


# ------------------------------------------------------------------ 1. long pastes

def test_a_long_pasted_traceback_is_searched_by_its_error_and_says_so(page: Any, server: str) -> None:
    traceback = long_traceback()
    assert len(traceback) > 6000
    page.goto(server + "/")
    page.keyboard.press("/")
    _paste(page, traceback)
    page.wait_for_selector(".instant li a")
    assert "functools" in page.locator(".instant li a .i-title").first.inner_text().lower()
    page.keyboard.press("Enter")
    page.wait_for_load_state()
    assert "?" not in page.url  # posted: the paste never goes into a URL
    heading = page.locator("h1").inner_text()
    assert heading == "Results for the error: ImportError: cannot import name 'cache' from 'functools'"
    assert "functools" in page.locator("li.result a.title").first.inner_text().lower()
    paste = page.locator("details.paste")
    assert not paste.evaluate("e => e.open") and "7," in paste.locator("summary").inner_text()
    assert paste.locator("pre").evaluate("e => e.textContent") == traceback


def test_without_javascript_the_paste_form_posts_a_whole_log(browser: Any, server: str) -> None:
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server + "/")
        page.locator("details.paste-form summary").click()
        page.fill("details.paste-form textarea", long_traceback())
        page.locator("details.paste-form button").click()
        page.wait_for_load_state()
        assert page.locator("h1").inner_text().startswith("Results for the error: ImportError")
        assert "functools" in page.locator("li.result a.title").first.inner_text().lower()
    finally:
        context.close()


# ------------------------------------------------------------------ 4. input methods

def test_composing_pinyin_searches_nothing_until_the_character_is_chosen(page: Any, server: str) -> None:
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/api/v1/search" in request.url else None)
    page.goto(server + "/")
    page.keyboard.press("/")
    session = page.context.new_cdp_session(page)
    for step in ("x", "xi", "xia", "xian", "xianc", "xiancun"):
        session.send("Input.imeSetComposition", {"text": step, "selectionStart": len(step), "selectionEnd": len(step)})
        page.wait_for_timeout(120)  # past the debounce: a keystroke's search would have gone out
    assert asked == [] and page.locator(".instant").is_hidden()
    session.send("Input.insertText", {"text": "显存"})
    page.wait_for_selector(".instant li a")
    assert len(asked) == 1 and "%E6%98%BE%E5%AD%98" in asked[0]


# ------------------------------------------------------------------ 5. the search box on a phone

@pytest.mark.parametrize("width", [320, 360, 390])
def test_on_a_phone_the_search_box_is_the_widest_control_of_the_header(browser: Any, server: str, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 700}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server + "/search?q=CUDA+out+of+memory")
        box = page.locator("header.site input[name=q]").bounding_box()
        others = [page.locator(selector).bounding_box()["width"] for selector in
                  ("header.site select", "header.site form button", "header.site .ui-switch", "header.site .brand")]
        assert box["width"] >= 0.6 * (width - 24) and box["width"] > max(others)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()


# ------------------------------------------------------------------ 8. Esc in the instant list

def test_escape_in_the_instant_list_closes_it_and_keeps_the_query(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.keyboard.press("/")
    page.keyboard.type("deepspeed", delay=10)
    page.wait_for_selector(".instant li a")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    assert page.locator(".instant").is_hidden()
    assert page.evaluate("document.activeElement.name") == "q"
    assert page.locator("header.site input").input_value() == "deepspeed"


# ------------------------------------------------------------------ 6. honest corrections

def test_a_corrected_query_says_so_and_offers_the_query_as_typed(page: Any, server: str) -> None:
    page.goto(server + "/search?q=deepsped")
    assert page.locator("h1").inner_text() == "Results for “deepspeed”"
    correction = page.locator("p.corrected")
    assert correction.inner_text() == "Showing results for deepspeed. Search instead for deepsped."
    assert page.locator("p.suggestion", has_text="Did you mean").count() == 0  # not a link to the same page
    correction.locator("a", has_text="deepsped").click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text() == "Results for “deepsped”"
    assert page.locator("li.result").count() == 0
    assert page.locator("p.suggestion").inner_text() == "Did you mean deepspeed?"


def test_words_that_matched_nothing_are_named(page: Any, server: str) -> None:
    page.goto(server + "/search?q=kubernetes+deepspeed")
    assert page.locator("li.result").count() > 0
    assert page.locator("p.unmatched").inner_text() == "No entry mentions kubernetes."
    page.goto(server + "/search?q=zzqxv+blorf")
    assert page.locator("p.corrected").inner_text().startswith("Showing results for zzqxv bloom.")
    assert page.locator("p.unmatched").inner_text() == "No entry mentions zzqxv."


def test_a_chinese_typo_is_corrected_by_sound(page: Any, server: str) -> None:
    page.goto(server + "/search?q=" + quote("显纯不足"))
    assert page.locator("p.corrected").inner_text().startswith("Showing results for 显存不足.")
    assert "显存" in "".join(page.locator("li.result mark").all_inner_texts())


# ------------------------------------------------------------------ 7. no dead ends

def test_a_search_that_matches_nothing_leads_somewhere(page: Any, server: str) -> None:
    page.goto(server + "/search?q=qqxqz+vvkwp")
    assert page.locator("p.empty").is_visible()
    closest = page.locator("h2", has_text="Closest in meaning")
    assert closest.is_visible() and page.locator("h2 + ul.entry-links").first.locator("a").count() == 5
    popular = page.locator("h2", has_text="What readers look up most")
    assert popular.is_visible()
    titles = page.locator("h2:has-text('What readers look up most') + ul a").all_inner_texts()
    assert any("CUDA" in title or "memory" in title.lower() for title in titles)
    ask = page.locator("p.ask a")
    assert ask.get_attribute("href").startswith("https://tracker.example/faq/issues/new?title=qqxqz%20vvkwp")
