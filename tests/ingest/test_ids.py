"""Entry and document ids: readable, URL-safe, stable."""

from __future__ import annotations

import re

import pytest

from app.ingest.ids import document_id, entry_id, slugify

URL_SAFE = re.compile(r"^[a-z0-9-]+$")


def test_slugify_spells_chinese_in_pinyin_and_keeps_identifiers() -> None:
    assert slugify("加载Llama tokenizer时存在的问题") == "jia-zai-llama-tokenizer-shi-cun-zai-de-wen-ti"
    assert slugify("PYTORCH_CUDA_ALLOC_CONF 显存") == "pytorch-cuda-alloc-conf-xian-cun"


def test_entry_id_is_url_safe_readable_and_deterministic() -> None:
    first = entry_id("faq-en", ("Install",), "How do I install it?")
    assert first == entry_id("faq-en", ("Install",), "How do I install it?")
    assert first.startswith("how-do-i-install-it-")
    assert URL_SAFE.match(first)
    assert entry_id("faq-en", ("Other",), "How do I install it?") != first


def test_entry_id_of_symbols_only_question_is_still_valid() -> None:
    assert URL_SAFE.match(entry_id("d", (), "？？？"))


def test_document_id_comes_from_the_path() -> None:
    assert document_id("guides/llama-recipes-faq.zh.md") == "guides-llama-recipes-faq-zh"
    assert URL_SAFE.match(document_id("常见问题.md"))


def test_ascii_is_slugged_without_pypinyin_and_as_pypinyin_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """An English question or a file name has nothing to spell: same slug, and pypinyin is not asked."""
    from pypinyin import lazy_pinyin

    from app.ingest import ids

    samples = ["How do I set `x.y` (v2.1) for peft?", "  3f9a1c2e  ", "a\tb--c__d", "Q13: Why? Because!", ""]
    expected = {}
    for text in samples:  # what the slug was when every text went through pypinyin
        words = " ".join(lazy_pinyin(text, errors=lambda chars: chars))
        assert words == text
        expected[text] = re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")
    asked: list[str] = []
    monkeypatch.setattr(ids, "lazy_pinyin", lambda text, **kwargs: asked.append(text) or lazy_pinyin(text, **kwargs))
    assert {text: slugify(text) for text in samples} == expected
    assert asked == []
    ids._spelled.cache_clear()
    assert slugify("加载 tokenizer") == "jia-zai-tokenizer" and asked == ["加载"]


def test_chinese_pieces_are_spelled_once_and_as_the_whole_text_would_be(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text's Han pieces are spelled one at a time and remembered: the slug is the one pypinyin gives the whole
    text, and a piece that recurs (如何为, 设置) is not spelled again."""
    from pypinyin import lazy_pinyin

    from app.ingest import ids

    questions = [f"如何为 peft{k} 设置 scale_opt_{k}？加载Llama tokenizer时存在的问题" for k in range(5)]
    whole = [slugify(" ".join(lazy_pinyin(q, errors=lambda chars: chars))) for q in questions]  # spelled, then ASCII
    ids._spelled.cache_clear()
    asked: list[str] = []
    monkeypatch.setattr(ids, "lazy_pinyin", lambda text, **kwargs: asked.append(text) or lazy_pinyin(text, **kwargs))
    assert [slugify(q) for q in questions] == whole
    assert sorted(asked) == sorted(["如何为", "设置", "加载", "时存在的问题"])
