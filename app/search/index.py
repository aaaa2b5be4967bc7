"""The Whoosh index: its schema, and building it from the database rows."""

from __future__ import annotations

import itertools
import pickle
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from whoosh import index as whoosh_index
from whoosh.fields import ID, TEXT, Schema
from whoosh.filedb.filestore import FileStorage
from whoosh.writing import PostingPool

from app.search.analysis import bilingual_analyzer
from app.search.errors import error_field_text
from app.search.spelling import Vocabulary, count_words

FIELD_BOOSTS = {"title": 4.0, "errors": 2.0, "code": 1.5, "body": 1.0}
# Which analysis wrote an index's terms: a query analysed otherwise misses words (Porter's
# `runn` is not Snowball's `run`). Change it whenever the terms of the same text change.
ANALYSIS_VERSION = "3 snowball, vocabulary file"
ANALYSIS_FILE = "ANALYSIS"
CODE_BLOCK = re.compile(r"^( {0,3})(```|~~~)[^\n]*\n(.*?)^\1\2", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
POOL_MB = 128  # Whoosh's estimate of the postings held before a sorted run goes to disk
RUN_CHUNK = 4096  # postings pickled together in a run (a merge holds one chunk per run)
Posting = tuple[Any, ...]  # (field, term bytes, entry number, weight, value bytes)


@dataclass(frozen=True)
class IndexedEntry:
    """What the index needs to know about one entry."""

    id: str
    document_id: str
    lang: str
    title: str
    section: str  # document title and breadcrumb, space separated
    body_markdown: str
    body_text: str


def build_schema() -> Schema:
    """The index schema; every text field shares the bilingual analyzer."""
    analyzer = bilingual_analyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        document_id=ID(stored=True),
        lang=ID(stored=True),
        title=TEXT(analyzer=analyzer, field_boost=FIELD_BOOSTS["title"]),
        # Document title, breadcrumb and answer (code included): one field keeps queries fast.
        body=TEXT(analyzer=analyzer, field_boost=FIELD_BOOSTS["body"]),
        errors=TEXT(analyzer=analyzer, field_boost=FIELD_BOOSTS["errors"]),
        code=TEXT(analyzer=analyzer, field_boost=FIELD_BOOSTS["code"]),
    )


def code_text(markdown: str) -> str:
    """The code in a piece of markdown: fenced blocks and inline code spans."""
    blocks = [m.group(3) for m in CODE_BLOCK.finditer(markdown)]
    spans = INLINE_CODE.findall(CODE_BLOCK.sub("", markdown))
    return "\n".join(blocks + spans)


def build_index(directory: Path, entries: Iterable[IndexedEntry]) -> int:
    """Create a fresh index in `directory` (which must not exist yet), with its spelling vocabulary;
    return the entry count."""
    directory.mkdir(parents=True)
    ix = whoosh_index.create_in(str(directory), build_schema())
    writer = ix.writer(limitmb=POOL_MB)
    writer.pool = ChunkedPostingPool(writer._tempstorage, writer.newsegment, limitmb=POOL_MB)
    reader = writer.per_document_reader
    writer.per_document_reader = lambda: RememberedLengths(reader())
    count = 0
    words: Counter[str] = Counter()
    try:
        for entry in entries:
            writer.add_document(
                id=entry.id, document_id=entry.document_id, lang=entry.lang,
                title=entry.title, body=f"{entry.section}\n{entry.body_text}",
                errors=error_field_text(entry.title, entry.body_markdown),
                code=code_text(entry.body_markdown),
            )
            words.update(count_words((entry.title, entry.section, entry.body_text)))
            count += 1
    except BaseException:
        writer.cancel()
        raise
    writer.commit(optimize=True)
    ix.close()
    Vocabulary(words).save(directory)
    (directory / ANALYSIS_FILE).write_text(ANALYSIS_VERSION, encoding="utf-8")
    return count


class ChunkedPostingPool(PostingPool):  # type: ignore[misc]
    """Whoosh's pool of postings, its sorted runs pickled a chunk at a time instead of a posting at a time.

    Past 10k entries the postings no longer fit in the pool, and every one of them is written to a
    run and merged back: a sixth of the whole ingest, most of it one pickle call per posting.
    """

    def _write_run(self, f: BinaryIO, items: Iterable[Posting]) -> None:
        postings = iter(items)  # a list, or runs being merged when there are too many to open at once
        with f:
            while chunk := list(itertools.islice(postings, RUN_CHUNK)):
                pickle.dump(chunk, f, pickle.HIGHEST_PROTOCOL)

    def _read_run(self, path: str) -> Iterator[Posting]:
        f = self._open_run(path)
        try:
            while True:
                try:
                    chunk = pickle.load(f)
                except EOFError:
                    return
                yield from chunk
        finally:
            f.close()
            self._remove_run(path)


class RememberedLengths:
    """A new segment's per-document reader whose field lengths are read once per field, not once per posting.

    Writing the postings asks the length of the posting's field in its entry for every posting (a million at
    20,000 entries), each a lookup in the segment's length column on disk: 7.7 of the 53 s the index of 20,000
    small files took (profiled). The lengths are the column's, read in one pass per field.
    """

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._lengths: dict[str, list[Any]] = {}
        self.column_reads = 0  # calls of the column's reader (a test counts them)

    def doc_field_length(self, docnum: int, fieldname: str, default: int = 0) -> Any:
        """The length of `fieldname` in entry `docnum`, as the segment's column says."""
        if (lengths := self._lengths.get(fieldname)) is None:
            count = self._reader.doc_count_all()
            self.column_reads += count
            lengths = self._lengths[fieldname] = [self._reader.doc_field_length(number, fieldname, default)
                                                  for number in range(count)]
        return lengths[docnum]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)


def analysed_as_now(directory: Path) -> bool:
    """Whether the index in `directory` holds the terms today's analysis gives (else: `faq reindex`)."""
    try:
        return (directory / ANALYSIS_FILE).read_text(encoding="utf-8") == ANALYSIS_VERSION
    except OSError:
        return False


def open_index(directory: Path) -> whoosh_index.Index:
    """Open an index built by `build_index`.

    Files are read, not memory-mapped: a truncated segment then raises an error the server
    can handle, where a mapping would kill the process with SIGBUS.
    """
    return FileStorage(str(directory), supports_mmap=False).open_index()
