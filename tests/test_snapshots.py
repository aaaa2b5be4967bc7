"""A generation replaced while requests still read it: those requests finish on it."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlmodel import Session
from whoosh.query import Every

from app.config import Settings
from app.db import DataStore
from app.ingest.pipeline import run_ingest
from app.queries import Reader
from tests.conftest import CONTENT, settings_for


def _ingested(tmp_path: Path) -> tuple[Settings, DataStore]:
    """The seeds ingested into a scratch folder, and a store reading them."""
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    return settings, DataStore(settings)


def test_a_replaced_snapshot_stays_readable_for_requests_in_flight(tmp_path: Path) -> None:
    settings, store = _ingested(tmp_path)
    in_flight = store.current()  # a request that started before the new generation
    run_ingest(settings, progress=False)
    assert store.current().generation.name != in_flight.generation.name  # the store switched
    assert len(in_flight.search.lexical.searcher.search(Every(), limit=None)) > 0  # its searcher is still open
    with in_flight.engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM entry")).scalar_one() > 0
    store.close()


def test_what_a_generation_keeps_is_built_once_bounded_and_gone_with_the_generation(tmp_path: Path) -> None:
    settings, store = _ingested(tmp_path)
    snapshot = store.current()
    built: list[str] = []

    def build(key: str) -> str:
        built.append(key)
        return key.upper()

    assert [snapshot.kept("k", key, 2, lambda key=key: build(key)) for key in "aab"] == ["A", "A", "B"]
    assert built == ["a", "b"]  # the second "a" was kept
    snapshot.kept("k", "a", 2, lambda: build("a"))  # "a" used last: "b" goes first
    snapshot.kept("k", "c", 2, lambda: build("c"))
    snapshot.kept("k", "a", 2, lambda: build("a"))
    snapshot.kept("k", "b", 2, lambda: build("b"))
    assert built == ["a", "b", "c", "b"]
    snapshot.kept("big", "x", 2, lambda: build("x"), worth_keeping=lambda value: False)
    snapshot.kept("big", "x", 2, lambda: build("x"), worth_keeping=lambda value: False)
    assert built[-2:] == ["x", "x"]  # not worth keeping: built each time
    run_ingest(settings, progress=False)
    assert store.current().kept("k", "a", 2, lambda: build("a")) == "A" and built[-1] == "a"  # a new generation
    store.close()


def test_pages_read_again_come_from_what_the_generation_kept(tmp_path: Path) -> None:
    _, store = _ingested(tmp_path)
    snapshot = store.current()
    with Session(snapshot.engine) as session:
        reader = Reader(snapshot=snapshot, session=session)
        entry_id = reader.search("FSDP", None, 1, 0).results[0].id
        document_id = reader.get_entry(entry_id).document.id
        first = [reader.get_entry(entry_id), reader.entry_html(entry_id), reader.get_document(document_id),
                 reader.list_documents(), reader.entry_counts()]
    statements: list[str] = []
    event.listen(snapshot.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    with Session(snapshot.engine) as session:
        reader = Reader(snapshot=snapshot, session=session)
        again = [reader.get_entry(entry_id), reader.entry_html(entry_id), reader.get_document(document_id),
                 reader.list_documents(), reader.entry_counts()]
    assert again == first and statements == []  # not read from the database again
    store.close()


def test_an_index_from_an_older_analysis_is_served_with_a_warning_until_reindexed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from app.ingest.store import reindex_generation
    from app.search.index import ANALYSIS_FILE

    settings, store = _ingested(tmp_path)
    (store.current().generation.index_dir / ANALYSIS_FILE).write_text("1 porter", encoding="utf-8")  # as upgraded
    store.close()
    stale = DataStore(settings)
    with caplog.at_level(logging.WARNING, logger="app.db"):
        assert stale.current().search.doc_count > 0  # still served
    assert "run `faq reindex`" in caplog.text
    stale.close()
    caplog.clear()
    reindex_generation(settings)  # `faq reindex`
    rebuilt = DataStore(settings)
    with caplog.at_level(logging.WARNING, logger="app.db"):
        rebuilt.current()
    assert "faq reindex" not in caplog.text
    rebuilt.close()
