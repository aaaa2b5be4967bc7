"""The reader's view of the data: the current generation's database and searcher.

Every request asks `DataStore.current()`, which costs one `stat` of the pointer file; when
an ingest publishes a new generation, the engine and searcher are reopened once.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, event, text
from sqlmodel import Session, create_engine
from whoosh.searching import Searcher

from app.config import Settings
from app.generations import Generation, complete_generations, current_name, generation, is_sqlite, pointer_path
from app.search.index import open_index

log = logging.getLogger(__name__)


class NoDataError(RuntimeError):
    """Nothing has been ingested yet."""


@dataclass
class Snapshot:
    """One generation opened for reading."""

    generation: Generation
    engine: Engine
    searcher: Searcher
    search_lock: threading.Lock = field(default_factory=threading.Lock)
    cache: dict[Any, Any] = field(default_factory=dict)

    def close(self) -> None:
        """Release the searcher and the database connections."""
        self.searcher.close()
        self.engine.dispose()


# Requests run in a pool of this many threads. A request's session is closed by FastAPI's
# dependency clean-up, which itself waits for a thread: with a bounded pool, 128 requests
# holding connections while waiting for a thread, and 32 threads waiting for a connection,
# stall until the pool times out (measured with `make load`). SQLite connections are cheap
# file handles, so beyond the kept ones the pool opens more and closes them on return.
REQUEST_THREADS = 32
SERVER_CONNECTIONS = 10  # kept per process on a shared server database


def _engine(url: str) -> Engine:
    if not is_sqlite(url):
        # A server database bounds connections itself; the same stall applies past 10 + 54 at once.
        return create_engine(url, pool_pre_ping=True, pool_size=SERVER_CONNECTIONS,
                             max_overflow=2 * REQUEST_THREADS - SERVER_CONNECTIONS)
    engine = create_engine(url, connect_args={"check_same_thread": False}, pool_size=REQUEST_THREADS,
                           max_overflow=-1)

    @event.listens_for(engine, "connect")
    def _read_only(dbapi_connection: Any, _record: Any) -> None:
        # Readers never write: a bug cannot damage a published generation.
        dbapi_connection.execute("PRAGMA query_only = ON")

    return engine


def _open_verified(target: Generation) -> Snapshot:
    """Open a generation and check that its database and index agree, or raise."""
    if is_sqlite(target.database_url) and not (target.directory / "faq.db").is_file():
        raise FileNotFoundError(f"no database at {target.directory / 'faq.db'}")
    engine = _engine(target.database_url)
    try:
        searcher = open_index(target.index_dir).searcher()
        try:
            with engine.connect() as connection:
                stored = connection.execute(text("SELECT count(*) FROM entry")).scalar_one()
            if searcher.doc_count() != stored:
                raise ValueError(f"the index holds {searcher.doc_count()} entries, the database {stored}")
            _touch(searcher)
        except BaseException:
            searcher.close()
            raise
    except BaseException:
        engine.dispose()
        raise
    return Snapshot(generation=target, engine=engine, searcher=searcher)


def _touch(searcher: Searcher) -> None:
    """Read a little of every kind of index file: a truncated or garbled one fails here, not mid-request."""
    if searcher.doc_count():
        searcher.stored_fields(0)
    reader = searcher.reader()
    for name, term in itertools.islice(reader.all_terms(), 1):
        list(reader.postings(name, term).all_ids())


class DataStore:
    """Opens the current generation and follows the pointer when an ingest publishes another."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._pointer_stamp: tuple[int, int] | None = None
        self.fallback: tuple[str, str, str] | None = None  # (damaged generation, the one served, why)

    def current(self) -> Snapshot:
        """The snapshot of the current generation; raises NoDataError before the first ingest."""
        stamp = self._stamp()
        snapshot = self._snapshot
        if snapshot is not None and stamp == self._pointer_stamp:
            return snapshot
        with self._lock:
            if self._snapshot is not None and stamp == self._pointer_stamp:
                return self._snapshot
            name = current_name(self.settings)
            if name is None:
                raise NoDataError("no data yet: run `faq ingest` first")
            if self._snapshot is None or self._snapshot.generation.name not in (name, self.fallback_for(name)):
                old = self._snapshot
                self._snapshot = self._open_good(name)
                if old is not None:
                    old.close()
            self._pointer_stamp = stamp
            return self._snapshot

    def open_snapshot(self) -> Snapshot | None:
        """The current snapshot if it is open and the pointer has not moved: no I/O beyond a stat."""
        snapshot = self._snapshot
        return snapshot if snapshot is not None and self._stamp() == self._pointer_stamp else None

    def fallback_for(self, name: str) -> str | None:
        """The generation served instead of `name` when `name` proved damaged, if any."""
        return self.fallback[1] if self.fallback and self.fallback[0] == name else None

    def _open_good(self, name: str) -> Snapshot:
        """Open generation `name`; if it is damaged, the newest complete generation that is not."""
        problems: list[str] = []
        for candidate in [name, *(other for other in complete_generations(self.settings) if other != name)]:
            snapshot = None
            with warnings.catch_warnings():
                # Whoosh leaves the file of a segment it failed to read open; it closes when the
                # exception goes, with a ResourceWarning that says nothing new.
                warnings.simplefilter("ignore", ResourceWarning)
                try:
                    snapshot = _open_verified(generation(self.settings, candidate))
                except Exception as exc:  # noqa: BLE001  (any damage: try the previous generation)
                    problems.append(f"{candidate}: {type(exc).__name__}: {exc}")
                    log.error("generation %s cannot be served (%s)", candidate, problems[-1])
            if snapshot is None:
                continue
            self.fallback = (name, candidate, problems[0]) if candidate != name else None
            if candidate != name:
                log.error("serving generation %s instead of the damaged %s; run `faq ingest` to rebuild", candidate,
                          name)
            return snapshot
        raise NoDataError(f"the data is damaged ({problems[0]}); run `faq ingest` to rebuild it")

    def _stamp(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(pointer_path(self.settings))
        except FileNotFoundError:
            return None
        return (stat.st_mtime_ns, stat.st_ino)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A read session on the current generation."""
        with Session(self.current().engine) as session:
            yield session

    def close(self) -> None:
        """Close whatever is open."""
        with self._lock:
            if self._snapshot is not None:
                self._snapshot.close()
                self._snapshot = None
