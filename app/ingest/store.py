"""Write one complete generation: a migrated database, its rows, and the search index."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, delete, func, insert
from sqlmodel import Session, SQLModel, col, create_engine, select

from app.config import Settings
from app.generations import Generation, current_name, discard, generation, is_sqlite, publish, start_building
from app.models import Document, DocumentLink, Entry, EntryLink, IngestNote, Meta
from app.search.index import IndexedEntry, build_index, open_index

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


class EntryLinkRow(TypedDict):
    """One `EntryLink` row as plain data: there are many, and model objects are slow to build."""

    source_id: str
    target_id: str
    kind: str
    score: float
    rank: int


@dataclass
class Batch:
    """Everything one ingest produced, ready to be stored."""

    documents: list[Document]
    entries: list[Entry]
    entry_links: list[EntryLinkRow]
    document_links: list[DocumentLink]
    notes: list[IngestNote]
    glossary: list[list[str]] = field(default_factory=list)
    lexicon: list[list[str]] = field(default_factory=list)  # mined from the translation pairs


def migrate(engine: Engine) -> None:
    """Bring the database's schema to the latest Alembic revision."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def new_generation_name() -> str:
    """A sortable, unique name for a generation."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def store_generation(settings: Settings, batch: Batch) -> Generation:
    """Write `batch` as a new generation and publish it; on any failure nothing changes."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    def write(engine: Engine, target: Generation) -> int:
        migrate(engine)
        _write_rows(engine, batch, target.name)
        return len(batch.entries)

    return _build_and_publish(settings, write)[0]


def reindex_generation(settings: Settings) -> tuple[Generation, int]:
    """Publish a copy of the current generation with its search index rebuilt from the database.

    The way back from a damaged or lost index: the database is the source of truth.
    """
    name = current_name(settings)
    if name is None:
        raise FileNotFoundError("no data to reindex: run `faq ingest` first")
    source = generation(settings, name)

    def copy(engine: Engine, target: Generation) -> int:
        if is_sqlite(source.database_url):
            _copy_sqlite(source.directory / "faq.db", target.directory / "faq.db")
        with Session(engine) as session:
            stored = session.exec(select(func.count()).select_from(Entry)).one()
            if is_sqlite(target.database_url):
                session.merge(Meta(key="generation", value=target.name))
                session.commit()
        return stored

    return _build_and_publish(settings, copy)


def _build_and_publish(settings: Settings, write: Callable[[Engine, Generation], int]) -> tuple[Generation, int]:
    """A new generation: `write` fills its database (returning the entry count), the index is
    built from it, both are verified, and only then is it published; on failure nothing changes."""
    target = generation(settings, new_generation_name())
    start_building(target)
    try:
        # The engine connects lazily: `write` may put the database file in place first.
        engine = create_engine(target.database_url)
        try:
            expected = write(engine, target)
            indexed = build_index(target.index_dir, _indexed_entries(engine))
            _verify(engine, target, indexed, expected)
        finally:
            engine.dispose()
    except BaseException:
        discard(target)
        raise
    publish(settings, target)
    return target, indexed


def _copy_sqlite(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite database, even while readers have it open."""
    if not source.is_file():
        raise FileNotFoundError(f"the current generation has no database ({source}); run `faq ingest`")
    with closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as reading, \
            closing(sqlite3.connect(target)) as writing:
        reading.backup(writing)


def _verify(engine: Engine, target: Generation, indexed: int, expected: int) -> None:
    """Refuse to publish a generation whose database and index disagree with the batch."""
    with Session(engine) as session:
        stored = session.exec(select(func.count()).select_from(Entry)).one()
    index = open_index(target.index_dir)
    try:
        searchable = index.doc_count()
    finally:
        index.close()
    if not stored == indexed == searchable == expected:
        raise RuntimeError(f"generation {target.name} is inconsistent: {expected} entries ingested, {stored} "
                           f"stored, {searchable} in the index; nothing was published")


def _write_rows(engine: Engine, batch: Batch, name: str) -> None:
    with Session(engine) as session:
        if not is_sqlite(str(engine.url)):
            # A shared server database: replace every row in one transaction, so readers
            # see the old rows or the new ones.
            for table in reversed(SQLModel.metadata.sorted_tables):
                session.execute(delete(table))
        session.add_all(batch.documents)
        session.flush()
        session.add_all(batch.entries)
        session.flush()
        if batch.entry_links:
            session.execute(insert(EntryLink), batch.entry_links)
        session.add_all([*batch.document_links, *batch.notes])
        session.add_all([
            Meta(key="generation", value=name),
            Meta(key="ingested_at", value=datetime.now(UTC).isoformat(timespec="seconds")),
            Meta(key="glossary", value=json.dumps(batch.glossary, ensure_ascii=False)),
            Meta(key="lexicon", value=json.dumps(batch.lexicon, ensure_ascii=False)),
        ])
        session.commit()


def _indexed_entries(engine: Engine) -> Iterator[IndexedEntry]:
    """Index rows read back from the database: the index is always derived from it."""
    with Session(engine) as session:
        titles = {d.id: d.title for d in session.exec(select(Document))}
        for entry in session.exec(select(Entry).order_by(col(Entry.document_id), col(Entry.position))):
            section = " ".join([titles.get(entry.document_id, ""), *json.loads(entry.section)])
            yield IndexedEntry(
                id=entry.id, document_id=entry.document_id, lang=entry.lang, title=entry.title,
                section=section, body_markdown=entry.body_markdown, body_text=entry.body_text,
            )
