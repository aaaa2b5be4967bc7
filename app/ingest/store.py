"""Write one complete generation: a migrated database (or schema), its rows, and the search index."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, TypedDict

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, NullPool, func, insert, text
from sqlalchemy import select as select_columns  # any number of columns (sqlmodel's stops at four)
from sqlalchemy.engine import make_url
from sqlmodel import Session, SQLModel, col, create_engine, select

from app.config import Settings
from app.generations import (
    BUILDER_MARKER,
    COMPLETE_MARKER,
    POINTER_TABLE,
    Generation,
    create_schema,
    current_name,
    discard,
    ensure_pointer_table,
    generation,
    in_schema,
    ingest_turn,
    is_sqlite,
    publish,
    remove_old_local,
    schema_name,
    start_building,
)
from app.ingest.dates import Span, written
from app.ingest.identity import Vanished, Version, minor_edit
from app.lineage import Gone, Lineage, Published
from app.models import INDEX_ORDER, Document, DocumentLink, Entry, EntryLink, IngestNote, Meta
from app.search.index import IndexedEntry, build_index, open_index

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
INDEX_CHUNK = 1000  # entries read back at a time to build the index
WRITE_CHUNK = 2000  # rows written at a time
DOCUMENT_CHUNK = 20  # documents written at a time: each holds a whole file's text, twice (markdown, HTML)


class DocumentRow(TypedDict):
    """One `Document` row as plain data: a model object per document cost as much as its insert (20,000 of them
    were 4 of 150 s profiled)."""

    id: str
    path: str
    title: str
    lang: str
    markdown: str
    html: str
    encoding: str
    entry_count: int
    repaired_characters: int
    uncertain_repairs: int
    changed: str


class EntryRow(TypedDict):
    """One `Entry` row as plain data: a model object per entry was a sixth of a 100k ingest's memory."""

    id: str
    document_id: str
    position: int
    lang: str
    question: str
    title: str
    title_html: str
    section: str
    body_markdown: str
    body_html: str
    body_text: str
    line: int
    kind: str
    repaired_characters: int
    uncertain_repairs: int


class DocumentLinkRow(TypedDict):
    """One `DocumentLink` row as plain data, inserted in chunks like the entries' links (not one object each)."""

    source_id: str
    target_id: str
    method: str
    score: float


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

    documents: list[DocumentRow]
    entries: list[EntryRow]
    entry_links: list[EntryLinkRow]
    document_links: list[DocumentLinkRow]
    notes: list[IngestNote]
    glossary: list[list[str]] = field(default_factory=list)
    lexicon: list[list[str]] = field(default_factory=list)  # mined from the translation pairs
    reviewed: str = ""  # the translators' review marks, as ReviewMarks.to_json (app/outdated.py)

    def release_rows(self) -> None:
        """Let go of the rows once they are stored (they can fill memory at scale)."""
        self.documents, self.entries, self.entry_links, self.document_links, self.notes = [], [], [], [], []


def alembic_config() -> Config:
    """The Alembic configuration of the portal's migrations."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head_revision() -> str:
    """The latest Alembic revision."""
    return str(ScriptDirectory.from_config(alembic_config()).get_current_head())


def migrate(engine: Engine, schema: str | None = None, revision: str = "head") -> None:
    """Bring the database's tables (on a server database, those in `schema`) to an Alembic revision."""
    config = alembic_config()
    with engine.begin() as connection:
        if schema is not None:
            # Alembic's ALTER statements ignore schema_translate_map: name the schema for this transaction.
            connection.execute(text(f'SET LOCAL search_path TO "{schema}"'))
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def migrate_database(settings: Settings) -> str:
    """`faq migrate`: bring the served generation's tables to the latest revision; one line saying so."""
    url = settings.resolved_database_url
    head = head_revision()
    name = current_name(settings)
    if is_sqlite(url):
        if name is None:
            return f"no data yet in {settings.data_dir}: `faq ingest` creates the database at revision {head}"
        database = generation(settings, name).database_file
        if not database.is_file():
            raise FileNotFoundError(f"the current generation has no database ({database}); run `faq ingest`")
        engine = create_engine(f"sqlite:///{database}")
        try:
            migrate(engine)
        finally:
            engine.dispose()
        return f"database of generation {name} ({database}) is at revision {head}"
    where = make_url(url).render_as_string(hide_password=True)
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            ensure_pointer_table(connection)
        if name is None:
            return f"database {where} is ready ({POINTER_TABLE}); no data yet: run `faq ingest`"
        migrate(engine, schema_name(name))
    finally:
        engine.dispose()
    return f"database {where}: generation {name} (schema {schema_name(name)}) is at revision {head}"


