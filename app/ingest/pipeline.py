"""The ingest, stage by stage: read → decode → segment → detect language → link → render → store."""

from __future__ import annotations

import html
import json
import os
import re
import time
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from sqlalchemy.exc import SQLAlchemyError
from tqdm import tqdm

from app.config import Settings
from app.generations import ingest_turn
from app.ingest.align import (
    AlignableDocument,
    AlignableEntry,
    Alignment,
    EntryPair,
    LinkRules,
    Meaning,
    pair_documents,
)
from app.ingest.anchors import Glossary, extract_anchors
from app.ingest.dates import change_dates, files_at
from app.ingest.dictionary import dictionary_lexicon
from app.ingest.encoding import DecodeError, decode_bytes
from app.ingest.glossary import GLOSSARY_FILE, read_glossary
from app.ingest.identity import Vanished, Version, inherit_ids
from app.ingest.ids import document_id, entry_id, path_digest
from app.ingest.language import document_language, entry_language, name_from_path, named_versions
from app.ingest.lexicon import mine_lexicon, pair_texts
from app.ingest.links import LINKS_FILE, read_link_rules
from app.ingest.related import RelatableEntry, related_entries
from app.ingest.render import LinkContext, render_inline, render_markdown
from app.ingest.repair import RepairResult, repair_mojibake
from app.ingest.segment import ParsedDocument, ParsedEntry, SectionDecision, segment_markdown, suggest_hint
from app.ingest.segment.decide import FEW_ENTRIES
from app.ingest.segment.evidence import strip_numbering
from app.ingest.sources import SourceFile, find_sources, read_sidecar, split_front_matter
from app.ingest.store import (
    Batch,
    DocumentLinkRow,
    DocumentRow,
    EntryLinkRow,
    EntryRow,
    previous_versions,
    record_lineage,
    return_free_memory,
    store_generation,
)
from app.lineage import substance
from app.models import IngestNote
from app.outdated import (
    REVIEWED_KEY,
    ReviewMark,
    ReviewMarks,
    read_review_mark,
    read_revision_mark,
    translation_sides,
)
from app.search.embedding import ModelSlot, question_cosines

MEGABYTE = 1024 * 1024
# A document is read, segmented and rendered whole: about 60 MB of memory per MB of markdown (15.9 MB: 973 MB
# at peak, 284 s; measure/huge_file.py). Larger files are skipped with a line saying so, never half read.
MAX_DOCUMENT_BYTES = 16 * MEGABYTE
LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")
TAG = re.compile(r"<[^>]+>")
INLINE_TAG = re.compile(r"</?(?:a|abbr|b|bdi|bdo|cite|code|del|dfn|em|i|ins|kbd|mark|q|s|samp|small|span|strong|"
                        r"sub|sup|time|u|var|wbr)(?:\s[^>]*)?>", re.IGNORECASE)


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
    related_links: int = 0
    link_problems: int = 0  # conflicting or dangling translation metadata (`faq check`)
    link_review: int = 0  # low-confidence entry pairs (`faq check`)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    structure_notes: list[tuple[str, str]] = field(default_factory=list)  # close calls, ignored hints
    ids_inherited: int = 0  # entries that kept the previous generation's id (and URL)
    ids_forwarded: int = 0  # old ids that now redirect to the entry that took their place
    ids_removed: int = 0  # old ids that now answer 410 Gone
    generation: str = ""
    seconds: float = 0.0

    @property
    def entries(self) -> int:
        """All entries, every language."""
        return sum(self.entries_by_lang.values())


@dataclass
class ReadDocument:
    """A document read, decoded, repaired and segmented: everything before linking and storing."""

    source: SourceFile
    id: str
    title: str
    lang: str
    markdown: str  # the source text (front matter included)
    body: str  # what readers see: the markdown without its front matter
    encoding: str
    translation_of: str | None
    not_translation_of: frozenset[str]
    entries: list[ParsedEntry]
    entry_ids: list[str]
    entry_langs: list[str]  # an entry's language: its document's, unless plainly the other
    repair: RepairResult
    structure: list[SectionDecision] = field(default_factory=list)  # how segmentation read each section
    reading: str = ""  # what segmentation took the whole document to be (an FAQ, where its questions stand)
    reviewed: ReviewMark = field(default_factory=ReviewMark)  # the translator's review dates (app/outdated.py)
    revision: ReviewMark = field(default_factory=ReviewMark)  # the commits of its original it translates


