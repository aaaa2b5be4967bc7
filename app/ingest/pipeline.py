"""The ingest, stage by stage: read → decode → segment → detect language → align → render → store."""

from __future__ import annotations

import html
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from app.config import Settings
from app.ingest.align import AlignableDocument, pair_documents, pair_entries
from app.ingest.encoding import DecodeError, decode_bytes
from app.ingest.glossary import GLOSSARY_FILE, read_glossary
from app.ingest.ids import document_id, entry_id
from app.ingest.language import detect_language, entry_language, language_from_name
from app.ingest.render import LinkContext, render_inline, render_markdown
from app.ingest.repair import RepairResult, repair_mojibake
from app.ingest.segment import ParsedEntry, segment_markdown
from app.ingest.sources import SourceFile, find_sources, split_front_matter
from app.ingest.store import Batch, store_generation
from app.models import Document, DocumentLink, Entry, EntryLink, IngestNote

TAG = re.compile(r"<[^>]+>")


class IngestError(RuntimeError):
    """The ingest could not produce a generation; the previous data still serves."""


@dataclass
class IngestReport:
    """What an ingest did, for the summary printed by `faq ingest`."""

    documents: int = 0
    entries_by_lang: Counter[str] = field(default_factory=Counter)
    translation_pairs: int = 0
    document_pairs: int = 0
    repairs: int = 0  # characters repaired from mojibake
    uncertain: int = 0  # of those, repairs an editor should check (`faq check`)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    generation: str = ""
    seconds: float = 0.0

    @property
    def entries(self) -> int:
        """All entries, every language."""
        return sum(self.entries_by_lang.values())


@dataclass
class _ReadDocument:
    source: SourceFile
    id: str
    title: str
    lang: str
    markdown: str
    encoding: str
    translation_of: str | None
    entries: list[ParsedEntry]
    repair: RepairResult


def html_to_text(fragment: str) -> str:
    """Readable plain text of rendered HTML (for snippets)."""
    return " ".join(html.unescape(TAG.sub(" ", fragment)).split())


def run_ingest(settings: Settings, content_dir: Path | None = None, progress: bool = True) -> IngestReport:
    """Ingest every document under the content folder into a new published generation."""
    started = time.perf_counter()
    folder = content_dir or settings.content_dir
    if not folder.is_dir():
        raise IngestError(f"content folder {folder} does not exist; create it or pass --content DIR")
    report = IngestReport()
    sources = list(find_sources(folder))
    documents: list[_ReadDocument] = []
    for source in tqdm(sources, desc="reading", unit="doc", disable=not progress, leave=False):
        read = _read_document(source, report)
        if read is not None:
            documents.append(read)
    if not documents:
        raise IngestError(f"no readable documents under {folder} (.md, .markdown, .txt); nothing was changed")
    glossary, problems = read_glossary(folder)
    report.warnings.extend((GLOSSARY_FILE, problem) for problem in problems)
    batch = _build_batch(documents, report)
    batch.glossary = glossary
    if progress:
        tqdm.write(f"storing {len(batch.entries)} entries and building the search index …")
    report.generation = store_generation(settings, batch).name
    report.seconds = time.perf_counter() - started
    return report


def _read_document(source: SourceFile, report: IngestReport) -> _ReadDocument | None:
    try:
        data = source.path.read_bytes()
    except OSError as exc:
        report.skipped.append((source.relative_path, f"cannot be read: {exc.strerror or exc}"))
        return None
    try:
        decoded = decode_bytes(data)
    except DecodeError as exc:
        report.skipped.append((source.relative_path, str(exc)))
        return None
    for note in decoded.notes:
        report.warnings.append((source.relative_path, note))
    repair = repair_mojibake(decoded.text)
    if repair.changed:
        report.repairs += repair.repaired_characters
        report.uncertain += len(repair.uncertain)
        report.warnings.append((source.relative_path, (
            f"mojibake (UTF-8 read as {repair.code_page}) repaired: {repair.repaired_characters} characters, "
            f"{len(repair.uncertain)} uncertain (see `faq check`)")))
    front = split_front_matter(repair.text)
    if front.error:
        report.warnings.append((source.relative_path, front.error))
    meta = front.metadata
    fallback_title = Path(source.relative_path).stem
    parsed = segment_markdown(front.body, fallback_title=fallback_title)
    lang = str(meta.get("lang") or language_from_name(source.relative_path)
               or detect_language(front.body))
    lang = "zh" if lang.lower().startswith("zh") else "en" if lang.lower().startswith("en") else lang
    if not parsed.entries:
        report.warnings.append(
            (source.relative_path, "no recognisable questions: ingested as a plain document"))
    return _ReadDocument(
        source=source, id=document_id(source.relative_path),
        title=str(meta.get("title") or parsed.title or fallback_title), lang=lang,
        markdown=repair.text,
        encoding=decoded.encoding + (f", repaired from {repair.code_page} mojibake" if repair.changed else ""),
        translation_of=str(meta["translation_of"]) if meta.get("translation_of") else None,
        entries=parsed.entries, repair=repair,
    )


