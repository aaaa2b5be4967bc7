"""The whole ingest: counts, stable ids, bad input, and atomic publication."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlmodel import select

from app.config import Settings
from app.db import DataStore
from app.generations import current_name
from app.ingest import store as store_module
from app.ingest.pipeline import IngestError, run_ingest
from app.models import Document, Entry
from tests.conftest import CONTENT, settings_for


def entry_ids(settings: Settings) -> dict[str, list[str]]:
    store = DataStore(settings)
    try:
        with store.session() as session:
            rows = session.exec(select(Entry).order_by(Entry.document_id, Entry.position)).all()
            ids: dict[str, list[str]] = {}
            for entry in rows:
                ids.setdefault(entry.document_id, []).append(entry.id)
            return ids
    finally:
        store.close()


def copy_content(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    return content


def test_ingest_seeds_gives_documents_entries_and_translation_pairs(tmp_path: Path) -> None:
    report = run_ingest(settings_for(tmp_path), progress=False)
    notes = len(entry_ids(settings_for(tmp_path))["hf-transformers-deepspeed-notes-zh"])
    assert report.documents == 5
    assert report.entries == 9 + 9 + 13 + 17 + notes
    assert report.translation_pairs == 9
    assert report.skipped == []
    assert [path for path, _ in report.warnings] == ["hf-transformers-deepspeed-notes.zh.md"]
    assert report.repairs > 2000 and 0 < report.uncertain < report.repairs
    counts = {doc: len(ids) for doc, ids in entry_ids(settings_for(tmp_path)).items()}
    assert counts["llama-recipes-faq-en"] == 9 and counts["llama-recipes-faq-zh"] == 9
    assert counts["deepspeed-chat-faq-zh"] == 13 and counts["training-env-troubleshooting-zh"] == 17


def test_ingest_twice_keeps_every_entry_id(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    run_ingest(settings, progress=False)
    first = entry_ids(settings)
    run_ingest(settings, progress=False)
    assert entry_ids(settings) == first


def test_ingest_after_unrelated_edits_keeps_unchanged_entry_ids(tmp_path: Path) -> None:
    content = copy_content(tmp_path)
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    before = entry_ids(settings)
    english = content / "llama-recipes-faq.en.md"
    text = english.read_text(encoding="utf-8")
    text = text.replace("4. Can I add custom datasets?", "4. Can I add my own custom datasets?")
    english.write_text(text, encoding="utf-8")
    (content / "deepspeed-chat-faq.zh.md").unlink()
    run_ingest(settings, progress=False)
    after = entry_ids(settings)
    assert "deepspeed-chat-faq-zh" not in after
    # The reworded question keeps its id too: it is the same entry (issue 27).
    for document in ("llama-recipes-faq-en", "llama-recipes-faq-zh", "training-env-troubleshooting-zh"):
        assert after[document] == before[document]


def test_ingest_skips_unreadable_files_and_names_them(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    # A healthy FAQ: three questions (fewer would be a warning of their own).
    (content / "good.md").write_text("# FAQ\n\n## Why?\n\nBecause.\n\n## How?\n\nLike so.\n\n## When?\n\nNow.\n",
                                     encoding="utf-8")
    (content / "empty.md").write_bytes(b"")
    (content / "binary.md").write_bytes(b"\x00\x01\x02PNG\x00")
    (content / "gbk.md").write_bytes("# 问题\n\n## 为什么会报错？\n\n因为显存不足。\n".encode("gbk"))
    (content / "latin1.md").write_bytes("# Café\n\n## Déjà vu?\n\nNaïve résumé.\n".encode("latin-1"))
    (content / "notes.md").write_text("Just some notes, no questions.\n", encoding="utf-8")
    report = run_ingest(settings_for(tmp_path, content), progress=False)
    skipped = dict(report.skipped)
    assert set(skipped) == {"empty.md", "binary.md", "latin1.md"}
    assert "UTF-8" in skipped["latin1.md"]
    assert sorted(path for path, _ in report.warnings) == ["gbk.md", "notes.md"]
    assert report.documents == 3 and report.entries == 4


def test_ingest_reads_real_world_encodings_and_repairs_mojibake(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    # Titled as notes, not as an FAQ: a one-question FAQ would be a warning of its own.
    faq = "# 训练笔记\n\n## 训练时显存不足怎么办？\n\n可以开启梯度检查点，或者减小批大小。\n"
    (content / "gbk.md").write_bytes(faq.encode("gbk"))
    traditional = "# 訓練筆記\n\n## 訓練時顯存不足怎麼辦？\n\n可以開啟梯度檢查點，或者減小批大小。\n"
    (content / "big5.md").write_bytes(traditional.encode("big5"))
    (content / "utf16.md").write_bytes(b"\xff\xfe" + faq.encode("utf-16-le"))
    (content / "cut.md").write_bytes(faq.encode("utf-8") + "中".encode()[:1])
    (content / "mojibake.md").write_text(faq.encode("utf-8").decode("cp1252", errors="ignore"), encoding="utf-8")
    report = run_ingest(settings_for(tmp_path, content), progress=False)
    assert report.skipped == []
    assert report.documents == 5 and report.entries == 5
    assert report.repairs > 0
    warned = {path for path, _ in report.warnings}
    assert warned == {"gbk.md", "big5.md", "cut.md", "mojibake.md"}  # a UTF-16 BOM needs no note


def test_ingest_of_empty_folder_fails_and_changes_nothing(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    run_ingest(settings, progress=False)
    before = current_name(settings)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(IngestError, match="no readable documents"):
        run_ingest(settings, content_dir=empty, progress=False)
    assert current_name(settings) == before


def test_failed_ingest_leaves_previous_data_serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = settings_for(tmp_path)
    run_ingest(settings, progress=False)
    before = current_name(settings)
    reader = DataStore(settings)
    assert reader.current().generation.name == before

    def broken_index(*_args: object, **_kwargs: object) -> int:
        raise OSError("disk full while writing the index")

    monkeypatch.setattr(store_module, "build_index", broken_index)
    with pytest.raises(OSError, match="disk full"):
        run_ingest(settings, progress=False)
    assert current_name(settings) == before
    generations = sorted(p.name for p in (settings.data_dir / "generations").iterdir())
    assert generations == [before]  # the half-built generation was removed
    with reader.session() as session:
        assert len(session.exec(select(Document)).all()) == 5
    reader.close()


def test_reader_follows_a_newly_published_generation(tmp_path: Path) -> None:
    content = copy_content(tmp_path)
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    reader = DataStore(settings)
    first = reader.current()
    (content / "training-env-troubleshooting.zh.md").unlink()
    run_ingest(settings, progress=False)
    second = reader.current()
    assert second.generation.name != first.generation.name
    with reader.session() as session:
        assert len(session.exec(select(Document)).all()) == 4
    reader.close()


def test_default_database_path_names_the_current_generation(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    run_ingest(settings, progress=False)
    link = settings.data_dir / "faq.db"
    assert link.is_symlink() and link.resolve().parent.name == current_name(settings)


def test_documents_read_are_let_go_as_their_rows_are_built() -> None:
    import gc
    import weakref

    from app.ingest.links import read_link_rules
    from app.ingest.pipeline import IngestReport, _build_batch, link_documents, read_documents

    report = IngestReport()
    documents = read_documents(CONTENT, report)
    refs = [weakref.ref(d) for d in documents]
    ids = [d.id for d in documents]
    batch = _build_batch(documents, link_documents(documents, [], read_link_rules(CONTENT)[0]), report)
    gc.collect()
    assert [d["id"] for d in batch.documents] == ids  # in reading order
    assert documents == [] and all(ref() is None for ref in refs)


def test_documents_and_their_pairs_are_stored_as_plain_rows(tmp_path: Path) -> None:
    """No model object per document or document pair (building 20,000 cost more than inserting them); the stored
    rows are the batch's, every column of them."""
    from app.ingest.pipeline import IngestReport, _prepare_batch
    from app.models import DocumentLink

    batch, _ = _prepare_batch(CONTENT, IngestReport(), progress=False)
    assert batch.documents and batch.document_links
    assert all(type(row) is dict for row in [*batch.documents, *batch.document_links])
    documents, pairs = [dict(row) for row in batch.documents], [dict(row) for row in batch.document_links]
    settings = settings_for(tmp_path)
    store_module.store_generation(settings, batch)
    store = DataStore(settings)
    try:
        with store.session() as session:
            def rows(found: list[dict[str, object]]) -> list[list[tuple[str, str]]]:  # whatever the column order
                return sorted(sorted((k, repr(v)) for k, v in row.items()) for row in found)

            assert rows([row.model_dump() for row in session.exec(select(Document))]) == rows(documents)
            assert rows([row.model_dump() for row in session.exec(select(DocumentLink))]) == rows(pairs)
    finally:
        store.close()