def new_generation_name() -> str:
    """A sortable, unique name for a generation."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def store_generation(settings: Settings, batch: Batch) -> Generation:
    """Write `batch` as a new generation and publish it; on any failure nothing changes.

    The batch's rows are released once written: the index is built from the database, and
    holding them as well would double the memory an ingest needs.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    def write(engine: Engine, target: Generation) -> int:
        migrate(engine, target.schema)
        _write_rows(engine, batch, target.name)
        written = len(batch.entries)
        batch.release_rows()
        return_free_memory()  # before the index build, which needs memory of its own
        return written

    return _build_and_publish(settings, write)[0]


def reindex_generation(settings: Settings) -> tuple[Generation, int]:
    """Publish a copy of the current generation with its search index rebuilt from the database.

    The way back from a damaged or lost index: the database is the source of truth. It takes the ingest's
    turn: a copy of the current generation published after an ingest's would serve older data again.
    """
    with ingest_turn(settings):
        name = current_name(settings)
        if name is None:
            raise FileNotFoundError("no data to reindex: run `faq ingest` first")
        return _build_and_publish(settings, _copier(generation(settings, name)))


def _copier(source: Generation) -> Callable[[Engine, Generation], int]:
    """What fills a new generation with a copy of `source`'s rows (returning the entry count)."""

    def copy(engine: Engine, target: Generation) -> int:
        if source.schema is None:
            _copy_sqlite(source.database_file, target.database_file)
        else:
            migrate(engine, target.schema)
            _copy_schema(engine, source, target)
        with Session(engine) as session:
            stored = session.exec(select(func.count()).select_from(Entry)).one()
            session.merge(Meta(key="generation", value=target.name))
            session.commit()
        return stored

    return copy


def build_local_index(settings: Settings, name: str) -> Generation:
    """This replica's search index for generation `name`, built from the server database's rows if missing.

    Built in a private folder and renamed into place, so processes sharing the data
    directory never see half an index; the first to finish wins.
    """
    target = generation(settings, name)
    if (target.directory / COMPLETE_MARKER).is_file():
        return target
    folder = target.directory.with_name(f".build-{name}-{os.getpid()}-{threading.get_ident()}")
    workspace = replace(target, directory=folder, index_dir=folder / "index")
    start_building(workspace)
    try:
        engine = in_schema(create_engine(target.database_url, poolclass=NullPool), target.schema)
        try:
            with Session(engine) as session:
                expected = session.exec(select(func.count()).select_from(Entry)).one()
            indexed = build_index(workspace.index_dir, _indexed_entries(engine))
            _verify(engine, workspace, indexed, expected)
        finally:
            engine.dispose()
        (folder / COMPLETE_MARKER).write_text(name, encoding="utf-8")
        _move_into_place(folder, target.directory)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    remove_old_local(settings, keep=name)
    return target


def _move_into_place(folder: Path, directory: Path) -> None:
    """Rename a built folder to its generation's name, unless another process put a complete one there first."""
    try:
        os.rename(folder, directory)
    except OSError:
        if (directory / COMPLETE_MARKER).is_file():
            shutil.rmtree(folder, ignore_errors=True)
            return
        shutil.rmtree(directory, ignore_errors=True)  # what a killed build left
        os.rename(folder, directory)
    (directory / BUILDER_MARKER).unlink(missing_ok=True)


