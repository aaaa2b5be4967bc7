"""Translations that fell behind: one side of a translation pair changed, the other did not.

A translation pair is two entries the ingest linked as saying the same thing in the two languages
(app/ingest/align.py). From the entries' histories (app/lineage.py: when each entry first appeared and
every ingest that changed its question or answer) an entry is *possibly outdated* when its partner
changed after it last did:

- the partner changed alone, after both existed (a translation written later starts level with its
  original); an ingest that changes both sides at once marks neither, nor one that changes the partner and
  edits the entry by a word or its formatting only (its editor had both in hand);
- the entry does not say what its partner says (an untranslated copy has nothing to catch up with);
- the entry has not changed since: a change of the side that is behind catches it up (and never puts
  the other side behind: a translator's update does not make the original outdated);
- no review clears it: a translator's `reviewed: 2026-11-21` in the entry's document's front matter
  or sidecar (`faq.zh.md.meta.yml`), or per question (`reviewed: {"How do I …?": 2026-11-21}`), on or
  after the day of the partner's last change; nor a revision mark, `translation_of_commit: 3f2a9c1` (or
  OpenTelemetry's `default_lang_commit`), document-wide or per question, naming a commit of the content
  folder's git repository at which the partner said what it says now (told at the ingest,
  `app.ingest.pipeline`).

It is outdated *since* the partner's first change that put it behind (`fell_behind`). The entry page and
the API show it (`outdated`), and `outdated_translations` lists them all for the editors' report.
Everything is computed when asked, from the served generation's pairs and the lineage's histories, so
a re-paired or unpaired entry, a removed partner or a document deleted and added again never leaves a
stale mark behind.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select as select_columns
from sqlmodel import Session, col

from app.config import Settings
from app.lineage import History, Lineage
from app.models import Document, Entry, EntryLink, Meta

REVIEWED_KEY = "reviewed"  # front matter / sidecar key, and the generation's Meta key of the marks
REVISION_KEYS = ("translation_of_commit", "default_lang_commit")  # the second as OpenTelemetry's site writes it
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
COMMIT = re.compile(r"[0-9a-fA-F]{4,64}")
CHUNK = 500


@dataclass(frozen=True)
class OutdatedTranslation:
    """An entry whose translation partner changed after it did: possibly out of date.

    `partner_changed` is the partner's last change and `since` its first change after this entry's own
    last change (both UTC, ISO 8601, from the ingests); `reviewed` the review date that did not clear it.
    """

    entry_id: str
    lang: str
    document_id: str
    document_path: str
    question: str
    partner_id: str
    partner_lang: str
    partner_question: str
    partner_changed: str
    since: str
    reviewed: str = ""

    @property
    def url(self) -> str:
        """The outdated entry's page."""
        return f"/entries/{self.entry_id}"

    @property
    def partner_url(self) -> str:
        """The page of the newer version."""
        return f"/entries/{self.partner_id}"