def html_to_text(fragment: str) -> str:
    """Readable plain text of rendered HTML (for snippets and the index).

    Block elements part words; inline ones do not: the highlighter's spans inside
    `--num_gpus=8` must not turn it into `--num_gpus = 8`.
    """
    return " ".join(html.unescape(TAG.sub(_tag_gap, fragment)).split())


def _tag_gap(match: re.Match[str]) -> str:
    return "" if INLINE_TAG.fullmatch(match.group(0)) else " "


def run_ingest(settings: Settings, content_dir: Path | None = None, progress: bool = True) -> IngestReport:
    """Ingest every document under the content folder into a new published generation (IngestRunning while
    another ingest writes to the same data folder or database)."""
    started = time.perf_counter()
    folder = content_dir or settings.content_dir
    if not folder.is_dir():
        raise IngestError(f"content folder {folder} does not exist; create it or pass --content DIR")
    report = IngestReport()
    # The model loads when first asked; pairing compares questions by e5 alone, without the companion model.
    meaning = question_cosines(ModelSlot(enabled=settings.semantic, companion=False))
    with ingest_turn(settings):  # from reading the content to publishing it: a later ingest reads later content
        served = _served_versions(settings, report)
        batch, vanished = _prepare_batch(folder, report, progress, meaning, served)
        return_free_memory()  # what reading and linking held
        # Before publication: a published generation's vanished ids must already lead somewhere. A failure here
        # (an unreachable database, a full disk) fails the ingest like any other, and the previous data stays.
        record_lineage(settings, vanished, batch.entries, served, folder, batch.documents)
        del served
        if progress:
            tqdm.write(f"storing {len(batch.entries)} entries and building the search index …")
        report.generation = store_generation(settings, batch).name
    report.seconds = time.perf_counter() - started
    return report


def _served_versions(settings: Settings, report: IngestReport) -> list[Version]:
    """The served generation's entries, whose ids the new one inherits; none (and a warning) if it cannot be read."""
    try:
        return previous_versions(settings)
    except (SQLAlchemyError, OSError, ValueError) as exc:
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        report.warnings.append((str(settings.data_dir), f"the served generation cannot be read ({reason}): every "
                                "entry gets a fresh id, and old links to changed entries answer 404"))
        return []


def _prepare_batch(folder: Path, report: IngestReport, progress: bool, meaning: Meaning | None = None,
                   previous: Sequence[Version] = ()) -> tuple[Batch, list[Vanished]]:
    """Every row of the new generation, and the `previous` entries whose ids it no longer serves; the documents
    read are let go as their rows are built."""
    documents = read_documents(folder, report, progress)
    if not documents:
        # A folder whose only file is too large must say so: "no readable documents" alone hid why.
        why = "".join(f"; skipped {path}: {reason}" for path, reason in report.skipped[:1])
        more = f" (and {len(report.skipped) - 1} more skipped)" if len(report.skipped) > 1 else ""
        raise IngestError(f"no readable documents under {folder} (.md, .markdown, .txt){why}{more}; nothing was "
                          "changed")
    vanished = inherit_previous_ids(documents, previous, report)
    glossary, problems = read_glossary(folder)
    report.warnings.extend((GLOSSARY_FILE, problem) for problem in problems)
    rules, problems = read_link_rules(folder)
    report.warnings.extend((LINKS_FILE, problem) for problem in problems)
    if progress:
        tqdm.write(f"linking the translations and related entries of {len(documents)} documents …")
    links = link_documents(documents, glossary, rules, meaning)
    declared, named = translation_sides([(d.id, d.source.relative_path, d.lang, d.translation_of) for d in documents],
                                        [(pair.first, pair.second) for pair in links.alignment.documents])
    marks = ReviewMarks(declared=declared, named=named, revised=revised_entries(folder, documents, links, report))
    batch = _build_batch(documents, links, report, marks)
    batch.glossary = glossary
    batch.lexicon = _mined_lexicon(batch)
    return batch, vanished


