"""The editors' report: what to translate, what readers missed, what the ingest was unsure of.

One data structure — a `Report` of `Section`s of `Finding`s — is built here from the current
generation and the search statistics; `faq report` renders it as markdown (`to_markdown`) or HTML, and
`/admin` renders the same structure as a page. A section is one builder in `BUILDERS`, in the order
shown; adding one is a function `(Sources) -> Section` appended
there, plus its title and description under `report_sections` in app/web/strings.py (both languages).
`faq report --fail-on NAME` then knows it too.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

# Only the standard library at import: `faq` names the sections in its help without loading the database layer.
if TYPE_CHECKING:
    from sqlmodel import Session

    from app.config import Settings
    from app.queries import Reader

LANGUAGES = ("en", "zh")
FEEDBACK_LOOKED_AT = 1000  # entries with votes examined for a low share of "helpful"
CLOSEST = 3  # entries shown beside a search that found nothing
COMMENTS_SHOWN = 5  # of an unhelpful entry's comments, the newest
# What the renderer writes for a link the portal cannot follow (app/ingest/render.py); its title names the target.
BROKEN_LINK = re.compile(r'<span class="broken-link" title="Link target not available in this portal: ([^"]*)">')
BROKEN_MARK = '%class="broken-link"%'
NOTE_LINE = re.compile(r"line (\d+):")


@dataclass(frozen=True)
class ReportEntry:
    """An entry a finding is about, or one offered as the closest to a search."""

    id: str
    title: str
    lang: str
    line: int = 0

    @property
    def url(self) -> str:
        """The reader's page."""
        return f"/entries/{self.id}"

    @property
    def admin_url(self) -> str:
        """The editors' page (file, line, repairs, votes)."""
        return f"/admin/entries/{self.id}"


@dataclass(frozen=True)
class ReportDocument:
    """A document findings are grouped under."""

    id: str
    path: str
    title: str
    lang: str
    translated: bool  # whether another document translates it

    @property
    def url(self) -> str:
        """The reader's page."""
        return f"/documents/{self.id}"


@dataclass(frozen=True)
class Finding:
    """One thing for an editor to look at."""

    lang: str  # the language it is in ("" when unknown: a file that is not a document, an entry long gone)
    document: ReportDocument | None = None  # None: about no one document (a search, links.tsv)
    entry: ReportEntry | None = None
    text: str = ""  # what is wrong, plain text: the search, the link's target, the ingest's note
    line: int = 0  # the source line, when known
    count: int = 0  # searches that found nothing; votes saying "not helpful"
    helpful: int = 0  # votes saying "helpful"
    details: tuple[str, ...] = ()  # readers' comments, plain text
    closest: tuple[ReportEntry, ...] = ()  # the entries nearest to a search that found nothing


@dataclass(frozen=True)
class Group:
    """A section's findings of one document (or, for findings of no document, of one language)."""

    document: ReportDocument | None
    lang: str
    findings: tuple[Finding, ...]


@dataclass
class Section:
    """One kind of finding, e.g. `untranslated`."""

    name: str
    findings: list[Finding]
    note: str = ""  # how it was made, when that matters: a key of `report_notes` in app/web/strings.py

    def counts(self) -> dict[str, int]:
        """Findings per language (en, zh) and in all (`total`)."""
        counts = {lang: 0 for lang in LANGUAGES}
        for finding in self.findings:
            if finding.lang in counts:
                counts[finding.lang] += 1
        return {**counts, "total": len(self.findings)}

    def groups(self) -> list[Group]:
        """The findings by document (in path order), then those of no document by language."""
        by_key: dict[tuple[str, str], list[Finding]] = {}
        documents: dict[str, ReportDocument] = {}
        for finding in self.findings:
            path = finding.document.path if finding.document is not None else ""
            if finding.document is not None:
                documents[path] = finding.document
            by_key.setdefault((path, "" if path else finding.lang), []).append(finding)
        ordered = sorted(by_key, key=lambda key: (key[0] == "", key))
        return [Group(documents.get(path), documents[path].lang if path else lang, tuple(by_key[(path, lang)]))
                for path, lang in ordered]