@dataclass
class ReviewMarks:
    """What the editors and the file names say of one generation's translations: the review dates, per document
    and per entry (YYYY-MM-DD), the entries a revision mark keeps level (`revised`), and which document translates
    which (`declared`: front matter or sidecar `translation_of`; `named`: a language marker in only the
    translation's path)."""

    documents: dict[str, str] = field(default_factory=dict)
    entries: dict[str, str] = field(default_factory=dict)
    revised: dict[str, str] = field(default_factory=dict)  # entry id → its revision mark, its partners unchanged since
    declared: dict[str, str] = field(default_factory=dict)  # translation's document id → its original's
    named: dict[str, str] = field(default_factory=dict)

    def on(self, entry_id: str, document_id: str) -> str:
        """The latest review date that covers an entry ("" when none does)."""
        return max(self.documents.get(document_id, ""), self.entries.get(entry_id, ""))

    def to_json(self) -> str:
        """The marks as stored in the generation's Meta table."""
        return json.dumps({"documents": self.documents, "entries": self.entries, "revised": self.revised,
                           "declared": self.declared, "named": self.named}, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> ReviewMarks:
        """The stored marks; none for a generation made before they were stored, or unreadable ones."""
        try:
            loaded = json.loads(text) if text else {}
        except ValueError:
            return cls()
        if not isinstance(loaded, dict):
            return cls()
        return cls(documents=_dates(loaded.get("documents")), entries=_dates(loaded.get("entries")),
                   revised=_strings(loaded.get("revised")), declared=_strings(loaded.get("declared")),
                   named=_strings(loaded.get("named")))

    def side(self, document_id: str, partner_document_id: str, own: History, partner: History) -> str:
        """Whether an entry is its pair's "original" or its "translation" ("" when nothing tells): what an
        editor declared, else which side appeared first, else which path carries a language marker."""
        for said in (self.declared, None, self.named):
            if said is None:
                if own.first_seen != partner.first_seen:
                    return "original" if own.first_seen < partner.first_seen else "translation"
            elif said.get(document_id) == partner_document_id:
                return "translation"
            elif said.get(partner_document_id) == document_id:
                return "original"
        return ""


def _dates(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items() if isinstance(v, str) and DATE.fullmatch(v)}


def _strings(value: Any) -> dict[str, str]:
    return {str(k): v for k, v in value.items() if isinstance(v, str)} if isinstance(value, dict) else {}


ZH_MARKERS = frozenset({"zh", "cn"})
TRANSLATION_FOLDERS = frozenset({"i18n", "l10n", "translations"})


def translation_sides(documents: Sequence[tuple[str, str, str, str | None]],
                      pairs: Iterable[tuple[str, str]]) -> tuple[dict[str, str], dict[str, str]]:
    """Which document of each pair translates the other: (declared, named), each a map of the translation's
    document id to its original's. `documents` are (id, path, lang, translation_of path), `pairs` the document
    pairs (ids)."""
    by_id = {doc_id: (path, lang, translation_of) for doc_id, path, lang, translation_of in documents}
    declared: dict[str, str] = {}
    named: dict[str, str] = {}
    for first, second in pairs:
        if first not in by_id or second not in by_id:
            continue
        for one, other in ((first, second), (second, first)):
            if by_id[one][2] == by_id[other][0]:
                declared[one] = other
        marked = [doc for doc in (first, second) if _language_marked(*by_id[doc][:2])]
        if len(marked) == 1:
            named[marked[0]] = second if marked[0] == first else first
    return declared, named


def _language_marked(path: str, lang: str) -> bool:
    """Whether a path says it holds a translation: a marker of its own language (`faq.zh.md`, `cn/faq.md`,
    `faq_en.md`) or a translations folder (`i18n/`)."""
    parts = {part.lower() for part in re.split(r"[/._-]+", path)}
    return bool(parts & TRANSLATION_FOLDERS) or bool(parts & (ZH_MARKERS if lang == "zh" else {lang.lower()}))


def review_date(value: object) -> str | None:
    """A front matter value as a review date (YYYY-MM-DD), or None when it is not one."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        text = value.strip()
        if DATE.fullmatch(text[:10]) and (len(text) == 10 or text[10] in "T "):
            try:
                return dt.date.fromisoformat(text[:10]).isoformat()
            except ValueError:
                return None
    return None


def revision(value: object) -> str | None:
    """A front matter value as a git commit (its sha, or 4 or more of its first hex digits, lower case), or None."""
    if isinstance(value, str) and COMMIT.fullmatch(value.strip()):
        return value.strip().lower()
    return None  # an unquoted sha of digits only is a YAML number (or an octal one): not taken for a commit


@dataclass
class ReviewMark:
    """A document's `reviewed` or `translation_of_commit` metadata as read: the whole document's value (a date, a
    commit), the values of some of its entries (by position), and what could not be used."""

    document: str = ""
    entries: dict[int, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    key: str = REVIEWED_KEY  # as the document wrote it


def read_review_mark(value: object, questions: Sequence[Sequence[str]]) -> ReviewMark:
    """The `reviewed` front matter / sidecar value of a document whose entries ask `questions` (each entry's
    question forms: as written and as plain text).

    `reviewed: 2026-11-21` marks the whole document reviewed that day; a mapping marks single entries,
    each key a question as written in the document (`"How do I …?": 2026-11-21`).
    """
    return _read_mark(REVIEWED_KEY, value, questions, review_date, "a date (2026-11-21)")


def read_revision_mark(meta: Mapping[str, object], questions: Sequence[Sequence[str]]) -> ReviewMark:
    """The `translation_of_commit` (or `default_lang_commit`) front matter / sidecar value of a document whose
    entries ask `questions`: the commit of its original it was translated from or checked against, for the whole
    document (`translation_of_commit: 3f2a9c1`) or per question (`"How do I …?": 3f2a9c1`)."""
    key = next((key for key in REVISION_KEYS if key in meta), REVISION_KEYS[0])
    return _read_mark(key, meta.get(key), questions, revision, "a git commit's sha, quoted (\"3f2a9c1\")")


def _read_mark(key: str, value: object, questions: Sequence[Sequence[str]], parse: Callable[[object], str | None],
               expected: str) -> ReviewMark:
    """A mark for the whole document (a value `parse` reads) or a mapping of questions to such values."""
    mark = ReviewMark(key=key)
    if value is None:
        return mark
    whole = parse(value)
    if whole is not None:
        mark.document = whole
        return mark
    if not isinstance(value, dict):
        mark.problems.append(f"front matter `{key}` must be {expected} or a mapping of questions to such values; "
                             "ignored")
        return mark
    positions: dict[str, list[int]] = {}
    for position, forms in enumerate(questions):
        for form in {_normal(text) for text in forms}:
            positions.setdefault(form, []).append(position)
    for question, raw in value.items():
        parsed = parse(raw)
        found = positions.get(_normal(str(question)), [])
        if parsed is None:
            mark.problems.append(f"`{key}` of “{str(question)[:60]}”: {str(raw)[:40]!r} is not {expected}; ignored")
        elif not found:
            mark.problems.append(f"`{key}`: no entry asks “{str(question)[:60]}”; ignored")
        else:
            for position in found:
                mark.entries[position] = max(mark.entries.get(position, ""), parsed)
    return mark


def _normal(text: str) -> str:
    return " ".join(text.split())


def changes_of(history: History, versions: Sequence[tuple[str, str, bool]]) -> list[str]:
    """When what an entry says changed, oldest first, from its recorded `versions` ((time, substance digest,
    minor edit), oldest first; app/lineage.py): a version whose substance is the previous one's (reformatted,
    renumbered) or a minor edit (a word or two of prose) is no change. Without recorded versions (an entry served
    before they were), its history's last change."""
    if not versions:
        return [history.changed] if history.changed > history.first_seen else []
    first, _, minor = versions[0]
    found = [first] if first > history.first_seen and not minor else []  # what it said before is unknown
    found += [when for (_, before, _), (when, after, minor) in itertools.pairwise(versions)
              if after != before and not minor]
    return found


