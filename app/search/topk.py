"""Top-k collection over numpy arrays of postings: Whoosh's BM25F scores, computed a term at a time.

Whoosh scores one posting at a time in Python; a vague query at 100k entries touches tens of
thousands of entries and spends almost all its time there. Here each term's postings are read
once per generation into arrays (entry numbers, weights) and scored together, the queries
that `clauses.py` builds (terms under AND and OR) are combined as arrays, and only the best
`limit` entries are sorted. Scores are Whoosh's own (same formula, same field-length
approximation, same boosts), and ties keep Whoosh's order (lower entry number first), so
the ranking is the one the exhaustive search gives. Other query kinds (phrases) are scored
by Whoosh's matchers and join the arrays.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3LeafMatcher, W3PerDocReader
from whoosh.columns import NumericColumn
from whoosh.query import And, Or, Query, Term
from whoosh.reading import IndexReader
from whoosh.scoring import BM25F
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

Ids = npt.NDArray[np.int32]
Weights = npt.NDArray[np.float32]  # as stored: Whoosh keeps weights as 32-bit floats
Floats = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]
# Postings kept in memory per generation and process (12 bytes each: entry number and score): the
# frequent terms of vague queries are read and scored once (about 0.1 s per 100k postings), not per search.
CACHED_POSTINGS = 4_000_000
CACHED_FREQUENCIES = 100_000  # terms whose entry count is kept (about 250 bytes each)
CLOCK_EVERY = 256  # matches scored by Whoosh between two looks at the clock
# What `query.Budget` has always added to every filtered entry's score: Whoosh's
# ConstantScoreQuery(filter, 0.0) scores 1.0 (a weight of 0.0 is falsy and reads as the default).
# Kept, because it weighs in the coverage rerank of searches filtered by language or document.
FILTER_SCORE = 1.0
NO_POSTINGS: tuple[Ids, Floats] = (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float64))
for _empty in NO_POSTINGS:
    _empty.setflags(write=False)  # shared by every unknown term
# Whoosh stores a field's length in one byte, approximately; the scorer reads it back through this table.
LENGTH_OF_BYTE = np.array([byte_to_length(b) for b in range(256)], dtype=np.float64)


@dataclass(frozen=True)
class Scored:
    """Which entries a query matches (a mask over entry numbers) and their scores (0 elsewhere)."""

    matched: Mask
    scores: Floats


@dataclass(frozen=True)
class Top:
    """The best entries of a search, best first, and how many entries matched in all."""

    total: int
    docnums: list[int]
    scores: list[float]


class LexicalIndex:
    """One generation's index searcher, with its postings and field lengths as arrays and the ids of the
    entries found, read on first use and kept (a searcher and its arrays live and go together)."""

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher
        self.size = searcher.doc_count_all()
        self._lengths: dict[str, Floats] = {}
        self._terms: OrderedDict[tuple[str, str], tuple[Ids, Floats]] = OrderedDict()
        self._frequencies: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._held = 0
        self._entries: dict[int, tuple[str, str]] = {}

    def entry(self, docnum: int) -> tuple[str, str]:
        """The id and language of entry `docnum` (a search reads up to 100; unpickling each cost 15 µs)."""
        found = self._entries.get(docnum)
        if found is None:
            stored = self.searcher.stored_fields(docnum)
            found = self._entries[docnum] = (stored["id"], stored["lang"])
        return found

    def lengths(self, field: str) -> Floats:
        """Every entry's length of `field`, as Whoosh's scorer sees it (stored as one byte, approximate)."""
        found = self._lengths.get(field)
        if found is None:
            found = np.zeros(self.size, dtype=np.float64)
            for leaf, offset in self.searcher.leaf_searchers():
                found[offset:offset + leaf.doc_count_all()] = _field_lengths(leaf.reader(), field)
            self._lengths[field] = found
        return found

    def frequency(self, field: str, text: str) -> int:
        """How many entries hold a term in a field (Whoosh looks it up in its hash table on every call)."""
        key = (field, text)
        found = self._frequencies.get(key)
        if found is None:
            found = self._frequencies[key] = self.searcher.doc_frequency(field, text)
            if len(self._frequencies) > CACHED_FREQUENCIES:  # a stream of random words must not grow it for ever
                self._frequencies.popitem(last=False)
        else:
            self._frequencies.move_to_end(key)
        return found

    def term(self, field: str, text: str) -> tuple[Ids, Floats]:
        """The entry numbers holding a term in a field, ascending, and the term's score in each before boosts.

        BM25F for a scorable field (whoosh.scoring.bm25 on every posting at once), else the stored weight.
        """
        key = (field, text)
        cached = self._terms.get(key)
        if cached is not None:
            self._terms.move_to_end(key)
            return cached
        if not self.frequency(field, text):
            # Only its count is kept (bounded): empty postings kept for every made-up word of a stream
            # of them would grow without end.
            return NO_POSTINGS
        parts: list[tuple[Ids, Weights]] = []
        for leaf, offset in self.searcher.leaf_searchers():
            reader = leaf.reader()
            if (field, text) in reader:
                ids, weights = _read_postings(reader.postings(field, text))
                parts.append((ids + offset, weights))
        ids = np.concatenate([p[0] for p in parts])
        found = (ids, self._bm25(field, text, ids, np.concatenate([p[1] for p in parts])))
        self._terms[key] = found
        self._held += len(found[0])
        while self._held > CACHED_POSTINGS and len(self._terms) > 1:
            _, (ids, _) = self._terms.popitem(last=False)
            self._held -= len(ids)
        return found

    def _bm25(self, field: str, text: str, ids: Ids, stored: Weights) -> Floats:
        """The term's score in each entry holding it (`ids`), from its stored weights, before boosts."""
        searcher = self.searcher
        weights = stored.astype(np.float64)
        if not searcher.schema[field].scorable:
            return weights  # Whoosh's WeightScorer: the weight is the score
        model: BM25F = searcher.weighting
        b = model._field_B.get(field, model.B)
        k1 = model.K1
        idf = searcher.idf(field, text)
        average = searcher.avg_field_length(field) or 1
        lengths = self.lengths(field)[ids]
        # The same operations in the same order as whoosh.scoring.bm25, so the floats are equal.
        scores: Floats = idf * ((weights * (k1 + 1)) / (weights + k1 * ((1 - b) + b * lengths / average)))
        return scores


