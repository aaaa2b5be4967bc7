"""Related entries: same problem, either language, never self or translation, one per translation pair."""

from __future__ import annotations

import pytest

from app.ingest import related as related_module
from app.ingest.align import LinkRules
from app.ingest.glossary import read_glossary
from app.ingest.pipeline import IngestReport, link_documents, read_documents
from app.ingest.related import MAX_RELATED, RelatableEntry, related_entries
from tests.conftest import CONTENT


def _entry(entry_id: str, lang: str, *anchors: str, question: tuple[str, ...] = ()) -> RelatableEntry:
    return RelatableEntry(entry_id, lang, frozenset(anchors), frozenset(question))


ENTRIES = [
    _entry("oom-en", "en", "word:fsdp", "word:oom", "gloss:1", "word:save", question=("word:oom",)),
    _entry("oom-zh", "zh", "word:fsdp", "word:oom", "gloss:1", question=("word:oom",)),
    _entry("save-oom", "zh", "word:fsdp", "word:oom", "line:state_dict.cpu()", question=("word:oom",)),
    _entry("save-err", "zh", "line:state_dict.cpu()", "word:peft"),
    _entry("tokenizer", "en", "word:tokenizer", "word:pad_token_id"),
    _entry("weather", "en", "word:sunny"),
]
TRANSLATIONS = {"oom-en": ["oom-zh"], "oom-zh": ["oom-en"]}


def test_related_share_technical_anchors_and_skip_self_and_translation() -> None:
    related = related_entries(ENTRIES, TRANSLATIONS)
    assert [r for r, _ in related["save-oom"]][:1] in (["oom-zh"], ["oom-en"])
    assert all(r not in {"oom-en", "oom-zh"} for r, _ in related["oom-en"])
    assert related["tokenizer"] == [] and related["weather"] == []  # nothing shared, nothing related


def test_a_translation_pair_is_one_related_entry_in_the_readers_language() -> None:
    related = related_entries(ENTRIES, TRANSLATIONS)
    ids = [r for r, _ in related["save-oom"]]
    assert "oom-zh" in ids and "oom-en" not in ids  # a Chinese reader sees the Chinese one
    assert [s for _, s in related["oom-en"]] == [s for _, s in related["oom-zh"]]  # an entry and its translation agree


def test_scores_are_ranked_and_capped() -> None:
    many = [_entry(f"e{k}", "en", "word:shared_term", f"word:own{k}") for k in range(12)]
    related = related_entries(many, {})
    for entry_id, items in related.items():
        assert len(items) == MAX_RELATED
        scores = [s for _, s in items]
        assert scores == sorted(scores, reverse=True)
        assert entry_id not in [r for r, _ in items]


def test_the_candidate_shortcut_finds_what_brute_force_finds_on_the_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    documents = read_documents(CONTENT, IngestReport())
    glossary = read_glossary(CONTENT)[0]
    fast = link_documents(documents, glossary, LinkRules()).related
    monkeypatch.setattr(related_module, "POSTING_LIMIT", 10**9)
    monkeypatch.setattr(related_module, "RERANK", 10**9)
    exact = link_documents(documents, glossary, LinkRules()).related
    assert fast == exact
