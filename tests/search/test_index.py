"""Building the index: postings spilled to disk in sorted runs come back exactly as they went."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from whoosh import index as whoosh_index

from app.search import index as index_module
from app.search.index import IndexedEntry, build_index

WORDS = ["cuda", "memory", "error", "训练", "显存", "不足", "deepspeed", "install", "version", "layer"]


def _entries(count: int) -> list[IndexedEntry]:
    rng = random.Random(5)
    return [IndexedEntry(id=f"e{n}", document_id=f"d{n % 7}", lang="en", section="[]",
                         title=" ".join(rng.choices(WORDS, k=4)), body_text=" ".join(rng.choices(WORDS, k=40)),
                         body_markdown=f"`cuda_{n % 13}` " + " ".join(rng.choices(WORDS, k=10)))
            for n in range(count)]


def _postings(directory: Path) -> list[tuple[object, ...]]:
    ix = whoosh_index.open_dir(str(directory))
    found: list[tuple[object, ...]] = []
    with ix.reader() as reader:
        for field, text in reader.all_terms():
            matcher = reader.postings(field, text)
            while matcher.is_active():
                found.append((field, text, matcher.id(), matcher.weight(), matcher.value()))
                matcher.next()
    return found


def test_postings_spilled_in_many_runs_are_those_kept_in_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entries = _entries(300)
    assert build_index(tmp_path / "in-memory", entries) == 300
    written: list[int] = []
    write_run = index_module.ChunkedPostingPool._write_run

    def counted(pool: index_module.ChunkedPostingPool, f: object, items: object) -> None:
        written.append(1)
        write_run(pool, f, items)  # type: ignore[arg-type]

    monkeypatch.setattr(index_module.ChunkedPostingPool, "_write_run", counted)
    monkeypatch.setattr(index_module, "POOL_MB", 0.0005)  # a run every few hundred postings
    monkeypatch.setattr(index_module, "RUN_CHUNK", 7)
    assert build_index(tmp_path / "spilled", entries) == 300
    assert len(written) > 130  # more runs than Whoosh opens at once: some are merged into runs first
    assert _postings(tmp_path / "spilled") == _postings(tmp_path / "in-memory")


def _term_lengths(directory: Path) -> list[tuple[object, ...]]:
    """Every term's shortest and longest field length (block statistics written from the lengths asked)."""
    ix = whoosh_index.open_dir(str(directory))
    with ix.reader() as reader:
        return [(field, text, reader.term_info(field, text).min_length(), reader.term_info(field, text).max_length())
                for field, text in reader.all_terms()]


def test_field_lengths_are_read_once_per_field_not_once_per_posting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing the postings asks each posting's field length; the column is read once per field, and the
    index is the one built by asking the segment for every posting."""
    entries = _entries(300)
    with monkeypatch.context() as asking_every_time:
        asking_every_time.setattr(index_module, "RememberedLengths", lambda reader: reader)
        build_index(tmp_path / "asked", entries)
    made: list[index_module.RememberedLengths] = []
    remembered = index_module.RememberedLengths
    monkeypatch.setattr(index_module, "RememberedLengths", lambda reader: made.append(remembered(reader)) or made[-1])
    build_index(tmp_path / "remembered", entries)
    assert _postings(tmp_path / "remembered") == _postings(tmp_path / "asked")
    assert _term_lengths(tmp_path / "remembered") == _term_lengths(tmp_path / "asked")
    assert len(made) == 1 and made[0].column_reads <= 7 * 300 < len(_postings(tmp_path / "asked"))