def fell_behind(own: History, partner: History, own_changes: Iterable[str] = (), partner_changes: Iterable[str] = (),
                reviewed: str = "", side: str = "", own_edits: Iterable[str] = ()) -> tuple[str, str] | None:
    """(since, the partner's last change) when an entry with history `own` fell behind its translation `partner`,
    None when it did not. `own_changes` and `partner_changes` are when what each says changed (`changes_of`),
    `own_edits` when the entry's text was edited at all (a word or two, its formatting), `reviewed` the entry's review
    date (YYYY-MM-DD), `side` whether the entry is the pair's "original" (never behind) or its "translation" ("": the
    side that appeared later is the translation, `ReviewMarks.side`).

    The pair's changes are read in time order from when both existed (a translation written later
    starts level with its original): a change of the original alone puts the translation behind (of
    either side alone, the other, when nothing tells which is the original); a change of the side that
    is behind catches it up, and a translator's edit never puts the original behind; a change of the partner in
    an ingest that edited the entry too (its editor had both in hand), or a review dated on or after the day of
    the partner's change, leaves both level.
    """
    if side == "original" or (not side and own.first_seen < partner.first_seen):
        return None  # the original: its translation follows it, never the other way round
    symmetric = not side and own.first_seen == partner.first_seen
    start = max(own.first_seen, partner.first_seen)
    mine = {when for when in own_changes if when > start}
    theirs = {when for when in partner_changes if when > start}
    edited = mine | set(own_edits)
    events = sorted(mine | theirs)
    if reviewed:
        events.append(f"{reviewed}~")  # the end of that day: after every change made on it
        events.sort()
    behind, since = "", ""  # "own", "partner" or "": who is behind, and since when
    for when in events:
        if when.endswith("~"):
            behind = "" if behind == "own" else behind
        elif when in theirs and when in edited:
            behind = ""
        elif when in theirs:
            if behind == "partner":
                behind = ""
            elif behind == "":
                behind, since = "own", when
        elif behind == "own":
            behind = ""
        elif behind == "" and symmetric:
            behind = "partner"  # nothing tells which is the original: either side can fall behind
    if behind != "own":
        return None
    return since, max(theirs)


def judge_pair(own: str, partner: str, documents: tuple[str, str], histories: Mapping[str, History],
               versions: Mapping[str, Sequence[tuple[str, str, bool]]], marks: ReviewMarks) -> tuple[str, str] | None:
    """`fell_behind` for entry `own` of document `documents[0]` and its translation `partner` (of `documents[1]`),
    from their histories and recorded versions (app/lineage.py) and the generation's `marks`; None when it did not
    fall behind or either has no history yet.

    An entry that says what its partner says (an untranslated copy, word for word) has nothing to catch up with,
    nor one whose revision mark names a commit at which its partner said what it says now (`marks.revised`).
    """
    if own not in histories or partner not in histories:
        return None  # not recorded by an ingest yet (a generation older than the history): nothing to say
    mine, theirs = versions.get(own, ()), versions.get(partner, ())
    if own in marks.revised or (mine and theirs and mine[-1][1] == theirs[-1][1]):
        return None
    side = marks.side(documents[0], documents[1], histories[own], histories[partner])
    return fell_behind(histories[own], histories[partner], changes_of(histories[own], mine),
                       changes_of(histories[partner], theirs), marks.on(own, documents[0]), side,
                       [when for when, _, _ in mine])


