"""The pages in a real Chromium (issue 12): accessibility (axe-core), phone widths, dark
theme, instant search, keyboard, copy buttons, and the page without JavaScript."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from app.config import Settings
from measure.localserver import running_server
from tests.web.test_pages import TRACEBACK

pytestmark = pytest.mark.browser
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
DESKTOP, PHONE, NARROW = 1366, 390, 360


@pytest.fixture(scope="module")
def server(seeded: Settings) -> Iterator[str]:
    """A real `faq serve` on loopback over the seeded data."""
    with running_server({"FAQ_DATA_DIR": str(seeded.data_dir)}) as (base, _, _):
        yield base



@pytest.fixture(scope="module")
def kinds(server: str) -> dict[str, str]:
    """One URL of every kind of page."""
    with httpx.Client(base_url=server) as http:
        code = http.get("/api/v1/search", params={"q": "PYTORCH_CUDA_ALLOC_CONF"}).json()["results"][0]["url"]
    return {
        "home": "/",
        "results": "/search?q=CUDA+out+of+memory",
        "empty search": "/search",
        "past the end": "/search?q=fsdp&offset=50",
        "pasted traceback": "/search?q=" + quote(TRACEBACK),
        "entry": code,
        "long entry": "/entries/bitsandbytes-libbitsandbytes-cpu-so-undefined-8cd85d",
        "document": "/documents/hf-transformers-deepspeed-notes-zh",
        "table document": "/documents/deepspeed-chat-faq-zh",
        "404": "/no/such/page",
    }


def _context(browser: Any, width: int, **options: Any) -> Any:
    options.setdefault("locale", "en-US")
    return browser.new_context(viewport={"width": width, "height": 800}, **options)


def _type_query(page: Any, text: str) -> None:
    page.keyboard.press("/")
    page.keyboard.type(text, delay=20)
    page.wait_for_selector(".instant li a")


# ------------------------------------------------------------------ accessibility

AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 4).map(n => n.target.join(" ")).join(" | ")}`);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_axe_finds_no_serious_violation_on_any_page(browser: Any, server: str, kinds: dict[str, str],
                                                    width: int, scheme: str) -> None:
    # bypass_csp only so that Playwright may inject axe as an inline script.
    context = _context(browser, width, bypass_csp=True)
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    found: dict[str, list[str]] = {}
    try:
        for kind, path in kinds.items():
            page.goto(server + path)
            page.add_script_tag(path=str(AXE))
            found[kind] = page.evaluate(AXE_RUN)
        page.goto(server + "/")  # and the instant results, open
        _type_query(page, "CUDA memory")
        page.add_script_tag(path=str(AXE))
        found["instant results"] = page.evaluate(AXE_RUN)
    finally:
        context.close()
    assert {kind: v for kind, v in found.items() if v} == {}


# ------------------------------------------------------------------ layout

def test_no_page_scrolls_sideways_at_360_px(browser: Any, server: str, kinds: dict[str, str]) -> None:
    context = _context(browser, NARROW, locale="zh-CN")
    page = context.new_page()
    wide = {}
    try:
        for kind, path in kinds.items():
            page.goto(server + path)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > page.evaluate("window.innerWidth"):
                wide[kind] = width
        page.goto(server + "/")
        _type_query(page, "CUDA memory")
        if page.evaluate("document.documentElement.scrollWidth") > NARROW:
            wide["instant results"] = page.evaluate("document.documentElement.scrollWidth")
    finally:
        context.close()
    assert wide == {}


def test_phone_header_fits_and_titles_stay_readable(browser: Any, server: str, kinds: dict[str, str]) -> None:
    context = _context(browser, PHONE, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(server + kinds["long entry"])
        button = page.locator("form.search button[type=submit]").bounding_box()
        assert button and button["height"] < 48  # "搜索" on one line, not one character per line
        header = page.locator("header.site").bounding_box()
        assert header and header["width"] <= PHONE and header["height"] < 130
        h1 = page.locator("h1")
        lines = h1.evaluate("e => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)")
        assert lines <= 4  # was 7 lines at 32 px
        page.goto(server + kinds["results"])
        target = page.locator("a.badge.other").first.bounding_box()
        assert target and target["width"] >= 24 and target["height"] >= 24
        code = page.goto(server + kinds["document"])
        assert code and code.ok
        pre = page.locator("pre").first
        assert pre.evaluate("e => getComputedStyle(e).overflowX") == "auto"
        assert pre.evaluate("e => e.tabIndex") == 0
    finally:
        context.close()


# ------------------------------------------------------------------ dark theme

def _background(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.documentElement).backgroundColor"))


def _is_dark(colour: str) -> bool:
    red, green, blue = (int(x) for x in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue < 80


def test_dark_scheme_darkens_the_page(browser: Any, server: str) -> None:
    context = _context(browser, DESKTOP)
    page = context.new_page()
    try:
        page.emulate_media(color_scheme="light")
        page.goto(server + "/")
        light = _background(page)
        page.emulate_media(color_scheme="dark")
        dark = _background(page)
    finally:
        context.close()
    assert light != dark and not _is_dark(light) and _is_dark(dark)


def test_theme_toggle_is_remembered_across_reloads(browser: Any, server: str) -> None:
    context = _context(browser, PHONE, color_scheme="light")
    page = context.new_page()
    try:
        page.goto(server + "/")
        toggle = page.locator("button.theme-toggle")
        assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
        toggle.click()
        assert _is_dark(_background(page)) and toggle.get_attribute("aria-pressed") == "true"
        page.goto(server + "/search?q=fsdp")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark" and _is_dark(_background(page))
        page.reload()
        assert _is_dark(_background(page))
        page.locator("button.theme-toggle").click()  # back to the system's light: nothing left stored
        page.reload()
        assert not _is_dark(_background(page))
        assert page.evaluate("localStorage.getItem('faq-theme')") is None
    finally:
        context.close()


def test_remembered_dark_theme_applies_before_the_first_paint(browser: Any, server: str) -> None:
    context = _context(browser, DESKTOP, color_scheme="light")
    context.add_init_script("try { localStorage.setItem('faq-theme', 'dark') } catch (e) {}")
    page = context.new_page()
    try:
        page.add_init_script("""document.addEventListener('DOMContentLoaded', () => {
            window.__themeAtDomReady = document.documentElement.dataset.theme; }, {once: true});""")
        page.goto(server + "/")
        assert page.evaluate("window.__themeAtDomReady") == "dark"
        assert _is_dark(_background(page))
    finally:
        context.close()


# ------------------------------------------------------------------ search box and instant results

def test_slash_focuses_the_search_box_and_escape_clears_it(browser: Any, server: str, kinds: dict[str, str]) -> None:
    context = _context(browser, DESKTOP)
    page = context.new_page()
    try:
        page.goto(server + kinds["entry"])
        page.keyboard.press("/")
        assert page.evaluate("document.activeElement.name") == "q"
        assert page.locator("input[name=q]").input_value() == ""  # the slash is not typed
        page.keyboard.type("fsdp")
        page.wait_for_selector(".instant li a")
        page.keyboard.press("Escape")
        assert page.locator("input[name=q]").input_value() == ""
        assert page.locator(".instant").is_hidden()
    finally:
        context.close()


def test_instant_search_shows_highlighted_results_and_arrow_enter_opens_one(browser: Any, server: str) -> None:
    context = _context(browser, PHONE)
    page = context.new_page()
    try:
        page.goto(server + "/")
        _type_query(page, "内存碎片")
        panel = page.locator(".instant")
        assert "内存碎片" in panel.locator("mark").all_inner_texts()
        assert "paste" in panel.inner_text().lower()  # the hint for pasting an error message
        first_title = panel.locator("li a .i-title").first.inner_text()
        page.keyboard.press("ArrowDown")
        assert page.evaluate("document.activeElement.closest('.instant') !== null")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        page.wait_for_url("**/entries/**")
        assert page.locator("h1").inner_text() == first_title
    finally:
        context.close()


def test_instant_search_never_runs_markup_from_snippets(browser: Any, server: str) -> None:
    context = _context(browser, DESKTOP)
    page = context.new_page()
    try:
        page.goto(server + "/")
        page.route("**/api/v1/search?**", lambda route: route.fulfill(json={
            "query": "x", "total": 1, "limit": 10, "offset": 0, "suggestion": None, "results": [{
                "id": "x", "title": "<img src=x onerror=alert(1)>", "lang": "en", "url": "/entries/x",
                "document": {"id": "d", "title": "D"}, "section": [], "score": 1, "translations": [],
                "snippet": "a <mark>b</mark> <img src=x onerror=\"window.__pwned=1\"> c"}]}))
        _type_query(page, "anything")
        assert page.locator(".instant img").count() == 0
        assert page.evaluate("window.__pwned") is None
        assert page.locator(".instant .i-snippet mark").inner_text() == "b"
        assert page.locator(".instant .i-title").inner_text() == "<img src=x onerror=alert(1)>"
    finally:
        context.close()


def test_copy_button_puts_the_code_on_the_clipboard(browser: Any, server: str, kinds: dict[str, str]) -> None:
    context = _context(browser, DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = context.new_page()
    try:
        page.goto(server + kinds["entry"])
        code = page.locator("pre code").first.inner_text().rstrip("\n")
        button = page.locator("button.copy").first
        assert button.inner_text() == "Copy"
        button.click()
        page.wait_for_function("document.querySelector('button.copy').textContent === 'Copied'")
        assert page.evaluate("navigator.clipboard.readText()") == code
        assert "PYTORCH_CUDA_ALLOC_CONF" in code
    finally:
        context.close()


def test_without_javascript_the_form_still_searches(browser: Any, server: str) -> None:
    context = _context(browser, PHONE, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(server + "/")
        assert page.locator("button.theme-toggle").is_hidden()  # shown only when it can work
        page.fill("input[name=q]", "bitsandbytes undefined symbol")
        page.keyboard.press("Enter")
        page.wait_for_url("**/search?**")
        assert page.locator(".instant").count() == 0
        assert page.locator("li.result a.title").first.inner_text().startswith("bitsandbytes/libbitsandbytes_cpu.so")
        assert page.locator("h1").inner_text().startswith("Results for")
    finally:
        context.close()


def test_pages_log_no_errors_and_ask_no_other_origin(browser: Any, server: str, kinds: dict[str, str]) -> None:
    context = _context(browser, DESKTOP)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = context.new_page()
    errors: list[str] = []
    elsewhere: list[str] = []
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    page.on("request", lambda r: elsewhere.append(r.url)
            if not r.url.startswith((server + "/", "data:")) else None)
    try:
        for path in kinds.values():
            page.goto(server + path)
        page.goto(server + kinds["entry"])
        page.locator("button.copy").first.click()
        page.locator("button.theme-toggle").click()
        _type_query(page, "deepspeed")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        page.wait_for_url("**/entries/**")
    finally:
        context.close()
    # The browser reports the 404 page's own status; nothing else may fail.
    errors = [e for e in errors if not (e.startswith(server + kinds["404"]) and "404 (Not Found)" in e)]
    assert errors == [] and elsewhere == []