def _read_postings(matcher: object) -> tuple[Ids, Weights]:
    """A term's postings as arrays, a block at a time where the codec allows it."""
    ids: list[object] = []
    weights: list[object] = []
    if isinstance(matcher, W3LeafMatcher):
        while matcher.is_active():
            matcher._read_ids()
            matcher._read_weights()
            ids.append(matcher._ids)
            weights.append(matcher._weights)
            matcher._next_block()
        if not ids:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float32)
        return (np.concatenate([np.asarray(i, dtype=np.int32) for i in ids]),
                np.concatenate([np.asarray(w, dtype=np.float32) for w in weights]))
    while matcher.is_active():  # type: ignore[attr-defined]
        ids.append(matcher.id())  # type: ignore[attr-defined]
        weights.append(matcher.weight())  # type: ignore[attr-defined]
        matcher.next()  # type: ignore[attr-defined]
    return np.asarray(ids, dtype=np.int32), np.asarray(weights, dtype=np.float32)


def _field_lengths(reader: IndexReader, field: str) -> Floats:
    """One segment's field lengths: its column of length bytes read at once where the codec allows it."""
    count = reader.doc_count_all()
    perdoc = getattr(reader, "_perdoc", None)
    if isinstance(perdoc, W3PerDocReader):
        column = perdoc._cached_reader(f"_{field}_len", LENGTHS_COLUMN)
        if isinstance(column, NumericColumn.Reader) and column._fixedlen == 1:
            codes = np.zeros(count, dtype=np.uint8)  # entries past the column's end have no length
            codes[:column._count] = np.frombuffer(column._dbfile.get(column._basepos, column._count), dtype=np.uint8)
            return LENGTH_OF_BYTE[codes]
    return np.array([reader.doc_field_length(docnum, field, 0) or 0 for docnum in range(count)], dtype=np.float64)


