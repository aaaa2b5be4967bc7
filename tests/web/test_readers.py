"""Reading and searching as engineers do (issue 26), in a real Chromium: long pastes, phones, input methods,
honest corrections, no dead ends, the reader's page."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from app.config import Settings
from app.ingest.pipeline import html_to_text
from app.querylog import QueryLog
from measure.localserver import running_server

pytestmark = pytest.mark.browser
WIDTHS = (320, 360, 390, 1366)
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_ALL = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v =>
    `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | ")}`);
}"""


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
    with page.expect_navigation():  # waiting for the load state alone could read the page it left
        page.keyboard.press("Enter")
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


# ------------------------------------------------------------------ every page, every width, both schemes

def _kinds(server: str) -> dict[str, str]:
    with httpx.Client(base_url=server) as http:
        entry = http.get("/api/v1/search", params={"q": "PYTORCH_CUDA_ALLOC_CONF"}).json()["results"][0]["url"]
    return {
        "home": "/", "results": "/search?q=CUDA+out+of+memory", "empty search": "/search",
        "corrected": "/search?q=deepsped", "nothing found": "/search?q=qqxqz+vvkwp",
        "entry": entry, "highlighted entry": entry + "?hl=CUDA+memory",
        "table document": "/documents/deepspeed-chat-faq-zh",
        "document": "/documents/hf-transformers-deepspeed-notes-zh",
        "list document": "/documents/training-env-troubleshooting-zh", "404": "/no/such/page", "docs": "/docs",
    }


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_axe_finds_no_violation_of_any_impact(browser: Any, server: str, width: int, scheme: str) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="en-US", bypass_csp=True)
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    found: dict[str, list[str]] = {}
    try:
        for kind, path in _kinds(server).items():
            page.goto(server + path)
            if kind == "docs":
                page.wait_for_selector(".opblock-summary-path", timeout=20_000)
            page.add_script_tag(path=str(AXE))
            found[kind] = page.evaluate(AXE_ALL)
        page.goto(server + "/search")  # what opens: the paste form, the feedback comment, the instant results
        page.locator("details.paste-form summary").click()
        page.add_script_tag(path=str(AXE))
        found["paste form"] = page.evaluate(AXE_ALL)
        page.goto(server + _kinds(server)["entry"])
        page.locator("section.feedback summary").click()
        page.add_script_tag(path=str(AXE))
        found["feedback comment"] = page.evaluate(AXE_ALL)
        page.goto(server + "/")
        page.keyboard.press("/")
        page.keyboard.type("CUDA memory", delay=10)
        page.wait_for_selector(".instant li a")
        page.add_script_tag(path=str(AXE))
        found["instant results"] = page.evaluate(AXE_ALL)
    finally:
        context.close()
    assert {kind: v for kind, v in found.items() if v} == {}


# ------------------------------------------------------------------ 2, 13. tables and code on every width

@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_is_wider_than_its_box_without_saying_it_scrolls(browser: Any, server: str, width: int,
                                                                 scheme: str) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="zh-CN")
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    unsaid: dict[str, list[str]] = {}
    small_code: dict[str, list[float]] = {}
    try:
        for kind, path in _kinds(server).items():
            if kind == "docs":
                continue
            page.goto(server + path)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, kind
            unsaid[kind] = page.evaluate("""() => [...document.querySelectorAll("main *")].filter(e => {
                if (e.scrollWidth <= e.clientWidth + 1) return false;
                const style = getComputedStyle(e);
                if (style.overflowX === "visible") return false;
                if (style.overflowX === "hidden" && e.clientWidth <= 1) return false;  // text for screen readers
                if (["auto", "scroll"].includes(style.overflowX)) {
                  const hint = (e.closest(".code") || e).nextElementSibling;
                  return !(hint && hint.classList.contains("scroll-hint") && hint.offsetHeight > 0);
                }
                return true;
            }).map(e => e.tagName + "." + e.className)""")
            small_code[kind] = page.evaluate("""() => [...document.querySelectorAll("main code, main pre")]
                .map(e => parseFloat(getComputedStyle(e).fontSize)).filter(size => size < 14)""")
    finally:
        context.close()
    assert {kind: found for kind, found in unsaid.items() if found} == {}
    assert {kind: found for kind, found in small_code.items() if found} == {}


