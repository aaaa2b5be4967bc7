"""The reader's view of the data: the current generation's database and searcher.

Every request asks `DataStore.current()`, which costs one `stat` of the pointer file; when
an ingest publishes a new generation, the engine and searcher are reopened once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session, create_engine
from whoosh.searching import Searcher

from app.config import Settings
from app.generations import Generation, current_name, generation, is_sqlite, pointer_path
from app.search.index import open_index


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


# Requests run in a pool of this many threads, each holding one session for its request:
# with as many connections, no request ever waits for another's connection.
REQUEST_THREADS = 32
SERVER_CONNECTIONS = 10  # per process on a shared server database; the others queue for a moment


def _engine(url: str) -> Engine:
    if not is_sqlite(url):
        return create_engine(url, pool_pre_ping=True, pool_size=SERVER_CONNECTIONS,
                             max_overflow=REQUEST_THREADS - SERVER_CONNECTIONS)
    engine = create_engine(url, connect_args={"check_same_thread": False}, pool_size=REQUEST_THREADS,
                           max_overflow=0)

    @event.listens_for(engine, "connect")
    def _read_only(dbapi_connection: Any, _record: Any) -> None:
        # Readers never write: a bug cannot damage a published generation.
        dbapi_connection.execute("PRAGMA query_only = ON")

    return engine


class DataStore:
    """Opens the current generation and follows the pointer when an ingest publishes another."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._pointer_stamp: tuple[int, int] | None = None

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
            if self._snapshot is None or self._snapshot.generation.name != name:
                target = generation(self.settings, name)
                old = self._snapshot
                self._snapshot = Snapshot(
                    generation=target, engine=_engine(target.database_url),
                    searcher=open_index(target.index_dir).searcher(),
                )
                if old is not None:
                    old.close()
            self._pointer_stamp = stamp
            return self._snapshot

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
