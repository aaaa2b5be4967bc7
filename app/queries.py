"""The read layer shared by the HTML pages and the JSON API: typed reads, one place each."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

from sqlalchemy import bindparam, inspect
from sqlalchemy import select as select_columns
from sqlmodel import Session, col, func, select

from app.config import Settings
from app.db import DataStore, Snapshot
from app.lineage import Gone, Lineage
from app.metrics import observe_search
from app.models import (
    Document,
    DocumentBrief,
    DocumentDetail,
    DocumentLink,
    DocumentRef,
    Entry,
    EntryDetail,
    EntryDocument,
    EntryHistory,
    EntryLink,
    EntryOutdated,
    EntryRef,
    Health,
    SearchDocument,
    SearchHit,
    SearchPage,
)
from app.outdated import OutdatedTranslation, ReviewMarks, find_outdated, review_marks
from app.querylog import QueryLog
from app.search.analysis import HAN, normalise_text, query_terms
from app.search.engine import Mode
from app.search.errors import normalise_error
from app.search.highlight import make_snippet, mark_html, mark_terms
from app.search.paste import is_paste, read_paste
from app.search.ranking import Match

LANGUAGES = ("en", "zh")
GROUP_WINDOW = 100  # matches examined for translation pairs before a page is cut
MAX_RELATED = 5  # related entries shown with an entry
MAX_HIGHLIGHT = 200  # characters of a search highlighted on the entry it led to
POPULAR_QUERIES = 20  # the most frequent past queries whose best entries are the popular ones
RELATED_BY_MEANING = 10  # its nearest entries by meaning, fused with those sharing its anchors
RELATED_FUSION_K = 3  # reciprocal rank fusion: an entry in both lists comes first
# Only what a hit shows: the entry's markdown and HTML are most of its row. Built once, on the table's
# columns: an ORM statement built per search spent more in compiling and caching than SQLite in running it.
_ENTRY_COLUMNS = inspect(Entry).local_table.c
_HIT_COLUMNS = ("id", "title", "lang", "document_id", "section", "body_text")
HITS = (select_columns(*(_ENTRY_COLUMNS[name] for name in _HIT_COLUMNS))
        .where(_ENTRY_COLUMNS.id.in_(bindparam("ids", expanding=True))))
# Read once per generation and kept, the most read first to stay: entries are small; a
# document holds its whole text, so fewer of them.
ENTRIES_KEPT = 2048
DOCUMENTS_KEPT = 32
DOCUMENT_KEPT_CHARS = 1_000_000


# Ids are at most about 135 characters (app/ingest/ids.py: a 120-character document slug, a digest and
# a suffix); a longer one names nothing, and is refused before any read.
MAX_ID_LENGTH = 200
CLOSEST_TO_REMOVED = 5  # current entries shown with a removed entry


class NotFound(LookupError):
    """No document or entry has that id."""

    def __init__(self, kind: str, id_: str, detail: str = "") -> None:
        super().__init__(detail or f"no {kind} with id {id_!r}")
        self.kind = kind  # document, entry
        self.id = id_
        self.detail = detail  # said instead of "no {kind} with id …" (it names no id of the reader's)


def _check_id(kind: str, id_: str) -> None:
    """Raise NotFound for an id too long to be one."""
    if len(id_) > MAX_ID_LENGTH:
        raise NotFound(kind, id_)


class EntryMoved(LookupError):
    """The entry's id no longer exists: another entry took its place (answered with 301 to it)."""

    def __init__(self, gone: Gone) -> None:
        super().__init__(f"entry {gone.id!r} is now {gone.moved_to!r}")
        self.gone = gone
        self.moved_to = str(gone.moved_to)


class EntryRemoved(LookupError):
    """The entry was removed (answered with 410, its last question and the closest current entries)."""

    def __init__(self, gone: Gone, closest: list[EntryRef]) -> None:
        super().__init__(f"entry {gone.id!r} was removed from the FAQ; its question was: {gone.question}")
        self.gone = gone
        self.closest = closest