def document_versions(documents: Sequence[ReadDocument]) -> list[Version]:
    """The documents' entries as identity sees them, in order, under their current ids."""
    return [Version(id=new_id, document_id=doc.id, lang=lang, section=tuple(parsed.section), title=parsed.title,
                    answer=parsed.answer_markdown, position=position, document_size=len(doc.entries))
            for doc in documents
            for position, (new_id, lang, parsed) in enumerate(zip(doc.entry_ids, doc.entry_langs, doc.entries,
                                                                  strict=True))]


def inherit_previous_ids(documents: Sequence[ReadDocument], previous: Sequence[Version],
                         report: IngestReport) -> list[Vanished]:
    """Give each entry the id of the entry it continues in the `previous` generation; the ids that vanish."""
    inheritance = inherit_ids(previous, document_versions(documents))
    ids = iter(inheritance.ids)
    for doc in documents:
        doc.entry_ids = [next(ids) for _ in doc.entry_ids]
    report.ids_inherited = inheritance.inherited
    report.ids_forwarded = inheritance.forwarded
    report.ids_removed = len(inheritance.vanished) - inheritance.forwarded
    return inheritance.vanished


def _mined_lexicon(batch: Batch) -> list[list[str]]:
    """Words that translate each other, learnt from this ingest's translation pairs."""
    pairs = [(link["source_id"], link["target_id"]) for link in batch.entry_links
             if link["kind"] == "translation" and link["source_id"] < link["target_id"]]
    paired = {entry_id for pair in pairs for entry_id in pair}
    # Each text is built when it is read: all of them at once would be another copy of the corpus.
    texts = {e["id"]: (e["lang"], _lexicon_text(e)) for e in batch.entries if e["id"] in paired}
    mined = mine_lexicon(pair_texts(pairs, texts))
    return mined + dictionary_lexicon(_lexicon_text(e) for e in batch.entries)


def _lexicon_text(entry: EntryRow) -> str:
    return f"{entry['question']}\n{entry['body_text']}"


def read_documents(folder: Path, report: IngestReport, progress: bool = False) -> list[ReadDocument]:
    """Every readable document under `folder`; unreadable ones are reported as skipped.

    A file that fails in any way (nesting too deep for the parser, memory, a bug of ours)
    is named with a one-line reason and the rest ingests.
    """
    documents: list[ReadDocument] = []
    sources = list(find_sources(folder, report.skipped))
    named = named_versions(source.relative_path for source in sources)
    bar = tqdm(sources, desc="reading", unit="doc", disable=not progress, leave=False)
    for source in bar:
        bar.set_postfix_str(source.relative_path, refresh=True)  # a long file (repairs, a big table) is named
        try:
            read = read_document(source, report, named)
        except RecursionError:
            report.skipped.append((source.relative_path, "markup nested too deeply to parse "
                                   "(hundreds of `*`, `>` or list levels); simplify it"))
            continue
        except MemoryError:
            report.skipped.append((source.relative_path, "too large to read in memory; split the file"))
            continue
        except Exception as exc:  # noqa: BLE001  (one odd file must not stop the others)
            report.skipped.append((source.relative_path, f"cannot be ingested ({type(exc).__name__}: "
                                   f"{str(exc)[:120]}); please report it"))
            continue
        if read is not None:
            documents.append(read)
    _make_ids_unique(documents, report)
    return documents


def _make_ids_unique(documents: list[ReadDocument], report: IngestReport) -> None:
    """Give documents whose names make the same id (`实验.md`, `试验.md`) distinct, stable ids.

    The first path in sorted order keeps the id; the others get a digest of their path,
    which depends on nothing else, and a warning says where they are.
    """
    owners: dict[str, str] = {}
    in_path_order = sorted(documents, key=lambda d: d.source.relative_path)
    for doc in in_path_order:
        if doc.id in owners:
            new_id = f"{doc.id}-{path_digest(doc.source.relative_path)}"
            report.warnings.append((doc.source.relative_path, (
                f"its id `{doc.id}` is also the id of {owners[doc.id]}; it is served as /documents/{new_id}")))
            doc.id, doc.entry_ids = new_id, _entry_ids(new_id, doc.entries)
        owners[doc.id] = doc.source.relative_path
    # Entry ids carry a short digest; at a million entries two can meet: lengthen the later one.
    seen: set[str] = set()
    for doc in in_path_order:
        for k, entry in enumerate(doc.entry_ids):
            if entry in seen:
                doc.entry_ids[k] = f"{entry}-{path_digest(doc.source.relative_path + chr(31) + str(k))}"
            seen.add(doc.entry_ids[k])