def _build_and_publish(settings: Settings, write: Callable[[Engine, Generation], int]) -> tuple[Generation, int]:
    """A new generation: `write` fills its database (returning the entry count), the index is
    built from it, both are verified, and only then is it published; on failure nothing changes."""
    target = generation(settings, new_generation_name())
    start_building(target)
    try:
        if target.schema is not None:
            create_schema(target)
        # The engine connects lazily: `write` may put the database file in place first.
        engine = in_schema(create_engine(target.database_url), target.schema)
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


def _copy_schema(engine: Engine, source: Generation, target: Generation) -> None:
    """Copy every row of `source`'s schema into `target`'s (migrated) one; columns the source lacks keep defaults."""
    with engine.begin() as connection:
        for table in SQLModel.metadata.sorted_tables:
            present = set(_columns(connection, source.schema, table.name))
            columns = [f'"{name}"' for name in _columns(connection, target.schema, table.name) if name in present]
            if not columns:
                raise FileNotFoundError(f"generation {source.name} has no table {table.name} in schema "
                                        f"{source.schema}; run `faq ingest`")
            listed = ", ".join(columns)
            # Schema and table names are ours (gen_<timestamp>, the models' tables), never user input.
            connection.execute(text(f'INSERT INTO "{target.schema}"."{table.name}" ({listed}) '
                                    f'SELECT {listed} FROM "{source.schema}"."{table.name}"'))


def _columns(connection: Connection, schema: str | None, table: str) -> list[str]:
    """The column names of `schema.table` in order (none when it does not exist)."""
    return list(connection.execute(text(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = :schema AND table_name = :table "
        "ORDER BY ordinal_position"), {"schema": schema, "table": table}).scalars())


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
    """Insert the batch's rows into the new generation's empty tables, in one transaction.

    Documents, entries and their links go as plain rows in chunks: as model objects all at
    once, the session's bookkeeping was a fifth of an ingest's peak memory at 100k entries.
    """
    with Session(engine) as session:
        # Binding a Chinese text caches its UTF-8 copy on the string: a text must go once written, so the
        # rows are its only holder.
        documents, batch.documents = batch.documents, []
        _insert_in_chunks(session, Document, documents, DOCUMENT_CHUNK)
        _insert_in_chunks(session, Entry, batch.entries)
        _insert_in_chunks(session, EntryLink, batch.entry_links)
        _insert_in_chunks(session, DocumentLink, batch.document_links)
        session.add_all(batch.notes)
        session.add_all([
            Meta(key="generation", value=name),
            Meta(key="ingested_at", value=datetime.now(UTC).isoformat(timespec="seconds")),
            Meta(key="glossary", value=json.dumps(batch.glossary, ensure_ascii=False)),
            Meta(key="lexicon", value=json.dumps(batch.lexicon, ensure_ascii=False)),
            Meta(key="reviewed", value=batch.reviewed or "{}"),
        ])
        session.commit()


def previous_versions(settings: Settings) -> list[Version]:
    """The entries of the generation being served, for the new one to inherit their ids (none before the first)."""
    name = current_name(settings)
    if name is None:
        return []
    served = generation(settings, name)
    if served.schema is None and not served.database_file.is_file():
        return []  # its folder is gone: nothing to inherit, every id is fresh
    engine = in_schema(create_engine(served.database_url, poolclass=NullPool), served.schema)
    try:
        with engine.connect() as connection:
            sizes = dict(connection.execute(select_columns(col(Document.id), col(Document.entry_count))).all())
            rows = connection.execution_options(yield_per=INDEX_CHUNK).execute(
                select_columns(col(Entry.id), col(Entry.document_id), col(Entry.lang), col(Entry.section),
                               col(Entry.title), col(Entry.body_markdown), col(Entry.position)))
            return [Version(id=id_, document_id=document_id, lang=lang, section=tuple(json.loads(section)),
                            title=title, answer=answer, position=position, document_size=sizes.get(document_id, 1))
                    for id_, document_id, lang, section, title, answer, position in rows]
    finally:
        engine.dispose()


