"""A generation's search engine: everything one generation needs to answer a query, behind one `search`.

Lexical search is always there. Search by meaning joins when the generation's vectors are made
and loaded (`attach`); until then, or without the model, `search` answers lexically and says so.
"""

from __future__ import annotations

import os
import re
import struct
import threading
import time
import unicodedata
import zlib
from collections import OrderedDict
from concurrent.futures import Executor, Future
from concurrent.futures import TimeoutError as WaitedTooLong
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Literal

from whoosh.query import Term

from app.search.analysis import warm_up_analysis
from app.search.clauses import Thesaurus
from app.search.dense import DenseIndex
from app.search.embedding import Embedder, Vectors, query_text, vectors_recipe
from app.search.hanzi import warm_up_corrections
from app.search.hybrid import (
    LEXICAL_DEPTH,
    MIN_RELATED_Z,
    Mask,
    as_matches,
    blend_for,
    by_meaning,
    companion_scores,
    fuse,
    meaning_scores,
    nearest,
    with_questions,
)
from app.search.index import open_index
from app.search.ranking import SEARCH_BUDGET, Budget, Outcome, lexical_search, raw_search
from app.search.spelling import Vocabulary
from app.search.topk import LexicalIndex, TopK

Mode = Literal["hybrid", "lexical", "semantic"]
QUERY_VECTORS_KEPT = 256  # a reader paging through results asks for the same query again
# One token with a digit or a separator, read as two single-class scans: one pattern for both backtracked
# through every character of a long word.
IDENTIFIER = re.compile(r"[\w.\-/:+=]+", re.ASCII)
IDENTIFIER_MARK = re.compile(r"[\d_.\-/:+=]")
# Errors only bytes that are not what the index wrote can cause (a truncated or garbled file).
READ_ERRORS = (struct.error, EOFError, zlib.error)


class IndexDamaged(RuntimeError):
    """The generation's index proved damaged while it was searched; the message says how."""


def _file_stamps(directory: Path) -> dict[str, tuple[int, int, int]]:
    """Each index file's size, modification time and inode: a generation's files never change once built."""
    stamps = {}
    for entry in os.scandir(directory):
        stat = entry.stat()
        stamps[entry.name] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return stamps


@dataclass(frozen=True)
class QueryVectors:
    """A query's vector by the model and, when the generation has its vectors, by the companion model."""

    meaning: Vectors
    companion: Vectors | None = None


@dataclass
class Semantics:
    """A generation's vectors, the model that embeds queries the same way, and the threads that run it."""

    dense: DenseIndex
    embedder: Embedder
    runner: Executor

    def __post_init__(self) -> None:
        self._vectors: OrderedDict[str, QueryVectors] = OrderedDict()
        # A file made before the companion model is searched (e5 alone) while the worker remakes it.
        self.remaking = self.dense.manifest.recipe != vectors_recipe(self.embedder)
        self._lock = threading.Lock()

    def query_vector(self, text: str) -> Future[QueryVectors]:
        """The query's vectors, computed once per query text (and kept for the next page), on the model's threads:
        the lexical ranking runs meanwhile."""
        key = query_text(text)
        with self._lock:
            found = self._vectors.get(key)
            if found is not None:
                self._vectors.move_to_end(key)
                done: Future[QueryVectors] = Future()
                done.set_result(found)
                return done
        return self.runner.submit(self._embed, key)

    def _embed(self, key: str) -> QueryVectors:
        companion = self.embedder.companion if self.dense.companion is not None else None
        vector = QueryVectors(self.embedder.embed_queries([key])[0],
                              companion.embed([key])[0] if companion is not None else None)
        with self._lock:
            self._vectors[key] = vector
            while len(self._vectors) > QUERY_VECTORS_KEPT:
                self._vectors.popitem(last=False)
        return vector


def reads_as_words(text: str) -> bool:
    """Whether a query has words whose meaning can help: not a lone identifier (`LLAMA_OPT_01234_FLAG`,
    `libnccl.so.2`), which only its exact spelling finds."""
    token = unicodedata.normalize("NFKC", text).strip()
    return not (IDENTIFIER.fullmatch(token) and IDENTIFIER_MARK.search(token))


