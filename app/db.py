"""The reader's view of the data: the current generation's database and searcher.

Every request asks `DataStore.current()`, which costs one `stat` of the pointer file (on a
server database: one look at the pointer row, at most once a second); when an ingest
publishes a new generation, the engine and searcher are reopened once. On a server
database a replica that has no index for the new generation builds one in the background
and keeps serving the old generation until it is ready.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Engine, event
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, create_engine, func, select
from whoosh.searching import Searcher

from app.config import Settings
from app.generations import (
    COMPLETE_MARKER,
    DAMAGED_MARKER,
    NO_DATA_ADVICE,
    REBUILD_ADVICE,
    Generation,
    complete_generations,
    describe_failure,
    generation,
    in_schema,
    is_sqlite,
    pointer_path,
    read_current,
    read_pointer,
)
from app.models import Entry, Meta
from app.search.clauses import Thesaurus
from app.search.dense import VectorsDamaged, load_vectors, read_manifest
from app.search.embedding import ModelSlot, searchable_recipes
from app.search.engine import SearchEngine, Semantics
from app.search.index import analysed_as_now
from app.semantic import read_progress

log = logging.getLogger(__name__)
T = TypeVar("T")


class NoDataError(RuntimeError):
    """Nothing has been ingested yet."""


@dataclass
class Snapshot:
    """One generation opened for reading."""

    generation: Generation
    engine: Engine
    search: SearchEngine
    cache: dict[Any, Any] = field(default_factory=dict)
    _kept_lock: threading.Lock = field(default_factory=threading.Lock)

    def kept(self, kind: str, key: Hashable, limit: int, build: Callable[[], T],
             worth_keeping: Callable[[T], bool] = lambda _: True) -> T:
        """The value of `key` among this generation's `kind`, built on first use; the `limit` last used are kept.

        A generation never changes, so what is read from it once holds until the next one.
        """
        with self._kept_lock:
            values: OrderedDict[Hashable, Any] = self.cache.setdefault(kind, OrderedDict())
            if key in values:
                values.move_to_end(key)
                found: T = values[key]
                return found
        value = build()  # outside the lock: two requests may build the same value, never wait on each other
        if limit > 0 and worth_keeping(value):
            with self._kept_lock:
                values[key] = value
                while len(values) > limit:
                    values.popitem(last=False)
        return value

    def forget(self, kind: str) -> None:
        """Drop what was kept of `kind` (searches, once the generation searches by meaning as well)."""
        with self._kept_lock:
            self.cache.pop(kind, None)

    def close(self) -> None:
        """Release the search engine and the database connections."""
        self.search.close()
        self.engine.dispose()


# Requests run in a pool of this many threads. A request's session is closed by FastAPI's
# dependency clean-up, which itself waits for a thread: with a bounded pool, 128 requests
# holding connections while waiting for a thread, and 32 threads waiting for a connection,
# stall until the pool times out (measured with `make load`). SQLite connections are cheap
# file handles, so beyond the kept ones the pool opens more and closes them on return.
REQUEST_THREADS = 32
SERVER_CONNECTIONS = 10  # kept per process on a shared server database
POINTER_POLL_SECONDS = 1.0  # how often a replica asks the server database which generation is current
# A replaced generation stays open this long for the requests still reading it (searches stop at 1 s).
RETIRE_SECONDS = 30.0
BUILD_RETRY_SECONDS = 30.0  # after a failed background index build, before the next attempt
PROGRESS_STALE_SECONDS = 300.0  # progress not written for this long was left by an embedder that stopped


def _engine(target: Generation) -> Engine:
    """A read-only engine on `target`'s rows (its SQLite file, or its schema of the server database)."""
    if target.schema is not None:
        # A server database bounds connections itself; the same stall applies past 10 + 54 at once.
        engine = create_engine(target.database_url, pool_pre_ping=True, pool_size=SERVER_CONNECTIONS,
                               max_overflow=2 * REQUEST_THREADS - SERVER_CONNECTIONS)

        @event.listens_for(engine, "connect")
        def _read_only_server(dbapi_connection: Any, _record: Any) -> None:
            # Readers never write: a bug cannot damage a published generation.
            autocommit = dbapi_connection.autocommit
            dbapi_connection.autocommit = True
            dbapi_connection.execute("SET default_transaction_read_only = on")
            dbapi_connection.autocommit = autocommit

        return in_schema(engine, target.schema)
    engine = create_engine(target.database_url, connect_args={"check_same_thread": False},
                           pool_size=REQUEST_THREADS, max_overflow=-1)

    @event.listens_for(engine, "connect")
    def _read_only(dbapi_connection: Any, _record: Any) -> None:
        # Readers never write: a bug cannot damage a published generation.
        dbapi_connection.execute("PRAGMA query_only = ON")

    return engine


