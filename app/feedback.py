""""Was this helpful?": readers' votes and comments on entries, kept with the search statistics for editors.

Like the query log, nothing personal is kept: per entry and day, how many found it helpful
or not, and the optional comments (plain text, at most 1,000 characters, at most 20 an entry a
day). With SQLite they are written to `FAQ_DATA_DIR/queries.db` as each vote comes; with
PostgreSQL to the tables `public.feedback_day` and `public.feedback_comment` of the shared
database, so every replica, `faq stats` and `faq report` see every replica's votes. When the
database cannot be written (unreachable, a table dropped), the vote is still thanked: it waits in
memory (at most MAX_PENDING entry-days and MAX_PENDING_COMMENTS comments; past that, votes are
only counted as lost), the log says once that votes are paused, writing is retried less and less
often in the background, and the log says once when votes are written again.

A reader counts once per entry per day: the server remembers, in memory only and for the
day, a keyed hash of the client's address and the entry, with a key drawn at random each day and
never written anywhere, so the hashes cannot be traced back. The same hash rate-limits a client
voting on many entries. Several server processes (or replicas) each keep their own memory and key,
so a reader can at worst count once per process a day.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import logging
import secrets
import sqlite3
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, NullPool, create_engine, make_url, text
from sqlalchemy.exc import SQLAlchemyError

from app.config import Settings
from app.generations import is_sqlite

log = logging.getLogger("faq.feedback")
MAX_COMMENT = 1000  # characters of a comment kept
COMMENTS_PER_ENTRY_DAY = 20  # comments kept for one entry on one day; votes go on being counted
MAX_READERS_REMEMBERED = 200_000  # reader-entry pairs remembered a day (about 20 MB); past it, votes are refused
VOTES_PER_MINUTE = 10  # from one client, over all entries
SCHEMA = (
    """CREATE TABLE IF NOT EXISTS feedback_day (
    day TEXT NOT NULL, entry_id TEXT NOT NULL, helpful INTEGER NOT NULL, unhelpful INTEGER NOT NULL,
    PRIMARY KEY (day, entry_id))""",
    """CREATE TABLE IF NOT EXISTS feedback_comment (
    day TEXT NOT NULL, entry_id TEXT NOT NULL, helpful INTEGER NOT NULL, comment TEXT NOT NULL)""",
)
# On PostgreSQL, shared by every replica: the same columns (a comment's `id` only orders them, newest last).
SERVER_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS public.feedback_day (
    day TEXT NOT NULL, entry_id TEXT NOT NULL, helpful INTEGER NOT NULL, unhelpful INTEGER NOT NULL,
    PRIMARY KEY (day, entry_id))""",
    """CREATE TABLE IF NOT EXISTS public.feedback_comment (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, day TEXT NOT NULL, entry_id TEXT NOT NULL,
    helpful INTEGER NOT NULL, comment TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS feedback_comment_entry_day ON public.feedback_comment (entry_id, day)",
)
SERVER_TABLES = ("public.feedback_day", "public.feedback_comment")
CREATE_LOCK = 7_414_753  # pg_advisory_xact_lock key: replicas creating the tables at once wait for each other
FLUSH_SECONDS = 5.0  # the first wait before writing again votes that could not be written
RETRY_MAX_SECONDS = 300.0  # the longest wait between attempts while writing fails (doubling from FLUSH_SECONDS)
MAX_PENDING = 10_000  # entry-days of votes kept in memory while they cannot be written
MAX_PENDING_COMMENTS = 1_000  # comments kept in memory meanwhile (at most 1,000 characters each)
CONNECT_SECONDS = 5  # a vote waits at most this long for an unreachable database before it is kept for later


@dataclass(frozen=True)
class EntryFeedback:
    """An entry's votes over a period, and its comments, newest first."""

    entry_id: str
    helpful: int
    unhelpful: int
    comments: list[tuple[str, bool, str]]  # (day, helpful, comment)


class TooManyVotes(Exception):
    """One client voted too often: asked to wait."""


def clean_comment(text: str) -> str:
    """A comment as kept: control characters dropped, spacing folded, at most MAX_COMMENT characters."""
    kept = "".join(char if char.isprintable() else " " for char in text)
    return " ".join(kept.split())[:MAX_COMMENT]