@pytest.mark.parametrize("width", [320, 360, 390])
def test_on_a_phone_a_table_of_answers_is_read_row_by_row(browser: Any, server: str, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 800}, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server + "/documents/deepspeed-chat-faq-zh")
        cell = page.locator("td[data-label]").nth(1)
        box = cell.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width  # the answer column is on the screen
        label = cell.evaluate("e => getComputedStyle(e, '::before').content")
        assert label.strip('"') == cell.get_attribute("data-label") != ""  # each cell says which column it is
    finally:
        context.close()


# ------------------------------------------------------------------ 3. inline HTML

def test_inline_html_in_content_is_markup_not_text(page: Any, server: str) -> None:
    page.goto(server + "/documents/deepspeed-chat-faq-zh")
    text = page.locator("article").inner_text()
    assert "<a name" not in text and "<br" not in text
    assert page.locator("article td br").count() >= 1
    assert page.locator("h2", has_text="单机单卡可以训练多大参数量的模型").count() == 1


# ------------------------------------------------------------------ 9. questions look like questions

def test_questions_stand_out_from_answers_whatever_the_document_wrote(page: Any, server: str) -> None:
    page.goto(server + "/documents/training-env-troubleshooting-zh")
    plain = page.evaluate("""() => [...document.querySelectorAll(".question")]
        .filter(q => !/^H[1-6]$/.test(q.tagName))
        .filter(q => parseFloat(getComputedStyle(q).borderLeftWidth) < 3).map(q => q.tagName)""")
    assert page.locator(".question").count() > 0 and plain == []


# ------------------------------------------------------------------ 10. two "Chinese" links

def test_the_interface_switch_and_the_translation_link_say_different_things(page: Any, server: str) -> None:
    page.goto(server + "/search?q=" + quote("memory fragmentations"))
    page.locator("li.result a.title").first.click()
    page.wait_for_load_state()
    switch = page.locator("header.site .ui-switch").inner_text()
    translation = page.locator("p.lang-switch a").inner_text()
    assert switch == "中文界面" and translation == "阅读中文版"
    page.locator("p.lang-switch a").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    assert page.locator("header.site").get_attribute("lang") == "en"  # the interface did not change


# ------------------------------------------------------------------ 11. snippets and the reader's language

def test_snippets_start_between_words_and_a_chinese_query_gets_the_chinese_twin(page: Any, server: str) -> None:
    page.goto(server + "/search?q=" + quote("内存碎片"))
    first = page.locator("li.result").first
    assert first.get_attribute("lang") == "zh-Hans"
    assert first.locator("a.badge.other").get_attribute("hreflang") == "en"
    page.goto(server + "/search?q=why+is+the+loss+not+decreasing")
    assert "not" not in [word.lower() for word in page.locator("li.result mark").all_inner_texts()]
    page.goto(server + "/search?q=deepspeed+config")
    cut_words = []
    for result in page.locator("li.result").all():
        snippet = result.locator("p.snippet").inner_text()
        assert "://" not in snippet  # URLs are shortened to their host and last segment
        if not snippet.startswith("…"):
            continue
        entry = httpx.get(server + "/api/v1" + result.locator("a.title").get_attribute("href").split("?")[0]).json()
        text = html_to_text(entry["body_html"])
        first = snippet[1:].split()[0]
        at = text.find(first)
        if at > 0 and text[at - 1].isalnum() and ord(text[at - 1]) < 0x2E80:
            cut_words.append(first)
    assert cut_words == []


# ------------------------------------------------------------------ 12. /docs

