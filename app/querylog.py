"""What readers search for, so editors know which FAQ to write next.

Only the query text is kept, normalised (case and spacing folded, cut to 200 characters),
counted per day with how many searches found nothing: no address, no user, no time of
day. Counts gather in memory and reach the store every few seconds, so a search never
waits for a disk: with SQLite `FAQ_DATA_DIR/queries.db`; with PostgreSQL the table
`public.query_day` of the shared database, so every replica's searches are counted together.
Days older than `FAQ_QUERY_LOG_DAYS` are deleted (0 keeps nothing and records nothing). When
they cannot be written (a full disk, a read-only folder, an unreachable database) the writer
keeps them, says once that statistics are paused, retries less and less often, and says once
when they are written again; meanwhile at most MAX_PENDING distinct queries are kept in
memory, and searches for others are only counted as lost.
"""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import NullPool, create_engine, text
from sqlalchemy.exc import SQLAlchemyError

from app.config import Settings
from app.generations import is_sqlite
from app.startup import writable_problem

log = logging.getLogger(__name__)

MAX_QUERY = 200
FLUSH_SECONDS = 5.0
RETRY_MAX_SECONDS = 300.0  # the longest wait between attempts while writing fails (doubling from FLUSH_SECONDS)
MAX_PENDING = 10_000  # distinct (day, query) counts kept in memory while they cannot be written (about 3 MB)
POPULAR_SECONDS = 60.0  # how stale the list of past queries offered as suggestions may be
MIN_SEARCHES_TO_SUGGEST = 3  # a query one reader typed once is theirs; one searched often is everyone's
SCHEMA = """CREATE TABLE IF NOT EXISTS {table} (
    day TEXT NOT NULL, query TEXT NOT NULL, searches INTEGER NOT NULL, zero INTEGER NOT NULL,
    PRIMARY KEY (day, query))"""
# The same statements on SQLite (`query_day` in queries.db) and PostgreSQL (`public.query_day`).
UPSERT = ("INSERT INTO {table} (day, query, searches, zero) VALUES (:day, :query, :searches, :zero) "
          "ON CONFLICT (day, query) DO UPDATE SET searches = query_day.searches + excluded.searches, "
          "zero = query_day.zero + excluded.zero")
PRUNE = "DELETE FROM {table} WHERE day <= :oldest"
SERVER_TABLE = "public.query_day"
CREATE_LOCK = 7_414_752  # pg_advisory_xact_lock key: replicas creating the table at once wait for each other


@dataclass(frozen=True)
class QueryCount:
    """A query and how often it was searched (and found nothing) over the period asked."""

    query: str
    searches: int
    zero: int


def normalise_query(text: str) -> str:
    """The form a query is counted under: lower case, single spaces, at most 200 characters."""
    return " ".join(text.lower().split())[:MAX_QUERY]


