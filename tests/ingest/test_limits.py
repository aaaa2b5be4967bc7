"""What keeps an ingest bounded: a document too large to read whole is skipped with a line saying so, and
content pairing weighs each document only against documents sharing an anchor with it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from app import cli
from app.generations import current_name
from app.ingest import align
from app.ingest.align import AlignableDocument, AlignableEntry, pair_documents
from app.ingest.anchors import anchor_weights
from app.ingest.pipeline import MAX_DOCUMENT_BYTES
from tests.conftest import settings_for


def test_a_document_over_the_size_limit_is_skipped_with_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "faq.md").write_text("# FAQ\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    with (content / "dump.md").open("w", encoding="utf-8") as huge:  # 52 MB took 22 minutes and 2.2 GB
        line = "## Why again?\n\nBecause, once more, and at length.\n\n"
        huge.write(line * (MAX_DOCUMENT_BYTES // len(line) + 1))
    settings = settings_for(tmp_path, content)
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    assert cli.main(["ingest", "--quiet"]) == 3  # published, with a file skipped
    out = capsys.readouterr().out
    assert "skipped  dump.md: 16.0 MB, over the 16 MB a document may have" in out and "split it" in out
    assert "documents:          1" in out and current_name(settings) is not None


def test_a_folder_whose_only_document_is_over_the_limit_says_why_nothing_was_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    content = tmp_path / "content"
    content.mkdir()
    block = b"## Why?\n\nBecause.\n\n"
    (content / "dump.md").write_bytes(block * (MAX_DOCUMENT_BYTES // len(block) + 1))
    settings = settings_for(tmp_path, content)
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    assert cli.main(["ingest", "--quiet"]) == 1
    said = capsys.readouterr().err.strip()
    assert said.startswith("faq ingest: no readable documents under") and "\n" not in said
    assert "skipped dump.md: 16.0 MB, over the 16 MB a document may have" in said and "split it" in said
    assert current_name(settings) is None


def _every_document_against_every_other(self: align._Pairing) -> None:
    """Content pairing as it was before candidates came from shared anchors: the reference."""
    free = [d for d in self.documents if self._free(d) and d.entries]
    document_anchors = {d.id: frozenset().union(*(e.anchors for e in d.entries)) for d in free}
    weights = anchor_weights(document_anchors.values())
    candidates: set[tuple[str, str]] = set()
    for doc in free:
        scored = [(sum(weights[a] for a in document_anchors[doc.id] & document_anchors[other.id]), other.id)
                  for other in free if other.lang != doc.lang and self._allowed(doc, other)]
        for _, other_id in sorted(scored, reverse=True)[:align.DOCUMENT_CANDIDATES]:
            candidates.add((min(doc.id, other_id), max(doc.id, other_id)))
    pairs = [(self.by_id[a], self.by_id[b]) for a, b in sorted(candidates)]
    self._pair_best(pairs, "content", minimum=align.DOCUMENT_COVERAGE)


def _random_documents(rng: random.Random) -> list[AlignableDocument]:
    """Translations sharing most of their entries' anchors, among documents sharing a few by chance."""
    vocabulary = [f"word:term{k}" for k in range(60)]
    documents = []
    for k in range(rng.randint(10, 40)):
        entries = [frozenset(rng.sample(vocabulary, rng.randint(1, 5))) for _ in range(rng.randint(1, 6))]
        translated = [frozenset(rng.sample(sorted(found), max(1, len(found) - 1))) for found in entries]
        documents.append(AlignableDocument(f"en{k}", f"{k}a.md", "en", [
            AlignableEntry(f"en{k}-{n}", found) for n, found in enumerate(entries)]))
        if rng.random() < 0.2:
            rng.shuffle(translated)
        if rng.random() < 0.7:
            documents.append(AlignableDocument(f"zh{k}", f"{k}b.md", "zh", [
                AlignableEntry(f"zh{k}-{n}", found) for n, found in enumerate(translated)]))
    return documents


def test_pairing_by_shared_anchors_finds_the_pairs_that_comparing_every_document_found(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(28)
    corpora = [_random_documents(rng) for _ in range(40)]
    found = [pair_documents(documents) for documents in corpora]
    monkeypatch.setattr(align._Pairing, "_pair_by_content", _every_document_against_every_other)
    reference = [pair_documents(documents) for documents in corpora]
    assert [alignment.documents for alignment in found] == [alignment.documents for alignment in reference]
    assert sum(len(alignment.documents) for alignment in found) > 300  # the corpora do pair