@dataclass
class Links:
    """Everything linking found: translation pairs (with what to review) and related entries."""

    alignment: Alignment
    related: dict[str, list[tuple[str, float]]]


def link_documents(documents: Sequence[ReadDocument], glossary: Sequence[Sequence[str]],
                   rules: LinkRules, meaning: Meaning | None = None) -> Links:
    """Translation pairs of documents and entries (`meaning`: the questions' meaning as evidence too), then each
    entry's related entries."""
    compiled = Glossary.from_groups(glossary)
    # A question's number (`Q13:`, `问题3：`) differs between translations: never an anchor.
    anchors = {entry_id: extract_anchors(f"{strip_numbering(e.question)}\n{e.answer_markdown}", compiled)
               for d in documents for entry_id, e in zip(d.entry_ids, d.entries, strict=True)}
    alignment = pair_documents([
        AlignableDocument(
            id=d.id, path=d.source.relative_path, lang=d.lang, translation_of=d.translation_of,
            not_translation_of=d.not_translation_of,
            entries=[AlignableEntry(entry_id, anchors[entry_id], e.title)
                     for entry_id, e in zip(d.entry_ids, d.entries, strict=True)])
        for d in documents], rules, meaning)
    alignment.entries += same_page_pairs(documents, alignment.entries, rules)
    translations: dict[str, list[str]] = defaultdict(list)
    for pair in alignment.entries:
        translations[pair.first].append(pair.second)
        translations[pair.second].append(pair.first)
    relatable = [RelatableEntry(entry_id, lang, anchors[entry_id],
                                extract_anchors(strip_numbering(e.question), compiled))
                 for d in documents for entry_id, lang, e in zip(d.entry_ids, d.entry_langs, d.entries, strict=True)]
    return Links(alignment, related_entries(relatable, translations))


def same_page_pairs(documents: Sequence[ReadDocument], found: Sequence[EntryPair], rules: LinkRules) -> list[EntryPair]:
    """The translation pairs a page writes itself (a heading in each language over one answer in both), where
    neither entry was paired across files and an editor did not forbid it."""
    paired = {entry_id for pair in found for entry_id in (pair.first, pair.second)}
    forbidden = {frozenset(pair) for pair in rules.forbid}
    pairs = []
    for document in documents:
        at_line = {e.line: own for own, e in zip(document.entry_ids, document.entries, strict=True)}
        for own, entry in zip(document.entry_ids, document.entries, strict=True):
            if entry.twin_line is None or entry.twin_line < entry.line:  # each pair once, from its first heading
                continue
            twin = at_line.get(entry.twin_line)
            if twin is not None and not {own, twin} & paired and frozenset((own, twin)) not in forbidden:
                pairs.append(EntryPair(own, twin, "same page", 1.0))
    return pairs