@dataclass
class Report:
    """Everything `faq report` and `/admin` show."""

    generation: str
    days: int  # the statistics' period
    entries: dict[str, int]  # entries per language
    sections: list[Section] = field(default_factory=list)

    def section(self, name: str) -> Section:
        """The section called `name`."""
        return next(section for section in self.sections if section.name == name)

    def failing(self, names: list[str]) -> list[Section]:
        """Those of the named sections that have findings."""
        return [section for section in self.sections if section.name in names and section.findings]


@dataclass
class Sources:
    """What the builders read: the current generation (through a reader) and the statistics."""

    reader: Reader
    settings: Settings
    days: int
    limit: int  # searches that found nothing, at most, most frequent first
    _documents: dict[str, ReportDocument] | None = None
    _by_id: dict[str, ReportDocument] | None = None

    @property
    def session(self) -> Session:
        """The generation's database session."""
        return self.reader.session

    def documents(self) -> dict[str, ReportDocument]:
        """Every document by path (read once)."""
        if self._documents is None:
            from sqlalchemy import select as select_columns
            from sqlmodel import col, select

            from app.models import Document, DocumentLink

            translated = set(self.session.exec(select(DocumentLink.source_id)).all())
            rows = self.session.execute(select_columns(col(Document.id), col(Document.path), col(Document.title),
                                                       col(Document.lang))).all()
            self._documents = {path: ReportDocument(id_, path, title, lang, id_ in translated)
                               for id_, path, title, lang in rows}
        return self._documents

    def document_of(self, document_id: str) -> ReportDocument | None:
        """The document with this id."""
        if self._by_id is None:
            self._by_id = {doc.id: doc for doc in self.documents().values()}
        return self._by_id.get(document_id)

    def entries(self, ids: list[str]) -> dict[str, tuple[ReportEntry, str]]:
        """The entries with these ids that exist, with their document's id."""
        from sqlalchemy import select as select_columns
        from sqlmodel import col

        from app.models import Entry

        found: dict[str, tuple[ReportEntry, str]] = {}
        for start in range(0, len(ids), 500):
            rows = self.session.execute(select_columns(
                col(Entry.id), col(Entry.title), col(Entry.lang), col(Entry.line), col(Entry.document_id))
                .where(col(Entry.id).in_(ids[start:start + 500]))).all()
            found.update({id_: (ReportEntry(id_, title, lang, line), doc) for id_, title, lang, line, doc in rows})
        return found

    def entry_at(self, document: ReportDocument, line: int) -> ReportEntry | None:
        """The entry of `document` whose text holds source line `line` (the last one starting at or before it)."""
        from sqlalchemy import select as select_columns
        from sqlmodel import col

        from app.models import Entry

        row = self.session.execute(select_columns(col(Entry.id), col(Entry.title), col(Entry.lang), col(Entry.line))
                                   .where(col(Entry.document_id) == document.id, col(Entry.line) <= line)
                                   .order_by(col(Entry.line).desc()).limit(1)).first()
        return ReportEntry(row[0], row[1], row[2], row[3]) if row is not None else None


def _untranslated(sources: Sources) -> Section:
    """Entries with no translation pair (a document with no translation at all: every entry)."""
    from sqlalchemy import exists
    from sqlalchemy import select as select_columns
    from sqlmodel import col

    from app.models import Entry, EntryLink

    def build() -> list[Finding]:
        translated = exists().where(col(EntryLink.source_id) == col(Entry.id), col(EntryLink.kind) == "translation")
        rows = sources.session.execute(
            select_columns(col(Entry.id), col(Entry.title), col(Entry.lang), col(Entry.line), col(Entry.document_id))
            .where(~translated).order_by(col(Entry.document_id), col(Entry.position))).all()
        return [Finding(lang=lang, document=sources.document_of(doc), entry=ReportEntry(id_, title, lang, line),
                        line=line) for id_, title, lang, line, doc in rows]

    return Section("untranslated", sources.reader.snapshot.kept("report", "untranslated", 1, build))