def entry_url(entry_id: str) -> str:
    """The page of an entry."""
    return f"/entries/{entry_id}"


def document_url(document_id: str) -> str:
    """The page of a document."""
    return f"/documents/{document_id}"


def document_name(path: str, title: str) -> str:
    """The words of a document's file name (folders, then the name without its extension or language marker)
    that its title does not already say: `deepspeed-chat-faq.zh.md`, "FAQ" → "deepspeed chat"."""
    stem = re.sub(r"(?:[._-](?:zh|cn|zh[-_]cn|en|us|en[-_]us))?\.(?:md|markdown|txt)$", "", path, flags=re.I)
    said = {word.lower() for word in re.findall(r"\w+", title)}
    words = [word for word in re.split(r"[\s/._-]+", stem) if word and word.lower() not in said]
    return " ".join(words) or path


def _entry_ref(entry: Entry) -> EntryRef:
    return EntryRef(id=entry.id, lang=entry.lang, title=entry.title, url=entry_url(entry.id))


def all_entries(settings: Settings) -> list[Entry]:
    """Every entry of the current generation (for offline tools: eval, bench)."""
    store = DataStore(settings)
    try:
        with store.session() as session:
            return list(session.exec(select(Entry)))
    finally:
        store.close()


CHANGED_BATCH = 200  # entries looked up at a time, newest change first, for the feeds


@dataclass(frozen=True)
class ChangedEntry:
    """An entry as a feed of changes shows it."""

    id: str
    lang: str
    title: str
    url: str
    document_title: str
    body_text: str
    body_html: str
    first_seen: str  # UTC, ISO 8601
    changed: str