def revised_entries(folder: Path, documents: Sequence[ReadDocument], links: Links,
                    report: IngestReport) -> dict[str, str]:
    """The entries a revision mark (`translation_of_commit`) keeps level with their translation partners: those whose
    every partner says what it said at the commit named, in its document as git has it then (entry id → commit).
    A mark git cannot check (not a git work tree, a commit it does not know) is named in `report` and ignored."""
    marked = [doc for doc in documents if doc.revision.document or doc.revision.entries]
    if not marked:
        return {}
    by_id = {doc.id: doc for doc in documents}
    paired: dict[str, set[str]] = defaultdict(set)  # document id → the paths of the documents paired with it
    for pair in links.alignment.documents:
        paired[pair.first].add(by_id[pair.second].source.relative_path)
        paired[pair.second].add(by_id[pair.first].source.relative_path)
    commits = {entry_id: doc.revision.entries.get(position, doc.revision.document)
               for doc in marked for position, entry_id in enumerate(doc.entry_ids)}
    wanted: dict[str, set[tuple[str, str]]] = {}  # marked document id → (commit, path) of the documents it translates
    for doc in marked:
        if not paired[doc.id]:
            report.warnings.append((doc.source.relative_path, f"`{doc.revision.key}`: no document here is the one it "
                                    "translates; ignored"))
        wanted[doc.id] = {(commit, path) for commit in {commits[entry_id] for entry_id in doc.entry_ids} - {""}
                          for path in paired[doc.id]}
    by_path = {doc.source.relative_path: doc for doc in documents}
    said_then = {(commit, path): _said(by_path[path].source, data)
                 for (commit, path), data in files_at(folder, set().union(*wanted.values())).items()}
    for doc in marked:
        problems = sorted({why for key, why in said_then.items() if key in wanted[doc.id] and isinstance(why, str)})
        if problems:
            report.warnings.append((doc.source.relative_path, f"`{doc.revision.key}` ignored: {'; '.join(problems)}"))
    partners: dict[str, list[str]] = defaultdict(list)
    for entry_pair in links.alignment.entries:
        partners[entry_pair.first].append(entry_pair.second)
        partners[entry_pair.second].append(entry_pair.first)
    entries = {entry_id: (doc.source.relative_path, parsed)
               for doc in documents for entry_id, parsed in zip(doc.entry_ids, doc.entries, strict=True)}

    def said_at(commit: str, partner: str) -> bool:
        path, parsed = entries[partner]
        then = said_then.get((commit, path))
        return isinstance(then, set) and substance(parsed.title, parsed.answer_markdown) in then

    return {entry_id: commit for entry_id, commit in commits.items()
            if commit and partners[entry_id] and all(said_at(commit, partner) for partner in partners[entry_id])}


def _said(source: SourceFile, data: bytes | str) -> set[str] | str:
    """What the entries of a document's earlier version say (their substances, app/lineage.py), or why not."""
    if isinstance(data, str):
        return data
    try:
        then = document_from_bytes(source, data, IngestReport())
    except Exception as exc:  # noqa: BLE001  (an old version that fails to read must not stop the ingest)
        return f"{source.relative_path} at that commit cannot be read ({type(exc).__name__})"
    if then is None:
        return f"{source.relative_path} at that commit cannot be decoded"
    return {substance(entry.title, entry.answer_markdown) for entry in then.entries}


def read_document(source: SourceFile, report: IngestReport,
                  named: Collection[tuple[str, str, str]] = ()) -> ReadDocument | None:
    """One document read, decoded, repaired and segmented; None (and a line in `report`) if unreadable."""
    try:
        with source.path.open("rb") as handle:
            data = handle.read(MAX_DOCUMENT_BYTES + 1)  # never more, even if the file grows meanwhile
            size = os.fstat(handle.fileno()).st_size
    except OSError as exc:
        report.skipped.append((source.relative_path, f"cannot be read: {exc.strerror or exc}"))
        return None
    if len(data) > MAX_DOCUMENT_BYTES:
        report.skipped.append((source.relative_path, (
            f"{max(size, len(data)) / MEGABYTE:.1f} MB, over the {MAX_DOCUMENT_BYTES // MEGABYTE} MB a document may "
            "have (reading one takes about 60 times its size in memory); split it into smaller files")))
        return None
    return document_from_bytes(source, data, report, named)


