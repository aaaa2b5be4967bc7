"""What the portal remembers about entry ids across every generation (generations are pruned to the last few).

- Where ids that no longer exist went, so old links never 404: an ingest records each id its new
  generation drops, moved to the entry that took its place (301), or removed, with its last
  question (410 and the closest entries).
- Each entry's history: when it first appeared, when its question or answer last changed, and its
  earlier questions (from the ingests).
- Every version of each entry: when it was served and a digest of what it says, from which
  app/outdated.py tells which side of a translation pair changed.

With SQLite they are tables of one file beside the generations (`<data_dir>/lineage.db`); with
PostgreSQL the tables `public.entry_forwarding`, `public.entry_history` and `public.entry_changes`
of the shared database, read by every replica.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    MetaData,
    NullPool,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    inspect,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.config import Settings
from app.generations import is_sqlite
from app.ingest.segment.evidence import strip_numbering

LINEAGE_FILE = "lineage.db"
MAX_HOPS = 64  # a chain of forwards is followed this far at most (never a loop)
CHUNK = 500
EARLIER_QUESTIONS = 20  # the earlier questions kept per entry, newest
CHINESE_NUMBER = re.compile(r"^\s*[一二三四五六七八九十百零〇]+\s*[、.．:：)）]\s*")  # 七、 a question's number
UNSUBSTANTIAL = re.compile(r"[\s*_`\\]+")  # what a formatter changes without changing what a text says

_metadata = MetaData()
entry_forwarding = Table(
    "entry_forwarding", _metadata,
    Column("id", String(160), primary_key=True),  # an id no generation serves any more
    Column("moved_to", String(160), nullable=True),  # the entry that took its place; None: removed
    Column("question", Text, nullable=False),  # its last question, for the removed page and its search
    Column("lang", String(8), nullable=False),
    Column("since", String(32), nullable=False),  # when it went (UTC, ISO 8601)
)

entry_history = Table(
    "entry_history", _metadata,
    Column("id", String(160), primary_key=True),
    Column("first_seen", String(32), nullable=False),  # the ingest that first served it (UTC, ISO 8601)
    Column("changed", String(32), nullable=False),  # the ingest that last changed its question or answer
    Column("question", Text, nullable=False),  # as last served
    Column("answer_digest", String(64), nullable=False),  # of its answer as last served
    Column("earlier_questions", Text, nullable=False),  # JSON list, oldest first
)

# Every version of an entry: a row when it appears and whenever its question or answer changes, with a digest of
# its substance (its text without the whitespace, emphasis and question numbers a formatter or a renumbering
# touches) and whether the edit was minor (a word or two of prose). Which side of a translation pair changed,
# and when, is read from them (app/outdated.py).
entry_changes = Table(
    "entry_changes", _metadata,
    Column("id", String(160), primary_key=True),
    Column("changed", String(32), primary_key=True),  # the ingest that served this version (UTC, ISO 8601)
    Column("substance", String(64), nullable=False),
    Column("minor", Boolean, nullable=False, default=False),  # a word or two edited: what it says is unchanged
)


@dataclass(frozen=True)
class Published:
    """An entry as a new generation serves it."""

    id: str
    question: str
    answer: str
    minor: bool = False  # a word or two edited since the served generation: what it says is unchanged


@dataclass(frozen=True)
class History:
    """When an entry first appeared, when its question or answer last changed, and its earlier questions."""

    first_seen: str
    changed: str
    earlier_questions: list[str]


@dataclass(frozen=True)
class Gone:
    """Where an id that no longer exists went: `moved_to` an entry, or removed (`moved_to` None)."""

    id: str
    moved_to: str | None
    question: str
    lang: str
    since: str


class Lineage:
    """The map of vanished ids and the entries' histories, in a SQLite file of this machine or tables of the shared
    server database."""

    def __init__(self, settings: Settings) -> None:
        url = settings.resolved_database_url
        self._sqlite = is_sqlite(url)
        self._created = False  # this process made sure every table exists (a file of an older version lacks some)
        self._seen = False  # the map exists (an ingest made it)
        self._has_changes = False
        self._data_dir = settings.data_dir
        if self._sqlite:
            self.engine: Engine = create_engine(f"sqlite:///{settings.data_dir / LINEAGE_FILE}",
                                                poolclass=NullPool, connect_args={"timeout": 30})
            event.listen(self.engine, "connect", _wal)
        else:
            self.engine = create_engine(url, pool_size=1, max_overflow=2, pool_pre_ping=True)

    def _prepare(self) -> None:
        """Create the tables missing on first use (a reader with no ingest yet has none; a map written by an older
        version lacks the tables added since)."""
        if not self._created:
            if self._sqlite:
                self._data_dir.mkdir(parents=True, exist_ok=True)
            _metadata.create_all(self.engine, checkfirst=True)
            self._created = self._seen = self._has_changes = True

    def _exists(self) -> bool:
        """Whether the map has been created (by an ingest); remembered once true."""
        if not self._seen:
            if self._sqlite and not (self._data_dir / LINEAGE_FILE).is_file():
                return False
            self._seen = inspect(self.engine).has_table(entry_forwarding.name)
        return self._seen

    def unknown(self, entry_ids: Iterable[str]) -> set[str]:
        """Those of `entry_ids` whose history has not started (never served)."""
        wanted = set(entry_ids)
        if not self._exists() or not wanted:
            return wanted
        with self.engine.connect() as connection:
            return wanted.difference(connection.execute(select(entry_history.c.id)).scalars())

    def record(self, vanished: Mapping[str, Gone], published: Sequence[Published], since: str,
               written: Mapping[str, tuple[str, str]] | None = None) -> None:
        """Remember this ingest's vanished ids, forget those served again, and bring the entries' histories up to
        date, in one transaction; a new entry's history starts when its lines were `written` (first, last) if git
        says, else now.

        Forwards that led to an id now moved lead straight to its new place, so a link
        followed after many generations is still one redirect.
        """
        self._prepare()
        insert = sqlite_insert if self._sqlite else pg_insert
        with self.engine.begin() as connection:
            known = set(connection.execute(select(entry_forwarding.c.id)).scalars())
            back = sorted(known.intersection(entry.id for entry in published))
            for start in range(0, len(back), CHUNK):
                chunk = back[start:start + CHUNK]
                connection.execute(entry_forwarding.delete().where(entry_forwarding.c.id.in_(chunk)))
            rows = [{"id": gone.id, "moved_to": gone.moved_to, "question": gone.question, "lang": gone.lang,
                     "since": gone.since} for gone in vanished.values()]
            for start in range(0, len(rows), CHUNK):
                statement = insert(entry_forwarding)
                connection.execute(statement.on_conflict_do_update(index_elements=["id"], set_={
                    "moved_to": statement.excluded.moved_to, "question": statement.excluded.question,
                    "lang": statement.excluded.lang, "since": statement.excluded.since}), rows[start:start + CHUNK])
            for gone in vanished.values():
                if gone.moved_to is not None:
                    connection.execute(update(entry_forwarding).where(entry_forwarding.c.moved_to == gone.id)
                                       .values(moved_to=gone.moved_to))
            self._record_history(connection, published, since, written or {})

    def _record_history(self, connection: Connection, published: Sequence[Published], since: str,
                        written: Mapping[str, tuple[str, str]]) -> None:
        """New entries start their history now (or when git says their lines were written); those whose question or
        answer changed note it (and the question)."""
        last = {row.id: row for row in connection.execute(select(
            entry_history.c.id, entry_history.c.question, entry_history.c.answer_digest,
            entry_history.c.earlier_questions))}
        new_rows, changed_rows = [], []
        versions: list[dict[str, Any]] = []
        for entry in published:
            digest = _digest(entry.answer)
            row = last.get(entry.id)
            if row is None or (row.question, row.answer_digest) != (entry.question, digest):
                versions.append({"id": entry.id, "changed": since, "substance": substance(entry.question,
                                                                                          entry.answer),
                                 "minor": row is not None and entry.minor})
            if row is None:
                # Which side of a pair changed is still told from the ingests (entry_changes): a blame's dates say
                # when lines were written, not whether what they say changed.
                first_seen, changed = (min(day, since) for day in written.get(entry.id, (since, since)))
                new_rows.append({"id": entry.id, "first_seen": first_seen, "changed": changed,
                                 "question": entry.question,
                                 "answer_digest": digest, "earlier_questions": "[]"})
            elif (row.question, row.answer_digest) != (entry.question, digest):
                earlier = json.loads(row.earlier_questions)
                if row.question != entry.question:
                    earlier = [*earlier, row.question][-EARLIER_QUESTIONS:]
                changed_rows.append({"key": entry.id, "changed": since, "question": entry.question,
                                     "answer_digest": digest, "earlier_questions": json.dumps(earlier,
                                                                                              ensure_ascii=False)})
        for start in range(0, len(new_rows), CHUNK):
            connection.execute(_insert_new(entry_history, self._sqlite), new_rows[start:start + CHUNK])
        for start in range(0, len(versions), CHUNK):
            connection.execute(_insert_new(entry_changes, self._sqlite, ["id", "changed"]),
                               versions[start:start + CHUNK])
        if changed_rows:
            connection.execute(update(entry_history).where(entry_history.c.id == bindparam("key")).values(
                changed=bindparam("changed"), question=bindparam("question"),
                answer_digest=bindparam("answer_digest"), earlier_questions=bindparam("earlier_questions")),
                changed_rows)

    def history(self, entry_id: str) -> History | None:
        """The entry's history, or None before an ingest recorded it."""
        if not self._exists():
            return None
        with self.engine.connect() as connection:
            row = connection.execute(select(entry_history).where(entry_history.c.id == entry_id)).first()
        if row is None:
            return None
        return History(first_seen=row.first_seen, changed=row.changed,
                       earlier_questions=list(json.loads(row.earlier_questions)))

    def histories(self, entry_ids: Iterable[str] | None = None) -> dict[str, History]:
        """The histories of `entry_ids` (every entry's when None) that an ingest recorded; the others are left out.

        `earlier_questions` is left empty here: this is the bulk read of the outdated translations and feeds.
        """
        if not self._exists():
            return {}
        columns = select(entry_history.c.id, entry_history.c.first_seen, entry_history.c.changed)
        found: dict[str, History] = {}
        with self.engine.connect() as connection:
            for statement in _in_chunks(columns, entry_history.c.id, entry_ids):
                for row in connection.execute(statement):
                    found[row.id] = History(first_seen=row.first_seen, changed=row.changed, earlier_questions=[])
        return found

    def versions(self, entry_ids: Iterable[str] | None = None) -> dict[str, list[tuple[str, str, bool]]]:
        """The recorded versions of each of `entry_ids` (every entry when None), oldest first: (when it was
        first served, its substance digest, whether its edit was minor). Entries served before versions were
        recorded lack their first ones, and an entry with none is left out."""
        if not self._exists():
            return {}
        if not self._has_changes:
            self._has_changes = inspect(self.engine).has_table(entry_changes.name)
            if not self._has_changes:
                return {}  # made by a portal that did not record changes yet: the next ingest creates it
        found: dict[str, list[tuple[str, str, bool]]] = {}
        columns = select(entry_changes.c.id, entry_changes.c.changed, entry_changes.c.substance, entry_changes.c.minor)
        with self.engine.connect() as connection:
            for statement in _in_chunks(columns, entry_changes.c.id, entry_ids):
                for row in connection.execute(statement):
                    found.setdefault(row.id, []).append((row.changed, row.substance, bool(row.minor)))
        for times in found.values():
            times.sort()
        return found

    def find(self, entry_id: str, exists: Callable[[str], bool]) -> Gone | None:
        """Where `entry_id` went, following forwards to an entry that `exists`; None if it was never recorded.

        A forward that leads nowhere any more (or back to itself) counts as removed, with the last question known.
        """
        if not self._exists():
            return None  # no ingest has recorded anything yet: a reader creates nothing
        seen: list[Gone] = []
        current = entry_id
        with self.engine.connect() as connection:
            while len(seen) < MAX_HOPS:
                row = connection.execute(select(entry_forwarding).where(entry_forwarding.c.id == current)).first()
                if row is None:
                    break
                gone = Gone(row.id, row.moved_to, row.question, row.lang, row.since)
                seen.append(gone)
                if gone.moved_to is None or any(g.id == gone.moved_to for g in seen):
                    break
                if exists(gone.moved_to):
                    return Gone(entry_id, gone.moved_to, gone.question, gone.lang, gone.since)
                current = gone.moved_to
        if not seen:
            return None
        last = seen[-1]
        return Gone(entry_id, None, last.question, last.lang, last.since)

    @staticmethod
    def now() -> str:
        """The time an id goes, as recorded."""
        return datetime.now(UTC).isoformat(timespec="seconds")

    def close(self) -> None:
        """Close the connections."""
        self.engine.dispose()