@dataclass
class Reader:
    """Reads one generation: a database session and the searcher of the same snapshot."""

    snapshot: Snapshot
    session: Session
    cache_size: int = 512
    query_log: QueryLog | None = None  # where searches are counted for the editors' statistics
    lineage: Lineage | None = None  # where ids that no longer exist went, and what entries were

    # ------------------------------------------------------------ documents

    def list_documents(self) -> list[DocumentBrief]:
        """Every document, by language then title."""
        def read() -> list[DocumentBrief]:
            # Only the columns listed: a document's text can be megabytes.
            columns = (Document.id, Document.title, Document.lang, Document.path, Document.entry_count,
                       Document.changed)
            rows = self.session.execute(
                select_columns(*(col(c) for c in columns)).order_by(Document.lang, Document.title, Document.path))
            return [DocumentBrief(id=id_, title=title, lang=lang, path=path, entry_count=count, changed=changed)
                    for id_, title, lang, path, count, changed in rows]

        return self.snapshot.kept("documents", None, 1, read)

    def get_document(self, document_id: str) -> DocumentDetail:
        """One document with its entries in order and the documents that translate it."""
        _check_id("document", document_id)
        return self.snapshot.kept("document", document_id, DOCUMENTS_KEPT, lambda: self._read_document(document_id),
                                  lambda document: len(document.markdown) + len(document.html) <= DOCUMENT_KEPT_CHARS)

    def _read_document(self, document_id: str) -> DocumentDetail:
        doc = self.session.get(Document, document_id)
        if doc is None:
            raise NotFound("document", document_id)
        # Only the columns a link needs, trusted as stored: a long document's entries, read whole and validated,
        # cost more than its page.
        entries = self.session.exec(
            select(Entry.id, Entry.lang, Entry.title).where(Entry.document_id == doc.id).order_by(col(Entry.position))
        ).all()
        return DocumentDetail(
            id=doc.id, title=doc.title, lang=doc.lang, path=doc.path, entry_count=doc.entry_count,
            changed=doc.changed, url=document_url(doc.id),
            entries=[EntryRef.model_construct(id=id_, lang=lang, title=title, url=entry_url(id_))
                     for id_, lang, title in entries],
            markdown=doc.markdown, html=doc.html, translations=self._document_translations(doc.id),
        )

    def _document_translations(self, document_id: str) -> list[DocumentRef]:
        linked = self.session.exec(
            select(Document.id, Document.title, Document.lang)
            .join(DocumentLink, col(DocumentLink.target_id) == col(Document.id))
            .where(DocumentLink.source_id == document_id).order_by(Document.lang)
        ).all()
        return [DocumentRef(id=id_, title=title, lang=lang) for id_, title, lang in linked]

    # ------------------------------------------------------------ entries

    def get_entry(self, entry_id: str) -> EntryDetail:
        """One entry with its document, breadcrumb, translations and related entries."""
        _check_id("entry", entry_id)
        return self.snapshot.kept("entry", entry_id, ENTRIES_KEPT, lambda: self._read_entry(entry_id))

    def get_current_entry(self, entry_id: str) -> EntryDetail:
        """One entry, or — for an id that no longer exists — EntryMoved or EntryRemoved saying where it went."""
        try:
            return self.get_entry(entry_id)
        except NotFound:
            gone = self.lineage.find(entry_id, self._entry_exists) if self.lineage is not None else None
            if gone is None:
                raise
        if gone.moved_to is not None:
            raise EntryMoved(gone)
        # A question full of identifiers no current entry holds finds nothing by its words: then by meaning.
        closest = self._search(gone.question, None, CLOSEST_TO_REMOVED, 0, None, gone.lang or None, False,
                               "hybrid").results or self.closest(gone.question, None, gone.lang or None,
                                                                 CLOSEST_TO_REMOVED)
        raise EntryRemoved(gone, [EntryRef(id=hit.id, lang=hit.lang, title=hit.title, url=hit.url)
                                  for hit in closest])

    def _entry_exists(self, entry_id: str) -> bool:
        return self.session.execute(select_columns(col(Entry.id)).where(col(Entry.id) == entry_id)).first() is not None

    def _read_entry(self, entry_id: str) -> EntryDetail:
        entry = self.session.get(Entry, entry_id)
        if entry is None:
            raise NotFound("entry", entry_id)
        doc_id, doc_title, doc_path, doc_lang, doc_changed = self.session.execute(
            select_columns(col(Document.id), col(Document.title), col(Document.path), col(Document.lang),
                           col(Document.changed)).where(col(Document.id) == entry.document_id)
        ).one()  # a foreign key: it exists
        return EntryDetail(
            id=entry.id, title=entry.title, lang=entry.lang, url=entry_url(entry.id),
            question=entry.question,
            document=EntryDocument(id=doc_id, title=doc_title, path=doc_path, lang=doc_lang, changed=doc_changed,
                                   translations=self._document_translations(doc_id)),
            section=json.loads(entry.section), line=entry.line,
            body_markdown=entry.body_markdown, body_html=entry.body_html,
            repaired_characters=entry.repaired_characters, uncertain_repairs=entry.uncertain_repairs,
            translations=self._translations().get(entry.id, []),
            related=self._related(entry.id),
            history=self._history(entry.id),
            outdated=self._outdated(entry.id),
        )

    def _history(self, entry_id: str) -> EntryHistory | None:
        history = self.lineage.history(entry_id) if self.lineage is not None else None
        if history is None:
            return None
        return EntryHistory(first_seen=history.first_seen, changed=history.changed,
                            earlier_questions=history.earlier_questions)

    def _outdated(self, entry_id: str) -> EntryOutdated | None:
        """The newest translation that changed after this entry did, if any."""
        found = find_outdated(self.session, self.lineage, [entry_id], self._review_marks())
        if not found:
            return None
        newest = max(found, key=lambda item: item.partner_changed)
        return EntryOutdated(since=newest.since, partner_changed=newest.partner_changed,
                             partner=EntryRef(id=newest.partner_id, lang=newest.partner_lang,
                                              title=newest.partner_question, url=newest.partner_url))

    def _review_marks(self) -> ReviewMarks:
        return self.snapshot.kept("review_marks", None, 1, lambda: review_marks(self.session))

    def outdated_translations(self) -> list[OutdatedTranslation]:
        """Every possibly outdated translation of this generation, in document order (the editors' list)."""
        return find_outdated(self.session, self.lineage, None, self._review_marks())

    def changed_entries(self, lang: str | None, limit: int) -> list[ChangedEntry]:
        """The `limit` entries (of `lang`, or every language) whose question or answer changed last, newest
        first, from the entries' histories (a new entry counts as changed when it appeared)."""
        order = self.snapshot.kept("change_order", None, 1, self._change_order)
        found: list[ChangedEntry] = []
        for start in range(0, len(order), CHANGED_BATCH):
            batch = order[start:start + CHANGED_BATCH]
            statement = (select_columns(col(Entry.id), col(Entry.lang), col(Entry.title), col(Entry.body_text),
                                        col(Entry.body_html), col(Document.title))
                         .join(Document, col(Document.id) == col(Entry.document_id))
                         .where(col(Entry.id).in_([entry_id for entry_id, _, _ in batch])))
            if lang is not None:
                statement = statement.where(col(Entry.lang) == lang)
            rows = {row[0]: row for row in self.session.execute(statement)}
            for entry_id, first_seen, changed in batch:
                if entry_id in rows:
                    _, entry_lang, title, text, html, document_title = rows[entry_id]
                    found.append(ChangedEntry(id=entry_id, lang=entry_lang, title=title, url=entry_url(entry_id),
                                              document_title=document_title, body_text=text, body_html=html,
                                              first_seen=first_seen, changed=changed))
                    if len(found) >= limit:
                        return found
        return found

    def _change_order(self) -> list[tuple[str, str, str]]:
        """(id, first seen, last changed) of every entry the history knows, the latest change first."""
        histories = self.lineage.histories() if self.lineage is not None else {}
        return sorted(((entry_id, history.first_seen, history.changed) for entry_id, history in histories.items()),
                      key=lambda item: (item[2], item[0]), reverse=True)

    def entry_html(self, entry_id: str) -> tuple[str, str]:
        """The pre-rendered question and answer HTML of an entry (for pages)."""
        _check_id("entry", entry_id)

        def read() -> tuple[str, str]:
            row = self.session.exec(select(Entry.title_html, Entry.body_html).where(Entry.id == entry_id)).first()
            if row is None:
                raise NotFound("entry", entry_id)
            return row[0], row[1]

        return self.snapshot.kept("entry_html", entry_id, ENTRIES_KEPT, read)

    def highlighted(self, entry_id: str, words: str) -> tuple[str, str]:
        """The entry's title (escaped) and answer HTML with the words of the search that led to it marked."""
        _, body_html = self.entry_html(entry_id)
        terms = query_terms(words[:MAX_HIGHLIGHT])
        return mark_terms(self.get_entry(entry_id).title, terms), mark_html(body_html, terms)

    def _related(self, entry_id: str) -> list[EntryRef]:
        """Other entries on the same problem, best first: those sharing its anchors (found at ingest) fused with
        those closest in meaning (once the generation's vectors are loaded), each translated entry shown once,
        in this entry's language."""
        rows = self.session.exec(
            select(Entry).join(EntryLink, col(Entry.id) == col(EntryLink.target_id))
            .where(EntryLink.source_id == entry_id, EntryLink.kind == "related")
            .order_by(col(EntryLink.rank), col(EntryLink.score).desc())
        ).all()
        by_anchors = [_entry_ref(target) for target in rows]
        by_meaning_ids = self.snapshot.search.neighbours(entry_id, RELATED_BY_MEANING)
        if not by_meaning_ids:
            return by_anchors
        translations = self._translations()
        own = {entry_id, *(ref.id for ref in translations.get(entry_id, []))}
        lang = self.session.exec(select(Entry.lang).where(Entry.id == entry_id)).one()
        found = {e.id: _entry_ref(e) for e in self.session.exec(select(Entry).where(col(Entry.id).in_(by_meaning_ids)))}
        by_meaning = []
        for neighbour in by_meaning_ids:
            ref = found.get(neighbour)
            if ref is not None and ref.lang != lang:  # shown in this entry's language where a translation says it
                ref = next((twin for twin in translations.get(neighbour, []) if twin.lang == lang), ref)
            if ref is not None:
                by_meaning.append(ref)
        scores: dict[str, float] = {}  # by translation group: an entry and its twins count once
        shown: dict[str, EntryRef] = {}
        group_of: dict[str, str] = {}
        for ranking in (by_anchors, by_meaning):
            counted: set[str] = set()
            for rank, ref in enumerate(ref for ref in ranking if ref.id not in own):
                members = [ref.id, *(twin.id for twin in translations.get(ref.id, []))]
                group = next((group_of[m] for m in members if m in group_of), ref.id)
                group_of.update(dict.fromkeys(members, group))
                if group not in counted:
                    counted.add(group)
                    shown.setdefault(group, ref)
                    scores[group] = scores.get(group, 0.0) + 1 / (RELATED_FUSION_K + rank)
        ordered = sorted(scores, key=lambda group: -scores[group])
        return [shown[group] for group in ordered[:MAX_RELATED]]

    # ------------------------------------------------------------ search

    def search(self, query: str, lang: str | None, limit: int, offset: int,
               document: str | None = None, prefer: str | None = None, raw: bool = False,
               mode: Mode = "hybrid", correct: bool = True) -> SearchPage:
        """A page of search results with snippets and translations (cached per generation).

        An entry and its translation are one result: the one in the `prefer`red language
        (else the better ranked), with the other listed under `translations`. A pasted traceback or log
        is searched by its error lines and last frames (see `read_paste`), and the page names its error.
        """
        paste = read_paste(query) if is_paste(query) and not raw else None
        searched = paste.searched if paste is not None else query
        page = self._search(searched, lang, limit, offset, document, prefer, raw, mode, correct)
        if paste is not None:
            page = page.model_copy(update={"error": paste.error})
        if page.partial and not page.total:
            return page  # out of time before anything was scored: not a search that found nothing
        observe_search(page.total)
        if self.query_log is not None and offset == 0:  # a reader paging on is still one search
            # A paste is counted by its error without paths or numbers: the rest is the reader's machine.
            logged = normalise_error(paste.error) if paste is not None and paste.error else searched
            self.query_log.record(logged, page.total)
        return page

    def closest(self, query: str, lang: str | None, prefer: str | None, count: int) -> list[SearchHit]:
        """The entries closest in meaning to `query` (none until the generation's vectors are loaded), for a
        search that found nothing by its words: not counted as a search."""
        if self.snapshot.search.semantics is None:
            return []
        return self._search(query, lang, count, 0, None, prefer, False, "semantic").results

    def nearest(self, text: str, lang: str | None, count: int) -> tuple[list[SearchHit], str]:
        """The entries nearest to `text`, for editors, and how they were found: closest in meaning as the no-results
        page offers them ("meaning") once the vectors are loaded, else the search run on the text as for a removed
        entry's page ("words"). Not counted as a search."""
        if self.snapshot.search.semantics is not None:
            return self.closest(text, lang, None, count), "meaning"
        return self._search(text, lang, count, 0, None, None, False, "hybrid").results, "words"

    def popular_entries(self, prefer: str, count: int) -> list[SearchHit]:
        """The entries that answer what readers search for most: the best result of each frequent query that found
        something (a query counts once several searches made it; see `QueryLog.popular`)."""
        queries = tuple(self.query_log.popular()[:POPULAR_QUERIES]) if self.query_log is not None else ()

        def read() -> list[SearchHit]:
            found: dict[str, SearchHit] = {}
            for query in queries:
                for hit in self._search(query, None, 1, 0, None, prefer, False, "lexical").results:
                    found.setdefault(hit.id, hit)
            return list(found.values())

        return self.snapshot.kept("popular", (queries, prefer), 2, read)[:count]

    def _search(self, query: str, lang: str | None, limit: int, offset: int,
                document: str | None, prefer: str | None, raw: bool, mode: Mode, correct: bool = True) -> SearchPage:
        key = (normalise_text(" ".join(query.split())), lang, limit, offset, document, prefer, raw, mode, correct)
        provisional: list[bool] = []
        page = self.snapshot.kept("search", key, self.cache_size,
                                  lambda: self._search_page(query, lang, limit, offset, document, prefer, raw, mode,
                                                            correct, provisional),
                                  # a cut-short search may finish next time, and one whose vector came too late
                                  # may rank by meaning
                                  lambda page: not page.partial and not provisional)
        return page.model_copy(update={"query": query})

    def _search_page(self, query: str, lang: str | None, limit: int, offset: int,
                     document: str | None, prefer: str | None, raw: bool, mode: Mode, correct: bool,
                     provisional: list[bool]) -> SearchPage:
        depth = offset + limit if lang else max(offset + limit, GROUP_WINDOW)
        outcome = self.snapshot.search.search(query, lang, depth, document, raw, mode, correct)
        if outcome.provisional:
            provisional.append(True)
        grouped, total = outcome.matches, outcome.total
        if not lang:
            reader_language = prefer or ("zh" if HAN.search(query) else "en")
            grouped, merged = self._group_translations(outcome.matches, reader_language, within_document=document)
            total -= merged
        page_matches = grouped[offset:offset + limit]
        ids = [m.id for m in page_matches]
        rows = self.session.execute(HITS, {"ids": ids}).all() if ids else []
        entries = {row.id: row for row in rows}
        labels = self.document_labels()
        translations = self._translations()
        results: list[SearchHit] = []
        for match in page_matches:
            entry = entries.get(match.id)
            if entry is None:
                continue
            results.append(SearchHit(
                id=entry.id, title=entry.title, title_html=mark_terms(entry.title, outcome.terms),
                lang=entry.lang, url=entry_url(entry.id),
                document=SearchDocument(id=entry.document_id, title=labels[entry.document_id][0],
                                        label=labels[entry.document_id][1]),
                section=json.loads(entry.section),
                snippet=make_snippet(entry.body_text or entry.title, outcome.terms),
                score=round(match.score, 4), translations=translations.get(entry.id, []),
            ))
        return SearchPage(query=query, total=total, limit=limit, offset=offset,
                          suggestion=outcome.suggestion, results=results, partial=outcome.partial,
                          ranking=outcome.ranking, corrected=outcome.corrected, unmatched=list(outcome.unmatched))

    def _group_translations(self, matches: list[Match], prefer: str,
                            within_document: str | None = None) -> tuple[list[Match], int]:
        """Matches with each translation pair folded into one, in the `prefer`red language where the entry has
        a translation in it (found or not), and how many matches were folded away.

        A Chinese reader whose query found an English entry gets its Chinese twin. Within one document
        only the twins found stand in (the other language's twin lives in another document).
        """
        if not matches:
            return matches, 0
        languages = {m.id: m.lang for m in matches}
        translations = self._translations()
        seen: set[str] = set()
        grouped: list[Match] = []
        for match in matches:
            if match.id in seen:
                continue
            twins = [ref for ref in translations.get(match.id, []) if not within_document or ref.id in languages]
            seen.update([match.id, *(ref.id for ref in twins)])
            chosen = match if match.lang == prefer else next(
                (Match(ref.id, match.score, ref.lang) for ref in twins if ref.lang == prefer), match)
            grouped.append(Match(chosen.id, match.score, chosen.lang))
        return grouped, len(matches) - len(grouped)

    def _translations(self) -> dict[str, list[EntryRef]]:
        """Each translated entry's translations (read once per generation: every search folds and lists them)."""
        def read() -> dict[str, list[EntryRef]]:
            translations: dict[str, list[EntryRef]] = {}
            rows = self.session.execute(
                select_columns(col(EntryLink.source_id), col(Entry.id), col(Entry.lang), col(Entry.title))
                .join(Entry, col(Entry.id) == col(EntryLink.target_id)).where(col(EntryLink.kind) == "translation")
                .order_by(col(EntryLink.source_id), col(EntryLink.rank), col(EntryLink.score).desc()))
            for source, id_, lang, title in rows:
                translations.setdefault(source, []).append(EntryRef(id=id_, lang=lang, title=title,
                                                                    url=entry_url(id_)))
            return translations

        return self.snapshot.kept("translations", None, 1, read)

    def document_labels(self) -> dict[str, tuple[str, str]]:
        """Each document's title and how to tell it apart: the title, plus its path where titles repeat.

        Three documents called "FAQ" must not give three breadcrumbs that all say "FAQ": each gets the words of
        its file name that its title lacks ("FAQ (deepspeed chat)"), or its path when those repeat too.
        """
        def read() -> dict[str, tuple[str, str]]:
            rows = self.session.exec(select(Document.id, Document.title, Document.path)).all()
            seen = Counter(title for _, title, _ in rows)
            named = Counter((title, document_name(path, title)) for _, title, path in rows)
            return {id_: (title, title if seen[title] == 1 else f"{title} ({document_name(path, title)})"
                          if named[(title, document_name(path, title))] == 1 else f"{title} ({path})")
                    for id_, title, path in rows}

        return self.snapshot.kept("document_labels", None, 1, read)

    # ------------------------------------------------------------ browser integration

    def entry_titles(self) -> list[tuple[str, str, str, str]]:
        """Every entry as (id, lang, title, its document's title), for search-box completions."""
        rows = self.session.execute(
            select_columns(col(Entry.id), col(Entry.lang), col(Entry.title), col(Document.title))
            .join(Document, col(Document.id) == col(Entry.document_id)).order_by(col(Entry.id)))
        return [(id_, lang, title, document) for id_, lang, title, document in rows]

    def site_pages(self) -> list[tuple[str, str, list[tuple[str, str]]]]:
        """Every document and entry page as (url, lang, its translations as (lang, url)), for the sitemap."""
        documents = self.session.execute(
            select_columns(col(Document.id), col(Document.lang)).order_by(col(Document.path))).all()
        document_links = self.session.execute(select_columns(col(DocumentLink.source_id),
                                                             col(DocumentLink.target_id))).all()
        entries = self.session.execute(select_columns(col(Entry.id), col(Entry.lang)).join(
            Document, col(Document.id) == col(Entry.document_id)).order_by(col(Document.path), col(Entry.position))
        ).all()
        entry_links = self.session.execute(select_columns(col(EntryLink.source_id), col(EntryLink.target_id))
                                           .where(col(EntryLink.kind) == "translation")).all()
        pages: list[tuple[str, str, list[tuple[str, str]]]] = []
        for rows, links, url in ((documents, document_links, document_url), (entries, entry_links, entry_url)):
            lang_of = {id_: lang for id_, lang in rows}
            translations: dict[str, list[str]] = {}
            for source, target in links:
                translations.setdefault(source, []).append(target)
            for id_, lang in rows:
                others = sorted(translations.get(id_, []))
                pages.append((url(id_), lang, [(lang_of[o], url(o)) for o in others if o in lang_of]))
        return pages

    # ------------------------------------------------------------ counts

    def health(self) -> Health:
        """Counts for /healthz (counted once per generation)."""
        cached: Health | None = self.snapshot.cache.get("health")
        if cached is None:
            documents = self.session.exec(select(func.count()).select_from(Document)).one()
            entries = self.session.exec(select(func.count()).select_from(Entry)).one()
            cached = self.snapshot.cache["health"] = Health(status="ok", documents=documents, entries=entries)
        return cached

    def entry_counts(self) -> dict[str, int]:
        """Entries per language."""
        return self.snapshot.kept("entry_counts", None, 1, lambda: dict(
            self.session.exec(select(Entry.lang, func.count()).group_by(Entry.lang)).all()))