def document_from_bytes(source: SourceFile, data: bytes, report: IngestReport,
                        named: Collection[tuple[str, str, str]] = ()) -> ReadDocument | None:
    """A document decoded, repaired and segmented from its bytes (`source` names it and finds its sidecar); None
    (and a line in `report`) if they cannot be decoded."""
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
    sidecar, sidecar_error = read_sidecar(source.path)
    for error in (front.error, sidecar_error):
        if error:
            report.warnings.append((source.relative_path, error))
    meta = {**front.metadata, **sidecar}
    fallback_title = name_from_path(source.relative_path)
    declared_title = meta.get("title") if isinstance(meta.get("title"), str) else ""
    parsed = segment_markdown(front.body, fallback_title=fallback_title, hint=meta.get("entries"),
                              file_name=source.relative_path, title=str(declared_title))
    report.structure_notes.extend((source.relative_path, note) for note in parsed.notes)
    for key, problem in _odd_metadata(meta).items():
        report.warnings.append((source.relative_path, problem))
        meta.pop(key)
    questions = [(e.question, e.title) for e in parsed.entries]
    reviewed, revision = read_review_mark(meta.get(REVIEWED_KEY), questions), read_revision_mark(meta, questions)
    report.warnings.extend((source.relative_path, problem) for problem in reviewed.problems + revision.problems)
    lang = str(meta.get("lang") or document_language(source.relative_path, front.body, named))
    lang = "zh" if lang.lower().startswith("zh") else "en" if lang.lower().startswith("en") else lang
    shortfall = _faq_shortfall(parsed, source, front.body, str(declared_title))
    if shortfall:
        report.warnings.append((source.relative_path, shortfall))
    elif not parsed.entries:
        report.warnings.append(
            (source.relative_path, "no recognisable questions: ingested as a plain document"))
    doc_id = document_id(source.relative_path)
    return ReadDocument(
        source=source, id=doc_id,
        title=str(meta.get("title") or parsed.title or fallback_title), lang=lang,
        markdown=repair.text, body=front.body,
        encoding=decoded.encoding + (f", repaired from {repair.code_page} mojibake" if repair.changed else ""),
        translation_of=str(meta["translation_of"]) if meta.get("translation_of") else None,
        not_translation_of=_paths(meta.get("not_translation_of")),
        entries=parsed.entries, entry_ids=_entry_ids(doc_id, parsed.entries),
        entry_langs=[entry_language(f"{e.question}\n{e.answer_markdown}", lang) for e in parsed.entries],
        repair=repair, structure=parsed.decisions, reading=parsed.reading, reviewed=reviewed, revision=revision,
    )


def _faq_shortfall(parsed: ParsedDocument, source: SourceFile, body: str, title: str) -> str | None:
    """The warning for a document that says it is an FAQ but yields almost nothing, with what to run and the
    front matter hint that would help; None when it yields enough.

    Entries that are mostly not questions are only worth a warning when a hint finds more questions: a
    troubleshooting page of topics (`Exec docker`, `Note`) is read right.
    """
    problem = parsed.shortfall()
    if problem is None:
        return None
    hint = suggest_hint(body, parsed.question_like, file_name=source.relative_path, title=title)
    if hint is None and len(parsed.entries) >= FEW_ENTRIES:
        return None
    advice = (f"front matter `entries: {hint[0]}` would find {hint[1]} question{'s' * (hint[1] != 1)}" if hint else
              "no front matter `entries:` hint finds more questions")
    return f"{problem}: run `faq inspect {source.path}` to see why; {advice}"


def _odd_metadata(meta: dict[str, object]) -> dict[str, str]:
    """Metadata keys whose values cannot be what they name, with a warning for each."""
    odd: dict[str, str] = {}
    lang = meta.get("lang")
    if lang is not None and not (isinstance(lang, str) and LANGUAGE_TAG.fullmatch(lang)):
        odd["lang"] = f"front matter `lang: {str(lang)[:40]}` is not a language tag (en, zh, zh-CN …); ignored"
    for key in ("title", "translation_of"):
        value = meta.get(key)
        if value is not None and not isinstance(value, str | int | float):
            odd[key] = f"front matter `{key}` must be text, not {type(value).__name__}; ignored"
    return odd


def _paths(value: object) -> frozenset[str]:
    """A front matter value that names one path or a list of them."""
    if not value:
        return frozenset()
    return frozenset(str(v) for v in (value if isinstance(value, list) else [value]))


def _entry_ids(doc_id: str, entries: Sequence[ParsedEntry]) -> list[str]:
    """Stable, unique ids for a document's entries (a repeated question gets a suffix)."""
    ids: list[str] = []
    taken: set[str] = set()  # a list's `in` made a 30,000-entry document quadratic
    for parsed in entries:
        base = new_id = entry_id(doc_id, parsed.section, parsed.title)
        suffix = 2
        while new_id in taken:
            new_id = f"{base}-{suffix}"
            suffix += 1
        ids.append(new_id)
        taken.add(new_id)
    return ids


def _content_root(source: SourceFile) -> Path:
    """The content folder a source file was found in."""
    return source.path.parents[len(PurePosixPath(source.relative_path).parts) - 1]