def _digest(text: str) -> str:
    # A fingerprint of an answer, to tell whether it changed; never for security.
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def substance(question: str, answer: str) -> str:
    """A digest of what an entry says: the same for versions that differ only in whitespace, line wrapping,
    emphasis and code marks, letter case, full-width forms or the question's number (`Q3.`, `七、`)."""
    question = CHINESE_NUMBER.sub("", strip_numbering(question), count=1)
    text = unicodedata.normalize("NFKC", f"{question}\n{answer}").casefold()
    return _digest(UNSUBSTANTIAL.sub("", text))


def _insert_new(table: Table, sqlite: bool, key: Sequence[str] = ("id",)) -> Any:
    """An INSERT of `table` that leaves rows already there (the same `key`) alone."""
    return (sqlite_insert if sqlite else pg_insert)(table).on_conflict_do_nothing(index_elements=list(key))


def _in_chunks(statement: Any, column: Any, ids: Iterable[str] | None) -> Iterator[Any]:
    """`statement` for every row (`ids` None), or restricted to `ids` a chunk at a time (a bound list has limits)."""
    if ids is None:
        yield statement
        return
    wanted = sorted(set(ids))
    for start in range(0, len(wanted), CHUNK):
        yield statement.where(column.in_(wanted[start:start + CHUNK]))


def _wal(dbapi_connection: Any, _record: Any) -> None:
    # Readers looking up an old id must not wait on an ingest's writes.
    dbapi_connection.execute("PRAGMA journal_mode = WAL")