def record_lineage(settings: Settings, vanished: list[Vanished], entries: list[EntryRow],
                   previous: Sequence[Version] = (), content: Path | None = None,
                   documents: Sequence[DocumentRow] = ()) -> None:
    """Keep, across generations, where the ids the new generation drops went (ids served again are forgotten) and
    the history of its `entries` (`previous`: the served generation's, to tell a minor edit; a new entry's history
    starts when git says its lines in `documents` of the `content` folder were written)."""
    since = Lineage.now()
    lineage = Lineage(settings)
    try:
        new = lineage.unknown(entry["id"] for entry in entries) if content is not None else set()
        lineage.record({gone.last.id: Gone(gone.last.id, gone.moved_to, gone.last.title, gone.last.lang, since)
                        for gone in vanished},
                       published(previous, [(entry["id"], entry["title"], entry["body_markdown"])
                                            for entry in entries]), since,
                       written(content, entry_spans(content, documents, entries, new)) if content else None)
    finally:
        lineage.close()


def entry_spans(content: Path, documents: Sequence[DocumentRow], entries: Sequence[EntryRow],
                wanted: set[str]) -> dict[str, Span]:
    """The source lines of each wanted entry: from its question to the line before the next entry of its file."""
    paths = {document["id"]: content / document["path"] for document in documents}
    by_document: dict[str, list[EntryRow]] = {}
    for entry in entries:
        by_document.setdefault(entry["document_id"], []).append(entry)
    spans = {}
    for document_id, rows in by_document.items():
        rows.sort(key=lambda row: row["position"])
        for row, after in zip(rows, [*rows[1:], None], strict=True):
            if row["id"] in wanted and row["line"] > 0 and document_id in paths:
                end = after["line"] - 1 if after is not None and after["line"] > row["line"] else 0
                spans[row["id"]] = Span(paths[document_id], row["line"], end)
    return spans


def published(previous: Sequence[Version], entries: Iterable[tuple[str, str, str]]) -> list[Published]:
    """The new generation's entries ((id, question, answer)) as the lineage records them, each edited one told
    minor when it changes a word or two of the `previous` version with its id."""
    before = {version.id: version for version in previous}
    found = []
    for entry_id, question, answer in entries:
        old = before.get(entry_id)
        minor = (old is not None and (old.title, old.answer) != (question, answer)
                 and minor_edit(old.title, old.answer, question, answer))
        found.append(Published(entry_id, question, answer, minor))
    return found


def return_free_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's malloc_trim; elsewhere nothing).

    Python frees an ingest's stages' objects, but the C allocator keeps their pages: without
    this the next stage's allocations came on top, and the peak was the stages' sum.
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _insert_in_chunks(session: Session, table: type[SQLModel], rows: list[Any], size: int = WRITE_CHUNK) -> None:
    """Insert `rows`, `size` at a time, letting each chunk go once sent (all at once, the
    statement's parameters were another copy of them)."""
    for start in range(0, len(rows), size):
        chunk = rows[start:start + size]
        rows[start:start + size] = [None] * len(chunk)
        session.execute(insert(table), chunk)
        del chunk


def _indexed_entries(engine: Engine) -> Iterator[IndexedEntry]:
    """Index rows read back from the database: the index is always derived from it.

    Only the indexed columns, streamed in chunks: the whole table as model objects would
    hold every entry's text (HTML included) in memory at once.
    """
    with engine.connect() as connection:
        titles = {id_: " ".join([*PurePosixPath(path).parent.parts, title])
                  for id_, title, path in connection.execute(select(Document.id, Document.title, Document.path))}
        rows = connection.execution_options(yield_per=INDEX_CHUNK).execute(
            select_columns(col(Entry.id), col(Entry.document_id), col(Entry.lang), col(Entry.title),
                           col(Entry.section), col(Entry.body_markdown), col(Entry.body_text))
            .order_by(*INDEX_ORDER))
        for id_, document_id, lang, title, section, body_markdown, body_text in rows:
            yield IndexedEntry(
                id=id_, document_id=document_id, lang=lang, title=title,
                section=" ".join([titles.get(document_id, ""), *json.loads(section)]),
                body_markdown=body_markdown, body_text=body_text,
            )