class Feedback:
    """Counts readers' votes on entries into the statistics store: the data folder's file, or the shared database."""

    def __init__(self, settings: Settings) -> None:
        self.path: Path = settings.data_dir / "queries.db"
        self.server_url = _server_url(settings)
        self.days = settings.query_log_days
        self._lock = threading.Lock()
        self._day = ""
        self._key = b""
        self._seen: set[bytes] = set()
        self._recent: dict[bytes, deque[float]] = {}
        # PostgreSQL only: votes and comments not written yet, while the database cannot be written.
        self._votes: dict[tuple[str, str], tuple[int, int]] = {}  # (day, entry) → (helpful, unhelpful)
        self._comments: list[tuple[str, str, bool, str]] = []  # (day, entry, helpful, comment)
        self._lost = 0  # votes not kept because MAX_PENDING others were waiting to be written
        self._paused = False  # whether the last write failed (said once, until one succeeds)
        self._stop = threading.Event()
        self._retrying: threading.Thread | None = None

    @property
    def store(self) -> str:
        """Where the votes are written, as said in the log."""
        return "the database's " + " and ".join(SERVER_TABLES) if self.server_url else str(self.path)

    def vote(self, client: str, entry_id: str, helpful: bool, comment: str = "") -> bool:
        """Count one reader's vote (False when this reader already voted on this entry today, or when nothing is
        recorded); TooManyVotes when the client votes too often."""
        if self.days <= 0:
            return False
        today = dt.date.today().isoformat()
        with self._lock:
            if today != self._day:  # a new day: a new key, and yesterday's readers are forgotten
                self._day, self._key, self._seen, self._recent = today, secrets.token_bytes(32), set(), {}
            who = hmac.new(self._key, client.encode(), hashlib.sha256).digest()
            recent = self._recent.setdefault(who, deque())
            now = time.monotonic()
            while recent and now - recent[0] > 60:
                recent.popleft()
            if len(recent) >= VOTES_PER_MINUTE:
                raise TooManyVotes
            recent.append(now)
            pair = hmac.new(self._key, f"{client}\n{entry_id}".encode(), hashlib.sha256).digest()
            if pair in self._seen or len(self._seen) >= MAX_READERS_REMEMBERED:
                return False
            self._seen.add(pair)
        if self.server_url:
            return self._vote_on_server(today, entry_id, helpful, clean_comment(comment))
        try:
            self._write(today, entry_id, helpful, clean_comment(comment))
        except sqlite3.Error as exc:  # statistics are a courtesy: a reader is never shown an error for them
            log.warning("feedback not recorded: %s", exc)
            return False
        return True

    def _write(self, day: str, entry_id: str, helpful: bool, comment: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(self.path, timeout=10) as db:
            for statement in SCHEMA:
                db.execute(statement)
            db.execute("INSERT INTO feedback_day VALUES (?, ?, ?, ?) ON CONFLICT (day, entry_id) DO UPDATE SET "
                       "helpful = helpful + excluded.helpful, unhelpful = unhelpful + excluded.unhelpful",
                       (day, entry_id, int(helpful), int(not helpful)))
            if comment:
                (kept,) = db.execute("SELECT COUNT(*) FROM feedback_comment WHERE day = ? AND entry_id = ?",
                                     (day, entry_id)).fetchone()
                if kept < COMMENTS_PER_ENTRY_DAY:
                    db.execute("INSERT INTO feedback_comment VALUES (?, ?, ?, ?)",
                               (day, entry_id, int(helpful), comment))
            oldest = (dt.date.today() - dt.timedelta(days=self.days)).isoformat()
            db.execute("DELETE FROM feedback_day WHERE day <= ?", (oldest,))
            db.execute("DELETE FROM feedback_comment WHERE day <= ?", (oldest,))
        db.close()

    def _vote_on_server(self, day: str, entry_id: str, helpful: bool, comment: str) -> bool:
        """Keep the vote with any others waiting, then write them all now; unless writing already fails, in which
        case the background retries take it (a reader never waits for a database known to be down)."""
        with self._lock:
            if not self._keep(day, entry_id, helpful, comment):
                return False
            paused = self._paused
        if paused:
            self._retry()
        else:
            self._write_or_keep()
        return True

    def _keep(self, day: str, entry_id: str, helpful: bool, comment: str) -> bool:
        """Add a vote to those waiting, unless MAX_PENDING other entry-days wait already (call holding the lock)."""
        key = (day, entry_id)
        if key not in self._votes and len(self._votes) >= MAX_PENDING:
            self._lost += 1
            return False
        good, bad = self._votes.get(key, (0, 0))
        self._votes[key] = (good + int(helpful), bad + int(not helpful))
        if comment and len(self._comments) < MAX_PENDING_COMMENTS:
            self._comments.append((day, entry_id, helpful, comment))
        return True

    def flush(self) -> None:
        """Write the votes waiting to the shared database and delete days past the retention; on failure they
        wait for the next attempt."""
        with self._lock:
            votes, comments, self._votes, self._comments = self._votes, self._comments, {}, []
        if not votes or not self.server_url:
            return
        oldest = (dt.date.today() - dt.timedelta(days=self.days)).isoformat()
        try:
            _write_server(self.server_url, votes, comments, oldest)
        except BaseException:
            with self._lock:  # a failed transaction wrote nothing: every vote waits for the next attempt
                unwritten, later = self._votes, self._comments
                self._votes, self._comments = {}, []
                for (day, entry), (good, bad) in [*votes.items(), *unwritten.items()]:
                    was = self._votes.get((day, entry), (0, 0))
                    if (day, entry) in self._votes or len(self._votes) < MAX_PENDING:
                        self._votes[(day, entry)] = (was[0] + good, was[1] + bad)
                    else:
                        self._lost += good + bad
                self._comments = [*comments, *later][:MAX_PENDING_COMMENTS]
            raise

    def _write_or_keep(self) -> bool:
        """Flush; if that fails, keep the votes, say once that votes are paused and retry in the background."""
        try:
            self.flush()
        except Exception as exc:  # noqa: BLE001  (whatever failed, the votes wait and the reader is thanked)
            with self._lock:
                first, self._paused = not self._paused, True
            if first:
                log.warning("feedback paused: cannot write %s (%s); votes are kept in memory and written when it "
                            "works again (retrying, less and less often)", self.store, exc)
            self._retry()
            return False
        with self._lock:
            resumed, lost = self._paused, self._lost
            self._paused, self._lost = False, 0
        if resumed:
            log.warning("feedback resumed: %s is written again%s", self.store,
                        f"; {lost} votes could not be kept meanwhile" if lost else "")
        return True

    def _retry(self) -> None:
        """Start the background retries unless they run already (or the server stops)."""
        with self._lock:
            if self._retrying is None and not self._stop.is_set():
                self._retrying = threading.Thread(target=self._run, name="faq-feedback", daemon=True)
                self._retrying.start()

    def _run(self) -> None:
        """Retry, less and less often, until the votes waiting are written (or the server stops)."""
        wait = FLUSH_SECONDS
        while not self._stop.wait(wait):
            written = self._write_or_keep()
            with self._lock:  # decided under the lock: a vote failing meanwhile either sees this thread or none
                if written and not self._paused:
                    self._retrying = None
                    return
            wait = min(2 * wait, RETRY_MAX_SECONDS)

    def close(self) -> None:
        """Stop retrying and write what waits (if that fails, say so and let it go)."""
        self._stop.set()
        retrying = self._retrying
        if retrying is not None:
            retrying.join(timeout=10)
        if not self.server_url:
            return
        try:
            self.flush()
        except (OSError, SQLAlchemyError) as exc:
            log.warning("feedback: %d votes not written at shut-down (%s)",
                        sum(good + bad for good, bad in self._votes.values()), exc)


def entry_feedback(settings: Settings, days: int, limit: int, entry_id: str | None = None) -> list[EntryFeedback]:
    """Entries' votes over the last `days` days, the least helpful first (or one entry's), with their comments."""
    since = (dt.date.today() - dt.timedelta(days=days - 1)).isoformat()
    server_url = _server_url(settings)
    if server_url:
        return _server_feedback(server_url, since, limit, entry_id)
    path = settings.data_dir / "queries.db"
    if not path.is_file():
        return []
    where = "day >= ?" + (" AND entry_id = ?" if entry_id else "")
    params: tuple[str, ...] = (since, entry_id) if entry_id else (since,)
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as db:
        try:
            rows = db.execute(f"SELECT entry_id, SUM(helpful), SUM(unhelpful) FROM feedback_day WHERE {where} "
                              "GROUP BY entry_id ORDER BY SUM(unhelpful) - SUM(helpful) DESC, entry_id LIMIT ?",
                              (*params, limit)).fetchall()
            found = []
            for entry, helpful, unhelpful in rows:
                comments = db.execute("SELECT day, helpful, comment FROM feedback_comment WHERE day >= ? AND "
                                      "entry_id = ? ORDER BY day DESC, rowid DESC LIMIT 20", (since, entry)).fetchall()
                found.append(EntryFeedback(entry, helpful, unhelpful,
                                           [(day, bool(good), text) for day, good, text in comments]))
        except sqlite3.OperationalError:  # no vote recorded yet: no table
            found = []
    db.close()
    return found


def _server_url(settings: Settings) -> str | None:
    """The shared database's URL when votes live there (PostgreSQL), else None (a file in the data folder)."""
    url = settings.resolved_database_url
    return None if is_sqlite(url) else url


def _engine(url: str) -> Engine:
    """An engine without a pool that gives up on an unreachable server after CONNECT_SECONDS (libpq drivers)."""
    libpq = make_url(url).get_driver_name() in ("psycopg", "psycopg2")
    return create_engine(url, poolclass=NullPool, connect_args={"connect_timeout": CONNECT_SECONDS} if libpq else {})


def _write_server(url: str, votes: dict[tuple[str, str], tuple[int, int]],
                  comments: list[tuple[str, str, bool, str]], oldest: str) -> None:
    """Add `votes` and `comments` to the shared tables (creating them once) and delete days past the retention,
    in one transaction. At most COMMENTS_PER_ENTRY_DAY comments an entry a day are kept, as on SQLite."""
    engine = _engine(url)
    try:
        with engine.begin() as connection:
            missing = connection.execute(text("SELECT to_regclass(:day) IS NULL OR to_regclass(:comment) IS NULL"),
                                         {"day": SERVER_TABLES[0], "comment": SERVER_TABLES[1]}).scalar()
            if missing:
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CREATE_LOCK})
                for statement in SERVER_SCHEMA:
                    connection.execute(text(statement))
            connection.execute(text(
                "INSERT INTO public.feedback_day (day, entry_id, helpful, unhelpful) "
                "VALUES (:day, :entry, :helpful, :unhelpful) ON CONFLICT (day, entry_id) DO UPDATE SET "
                "helpful = feedback_day.helpful + excluded.helpful, "
                "unhelpful = feedback_day.unhelpful + excluded.unhelpful"),
                [{"day": day, "entry": entry, "helpful": good, "unhelpful": bad}
                 for (day, entry), (good, bad) in votes.items()])
            for day, entry, helpful, comment in comments:
                connection.execute(text(
                    "INSERT INTO public.feedback_comment (day, entry_id, helpful, comment) "
                    "SELECT :day, :entry, :helpful, :comment WHERE (SELECT COUNT(*) FROM public.feedback_comment "
                    "WHERE day = :day AND entry_id = :entry) < :most"),
                    {"day": day, "entry": entry, "helpful": int(helpful), "comment": comment,
                     "most": COMMENTS_PER_ENTRY_DAY})
            connection.execute(text("DELETE FROM public.feedback_day WHERE day <= :oldest"), {"oldest": oldest})
            connection.execute(text("DELETE FROM public.feedback_comment WHERE day <= :oldest"), {"oldest": oldest})
    finally:
        engine.dispose()


