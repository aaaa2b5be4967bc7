"""The HTML pages: language, JSON twins, escaping, errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient
from tests.conftest import settings_for


def entry_url(client: InProcessClient, query: str, lang: str = "any") -> str:
    hits = client.get("/api/v1/search", params={"q": query, "lang": lang}).json()["results"]
    return str(hits[0]["url"])


def test_home_lists_documents_by_language_with_counts(client: InProcessClient) -> None:
    page = client.get("/").text
    assert '<html lang="en">' in page
    assert "English" in page and "中文" in page
    assert page.count('href="/documents/') == 5
    assert 'type="application/json" href="/api/v1/documents"' in page
    assert 'rel="search" type="application/opensearchdescription+xml"' in page


def test_home_speaks_chinese_to_chinese_readers(client: InProcessClient) -> None:
    page = client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"}).text
    assert '<html lang="zh-Hans">' in page and "搜索" in page


def test_search_page_works_without_javascript_and_highlights(client: InProcessClient) -> None:
    page = client.get("/search", params={"q": "内存碎片"}).text
    assert all("src=" in tag for tag in page.split("<script")[1:])  # JavaScript only enhances: no inline code
    assert 'action="/search" method="get"' in page
    assert "<mark>内存碎片</mark>" in page
    assert 'type="application/json" href="/api/v1/search?q=' in page
    titles = re.findall(r'<a class="title" href="[^"]+">(.*?)</a>', page)
    assert titles and any("<mark>" in title for title in titles)  # the query's words in the titles too


def test_search_page_escapes_the_query(client: InProcessClient) -> None:
    page = client.get("/search", params={"q": '<script>alert("x")</script>'}).text
    assert '<script>alert("x")</script>' not in page
    assert "&lt;script&gt;" in page


def test_search_page_over_long_query_explains(client: InProcessClient) -> None:
    assert client.get("/search", params={"q": "a" * 4001}).status_code == 200  # a paste may be long (issue 26)
    response = client.post("/search", data={"q": "a" * 65_537})
    assert response.status_code == 422
    assert "65536" in response.text


def test_entry_page_declares_language_breadcrumb_and_translation(client: InProcessClient) -> None:
    url = entry_url(client, "CUDA 内存碎片化", lang="zh")
    page = client.get(url).text
    assert '<html lang="zh-Hans">' in page
    assert 'aria-label="breadcrumb"' in page and 'href="/documents/llama-recipes-faq-zh"' in page
    assert re.search(r'<link rel="alternate" hreflang="en" href="/entries/[a-z0-9-]+">', page)
    assert re.search(r'<link rel="alternate" hreflang="zh-Hans" href="/entries/[a-z0-9-]+">', page)
    assert 'type="application/json" href="/api/v1/entries/' in page
    assert '<pre class="highlight"' in page


def test_entry_page_marks_links_that_lead_nowhere(client: InProcessClient) -> None:
    page = client.get(entry_url(client, "custom datasets", lang="en")).text
    assert 'class="broken-link"' in page and 'href="Dataset.md"' not in page


def test_document_page_lists_entries_in_order(client: InProcessClient) -> None:
    page = client.get("/documents/training-env-troubleshooting-zh").text
    assert '<html lang="zh-Hans">' in page
    toc = re.findall(r'<li><a href="#[^"]+">([^<]+)</a></li>', page)  # "on this page": anchors, in order
    assert toc[:2] == ["Exec docker", "Unable to pre-compile async_io"]
    assert len(toc) == 17


def test_unknown_pages_get_an_html_error_page(client: InProcessClient) -> None:
    response = client.get("/entries/no-such-entry")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "no entry with id" in response.text


def test_pages_send_a_strict_content_security_policy(client: InProcessClient) -> None:
    policy = client.get("/").headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy


def test_opensearch_description_points_at_the_search_page(client: InProcessClient) -> None:
    body = client.get("/opensearch.xml").text
    assert "/search?q={searchTerms}" in body


def test_repair_notes_and_source_lines_are_for_editors(seeded: Settings) -> None:
    with InProcessClient(create_app(seeded.model_copy(update={"admin_token": "t"}))) as client:
        doc = client.get("/api/v1/documents/hf-transformers-deepspeed-notes-zh").json()
        url = doc["entries"][1]["url"]
        page = client.get(url).text
        assert 'class="notice repaired"' not in page and doc["path"] not in page  # readers: neither (issue 26)
        editors = client.get(url.replace("/entries/", "/admin/entries/"), headers={"Authorization": "Bearer t"})
        assert editors.status_code == 200
        assert 'class="notice repaired"' in editors.text and f'{doc["path"]}:' in editors.text
        notice = editors.text.split('class="notice repaired"', 1)[1].split("</p>", 1)[0]
        assert "`" not in notice and "faq check" not in notice  # no editor's commands, no markup
        assert client.get(url.replace("/entries/", "/admin/entries/")).status_code == 401
        clean = client.get(entry_url(client, "fused_adam").replace("/entries/", "/admin/entries/"),
                           headers={"Authorization": "Bearer t"}).text
        assert 'class="notice repaired"' not in clean


def test_search_page_offers_did_you_mean(client: InProcessClient) -> None:
    corrected = client.get("/search", params={"q": "bitsandbites"}).text
    assert "Showing results for" in corrected and "Search instead for" in corrected and "bitsandbytes" in corrected
    as_typed = client.get("/search", params={"q": "bitsandbites", "correct": "false"}).text
    assert "Did you mean" in as_typed and "bitsandbytes" in as_typed


def test_search_page_shows_a_pair_in_the_language_typed(client: InProcessClient) -> None:
    chinese = client.get("/search", params={"q": "内存碎片"}, headers={"Accept-Language": "en"}).text
    assert '<li class="result" lang="zh-Hans">' in chinese and 'class="badge other"' in chinese
    english = client.get("/search", params={"q": "memory fragmentations"}, headers={"Accept-Language": "en"}).text
    first = english.split('<li class="result"', 2)[1]
    assert first.startswith(' lang="en"')


def test_opensearch_never_echoes_the_host_header(client: InProcessClient, seeded: Settings) -> None:
    body = client.get("/opensearch.xml", headers={"Host": "evil.example"}).text
    assert "evil.example" not in body and 'template="/search?q={searchTerms}"' in body
    from app.main import create_app

    configured = seeded.model_copy(update={"public_url": "https://faq.intranet/"})
    with InProcessClient(create_app(configured)) as other:
        body = other.get("/opensearch.xml", headers={"Host": "evil.example"}).text
    assert 'template="https://faq.intranet/search?q={searchTerms}"' in body and "evil.example" not in body


@pytest.mark.parametrize("path", ["/", "/search?q=fsdp", "/docs", "/openapi.json", "/api/v1/documents",
                                  "/static/vendor/swagger-ui/swagger-ui.css", "/no-such-page"])
def test_every_response_refuses_framing_and_inline_script(client: InProcessClient, path: str) -> None:
    headers = client.get(path).headers
    policy = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy and "unsafe-eval" not in policy
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert headers["x-frame-options"] == "DENY"


def test_the_api_docs_page_has_no_inline_script(client: InProcessClient) -> None:
    page = client.get("/docs").text
    assert '<html lang="en">' in page and "/static/swagger-init.js" in page
    assert all("src=" in tag for tag in page.split("<script")[1:])
    assert client.get("/static/swagger-init.js").status_code == 200


def test_the_start_page_groups_documents_by_topic_when_content_has_folders(tmp_path: Path) -> None:
    content = tmp_path / "content"
    for folder in ("deep-speed", "llama_recipes"):
        (content / folder).mkdir(parents=True)
        (content / folder / "faq.md").write_text(f"# FAQ\n\n## Why does {folder} fail?\n\nBecause.\n", encoding="utf-8")
        chinese = f"# 常见问题\n\n## {folder} 为什么失败？\n\n因为。\n"
        (content / folder / "faq.zh.md").write_text(chinese, encoding="utf-8")
    (content / "notes.md").write_text("# Notes\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as client:
        home = client.get("/", headers={"Accept-Language": "en"}).text
    topics = re.findall(r'<section class="topic"><h2>([^<]+)</h2>', home)
    assert topics == ["Deep speed", "Llama recipes", "Other documents"]
    deep = home.split("<h2>Deep speed</h2>", 1)[1].split('<section class="topic">', 1)[0]
    assert "<h3>English</h3>" in deep and "<h3>中文</h3>" in deep and "Why does" not in deep