def _open_verified(target: Generation) -> Snapshot:
    """Open a generation and check that its database and index agree, or raise."""
    if target.schema is None and not target.database_file.is_file():
        raise FileNotFoundError(f"no database at {target.database_file}")
    engine = _engine(target)
    try:
        with Session(engine) as session:
            stored = session.exec(select(func.count()).select_from(Entry)).one()
            thesaurus = Thesaurus.of(_stored_groups(session, "glossary"), _stored_groups(session, "lexicon"))
        search = SearchEngine(target.index_dir, thesaurus)
        try:
            if search.doc_count != stored:
                raise ValueError(f"the index holds {search.doc_count} entries, the database {stored}")
            _touch(search.lexical.searcher)
            search.warm()
            if not analysed_as_now(target.index_dir):
                log.warning("the search index of generation %s was built by an older version and misses words "
                            "today's queries look for; run `faq reindex` to rebuild it", target.name)
        except BaseException:
            search.close()
            raise
    except BaseException:
        engine.dispose()
        raise
    return Snapshot(generation=target, engine=engine, search=search)


def _stored_groups(session: Session, key: str) -> list[list[str]]:
    """The equivalence groups stored with a generation under `key` (the glossary, the mined lexicon)."""
    row = session.get(Meta, key)
    groups: list[list[str]] = json.loads(row.value) if row is not None else []
    return groups


def _build_local_index(settings: Settings, name: str) -> None:
    # Imported when first needed: only a replica missing its local index builds one, and the
    # ingest modules are half a second of every server's start-up.
    from app.ingest.store import build_local_index

    build_local_index(settings, name)


def _touch(searcher: Searcher) -> None:
    """Read a little of every kind of index file: a truncated or garbled one fails here, not mid-request."""
    if searcher.doc_count():
        searcher.stored_fields(0)
    reader = searcher.reader()
    for name, term in itertools.islice(reader.all_terms(), 1):
        list(reader.postings(name, term).all_ids())


def _marked_damaged(target: Generation) -> bool:
    """Whether a server process found `target`'s index damaged while serving it (a stat)."""
    return os.path.exists(target.directory / DAMAGED_MARKER)


def _damage_noted(target: Generation) -> str | None:
    """Why a server process found `target`'s index damaged while serving it, if one did."""
    try:
        return (target.directory / DAMAGED_MARKER).read_text(encoding="utf-8").strip() or "IndexDamaged"
    except OSError:
        return None