class SearchEngine:
    """One generation's index (its searcher and postings arrays), thesaurus, spelling vocabulary and,
    once attached, its vectors.

    Searches take turns on the index: the searcher and the arrays it fills are not safe to share between
    threads. Only the work on the index is done in a turn: a query's vector, a pasted error's reading,
    spelling corrections and the ranking by meaning are not, so waiting readers do not wait on them.
    """

    def __init__(self, index_dir: Path, thesaurus: Thesaurus) -> None:
        self.index_dir = index_dir
        self.lexical = LexicalIndex(open_index(index_dir).searcher())
        self.thesaurus = thesaurus
        self.vocabulary = Vocabulary.load(index_dir)
        self.semantics: Semantics | None = None
        self.damaged: str | None = None  # why the index cannot be trusted any more, once a search found out
        self._stamps = _file_stamps(index_dir)
        self._lock = threading.Lock()

    @property
    def doc_count(self) -> int:
        """How many entries the index holds."""
        count: int = self.lexical.searcher.doc_count()
        return count

    def entry_id(self, docnum: int) -> str:
        """The id of entry number `docnum`."""
        with self._lock:
            return self.lexical.entry(docnum)[0]

    def attach(self, semantics: Semantics) -> None:
        """Search by meaning too, from now on."""
        self.semantics = semantics

    def search(self, text: str, lang: str | None, depth: int, document: str | None = None,
               raw: bool = False, mode: Mode = "hybrid", correct: bool = True) -> Outcome:
        """The best `depth` entries for `text` and the total, within the request's time budget.

        `raw` takes Whoosh's query syntax as written; otherwise the text is read as a reader's
        words or a pasted error, and ranked by words and meaning (`mode`) as far as the
        generation's vectors allow; `correct=False` searches a misspelled query as typed. Raises IndexDamaged
        (and sets `damaged`) when the search fails because the index's files were damaged after they were opened.
        """
        try:
            return self._search(text, lang, depth, document, raw, mode, correct)
        except Exception as exc:
            problem = self._damage(exc)
            if problem is None:
                raise
            self.damaged = problem
            raise IndexDamaged(problem) from exc

    def _damage(self, exc: Exception) -> str | None:
        """What damage to the index explains `exc`, if any: its files changed since they were opened,
        or bytes that are not what the index wrote. A bug of ours changes no file."""
        try:
            now = _file_stamps(self.index_dir)
        except OSError as gone:
            return f"its folder cannot be read any more ({gone.strerror or gone})"
        changed = sorted(name for name in self._stamps.keys() | now.keys() if self._stamps.get(name) != now.get(name))
        if changed:
            return f"{', '.join(changed)} changed while served ({type(exc).__name__}: {exc})"
        if isinstance(exc, READ_ERRORS):
            return f"{type(exc).__name__}: {exc}"
        return None

    def _search(self, text: str, lang: str | None, depth: int, document: str | None, raw: bool,
                mode: Mode, correct: bool) -> Outcome:
        semantics = self.semantics if mode != "lexical" and not raw and reads_as_words(text) else None
        pending = semantics.query_vector(text) if semantics is not None else None
        vector = _wait(pending, SEARCH_BUDGET) if pending is not None and mode == "semantic" else None
        budget = Budget()
        if raw:
            with self._lock:
                return raw_search(self.lexical, text, lang, depth, document, budget)
        if semantics is None or pending is None:
            return lexical_search(self.lexical, text, lang, depth, self.thesaurus, self.vocabulary, document,
                                  budget, correct, turn=self._lock)
        with self._lock:
            allowed = self._allowed(semantics.dense, lang, document)
        if mode == "semantic" and vector is not None:
            z = with_questions(semantics.dense,
                               meaning_scores(semantics.dense, semantics.dense.cosines(vector.meaning)),
                               semantics.dense.question_cosines(vector.meaning))
            ranked = by_meaning(z, allowed, depth)
            with self._lock:  # the ids of the entries are read from the index
                matches = as_matches(ranked, self.lexical.entry)
            return Outcome(ranked.total, matches, [], ranking="semantic")
        words = lexical_search(self.lexical, text, lang, max(depth, LEXICAL_DEPTH), self.thesaurus,
                               self.vocabulary, document, budget, correct, turn=self._lock)
        vector = _wait(pending, budget.deadline - time.monotonic())
        if vector is None:  # the model is busy past the budget: the words' ranking stands alone
            return replace(words, matches=words.matches[:depth], provisional=True)
        cosines = semantics.dense.cosines(vector.meaning)
        admitted = meaning_scores(semantics.dense, cosines)
        z = with_questions(semantics.dense, admitted, semantics.dense.question_cosines(vector.meaning))
        fused = fuse(words.matches, words.total, cosines, z, allowed, depth, blend_for(text), words.coverage,
                     admitted, None if vector.companion is None
                     else partial(companion_scores, semantics.dense, vector.companion))
        with self._lock:  # the ids of entries found by meaning alone are read from the index
            matches = as_matches(fused, self.lexical.entry)
        return replace(words, total=fused.total, matches=matches, ranking="hybrid")

    def neighbours(self, entry_id: str, count: int) -> list[str]:
        """The entries closest in meaning to `entry_id` (either language, each compared within its own), best
        first; none without vectors or when none stands out."""
        semantics = self.semantics
        if semantics is None:
            return []
        with self._lock:
            docnum = self.lexical.searcher.document_number(id=entry_id)
        dense = semantics.dense
        if docnum is None or not dense.present[docnum]:
            return []
        z = meaning_scores(dense, dense.cosines(dense.vector(docnum)))
        close = (z >= MIN_RELATED_Z) & dense.present
        close[docnum] = False
        with self._lock:
            return [self.lexical.entry(int(other))[0] for other in nearest(z, close, count)]

    def _allowed(self, dense: DenseIndex, lang: str | None, document: str | None) -> Mask:
        """The entries with a vector that the filters admit (called in the search's turn)."""
        allowed: Mask = dense.present.copy()
        if lang:
            allowed &= dense.language_mask(lang)
        if document:
            allowed &= TopK(self.lexical).matches(Term("document_id", document))
        return allowed

    def warm(self) -> None:
        """Load what the first searches would otherwise load inside their time budget: the Chinese
        dictionary and typo tables, and the field lengths every search reads."""
        warm_up_analysis()
        warm_up_corrections()
        for field in self.lexical.searcher.schema.scorable_names():
            self.lexical.lengths(field)

    def close(self) -> None:
        """Release the index files."""
        self.lexical.searcher.close()


def _wait(pending: Future[QueryVectors], seconds: float) -> QueryVectors | None:
    """The query's vectors if they come within `seconds`, else None (kept for the next time when they come)."""
    try:
        return pending.result(timeout=max(seconds, 0.0))
    except WaitedTooLong:
        return None