def _outdated(sources: Sources) -> Section:
    """Translations whose other side changed after them (app/outdated.py), with the day it last changed."""
    def build() -> list[Finding]:
        behind = sources.reader.outdated_translations()
        entries = sources.entries([item.entry_id for item in behind])
        findings = []
        for item in behind:
            entry, document_id = entries.get(item.entry_id, (ReportEntry(item.entry_id, item.question, item.lang),
                                                             item.document_id))
            findings.append(Finding(lang=item.lang, document=sources.document_of(document_id), entry=entry,
                                    line=entry.line, text=f"{item.partner_lang} {item.partner_changed[:10]}: "
                                                          f"{item.partner_question}"))
        return findings

    return Section("outdated", sources.reader.snapshot.kept("report", "outdated", 1, build))


def _unhelpful(sources: Sources) -> Section:
    """Entries at least as many readers found unhelpful as helpful (one "not helpful" at least), with comments."""
    from app.feedback import entry_feedback

    votes = [v for v in entry_feedback(sources.settings, sources.days, FEEDBACK_LOOKED_AT)
             if v.unhelpful > 0 and v.unhelpful >= v.helpful]
    known = sources.entries([v.entry_id for v in votes])
    lineage = sources.reader.lineage
    findings = []
    for vote in votes:
        entry_id, text = vote.entry_id, ""
        if entry_id not in known and lineage is not None:  # voted on under an id that has since gone
            gone = lineage.find(entry_id, lambda other: bool(sources.entries([other])))
            if gone is not None and gone.moved_to is not None:
                known.update(sources.entries([gone.moved_to]))
                entry_id, text = gone.moved_to, f"voted on as {vote.entry_id}"
            elif gone is not None:
                text = f"removed since ({vote.entry_id}): {gone.question}"
        comments = tuple(f"{day} {'+' if good else '-'} {comment}" for day, good, comment in
                         vote.comments[:COMMENTS_SHOWN])
        if entry_id in known:
            entry, document_id = known[entry_id]
            findings.append(Finding(lang=entry.lang, document=sources.document_of(document_id), entry=entry,
                                    text=text, line=entry.line, count=vote.unhelpful, helpful=vote.helpful,
                                    details=comments))
        else:
            findings.append(Finding(lang="", text=text or f"no longer in the FAQ: {vote.entry_id}",
                                    count=vote.unhelpful, helpful=vote.helpful, details=comments))
    return Section("unhelpful", findings, _statistics_note(sources.settings))


def _zero_results(sources: Sources) -> Section:
    """Searches that found nothing, most frequent first, each with the entries nearest to it now."""
    from app.ingest.language import HAN
    from app.querylog import top_queries

    rows = top_queries(sources.settings, sources.days, sources.limit, zero_only=True)
    findings = []
    how = ""
    for row in rows:
        nearest, how = sources.reader.nearest(row.query, None, CLOSEST)
        findings.append(Finding(lang="zh" if HAN.search(row.query) else "en", text=row.query, count=row.zero,
                                closest=tuple(ReportEntry(hit.id, hit.title, hit.lang) for hit in nearest)))
    note = _statistics_note(sources.settings)
    if rows and not note:
        note = "closest-by-meaning" if how == "meaning" else "closest-by-words"
    return Section("zero-results", findings, note)


def _statistics_note(settings: Settings) -> str:
    return "" if settings.query_log_days else "no-statistics"


def _notes(sources: Sources, kinds: tuple[str, ...]) -> list[Finding]:
    """The ingest's notes of these kinds, in file and line order, each under its document (and entry, by line)."""
    from sqlmodel import col, select

    from app.models import IngestNote

    rows = sources.session.exec(select(IngestNote).where(col(IngestNote.kind).in_(kinds))
                                .order_by(col(IngestNote.path), col(IngestNote.line), col(IngestNote.id))).all()
    findings = []
    for note in rows:
        document = sources.documents().get(note.path)
        said = NOTE_LINE.match(note.message)  # structure notes name their line in the message
        line = note.line or (int(said.group(1)) if said else 0)
        entry = sources.entry_at(document, line) if document is not None and line else None
        findings.append(Finding(lang=document.lang if document is not None else "", document=document, entry=entry,
                                text=f"{note.path}: {note.message}" if document is None else note.message,
                                line=line))
    return findings