class DataStore:
    """Opens the current generation and follows the pointer when an ingest publishes another."""

    def __init__(self, settings: Settings, semantic: bool = False) -> None:
        self.settings = settings
        # The model is loaded by servers (`semantic`), not by tools that only read rows.
        self.model = ModelSlot(enabled=semantic and settings.semantic, companion=settings.semantic_companion,
                               model_dir=settings.model_dir)
        self.vector_problem: str | None = None  # why the current generation's vectors were not loaded
        self.warm = threading.Event()  # set once the current generation is open with all it searches with
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._pointer_stamp: object = None
        self.fallback: tuple[str, str, str] | None = None  # (damaged generation, the one served, why)
        self._damaged: dict[str, str] = {}  # generations found damaged while served, and why
        self.pointer_problem: str | None = None  # what is wrong with the pointer file, when one is
        self._server = not is_sqlite(settings.resolved_database_url)
        self._pointer_engine: Engine | None = None
        self._poll_lock = threading.Lock()
        self._polled: tuple[float, str | None] | None = None  # (when, the generation the pointer row named)
        self._builder: threading.Thread | None = None
        self._failed_builds: dict[str, float] = {}
        self._retired: list[tuple[float, Snapshot]] = []  # replaced snapshots, closed after RETIRE_SECONDS

    def current(self) -> Snapshot:
        """The snapshot of the current generation; raises NoDataError before the first ingest."""
        stamp = self._stamp()
        snapshot = self._snapshot
        if snapshot is not None and self._still_good(snapshot, stamp):
            return snapshot
        with self._lock:
            if self._snapshot is not None and self._still_good(self._snapshot, stamp):
                return self._snapshot
            name, self.pointer_problem = (self._polled_name(), None) if self._server else read_current(self.settings)
            if name is None:
                raise NoDataError(f"no data yet: {NO_DATA_ADVICE}")
            if self._snapshot is not None and (why := self._found_damaged(self._snapshot)) is not None:
                # A search found it damaged while serving, here or in another process: never open it again.
                self._damaged[self._snapshot.generation.name] = why
            if self._snapshot is None or self._snapshot.generation.name not in (name, self.fallback_for(name)) \
                    or self._snapshot.generation.name in self._damaged:
                if not self._index_ready(name):
                    if self._snapshot is not None:
                        self._build_in_background(name)
                        return self._snapshot  # the stamp stays old: asked again until the index is ready
                    self._build_now(name)
                old = self._snapshot
                self._snapshot = self._open_good(name)
                log.info("serving generation %s%s", self._snapshot.generation.name,
                         f" (was {old.generation.name})" if old is not None else "")
                if old is not None:
                    self._retire(old)
            self._pointer_stamp = stamp
            return self._snapshot

    def _still_good(self, snapshot: Snapshot, stamp: object) -> bool:
        """Whether `snapshot` is still the one to serve: the pointer has not moved and no search found it damaged,
        in this process or another serving the same data folder."""
        return (stamp == self._pointer_stamp and not snapshot.search.damaged
                and not _marked_damaged(snapshot.generation))

    def _found_damaged(self, snapshot: Snapshot) -> str | None:
        """Why a search found `snapshot` damaged: in this process, or in another (its DAMAGED file)."""
        if snapshot.search.damaged:
            return f"IndexDamaged: {snapshot.search.damaged}"
        return _damage_noted(snapshot.generation)

    def note_damage(self) -> None:
        """Tell the other server processes of this data folder that a search found the current generation damaged,
        so that none searches it again (each found it out with a failed search of its own)."""
        snapshot = self._snapshot
        if snapshot is None or not snapshot.search.damaged:
            return
        try:
            (snapshot.generation.directory / DAMAGED_MARKER).write_text(
                f"IndexDamaged: {snapshot.search.damaged}\n", encoding="utf-8")
        except OSError as exc:  # a read-only data folder: each process finds it out for itself, as before
            log.warning("cannot mark generation %s damaged for the other server processes: %s",
                        snapshot.generation.name, exc)

    def _retire(self, old: Snapshot) -> None:
        """Close `old` once requests that started on it are surely done, not under their feet.

        Closing at once failed searches in flight on it (500s while `faq ingest` published,
        measured with measure.reindex_load); snapshots retired long enough ago close now.
        """
        now = time.monotonic()
        keep = [(when, snapshot) for when, snapshot in self._retired if now - when < RETIRE_SECONDS]
        for when, snapshot in self._retired:
            if now - when >= RETIRE_SECONDS:
                snapshot.close()
        self._retired = [*keep, (now, old)]

    def open_snapshot(self) -> Snapshot | None:
        """The current snapshot if it is open, no search found it damaged and the pointer has not moved: no I/O beyond
        two stats.

        On a server database, only while the last poll of the pointer row is recent: asking
        the database is for the thread pool, not the event loop.
        """
        snapshot = self._snapshot
        if snapshot is None or snapshot.search.damaged or _marked_damaged(snapshot.generation):
            return None
        if self._server:
            polled = self._polled
            recent = polled is not None and time.monotonic() - polled[0] < POINTER_POLL_SECONDS
            return snapshot if recent and polled is not None and polled[1] == self._pointer_stamp else None
        return snapshot if self._stamp() == self._pointer_stamp else None

    def fallback_for(self, name: str) -> str | None:
        """The generation served instead of `name` when `name` proved damaged, if any."""
        return self.fallback[1] if self.fallback and self.fallback[0] == name else None

    def _index_ready(self, name: str) -> bool:
        """Whether this replica has a complete local index for `name` (always so on SQLite)."""
        return not self._server or (generation(self.settings, name).directory / COMPLETE_MARKER).is_file()

    def _build_now(self, name: str) -> None:
        """Build the local index of `name` while the first readers wait: there is nothing else to serve."""
        try:
            _build_local_index(self.settings, name)
        except Exception as exc:
            raise NoDataError(f"cannot build the search index of generation {name} "
                              f"({describe_failure(exc, self.settings.resolved_database_url)}); "
                              f"{REBUILD_ADVICE}") from exc

    def _build_in_background(self, name: str) -> None:
        """Start building the local index of `name` unless a build runs or recently failed."""
        if self._builder is not None and self._builder.is_alive():
            return
        if time.monotonic() - self._failed_builds.get(name, -BUILD_RETRY_SECONDS) < BUILD_RETRY_SECONDS:
            return

        def build() -> None:
            try:
                _build_local_index(self.settings, name)
            except Exception:
                self._failed_builds[name] = time.monotonic()
                log.exception("cannot build the search index of generation %s; still serving the previous one", name)

        self._builder = threading.Thread(target=build, name=f"index-{name}", daemon=True)
        self._builder.start()

    def _open_good(self, name: str) -> Snapshot:
        """Open generation `name`; if it is damaged, the newest complete generation that is not."""
        problems: list[str] = []
        for candidate in [name, *(other for other in complete_generations(self.settings) if other != name)]:
            why = self._damaged.get(candidate) or _damage_noted(generation(self.settings, candidate))
            if why is not None:
                problems.append(f"{candidate}: {why}")
                continue
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
                log.error("serving generation %s instead of the damaged %s; %s", candidate, name, REBUILD_ADVICE)
            self._attach_semantics(snapshot)  # before the first search: ready means warm
            return snapshot
        raise NoDataError(f"the data is damaged ({problems[0]}); {REBUILD_ADVICE}")

    def warm_up(self) -> None:
        """Open the current generation (index, dictionaries, model, vectors) before readers come; then `warm`."""
        try:
            if self.model.enabled and self.model.get() is None:
                log.warning("search by meaning is unavailable: %s; search is lexical", self.model.problem)
            self.current()
        except NoDataError:
            pass  # nothing to warm yet: the first generation is opened when it is published
        finally:
            self.warm.set()

    def semantic_state(self, snapshot: Snapshot) -> str:
        """One line: how `snapshot` is searched (by meaning as well, or by words only and why)."""
        if not self.model.enabled:
            return "off (FAQ_SEMANTIC=false): search is lexical"
        if self.model.get() is None:
            return f"unavailable: {self.model.problem}; search is lexical"
        semantics = snapshot.search.semantics
        if semantics is not None:
            return f"ready: {semantics.dense.manifest.describe()}" + \
                ("; the second model's vectors are being made" if semantics.remaking else "")
        if self.vector_problem is not None:
            return f"lexical: {self.vector_problem}; `faq reindex` rebuilds the vectors"
        progress = read_progress(snapshot.generation.directory)
        current = progress is not None and time.time() - progress.updated < PROGRESS_STALE_SECONDS
        waiting = progress.describe() if progress is not None and current else "waiting for the vector worker"
        return f"lexical until the vectors are made: {waiting}"

    def attach_vectors(self, name: str) -> None:
        """Search generation `name` by meaning too, if it is the one served and its vectors are now made."""
        snapshot = self._snapshot
        if snapshot is None or snapshot.generation.name != name:
            return
        semantics = snapshot.search.semantics
        # A file searched while the worker remade it (the companion's vectors added) is replaced by the new one.
        if semantics is None or semantics.remaking:
            self._attach_semantics(snapshot)

    def _attach_semantics(self, snapshot: Snapshot) -> None:
        """Load the snapshot's vectors, if made for the running model, and search by meaning with them."""
        self.vector_problem = None
        embedder = self.model.get()
        if embedder is None:
            return
        directory = snapshot.generation.directory
        try:
            if read_manifest(directory) is None:
                return  # not made yet: the vector worker announces them when they are
            dense = load_vectors(directory, embedder.name, searchable_recipes(embedder), snapshot.search.entry_id,
                                 snapshot.search.doc_count, embedder.language_axis)
        except VectorsDamaged as exc:
            self.vector_problem = str(exc)
            log.warning("generation %s is searched by words only: %s; `faq reindex` rebuilds its vectors",
                        snapshot.generation.name, exc)
            return
        snapshot.search.attach(Semantics(dense, embedder, self.model.runner))
        for kind in ("search", "entry"):  # results and related entries change with meaning
            snapshot.forget(kind)
        log.info("generation %s is searched by words and meaning (%s)", snapshot.generation.name,
                 dense.manifest.describe())

    @property
    def local(self) -> bool:
        """Whether the data is a SQLite file beside the index (not a server database)."""
        return not self._server

    def _stamp(self) -> object:
        """What changes when a new generation is published: the pointer file's identity, or the row's name."""
        if self._server:
            return self._polled_name()
        try:
            stat = os.stat(pointer_path(self.settings))
        except FileNotFoundError:
            return None
        return (stat.st_mtime_ns, stat.st_ino)

    def _polled_name(self) -> str | None:
        """The generation the server database's pointer row names, asked at most once per poll interval."""
        polled = self._polled
        if polled is not None and time.monotonic() - polled[0] < POINTER_POLL_SECONDS:
            return polled[1]
        if not self._poll_lock.acquire(blocking=polled is None):
            return polled[1] if polled is not None else None  # another thread is asking right now
        try:
            if self._pointer_engine is None:
                self._pointer_engine = create_engine(self.settings.resolved_database_url, pool_size=1,
                                                     max_overflow=0, pool_pre_ping=True)
            try:
                name = read_pointer(self._pointer_engine)
            except SQLAlchemyError as exc:
                problem = describe_failure(exc, self.settings.resolved_database_url)
                if polled is None:
                    raise NoDataError(problem) from exc
                log.warning("%s; still serving generation %s", problem, polled[1])
                name = polled[1]
            self._polled = (time.monotonic(), name)
            return name
        finally:
            self._poll_lock.release()

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A read session on the current generation."""
        with Session(self.current().engine) as session:
            yield session

    def close(self) -> None:
        """Close whatever is open."""
        self.model.close()
        with self._lock:
            if self._snapshot is not None:
                self._snapshot.close()
                self._snapshot = None
            for _, snapshot in self._retired:
                snapshot.close()
            self._retired = []
            if self._pointer_engine is not None:
                self._pointer_engine.dispose()
                self._pointer_engine = None