def _build_batch(documents: list[_ReadDocument], report: IngestReport) -> Batch:
    urls = {d.source.relative_path: f"/documents/{d.id}" for d in documents}
    batch = Batch(documents=[], entries=[], entry_links=[], document_links=[], notes=[])
    ids_by_document: dict[str, list[str]] = {}
    for doc in documents:
        context = LinkContext(document_path=doc.source.relative_path, document_urls=urls)
        used: set[str] = set()
        ids: list[str] = []
        ends = [e.line for e in doc.entries[1:]] + [len(doc.markdown)] if doc.entries else []
        for position, (parsed, end) in enumerate(zip(doc.entries, ends, strict=True)):
            repaired, uncertain = doc.repair.counts_between(parsed.line, end)
            new_id = entry_id(doc.id, parsed.section, parsed.title)
            suffix = 2
            while new_id in used:
                new_id = f"{entry_id(doc.id, parsed.section, parsed.title)}-{suffix}"
                suffix += 1
            used.add(new_id)
            ids.append(new_id)
            body_html = render_markdown(parsed.answer_markdown, context)
            lang = entry_language(f"{parsed.question}\n{parsed.answer_markdown}", doc.lang)
            report.entries_by_lang[lang] += 1
            batch.entries.append(Entry(
                id=new_id, document_id=doc.id, position=position, lang=lang,
                question=parsed.question, title=parsed.title,
                title_html=render_inline(parsed.question, context),
                section=json.dumps(list(parsed.section), ensure_ascii=False),
                body_markdown=parsed.answer_markdown, body_html=body_html,
                body_text=html_to_text(body_html), line=parsed.line, kind=parsed.kind,
                repaired_characters=repaired, uncertain_repairs=uncertain,
            ))
        ids_by_document[doc.id] = ids
        batch.documents.append(Document(
            id=doc.id, path=doc.source.relative_path, title=doc.title, lang=doc.lang,
            markdown=doc.markdown, html=render_markdown(doc.markdown, context),
            encoding=doc.encoding, entry_count=len(ids),
            repaired_characters=doc.repair.repaired_characters,
            uncertain_repairs=len(doc.repair.uncertain),
        ))
        for repair in doc.repair.repairs:
            batch.notes.append(IngestNote(
                path=doc.source.relative_path, line=repair.line,
                kind="repair-uncertain" if repair.uncertain else "repair",
                message=doc.repair.describe(repair)))
    _link_translations(documents, ids_by_document, batch, report)
    for path, message in report.warnings:
        batch.notes.append(IngestNote(path=path, kind="warning", message=message))
    for path, message in report.skipped:
        batch.notes.append(IngestNote(path=path, kind="skipped", message=message))
    report.documents = len(batch.documents)
    return batch


def _link_translations(documents: list[_ReadDocument], ids_by_document: dict[str, list[str]],
                       batch: Batch, report: IngestReport) -> None:
    alignable = [
        AlignableDocument(id=d.id, path=d.source.relative_path, lang=d.lang,
                          translation_of=d.translation_of, entry_ids=ids_by_document[d.id])
        for d in documents
    ]
    for pair in pair_documents(alignable):
        report.document_pairs += 1
        batch.document_links += [
            DocumentLink(source_id=pair.first, target_id=pair.second, method=pair.method, score=1.0),
            DocumentLink(source_id=pair.second, target_id=pair.first, method=pair.method, score=1.0),
        ]
        for first, second in pair_entries(ids_by_document[pair.first], ids_by_document[pair.second]):
            report.translation_pairs += 1
            batch.entry_links += [
                EntryLink(source_id=first, target_id=second, kind="translation", score=1.0),
                EntryLink(source_id=second, target_id=first, kind="translation", score=1.0),
            ]