def _repairs(sources: Sources) -> Section:
    """Characters restored from mojibake where another reading was almost as likely."""
    return Section("repairs", sources.reader.snapshot.kept(
        "report", "repairs", 1, lambda: _notes(sources, ("repair-uncertain",))))


def _structure(sources: Sources) -> Section:
    """How segmentation read a file where it was a close call, a hint was ignored or text was left out."""
    return Section("structure", sources.reader.snapshot.kept(
        "report", "structure", 1, lambda: _notes(sources, ("structure",))))


def _links(sources: Sources) -> Section:
    """Links in answers the portal cannot follow (a file that is not a document of the portal, a scheme it does not
    open; in-page anchors are left out: they name the source file's headings), and translation metadata naming
    what does not exist (`translation_of`, content/links.tsv)."""
    from sqlalchemy import or_
    from sqlalchemy import select as select_columns
    from sqlmodel import col

    from app.models import Entry

    def build() -> list[Finding]:
        findings = _notes(sources, ("link-problem",))
        rows = sources.session.execute(
            select_columns(col(Entry.id), col(Entry.title), col(Entry.lang), col(Entry.line), col(Entry.document_id),
                           col(Entry.title_html), col(Entry.body_html))
            .where(or_(col(Entry.body_html).like(BROKEN_MARK), col(Entry.title_html).like(BROKEN_MARK)))
            .order_by(col(Entry.document_id), col(Entry.position))).all()
        for id_, title, lang, line, doc, title_html, body_html in rows:
            entry = ReportEntry(id_, title, lang, line)
            targets = dict.fromkeys(html.unescape(target) for target in BROKEN_LINK.findall(title_html + body_html))
            findings += [Finding(lang=lang, document=sources.document_of(doc), entry=entry, text=target, line=line)
                         for target in targets if not target.startswith("#")]
        return findings

    return Section("links", sources.reader.snapshot.kept("report", "links", 1, build))


# The sections, in the order shown; `faq report --fail-on` takes their names.
BUILDERS: tuple[tuple[str, Callable[[Sources], Section]], ...] = (
    ("untranslated", _untranslated),
    ("outdated", _outdated),
    ("unhelpful", _unhelpful),
    ("zero-results", _zero_results),
    ("repairs", _repairs),
    ("structure", _structure),
    ("links", _links),
)
SECTION_NAMES = tuple(name for name, _ in BUILDERS)


def build_report(reader: Reader, settings: Settings, days: int = 30, limit: int = 50) -> Report:
    """The report on the generation `reader` reads, with the statistics of the last `days` days (at most `limit`
    searches that found nothing)."""
    from sqlmodel import func, select

    from app.models import Entry, Meta

    sources = Sources(reader=reader, settings=settings, days=days, limit=limit)
    generation = sources.session.get(Meta, "generation")
    entries = dict(sources.session.exec(select(Entry.lang, func.count()).group_by(Entry.lang)).all())
    return Report(generation=generation.value if generation is not None else reader.snapshot.generation.name,
                  days=days, entries=entries, sections=[builder(sources) for _, builder in BUILDERS])


@contextmanager
def current_reader(settings: Settings, semantic: bool = True) -> Iterator[Reader]:
    """A reader of the current generation for a command (NoDataError before the first ingest); `semantic` loads
    the model, so that the vectors (once made) find the entries closest in meaning."""
    from sqlmodel import Session

    from app.db import DataStore
    from app.lineage import Lineage
    from app.queries import Reader

    store = DataStore(settings, semantic=semantic)
    lineage = Lineage(settings)
    try:
        snapshot = store.current()
        with Session(snapshot.engine) as session:
            yield Reader(snapshot=snapshot, session=session, lineage=lineage)
    finally:
        lineage.close()
        store.close()


# ------------------------------------------------------------------ renderings

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


