"""Database tables (the source of truth) and the public shapes the API returns."""

from __future__ import annotations

import os

from sqlmodel import Field, SQLModel, col

# ---------------------------------------------------------------- tables


class Document(SQLModel, table=True):
    """One markdown file from the content folder."""

    id: str = Field(primary_key=True, max_length=160)
    path: str = Field(index=True, unique=True)
    title: str
    lang: str = Field(max_length=8)
    markdown: str  # the whole text after decoding (and, later, repair)
    html: str  # the whole document rendered
    encoding: str = Field(max_length=64)
    entry_count: int = 0
    repaired_characters: int = 0  # characters restored from mojibake
    uncertain_repairs: int = 0
    changed: str = Field(default="", max_length=10)  # YYYY-MM-DD: its last commit (git), else its file's mtime


class Entry(SQLModel, table=True):
    """One question and its answer."""

    id: str = Field(primary_key=True, max_length=80)
    document_id: str = Field(foreign_key="document.id", index=True, max_length=160)
    position: int  # order within the document
    lang: str = Field(max_length=8, index=True)
    question: str  # source text of the question line, block marker removed
    title: str  # plain text shown to readers
    title_html: str
    section: str  # breadcrumb as a JSON list of heading texts
    body_markdown: str
    body_html: str
    body_text: str  # plain text of the answer, for snippets
    line: int
    kind: str = Field(max_length=16)
    repaired_characters: int = 0
    uncertain_repairs: int = 0


# The order of a generation's entries in its search index, and so in its vector file.
INDEX_ORDER = (col(Entry.document_id), col(Entry.position))


class EntryLink(SQLModel, table=True):
    """A directed link between two entries: a translation, or a related entry (ranked)."""

    source_id: str = Field(foreign_key="entry.id", primary_key=True, max_length=80)
    target_id: str = Field(foreign_key="entry.id", primary_key=True, max_length=80)
    kind: str = Field(primary_key=True, max_length=16)  # "translation" | "related"
    score: float = 0.0
    rank: int = 0


class DocumentLink(SQLModel, table=True):
    """Two documents that translate each other (stored in both directions)."""

    source_id: str = Field(foreign_key="document.id", primary_key=True, max_length=160)
    target_id: str = Field(foreign_key="document.id", primary_key=True, max_length=160)
    method: str = Field(max_length=32)  # how the pairing was found
    score: float = 0.0


class IngestNote(SQLModel, table=True):
    """A warning or repair recorded by the ingest, shown by `faq check`."""

    id: int | None = Field(default=None, primary_key=True)
    path: str
    line: int = 0
    kind: str = Field(max_length=32)
    message: str


class Meta(SQLModel, table=True):
    """Key/value facts about this database: generation, ingest time, counts."""

    key: str = Field(primary_key=True, max_length=64)
    value: str


# ---------------------------------------------------------------- public shapes


class EntryRef(SQLModel):
    """A link to an entry, as listed under translations, related and document entries."""

    id: str
    lang: str
    title: str
    url: str


class DocumentRef(SQLModel):
    """A link to a document."""

    id: str
    title: str
    lang: str


class DocumentBrief(DocumentRef):
    """A document in a listing."""

    path: str
    entry_count: int
    changed: str = ""  # YYYY-MM-DD: the last commit of its file when the content folder is a git work tree, else
    # the file's modification time


class DocumentDetail(DocumentBrief):
    """A whole document with its entries in order."""

    url: str
    entries: list[EntryRef]
    markdown: str
    html: str
    translations: list[DocumentRef]


class EntryDocument(SQLModel):
    """The document an entry belongs to, with the documents that translate it."""

    id: str
    title: str
    path: str
    lang: str
    translations: list[DocumentRef] = []
    changed: str = ""  # YYYY-MM-DD: when the document (and so the entry) last changed


class EntryHistory(SQLModel):
    """When an entry first appeared and when its question or answer last changed (UTC, ISO 8601, from the ingests),
    and its earlier questions, oldest first."""

    first_seen: str
    changed: str
    earlier_questions: list[str]


class EntryOutdated(SQLModel):
    """The entry's translation changed after it did: this version may be out of date (app/outdated.py).

    `partner` is the newer version, `partner_changed` its last change and `since` its first change after
    this entry's last one (UTC, ISO 8601, from the ingests)."""

    since: str
    partner_changed: str
    partner: EntryRef


class EntryDetail(SQLModel):
    """One entry with its answer and cross-links."""

    id: str
    title: str
    lang: str
    url: str
    question: str
    document: EntryDocument
    section: list[str]
    line: int
    body_markdown: str
    body_html: str
    repaired_characters: int  # characters restored from a damaged encoding (0: none)
    uncertain_repairs: int
    translations: list[EntryRef]
    related: list[EntryRef]
    history: EntryHistory | None = None  # None before an ingest recorded it
    outdated: EntryOutdated | None = None  # None unless a translation of it changed after it did


class SearchDocument(SQLModel):
    """The document a search hit belongs to."""

    id: str
    title: str
    label: str = ""  # the title, with the path added where several documents share that title


class SearchHit(SQLModel):
    """One search result."""

    id: str
    title: str
    title_html: str = ""  # the title HTML-escaped, the query's words in <mark>
    lang: str
    url: str
    document: SearchDocument
    section: list[str]
    snippet: str  # HTML-escaped text; only <mark> is markup
    score: float
    translations: list[EntryRef]


class SearchPage(SQLModel):
    """A page of search results."""

    query: str
    total: int
    limit: int
    offset: int
    suggestion: str | None
    results: list[SearchHit]
    partial: bool = Field(default=False, description=(
        "true when the search ran out of its time budget: these are the best entries found until then"))
    ranking: str = Field(default="lexical", description=(
        "how the results were ranked: hybrid (words and meaning), lexical (words only: asked for, or the "
        "vectors are not made yet) or semantic (meaning only)"))
    corrected: bool = Field(default=False, description=(
        "true when the results are those of `suggestion`, searched instead of the query as typed (which found "
        "fewer); search again with correct=false for the query as typed"))
    unmatched: list[str] = Field(default=[], description=(
        "words of the query that no entry holds in any form (\"no entry mentions kubernetes\")"))
    error: str | None = Field(default=None, description=(
        "for a pasted traceback or log (several lines, or over 4,000 characters): the error line it was read "
        "as, without its path; `query` is then the part searched (its error lines and last frames)"))


class Problem(SQLModel):
    """Every error response of the API (RFC 9457 problem details), sent as application/problem+json."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    instance: str


class Readiness(SQLModel):
    """What /readyz reports: whether the data can be served, and which generation is."""

    status: str  # "ok", or "degraded" when a damaged generation was replaced by an older good one
    generation: str
    semantic: str = ""  # how search by meaning stands: ready, being made (how far), off or unavailable (why)
    note: str | None = None
    worker: int = Field(default_factory=os.getpid)  # the answering process: with --workers N, which one is ready


class Health(SQLModel):
    """What /healthz reports."""

    status: str
    documents: int
    entries: int
