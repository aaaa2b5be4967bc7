"""Cross-links as readers and scripts see them: translations, related entries, the language switch."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient
from tests.conftest import settings_for


def _document(client: InProcessClient, document_id: str) -> dict[str, Any]:
    detail: dict[str, Any] = client.get(f"/api/v1/documents/{document_id}").json()
    return detail


def _entry(client: InProcessClient, entry_id: str) -> dict[str, Any]:
    detail: dict[str, Any] = client.get(f"/api/v1/entries/{entry_id}").json()
    return detail


def _entry_titled(client: InProcessClient, document_id: str, start: str) -> dict[str, Any]:
    ref = next(e for e in _document(client, document_id)["entries"] if e["title"].startswith(start))
    return _entry(client, ref["id"])


def test_seed_translations_pair_all_nine_entries_and_nothing_else(client: InProcessClient) -> None:
    english = _document(client, "llama-recipes-faq-en")["entries"]
    chinese = _document(client, "llama-recipes-faq-zh")["entries"]
    assert len(english) == len(chinese) == 9
    for en, zh in zip(english, chinese, strict=True):  # the Chinese file translates the English one, in order
        assert [t["id"] for t in _entry(client, en["id"])["translations"]] == [zh["id"]]
    for document in ("deepspeed-chat-faq-zh", "training-env-troubleshooting-zh", "hf-transformers-deepspeed-notes-zh"):
        assert all(_entry(client, e["id"])["translations"] == [] for e in _document(client, document)["entries"])


FRAGMENTATION = ("How to handle CUDA memory fragmentations", "在微调期间如何处理")
IMPORT_ERRORS = ("I am getting import errors", "运行推理时")
BITSANDBYTES = "bitsandbytes/libbitsandbytes_cpu.so"


@pytest.mark.parametrize(("document", "title", "counterparts"), [
    ("training-env-troubleshooting-zh", "保存时发生OOM", FRAGMENTATION),
    ("llama-recipes-faq-en", FRAGMENTATION[0], ("保存时发生OOM",)),
    ("training-env-troubleshooting-zh", BITSANDBYTES, IMPORT_ERRORS),
    ("llama-recipes-faq-en", IMPORT_ERRORS[0], (BITSANDBYTES,)),
])
def test_related_entries_find_the_same_failure_in_other_documents(
        client: InProcessClient, document: str, title: str, counterparts: tuple[str, ...]) -> None:
    entry = _entry_titled(client, document, title)
    assert any(r["title"].startswith(counterparts) for r in entry["related"])


def test_related_entries_are_at_most_five_never_self_or_translation(client: InProcessClient) -> None:
    languages = set()
    for document in _document_ids(client):
        for ref in _document(client, document)["entries"]:
            entry = _entry(client, ref["id"])
            related = [r["id"] for r in entry["related"]]
            assert len(related) <= 5 and len(set(related)) == len(related)
            assert entry["id"] not in related
            assert not {t["id"] for t in entry["translations"]} & set(related)
            languages |= {(entry["lang"], r["lang"]) for r in entry["related"]}
    assert ("zh", "en") in languages and ("en", "zh") in languages  # related across the two languages


def _document_ids(client: InProcessClient) -> list[str]:
    return [d["id"] for d in client.get("/api/v1/documents").json()]


def test_entry_page_switches_language_to_the_translated_entry(client: InProcessClient) -> None:
    entry = _entry_titled(client, "llama-recipes-faq-en", "I am getting import errors")
    (translation,) = entry["translations"]
    page = client.get(entry["url"]).text
    switch = f'<a href="{translation["url"]}" hreflang="zh-Hans" lang="zh-Hans" rel="alternate">阅读中文版</a>'
    assert switch in page
    assert f'<link rel="alternate" hreflang="en" href="{entry["url"]}">' in page  # itself, too
    assert f'<link rel="alternate" hreflang="zh-Hans" href="{translation["url"]}">' in page
    assert "相关条目" not in page and "Related" in page


def test_document_pages_link_their_translations(client: InProcessClient) -> None:
    page = client.get("/documents/llama-recipes-faq-zh").text
    assert '<link rel="alternate" hreflang="en" href="/documents/llama-recipes-faq-en">' in page
    assert '<link rel="alternate" hreflang="zh-Hans" href="/documents/llama-recipes-faq-zh">' in page
    assert _document(client, "llama-recipes-faq-zh")["translations"][0]["id"] == "llama-recipes-faq-en"


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessClient]:
    """A translated document with an entry the translation lacks."""
    content = tmp_path_factory.mktemp("partial-content")
    (content / "guide.en.md").write_text(
        "# Guide\n\n## How do I install it?\n\nRun `pip install demo-kit==1.2.0`.\n", encoding="utf-8")
    (content / "guide.zh.md").write_text(
        "# 指南\n\n## 如何安装？\n\n运行 `pip install demo-kit==1.2.0`。\n\n"
        "## 如何设置代理？\n\n导出 `HTTPS_PROXY` 环境变量。\n", encoding="utf-8")
    settings = settings_for(tmp_path_factory.mktemp("partial-data"), content)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as http:
        yield http


def test_entry_without_translation_says_so_and_offers_the_translated_document(partial: InProcessClient) -> None:
    entry = _entry_titled(partial, "guide-zh", "如何设置代理")
    assert entry["translations"] == []
    assert [d["id"] for d in entry["document"]["translations"]] == ["guide-en"]
    page = partial.get(entry["url"], headers={"Accept-Language": "zh-CN,zh;q=0.9"}).text
    assert "此条目没有英文版本。" in page
    assert '<a href="/documents/guide-en" hreflang="en">所属文档有译文：Guide</a>' in page
    english = partial.get(entry["url"], headers={"Accept-Language": "en"}).text  # the reader's interface
    assert '<a href="/documents/guide-en" hreflang="en">The document is translated: Guide</a>' in english


def test_related_entries_and_titles_are_escaped(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "a.md").write_text(
        "# A\n\n## Why does `<script>alert(1)</script>` fail with `XSSError`?\n\nSee `XSSError`.\n\n"
        "## What raises `XSSError` on <b>save</b>?\n\nAlso `XSSError`.\n", encoding="utf-8")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as http:
        second = _entry_titled(http, "a", "What raises")
        assert [r["title"] for r in second["related"]] == ["Why does <script>alert(1)</script> fail with XSSError?"]
        page = http.get(second["url"]).text
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_documents_with_the_same_title_are_told_apart_by_their_names(tmp_path: Path) -> None:
    content = tmp_path / "content"
    for folder in ("alpha", "beta"):
        (content / folder).mkdir(parents=True)
        (content / folder / "faq.md").write_text(f"# FAQ\n\n## Why does {folder} fail?\n\nBecause.\n", encoding="utf-8")
    (content / "guide.md").write_text("# Guide\n\n## Why does gamma fail?\n\nBecause.\n", encoding="utf-8")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)

    with InProcessClient(create_app(settings)) as client:
        hits = client.get("/api/v1/search", params={"q": "fail", "limit": 10}).json()["results"]
        labels = {hit["document"]["label"] for hit in hits}
        entry_page = client.get(next(h["url"] for h in hits if "alpha" in h["title"])).text
    # By the words of their paths that the title lacks, not by file names readers need not see (issue 26).
    assert labels == {"FAQ (alpha)", "FAQ (beta)", "Guide"}
    assert ">FAQ (alpha)</a>" in entry_page