def test_api_docs_lead_back_and_work_without_javascript_and_in_dark(browser: Any, server: str) -> None:
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    page = context.new_page()
    try:
        page.goto(server + "/docs")
        assert "GET /api/v1/search" in page.locator("body").inner_text()
        assert page.locator("a[href='/']").count() == 1
    finally:
        context.close()
    context = browser.new_context(color_scheme="dark", locale="en-US")
    page = context.new_page()
    try:
        page.goto(server + "/docs")
        page.wait_for_selector(".opblock-summary-path", timeout=20_000)
        red, green, blue = page.evaluate("""() => getComputedStyle(document.body).backgroundColor
            .match(/\\d+/g).slice(0, 3).map(Number)""")
        assert 0.2126 * red + 0.7152 * green + 0.0722 * blue < 80
    finally:
        context.close()


# ------------------------------------------------------------------ 14. readers do not see the editors' details

def test_readers_see_no_file_names_and_no_two_documents_with_one_name(page: Any, server: str) -> None:
    page.goto(server + "/")
    names = page.locator("ul.documents a").all_inner_texts()
    assert len(names) == len(set(names)) and "FAQ (deepspeed chat)" in names
    for path in ("/", "/documents/hf-transformers-deepspeed-notes-zh"):
        page.goto(server + path)
        assert ".md" not in page.locator("main").inner_text()
    page.goto(server + "/documents/llama-recipes-faq-en")
    broken = page.locator(".broken-link").first  # a link the portal cannot follow: text, nothing to hover for
    assert broken.evaluate("e => getComputedStyle(e).textDecorationLine") == "none"
    page.goto(server + "/documents/hf-transformers-deepspeed-notes-zh")
    page.locator("nav.on-this-page a").nth(1).click()
    entry = page.locator("nav.on-this-page a").nth(1).get_attribute("href")
    page.goto(server + "/entries/" + entry.lstrip("#"))
    assert page.locator(".notice.repaired").count() == 0 and ".md:" not in page.locator("main").inner_text()
    assert page.locator("a", has_text="Edit this page").get_attribute("href").startswith(
        "https://git.example/team/faq/edit/main/content/hf-transformers-deepspeed-notes.zh.md#L")


# ------------------------------------------------------------------ the opened entry shows what was searched

def test_the_search_is_highlighted_on_the_opened_entry_and_can_be_removed(page: Any, server: str) -> None:
    page.goto(server + "/search?q=" + quote("CUDA memory fragmentation"))
    page.locator("li.result a.title").first.click()
    page.wait_for_load_state()
    marked = page.locator("article mark").all_inner_texts()
    assert any(word.lower().startswith("fragment") for word in marked)
    page.locator("p.highlighting a", has_text="Remove highlighting").click()
    page.wait_for_load_state()
    assert page.locator("article mark").count() == 0 and "hl=" not in page.url


def test_markup_in_hl_is_text_and_a_long_one_is_cut(page: Any, server: str) -> None:
    entry = _kinds(server)["entry"]
    page.goto(server + entry + "?hl=" + quote("<img src=x onerror=window.__pwned=1> cuda") + "x" * 5000)
    assert page.evaluate("window.__pwned") is None and page.locator("main img").count() == 0
    assert len(page.locator("p.highlighting").inner_text()) < 200


# ------------------------------------------------------------------ was this helpful?

def test_a_reader_says_whether_an_entry_helped_with_a_comment(page: Any, server: str) -> None:
    entry = _kinds(server)["entry"]
    page.goto(server + entry)
    feedback = page.locator("section.feedback")
    assert feedback.locator("h2").inner_text() == "Was this helpful?"
    feedback.locator("summary").click()
    feedback.locator("textarea").fill("<b>Step 2</b> fails on Windows")
    feedback.locator("button", has_text="No").click()
    page.wait_for_load_state()
    assert page.locator("section.feedback [role=status]").inner_text() == "Thank you: the editors will see it."
    assert page.context.cookies() == []  # no cookie: the portal remembers no reader