def find_outdated(session: Session, lineage: Lineage | None, entry_ids: Iterable[str] | None = None,
                  marks: ReviewMarks | None = None) -> list[OutdatedTranslation]:
    """The possibly outdated translations among `entry_ids` (every entry of the session's generation when
    None), in document order; `marks`: the generation's review marks (read from it when None)."""
    if lineage is None:
        return []
    wanted = None if entry_ids is None else sorted(set(entry_ids))
    pairs = _translation_pairs(session, wanted)
    if not pairs:
        return []
    involved = {entry_id for pair in pairs for entry_id in pair}
    entries = _entries(session, involved)
    histories = lineage.histories(involved)
    versions = lineage.versions(involved)
    marks = marks if marks is not None else review_marks(session)
    found: list[tuple[tuple[str, int, str], OutdatedTranslation]] = []
    for own, partner in pairs:
        if own not in entries or partner not in entries:
            continue
        this, other = entries[own], entries[partner]
        behind = judge_pair(own, partner, (this.document_id, other.document_id), histories, versions, marks)
        if behind is None:
            continue
        since, partner_changed = behind
        found.append(((this.document_path, this.position, partner), OutdatedTranslation(
            entry_id=own, lang=this.lang, document_id=this.document_id, document_path=this.document_path,
            question=this.title, partner_id=partner, partner_lang=other.lang, partner_question=other.title,
            partner_changed=partner_changed, since=since, reviewed=marks.on(own, this.document_id))))
    return [item for _, item in sorted(found, key=lambda pair: pair[0])]


def review_marks(session: Session) -> ReviewMarks:
    """The review marks stored with the session's generation (none before they were stored)."""
    row = session.get(Meta, REVIEWED_KEY)
    return ReviewMarks.from_json(row.value if row is not None else None)


def outdated_translations(settings: Settings) -> list[OutdatedTranslation]:
    """Every possibly outdated translation of the served generation, in document order: what the editors'
    report (`faq report`, `/admin`) lists and `--fail-on outdated` counts.

    Works on SQLite and PostgreSQL alike (settings.resolved_database_url); raises app.db.NoDataError before
    the first ingest. Each item names the entry (id, lang, document, question), the newer version
    (partner id, lang, question), when the partner last changed and since when the entry is behind.
    """
    from app.db import DataStore  # the read layer's store; imported here so that ingest code can use this module

    store = DataStore(settings)
    lineage = Lineage(settings)
    try:
        with store.session() as session:
            return find_outdated(session, lineage)
    finally:
        lineage.close()
        store.close()


@dataclass(frozen=True)
class _EntryFacts:
    lang: str
    title: str
    document_id: str
    document_path: str
    position: int


def _translation_pairs(session: Session, wanted: list[str] | None) -> list[tuple[str, str]]:
    """(entry, its translation) for the `wanted` entries (all when None)."""
    base = select_columns(col(EntryLink.source_id), col(EntryLink.target_id)).where(
        col(EntryLink.kind) == "translation")
    if wanted is None:
        return [(source, target) for source, target in session.execute(base)]
    pairs: list[tuple[str, str]] = []
    for start in range(0, len(wanted), CHUNK):
        statement = base.where(col(EntryLink.source_id).in_(wanted[start:start + CHUNK]))
        pairs += [(source, target) for source, target in session.execute(statement)]
    return pairs


def _entries(session: Session, ids: Iterable[str]) -> Mapping[str, _EntryFacts]:
    wanted = sorted(ids)
    facts: dict[str, _EntryFacts] = {}
    for start in range(0, len(wanted), CHUNK):
        rows = session.execute(
            select_columns(col(Entry.id), col(Entry.lang), col(Entry.title), col(Entry.document_id),
                           col(Document.path), col(Entry.position))
            .join(Document, col(Document.id) == col(Entry.document_id))
            .where(col(Entry.id).in_(wanted[start:start + CHUNK])))
        for id_, lang, title, document_id, path, position in rows:
            facts[id_] = _EntryFacts(lang, title, document_id, path, position)
    return facts
