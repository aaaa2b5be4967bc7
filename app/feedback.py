""""Was this helpful?": readers' votes and comments on entries, kept with the search statistics for editors.

Like the query log, nothing personal is kept: per entry and day, how many found it helpful
or not, and the optional comments (plain text, at most 1,000 characters, at most 20 an entry a
day). A reader counts once per entry per day: the server remembers, in memory only and for the
day, a keyed hash of the client's address and the entry, with a key drawn at random each day and
never written anywhere, so the hashes cannot be traced back. The same hash rate-limits a client
voting on many entries. Several server processes each keep their own memory, so a reader can at
worst count once per process.
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

from app.config import Settings

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
    """Counts readers' votes on entries into the data folder's statistics database."""

    def __init__(self, settings: Settings) -> None:
        self.path: Path = settings.data_dir / "queries.db"
        self.days = settings.query_log_days
        self._lock = threading.Lock()
        self._day = ""
        self._key = b""
        self._seen: set[bytes] = set()
        self._recent: dict[bytes, deque[float]] = {}

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


def entry_feedback(settings: Settings, days: int, limit: int, entry_id: str | None = None) -> list[EntryFeedback]:
    """Entries' votes over the last `days` days, the least helpful first (or one entry's), with their comments."""
    path = settings.data_dir / "queries.db"
    if not path.is_file():
        return []
    since = (dt.date.today() - dt.timedelta(days=days - 1)).isoformat()
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
