"""The pages' markup (issue 12): search page, paging, titles, badges, 404, document outline, assets."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from app.config import Settings
from app.main import create_app
from app.models import EntryRef
from app.web.inprocess import InProcessClient
from app.web.outline import outline

REPO = Path(__file__).resolve().parents[2]
TRACEBACK = """Traceback (most recent call last):
  File "/home/user/train.py", line 88, in <module>
    trainer.train()
  File "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", line 1539, in train
    return inner_training_loop(
  File "/opt/conda/lib/python3.10/site-packages/torch/cuda/memory.py", line 120, in empty_cache
    torch._C._cuda_emptyCache()
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity)
"""


def title_of(page: str) -> str:
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found
    return html.unescape(found.group(1))


def main_of(page: str) -> str:
    return page.split('<main id="main">', 1)[1].split("</main>", 1)[0]


# ------------------------------------------------------------------ search page

def test_search_pages_have_one_h1(client: InProcessClient) -> None:
    for params in ({}, {"q": "fsdp"}, {"q": "fsdp", "offset": 50}, {"q": "zzzzqqq"}):
        page = client.get("/search", params=params).text
        assert len(re.findall(r"<h1[ >]", page)) == 1, params


def test_empty_search_page_says_what_to_type_and_lists_documents(client: InProcessClient) -> None:
    page = client.get("/search").text
    body = main_of(page)
    assert "<h1>Search</h1>" in body and "error message" in body and "traceback" in body
    examples = re.findall(r'<ul class="examples">(.*?)</ul>', body, re.S)[0]
    queries = [html.unescape(q) for q in re.findall(r'<a href="/search\?q=[^"]*">([^<]+)</a>', examples)]
    assert len(queries) >= 3
    for query in queries:  # every example finds something in the seeds
        assert client.get("/api/v1/search", params={"q": query}).json()["total"] >= 1, query
    assert body.count('href="/documents/') == 5
    assert "<kbd>/</kbd>" in body
    chinese = main_of(client.get("/search", headers={"Accept-Language": "zh-CN"}).text)
    assert "<h1>搜索</h1>" in chinese and "报错信息" in chinese


def test_search_page_past_the_end_says_so_and_leads_back(client: InProcessClient) -> None:
    total = client.get("/api/v1/search", params={"q": "fsdp"}).json()["total"]
    assert 0 < total < 50
    body = main_of(client.get("/search", params={"q": "fsdp", "offset": 50}).text)
    assert "No entry matches" not in body  # not "6 results" and "no entry matches" together
    assert f"has {total} results" in body
    assert 'href="/search?q=fsdp&amp;lang=any&amp;offset=0"' in body
    assert 'class="pager"' not in body


def test_search_page_counts_honestly(client: InProcessClient) -> None:
    body = main_of(client.get("/search", params={"q": "model"}).text)
    total = int(re.findall(r"1–10 of (\d+)", body)[0])
    assert total > 10
    assert f"1–10 of {total}" in body and 'rel="next"' in body and "Page 1 of" in body
    none = main_of(client.get("/search", params={"q": "zzzzqqqxx"}).text)
    assert "No entry matches" in none and "0 of" not in none


def test_pasted_traceback_gets_a_short_title(client: InProcessClient) -> None:
    page = client.get("/search", params={"q": TRACEBACK}).text
    title = title_of(page).removesuffix(" · FAQ portal")
    assert len(title) <= 71 and title.endswith("…") and "\n" not in title
    assert title.startswith("torch.cuda.OutOfMemoryError: CUDA out of memory")  # named by its error (issue 26)
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S)
    assert h1 and len(html.unescape(h1.group(1))) < 160


def test_language_badge_is_a_label_and_translation_a_link(client: InProcessClient) -> None:
    page = client.get("/search", params={"q": "内存碎片"}, headers={"Accept-Language": "en"}).text
    first = page.split('<li class="result"', 2)[1]
    assert re.search(r'<span class="badge"[^>]*>zh</span>', first)
    link = re.search(r'<a class="badge other" href="/entries/[^"]+" hreflang="en"[^>]*>(.*?)</a>', first)
    assert link and re.sub("<[^>]+>", "", link.group(1)).startswith("⇄English (translation: How to handle CUDA")


def test_snippets_stay_escaped_with_only_mark(client: InProcessClient) -> None:
    page = client.get("/search", params={"q": "<mark>x</mark> fsdp"}).text
    for snippet in re.findall(r'<p class="snippet">(.*?)</p>', page, re.S):
        assert not re.search(r"<(?!/?mark>)", snippet)


# ------------------------------------------------------------------ 404

def test_not_found_page_offers_search_in_the_readers_language(client: InProcessClient) -> None:
    english = client.get("/no/such/page")
    assert english.status_code == 404 and '<html lang="en">' in english.text
    body = main_of(english.text)
    assert "<h1>Page not found</h1>" in body and 'action="/search"' in body and "nothing at /no/such/page" in body
    chinese = client.get("/entries/no-such-entry", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert chinese.status_code == 404 and '<html lang="zh-Hans">' in chinese.text
    body = main_of(chinese.text)
    assert "<h1>找不到页面</h1>" in body and 'placeholder="搜索问题' in body and "no entry with id" in body


# ------------------------------------------------------------------ document and entry pages

def test_document_page_outline_jumps_down_the_page(client: InProcessClient) -> None:
    for doc in client.get("/api/v1/documents").json():
        page = client.get(f"/documents/{doc['id']}").text
        toc = re.search(r'<nav class="on-this-page".*?</nav>', page, re.S)
        assert toc, doc["id"]
        hrefs = re.findall(r'<a href="([^"]+)"', toc.group(0))
        assert len(hrefs) == doc["entry_count"]
        assert all(h.startswith("#") for h in hrefs), doc["id"]  # never to another page
        article = page.split('<article class="document">', 1)[1]
        for href in hrefs:
            assert f'id="{href[1:]}" class="question"' in article
            assert f'<a class="permalink" href="{href}"' in article or f'<li id="{href[1:]}"' in article


def test_document_page_does_not_repeat_its_title(client: InProcessClient) -> None:
    page = client.get("/documents/hf-transformers-deepspeed-notes-zh").text
    assert page.count("<h1>Notes about loading, inferring and fine-tuning LLM</h1>") == 1
    article = page.split('<article class="document">', 1)[1]
    assert not article.lstrip().startswith("<h1")


def test_code_blocks_are_keyboard_scrollable(client: InProcessClient) -> None:
    hit = client.get("/api/v1/search", params={"q": "PYTORCH_CUDA_ALLOC_CONF"}).json()["results"][0]
    page = client.get(hit["url"]).text
    assert '<pre class="highlight" tabindex="0">' in page and '<pre class="highlight">' not in page
    document = client.get("/documents/deepspeed-chat-faq-zh").text
    assert '<table tabindex="0">' in document and "<table>" not in document


def test_entry_source_line_leads_to_the_question_in_its_document(seeded: Settings) -> None:
    with InProcessClient(create_app(seeded.model_copy(update={"admin_token": "t"}))) as client:
        hit = client.get("/api/v1/search", params={"q": "bitsandbytes undefined symbol"}).json()["results"][0]
        page = client.get("/admin" + hit["url"], headers={"Authorization": "Bearer t"}).text  # the editors' view
    assert f'href="/documents/training-env-troubleshooting-zh#{hit["id"]}"' in page


def test_outline_finds_numbered_and_listed_questions_and_escapes_ids() -> None:
    source = ("<h1>Guide</h1>\n<h2>&lt;a name=&quot;1&quot;&gt;&lt;/a&gt; 1. Why <code>x</code>?</h2>\n"
              "<p>Because.</p>\n<ol>\n<li><strong>Note</strong>: later</li>\n</ol>\n<h2>Why <code>x</code>?</h2>\n")
    entries = [EntryRef(id="why-x-1", lang="en", title="Why x?", url="/entries/why-x-1"),
               EntryRef(id="a\"b", lang="en", title="Part › Note", url="/entries/n"),
               EntryRef(id="why-x-2", lang="en", title="Why x?", url="/entries/why-x-2"),
               EntryRef(id="gone", lang="en", title="Not in the text", url="/entries/gone")]
    out, items = outline(source, "Guide", entries, "Link")
    assert not out.startswith("<h1")  # the title is the page's h1 already
    assert [i.href for i in items] == ["#why-x-1", '#a"b', "#why-x-2", "/entries/gone"]
    assert out.count('class="question"') == 3 and 'id="a&quot;b"' in out
    assert out.index('id="why-x-1"') < out.index("Because.") < out.index('id="why-x-2"')
    assert '<a class="permalink" href="#why-x-2" aria-label="Link: Why x?">#</a></h2>' in out


def test_outline_keeps_a_first_heading_that_is_not_the_title() -> None:
    source = "<h1>Other</h1>\n<p>Text</p>\n"
    out, _ = outline(source, "Guide", [], "Link")
    assert out == source


# ------------------------------------------------------------------ assets and policy

@pytest.mark.parametrize("path", ["/", "/search", "/search?q=fsdp", "/documents/deepspeed-chat-faq-zh", "/nope"])
def test_pages_load_only_own_scripts_and_styles_without_inline_code(client: InProcessClient, path: str) -> None:
    page = client.get(path).text
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    # Fingerprinted URLs (?v=<hash>): cached for a year, replaced when the file changes.
    assert {re.sub(r"\?v=[0-9a-f]+", "", attrs.strip()) for attrs, _ in scripts} == \
        {'src="/static/js/theme.js"', 'src="/static/js/portal.js" defer'}
    assert all(not body.strip() for _, body in scripts)
    assert not re.search(r"\son[a-z]+=", page)  # no inline handlers
    assert not re.search(r"\sstyle=", page)  # the CSP's style-src has no 'unsafe-inline'
    resources = (re.findall(r'<(?:script|img|iframe)[^>]*\ssrc="([^"]+)"', page)
                 + re.findall(r'<link[^>]*\shref="([^"]+)"', page))
    assert resources and all(r.startswith("/") and not r.startswith("//") for r in resources), resources
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', page):
        assert client.get(asset).status_code == 200, asset


def test_stylesheet_is_responsive_dark_printable_with_a_cross_platform_monospace(client: InProcessClient) -> None:
    css = client.get("/static/css/portal.css").text
    assert "@media (prefers-color-scheme: dark)" in css and ":root[data-theme=dark]" in css
    assert "@media print" in css and "@media (max-width:" in css
    assert "overflow-wrap: anywhere" in css
    mono = re.search(r"--mono:([^;]+);", css)
    assert mono
    fonts = [f.strip().strip('"') for f in mono.group(1).split(",")]
    for latin in ("DejaVu Sans Mono", "Liberation Mono", "Menlo", "Consolas"):  # Linux, macOS, Windows
        assert fonts.index(latin) < fonts.index("Noto Sans Mono CJK SC")
    assert fonts[-1] == "monospace"
    assert "url(" not in css and "@font-face" not in css and "@import" not in css  # nothing from elsewhere


def test_results_page_weighs_under_100_kb(client: InProcessClient) -> None:
    page = client.get("/search", params={"q": "CUDA out of memory"})
    assets = re.findall(r'(?:src|href)="(/static/(?:css|js)/[^"]+)"', page.text)
    weight = len(page.content) + sum(len(client.get(a).content) for a in assets)
    assert weight <= 100_000, weight