class QueryLog:
    """Counts searches in memory and writes them to the data folder in the background."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.path: Path = settings.data_dir / "queries.db"
        self.server_url = _server_url(settings)
        self.days = settings.query_log_days
        # Why statistics are off although asked for (a read-only data folder), said by `faq serve` at start.
        self.problem = writable_problem(settings.data_dir) if self.days > 0 and not self.server_url else None
        self._popular: tuple[float, list[str]] | None = None
        self._pending: Counter[tuple[str, str, bool]] = Counter()
        self._lost = 0  # searches not counted because MAX_PENDING other queries were waiting to be written
        self._paused = False  # whether the last write failed (said once, until one succeeds)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def store(self) -> str:
        """Where the counts are written, as said in the log."""
        return f"the database's {SERVER_TABLE}" if self.server_url else str(self.path)

    def record(self, query: str, total: int) -> None:
        """Count one search (cheap: a dictionary update; the disk comes later)."""
        if self.days <= 0 or self.problem:
            return
        key = (dt.date.today().isoformat(), normalise_query(query), total == 0)
        with self._lock:
            self._count(key, 1)
        if self._thread is None:
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="faq-query-log", daemon=True)
                self._thread.start()

    def _count(self, key: tuple[str, str, bool], searches: int) -> None:
        """Add to a pending count, unless it is new and MAX_PENDING others wait already (call holding the lock)."""
        if key in self._pending or len(self._pending) < MAX_PENDING:
            self._pending[key] += searches
        else:
            self._lost += searches

    def _run(self) -> None:
        wait = FLUSH_SECONDS
        while not self._stop.wait(wait):
            wait = FLUSH_SECONDS if self._write_or_keep() else min(2 * wait, RETRY_MAX_SECONDS)

    def _write_or_keep(self) -> bool:
        """Flush; if that fails, keep the counts for the next attempt and say once that statistics are paused."""
        try:
            self.flush()
        except (OSError, sqlite3.Error, SQLAlchemyError) as exc:
            if not self._paused:
                log.warning("search statistics paused: cannot write %s (%s); the counts are kept in memory and "
                            "written when it works again (retrying, less and less often)", self.store, exc)
            self._paused = True
            return False
        if self._paused:
            log.warning("search statistics resumed: %s is written again%s", self.store,
                        f"; {self._lost} searches could not be kept meanwhile" if self._lost else "")
            self._paused, self._lost = False, 0
        return True

    def flush(self) -> None:
        """Write the counts gathered so far and delete days past the retention; on failure they stay pending."""
        with self._lock:
            pending, self._pending = self._pending, Counter()
        if (not pending and self.days > 0) or self.problem:
            return
        rows = [{"day": day, "query": query, "searches": n, "zero": n if zero else 0}
                for (day, query, zero), n in pending.items()]
        oldest = {"oldest": (dt.date.today() - dt.timedelta(days=max(self.days, 0))).isoformat()}
        try:
            if self.server_url:
                _write_server(self.server_url, rows, oldest)
            else:
                self._write_file(rows, oldest)
        except BaseException:
            with self._lock:  # a failed transaction wrote nothing: every count waits for the next attempt
                unwritten, self._pending = self._pending, Counter()
                for key, searches in [*pending.items(), *unwritten.items()]:
                    self._count(key, searches)
            raise

    def _write_file(self, rows: list[dict[str, object]], oldest: dict[str, str]) -> None:
        """Add `rows` to the data folder's counts and delete days past the retention, in one transaction."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:
                db.execute(SCHEMA.format(table="query_day"))
                db.executemany(UPSERT.format(table="query_day"), rows)
                db.execute(PRUNE.format(table="query_day"), oldest)
        finally:
            db.close()

    def popular(self) -> list[str]:
        """Past queries that found something, searched at least a few times, most searched first."""
        now = time.monotonic()
        if self._popular is None or now - self._popular[0] > POPULAR_SECONDS:
            rows = top_queries(self.settings, max(self.days, 1), 1000, found_only=True) if self.days > 0 else []
            self._popular = (now, [r.query for r in rows if r.searches >= MIN_SEARCHES_TO_SUGGEST])
        return self._popular[1]

    def close(self) -> None:
        """Stop the writer and write what is left (if that fails, say so and let it go)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if not self._write_or_keep():
            log.warning("search statistics: %d counts not written at shut-down", sum(self._pending.values()))


def top_queries(settings: Settings, days: int, limit: int, zero_only: bool = False,
                found_only: bool = False) -> list[QueryCount]:
    """The most searched queries of the last `days` days (only those that found nothing, or something, if asked)."""
    since = (dt.date.today() - dt.timedelta(days=days - 1)).isoformat()
    order = "zero" if zero_only else "searches"
    having = f"SUM({order}) > 0" + (" AND SUM(searches) > SUM(zero)" if found_only else "")
    select = (f"SELECT query, SUM(searches), SUM(zero) FROM {{table}} WHERE day >= :since GROUP BY query "
              f"HAVING {having} ORDER BY SUM({order}) DESC, query LIMIT :limit")
    parameters = {"since": since, "limit": limit}
    server_url = _server_url(settings)
    if server_url:
        engine = create_engine(server_url, poolclass=NullPool)
        try:
            with engine.connect() as connection:
                if connection.execute(text(f"SELECT to_regclass('{SERVER_TABLE}')")).scalar() is None:
                    return []
                rows = connection.execute(text(select.format(table=SERVER_TABLE)), parameters).all()
        finally:
            engine.dispose()
        return [QueryCount(query, int(searches), int(zero)) for query, searches, zero in rows]
    path = settings.data_dir / "queries.db"
    if not path.is_file():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as db:
        found = db.execute(select.format(table="query_day"), parameters).fetchall()
    db.close()
    return [QueryCount(query, searches, zero) for query, searches, zero in found]


def _server_url(settings: Settings) -> str | None:
    """The shared database's URL when statistics live there (PostgreSQL), else None (a file in the data folder)."""
    url = settings.resolved_database_url
    return None if is_sqlite(url) else url


def _write_server(url: str, rows: list[dict[str, object]], oldest: dict[str, str]) -> None:
    """Add `rows` to the shared database's counts (creating the table once) and delete days past the retention."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.begin() as connection:
            if connection.execute(text(f"SELECT to_regclass('{SERVER_TABLE}')")).scalar() is None:
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CREATE_LOCK})
                connection.execute(text(SCHEMA.format(table=SERVER_TABLE)))
            if rows:
                connection.execute(text(UPSERT.format(table=SERVER_TABLE)), rows)
            connection.execute(text(PRUNE.format(table=SERVER_TABLE)), oldest)
    finally:
        engine.dispose()