def to_html(report: Report, base_url: str = "", ui_lang: str = "en") -> str:
    """The report as one HTML file that loads nothing (the same template as /admin, with its own small style)."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    from app.web.strings import INTERFACE, html_lang

    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True))
    environment.filters["html_lang"] = html_lang
    return environment.get_template("report.html").render(report=report, ui=INTERFACE[ui_lang], ui_lang=ui_lang,
                                                          base=base_url)


MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|&~])")


def md_text(text: str) -> str:
    """Text that stays text in markdown: every character markdown or HTML could read as markup escaped, lines
    folded (a comment cannot start a heading or close a table)."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _md_link(text: str, url: str) -> str:
    return f"[{md_text(text)}](<{url.replace('>', '%3E').replace(' ', '%20')}>)"


def to_markdown(report: Report, strings: dict[str, object], base_url: str = "") -> str:
    """The report as markdown: per-language counts, then each section by document and language."""
    titles: dict[str, tuple[str, str]] = strings["report_sections"]  # type: ignore[assignment]
    names: dict[str, str] = strings["language_names"]  # type: ignore[assignment]
    lines = [f"# {strings['report_title']}", "",
             str(strings["report_about"]).format(generation=report.generation, days=report.days,
                                                 entries=", ".join(f"{names.get(lang, lang)} {n}" for lang, n in
                                                                   sorted(report.entries.items()))), "",
             "| | " + " | ".join(names[lang] for lang in LANGUAGES) + f" | {strings['report_total']} |",
             "| --- | " + " | ".join("---:" for _ in LANGUAGES) + " | ---: |"]
    for section in report.sections:
        counts = section.counts()
        lines.append(f"| {titles[section.name][0]} | "
                     + " | ".join(str(counts[lang]) for lang in LANGUAGES) + f" | {counts['total']} |")
    for section in report.sections:
        title, description = titles[section.name]
        lines += ["", f"## {title} ({len(section.findings)})", "", description]
        if section.note:
            lines += ["", f"_{strings['report_notes'][section.note]}_"]  # type: ignore[index]
        if not section.findings:
            lines += ["", str(strings["report_none"])]
        for group in section.groups():
            lines += ["", f"### {_md_group_heading(group, strings, base_url)}", ""]
            lines += [_md_finding(finding, section.name, strings, base_url) for finding in group.findings]
    return "\n".join(lines) + "\n"


def _md_group_heading(group: Group, strings: dict[str, object], base_url: str) -> str:
    names: dict[str, str] = strings["language_names"]  # type: ignore[assignment]
    count = len(group.findings)
    if group.document is None:
        return f"{names.get(group.lang, group.lang or '?')} ({count})" if group.lang else \
            f"{strings['report_elsewhere']} ({count})"
    document = group.document
    untranslated = "" if document.translated else f"; {strings['report_no_translated_document']}"
    return (f"{_md_link(document.path, base_url + document.url)} "
            f"({names.get(document.lang, document.lang)}, {count}{untranslated})")


def _md_finding(finding: Finding, section: str, strings: dict[str, object], base_url: str) -> str:
    parts = []
    if finding.entry is not None:
        entry = finding.entry
        parts.append(f"{_md_link(entry.title or entry.id, base_url + entry.url)} "
                     f"([{strings['report_editors_view']}](<{base_url}{entry.admin_url}>))")
    if finding.line:
        parts.append(f"{strings['report_line']} {finding.line}")
    if section == "unhelpful":
        parts.append(str(strings["report_votes"]).format(unhelpful=finding.count, helpful=finding.helpful))
    if section == "zero-results":
        parts.append(f"**{md_text(finding.text)}**: "
                     + str(strings["report_searches"]).format(searches=finding.count))
    elif finding.text:
        parts.append(f"`{finding.text.replace('`', '')}`" if section == "links" and finding.entry is not None
                     else md_text(finding.text))
    lines = ["- " + " · ".join(parts)]
    lines += [f"  - {md_text(comment)}" for comment in finding.details]
    if finding.closest:
        lines.append(f"  - {strings['report_closest']}: "
                     + ", ".join(_md_link(e.title, base_url + e.url) for e in finding.closest))
    elif section == "zero-results":
        lines.append(f"  - {strings['report_no_closest']}")
    return "\n".join(lines)