def _build_batch(documents: list[ReadDocument], links: Links, report: IngestReport,
                 marks: ReviewMarks | None = None) -> Batch:
    """The rows of the new generation; `documents` is emptied as their rows are built.

    A document read holds its parsed entries and segmentation beside the text its rows share:
    let go one by one, their memory serves the rows that follow, instead of adding to the peak.
    """
    urls = {d.source.relative_path: f"/documents/{d.id}" for d in documents}
    changed = change_dates(_content_root(documents[0].source), (d.source.path for d in documents)) if documents else {}
    batch = Batch(documents=[], entries=[], entry_links=[], document_links=[], notes=[])
    marks = marks if marks is not None else ReviewMarks()
    documents.reverse()  # popped from the end, in reading order
    while documents:
        doc = documents.pop()
        context = LinkContext(document_path=doc.source.relative_path, document_urls=urls)
        if doc.reviewed.document:
            marks.documents[doc.id] = doc.reviewed.document
        marks.entries.update({doc.entry_ids[position]: date for position, date in doc.reviewed.entries.items()})
        ends = [e.line for e in doc.entries[1:]] + [len(doc.markdown)] if doc.entries else []
        rows = zip(doc.entries, doc.entry_ids, doc.entry_langs, ends, strict=True)
        for position, (parsed, new_id, lang, end) in enumerate(rows):
            repaired, uncertain = doc.repair.counts_between(parsed.line, end)
            body_html = render_markdown(parsed.answer_markdown, context)
            report.entries_by_lang[lang] += 1
            batch.entries.append(EntryRow(
                id=new_id, document_id=doc.id, position=position, lang=lang,
                question=parsed.question, title=parsed.title,
                title_html=render_inline(parsed.question, context),
                section=json.dumps(list(parsed.section), ensure_ascii=False),
                body_markdown=parsed.answer_markdown, body_html=body_html,
                body_text=html_to_text(body_html), line=parsed.line, kind=parsed.kind,
                repaired_characters=repaired, uncertain_repairs=uncertain,
            ))
        batch.documents.append(DocumentRow(
            id=doc.id, path=doc.source.relative_path, title=doc.title, lang=doc.lang,
            markdown=doc.markdown, html=render_markdown(doc.body, context),
            encoding=doc.encoding, entry_count=len(doc.entry_ids),
            repaired_characters=doc.repair.repaired_characters,
            uncertain_repairs=len(doc.repair.uncertain), changed=changed.get(doc.source.path, ""),
        ))
        for repair in doc.repair.repairs:
            batch.notes.append(IngestNote(
                path=doc.source.relative_path, line=repair.line,
                kind="repair-uncertain" if repair.uncertain else "repair",
                message=doc.repair.describe(repair)))
    batch.reviewed = marks.to_json()
    _store_links(links, batch, report)
    for path, message in report.warnings:
        batch.notes.append(IngestNote(path=path, kind="warning", message=message))
    for path, message in report.skipped:
        batch.notes.append(IngestNote(path=path, kind="skipped", message=message))
    for path, message in report.structure_notes:
        batch.notes.append(IngestNote(path=path, kind="structure", message=message))
    report.documents = len(batch.documents)
    return batch


def _store_links(links: Links, batch: Batch, report: IngestReport) -> None:
    alignment = links.alignment
    for pair in alignment.documents:
        report.document_pairs += 1
        batch.document_links += [
            DocumentLinkRow(source_id=pair.first, target_id=pair.second, method=pair.method, score=pair.score),
            DocumentLinkRow(source_id=pair.second, target_id=pair.first, method=pair.method, score=pair.score),
        ]
    for entry_pair in alignment.entries:
        report.translation_pairs += 1
        for source, target in ((entry_pair.first, entry_pair.second), (entry_pair.second, entry_pair.first)):
            batch.entry_links.append(EntryLinkRow(source_id=source, target_id=target, kind="translation",
                                                  score=entry_pair.score, rank=0))
    for source, related in links.related.items():
        report.related_links += len(related)
        batch.entry_links += [EntryLinkRow(source_id=source, target_id=target, kind="related", score=score, rank=rank)
                              for rank, (target, score) in enumerate(related)]
    report.link_problems, report.link_review = len(alignment.problems), len(alignment.review)
    for path, message in alignment.problems:
        batch.notes.append(IngestNote(path=path, kind="link-problem", message=message))
    for path, message in alignment.review:
        batch.notes.append(IngestNote(path=path, kind="link-review", message=message))
    for path, message in alignment.notices:
        batch.notes.append(IngestNote(path=path, kind="link-info", message=message))