class TopK:
    """Scores the queries of one search request; subqueries used twice (AND, then OR) are scored once.

    Scores are dense arrays over every entry while a query is combined, and kept for the rest of
    the request only as the entries matched and their scores: a pasted traceback of 64 terms
    must not hold 64 arrays the size of the index.
    """

    def __init__(self, index: LexicalIndex, deadline: float = float("inf"),
                 phrase_seconds: float = float("inf")) -> None:
        self.searcher = index.searcher
        self.index = index
        self.deadline = deadline  # time.monotonic(); terms reached after it match nothing
        self.phrase_seconds = phrase_seconds  # what phrases may spend, from the first one on
        self._phrase_deadline: float | None = None
        self.exhausted = False
        self._kept: dict[int, tuple[Query, Ids, Floats]] = {}

    def top(self, query: Query, limit: int | None, filter_query: Query | None = None) -> Top:
        """The best `limit` entries (all if None) matching `query` and `filter_query`, and the total."""
        scored = self.score(query)
        docnums = np.flatnonzero(scored.matched)
        scores = scored.scores[docnums]
        if filter_query is not None:
            kept = self.score(filter_query).matched[docnums]
            docnums, scores = docnums[kept], scores[kept] + FILTER_SCORE
        total = len(docnums)
        if limit is not None and 0 < limit < len(docnums):
            # Everything scoring at least the limit-th best score, ties included, then the exact order.
            threshold = np.partition(scores, len(scores) - limit)[len(scores) - limit]
            keep = scores >= threshold
            docnums, scores = docnums[keep], scores[keep]
        order = np.lexsort((docnums, -scores))[:limit]
        return Top(total=total, docnums=docnums[order].tolist(), scores=scores[order].tolist())

    def matches(self, query: Query) -> Mask:
        """Which entries a (sub)query matches."""
        return self.score(query).matched

    def score(self, query: Query) -> Scored:
        """Every entry's score for `query`, as Whoosh computes it (fresh arrays: the caller may change them)."""
        kept = self._kept.get(id(query))
        if kept is not None and kept[0] is query:  # the query is kept too, so its id stays its own
            result = self._nothing()
            result.matched[kept[1]] = True
            result.scores[kept[1]] = kept[2]
            return result
        result = self._score(query)
        docnums = np.flatnonzero(result.matched).astype(np.int32)
        self._kept[id(query)] = (query, docnums, result.scores[docnums])
        return result

    def _score(self, query: Query) -> Scored:
        if isinstance(query, (And, Or)):
            subqueries = query.subqueries
            if not subqueries:
                return self._nothing()
            if len(subqueries) == 1:  # Whoosh's matcher is then the subquery's own, boost unapplied
                return self.score(subqueries[0])
            combine = np.logical_and if isinstance(query, And) else np.logical_or
            result = self.score(subqueries[0])
            for subquery in subqueries[1:]:
                part = self.score(subquery)
                combine(result.matched, part.matched, out=result.matched)
                np.add(result.scores, part.scores, out=result.scores)
            if isinstance(query, And):
                result.scores[~result.matched] = 0.0
            if query.boost != 1.0:
                np.multiply(result.scores, query.boost, out=result.scores)
            return result
        if self._late():
            return self._nothing()
        if isinstance(query, Term) and isinstance(self.searcher.weighting, BM25F):
            return self._term(query)
        return self._by_whoosh(query)

    def _late(self) -> bool:
        """Whether the deadline has passed (and so the search is cut short)."""
        return self._past(self.deadline)

    def _past(self, deadline: float) -> bool:
        late = time.monotonic() >= deadline
        self.exhausted = self.exhausted or late
        return late

    def _nothing(self) -> Scored:
        size = self.index.size
        return Scored(np.zeros(size, dtype=np.bool_), np.zeros(size, dtype=np.float64))

    def _term(self, term: Term) -> Scored:
        """BM25F for one term in one field (see `Postings.term`), times the term's boost."""
        field, text = term.fieldname, term.text
        result = self._nothing()
        if field not in self.searcher.schema:
            return result
        ids, scores = self.index.term(field, text)
        result.matched[ids] = True
        result.scores[ids] = scores * term.boost if term.boost != 1.0 else scores
        return result

    def _by_whoosh(self, query: Query) -> Scored:
        """Any other query (a phrase), matched and scored by Whoosh's own matcher, until the phrases' deadline."""
        result = self._nothing()
        if self.phrases_late():  # a phrase's matcher finds its first match as it is made: 0.1 s for a common one
            return result
        for leaf, offset in self.searcher.leaf_searchers():
            matcher = query.matcher(leaf)
            seen = 0
            while matcher.is_active():
                docnum = matcher.id() + offset
                result.matched[docnum] = True
                result.scores[docnum] = matcher.score()
                matcher.next()
                seen += 1
                if seen % CLOCK_EVERY == 0 and self.phrases_late():
                    return result
        return result

    def phrases_late(self) -> bool:
        """Whether the phrases' share is spent (the words go on until their deadline); the first call starts it."""
        if self._phrase_deadline is None:
            self._phrase_deadline = min(self.deadline, time.monotonic() + self.phrase_seconds)
        return self._past(self._phrase_deadline)