def _server_feedback(url: str, since: str, limit: int, entry_id: str | None) -> list[EntryFeedback]:
    """entry_feedback on the shared database (nothing before the first vote has created the tables)."""
    where = "day >= :since" + (" AND entry_id = :entry" if entry_id else "")
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            if connection.execute(text("SELECT to_regclass(:day) IS NULL OR to_regclass(:comment) IS NULL"),
                                  {"day": SERVER_TABLES[0], "comment": SERVER_TABLES[1]}).scalar():
                return []
            rows = connection.execute(text(
                f"SELECT entry_id, SUM(helpful), SUM(unhelpful) FROM public.feedback_day WHERE {where} "
                "GROUP BY entry_id ORDER BY SUM(unhelpful) - SUM(helpful) DESC, entry_id LIMIT :limit"),
                {"since": since, "entry": entry_id, "limit": limit}).all()
            found = []
            for entry, helpful, unhelpful in rows:
                comments = connection.execute(text(
                    "SELECT day, helpful, comment FROM public.feedback_comment WHERE day >= :since AND "
                    "entry_id = :entry ORDER BY day DESC, id DESC LIMIT 20"), {"since": since, "entry": entry}).all()
                found.append(EntryFeedback(entry, int(helpful), int(unhelpful),
                                           [(day, bool(good), comment) for day, good, comment in comments]))
    finally:
        engine.dispose()
    return found
