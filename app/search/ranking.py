"""Lexical ranking within a time budget: BM25F over any term, reordered by how much of the query each entry
holds."""

from __future__ import annotations

import itertools
import re
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from whoosh.collectors import Collector, TimeLimit, WrappingCollector
from whoosh.qparser import MultifieldParser
from whoosh.query import And, ConstantScoreQuery, Or, Phrase, Query, Term
from whoosh.searching import Results, Searcher

from app.search.analysis import query_terms, shorten_words
from app.search.clauses import (
    CODE_FIELDS,
    CODE_LIKE,
    ERROR_FIELDS,
    MAX_QUERY_TERMS,
    SEARCH_FIELDS,
    Fields,
    Thesaurus,
    build_clauses,
    phrase_words,
    term_query,
)
from app.search.errors import read_pasted
from app.search.hanzi import HAN_RUN, correct_chinese
from app.search.spelling import Vocabulary, suggest
from app.search.topk import LexicalIndex, Top, TopK

MAX_NESTING = 16  # parentheses, with syntax=raw
MAX_RAW_TERMS = 128
SUGGEST_BELOW = 3  # offer a spelling suggestion when fewer entries than this match
# What issue templates put before a pasted title: "[Bug]: ", "<title>", "help request: ".
ISSUE_TEMPLATE = re.compile(
    r"^(?:\s*(?:\[[\w\s\-/]{1,24}\]|<title>|(?:bug|help request|feature request|question|usage|installation)"
    r"\s*[:：]))+\s*:?", re.IGNORECASE)
# Seconds of scoring per request; past it a search returns what it found (`partial`). The request's
# budget is one second: the rest of it builds the page (snippets, rows, JSON).
SEARCH_BUDGET = 0.9
# Of that, what phrases may spend, counted from the first phrase (reading a common word's postings
# on a cold server must not use up their share). A phrase of common words is matched position by
# position in Python, and a search holds its generation's searcher while it scores: sixteen such
# phrases held it for the whole budget while every other search waited (their p99 went 5x up at 100k).
PHRASE_BUDGET = 0.2
RERANK_DEPTH = 100  # BM25F candidates reordered by how much of the query they hold
# Tuned together on eval/queries-real.tsv with `faq eval --compare` (flat around these values).
COVERAGE_POWER = 1.5  # how strongly a missing query word demotes an entry
IDF_POWER = 2.0  # a clause weighs idf²: one rare identifier outweighs several common words
CONTEXT_WEIGHT = 0.3  # the words of a pasted error outside its signature
MESSAGE_WEIGHT = 1.0  # an entry holding the pasted message's opening words as written (title or answer)
MIN_NAMING_WORDS = 3  # an opening this long, held by at most NAMING_MAX_ENTRIES entries, names the error
NAMING_MAX_ENTRIES = 3  # (an entry and its translation, or a few): `No module named` is in dozens
PAIR_WEIGHT = 1.0  # each pair of adjacent words of a pasted error's signature an entry holds as written
MAX_PAIRS = 16
COMMON_SHARE = 0.2  # a term more than this share of entries hold is not highlighted (it says nothing about the hit)
# Searched (a negation can matter), but not worth a highlight: alone in a snippet they point at nothing.
STOP_LIKE = frozenset({"not", "no", "can", "cannot", "could", "should", "would", "will", "get", "use",
                       "不可", "不能", "可以", "没有", "需要"})
UNSHARED = nullcontext()  # the turn of an index no other search uses


@dataclass(frozen=True)
class Match:
    """One matching entry id with its score (and its language, as the index stores it)."""

    id: str
    score: float
    lang: str = ""
    docnum: int = -1  # the entry's number in the generation's index (and vector file)


@dataclass(frozen=True)
class Outcome:
    """The matches for one page, the total, the terms searched, and a spelling suggestion."""

    total: int
    matches: list[Match]
    terms: list[str]
    suggestion: str | None = None
    partial: bool = False  # the time budget ran out: the best found until then
    ranking: str = "lexical"  # how the matches were ranked: lexical, hybrid (words and meaning) or semantic
    corrected: bool = False  # the matches are those of `suggestion`, searched instead of the query as typed
    unmatched: tuple[str, ...] = ()  # words of the query (as typed) that no entry holds
    provisional: bool = False  # ranked by words only because the query's vector came too late: next time may differ
    coverage: float = 1.0  # the share of the query's weight (idf²) the best match holds: 1 when it holds every word


class _DeadlineCollector(WrappingCollector):  # type: ignore[misc]
    """Stops collecting at a deadline (a clock check per match; no timer thread, no signal)."""

    def __init__(self, child: Collector, deadline: float) -> None:
        self.child = child
        self.deadline = deadline

    def collect_matches(self) -> None:
        for docnum in self.child.matches():
            if time.monotonic() > self.deadline:
                raise TimeLimit
            self.child.collect(docnum)


class Budget:
    """The scoring time one search request may spend; searches past it return what they have."""

    def __init__(self, seconds: float | None = None) -> None:
        self.deadline = time.monotonic() + (SEARCH_BUDGET if seconds is None else seconds)
        self.exhausted = False

    def search(self, searcher: Searcher, query: Query, limit: int | None, filter_query: Query | None) -> Results:
        """`searcher.search`, stopped when the budget runs out (then `exhausted` is set)."""
        # The filter joins the query (scoring nothing): whoosh's filter collector would bypass the timer.
        if filter_query is not None:
            query = And([query, ConstantScoreQuery(filter_query, 0.0)])
        collector = _DeadlineCollector(searcher.collector(limit=limit), self.deadline)
        try:
            searcher.search_with_collector(query, collector)
        except TimeLimit:
            self.exhausted = True
        results: Results = collector.results()
        return results

    def top(self, scoring: TopK, query: Query, limit: int | None, filter_query: Query | None) -> Top:
        """`scoring.top`: the best `limit` entries and the total, from the terms scored before the budget ran out."""
        top = scoring.top(query, limit, filter_query)
        self.exhausted = self.exhausted or scoring.exhausted
        return top

    def count(self, results: Results) -> int:
        """How many entries matched; only those scored when the budget ran out."""
        return results.scored_length() if self.exhausted else len(results)


class QueryTooComplex(ValueError):
    """A query the engine will not run: too deeply nested or too many terms; the message says which."""


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        deepest = max(deepest, depth)
    return deepest


def raw_search(index: LexicalIndex, text: str, lang: str | None, depth: int, document: str | None,
               budget: Budget) -> Outcome:
    """Whoosh query syntax (`title:fsdp AND body:grad`, wildcards, groups) for those who ask for it."""
    if _nesting(text) > MAX_NESTING:
        raise QueryTooComplex(f"q: groups are nested {_nesting(text)} deep; at most {MAX_NESTING} levels of "
                              "parentheses")
    if len(text.split()) > MAX_RAW_TERMS:
        raise QueryTooComplex(f"q: {len(text.split())} words and operators; at most {MAX_RAW_TERMS} with syntax=raw")
    searcher = index.searcher
    try:
        parsed = MultifieldParser(list(SEARCH_FIELDS), searcher.schema).parse(text)
    except RecursionError:
        raise QueryTooComplex("q: the query is too complex to parse; simplify it") from None
    terms = sorted({str(term) for _, term in parsed.iter_all_terms() if isinstance(term, str)})
    hits = budget.search(searcher, parsed, depth, _filter(lang, document))
    matches = [Match(hit["id"], float(hit.score or 0.0), hit["lang"], hit.docnum) for hit in hits]
    return Outcome(total=budget.count(hits), matches=matches, terms=terms, partial=budget.exhausted)


def lexical_search(index: LexicalIndex, text: str, lang: str | None, depth: int, thesaurus: Thesaurus,
                   vocabulary: Vocabulary, document: str | None, budget: Budget, correct: bool = True,
                   turn: AbstractContextManager[object] = UNSHARED) -> Outcome:
    """Entries matching `text`, best first (see `_run`); `lang` filters by language.

    A pasted error or traceback is searched by its signature; a query that finds nothing
    and looks misspelled (English words by spelling, Chinese by sound and shape) is searched
    as corrected unless `correct` is false, and the correction is returned either way (`corrected`
    when its results are the ones returned). The words of a typed query that no entry holds are named.
    Only the work on the index is done holding `turn` (the generation's searcher is not shared):
    reading a paste and spelling English words are not, so other searches need not wait on them.
    Each word is read up to MAX_WORD_LENGTH characters (`shorten_words`).
    """
    text = shorten_words(text)
    text = ISSUE_TEMPLATE.sub("", text).strip() or text
    fields: Fields = CODE_FIELDS if CODE_LIKE.search(text) else SEARCH_FIELDS
    context = phrase = ""
    if pasted := read_pasted(text):
        signature, message = pasted
        if signature:
            # The signature decides; the rest (`from etcd`, the frames' module names) helps a little,
            # and an entry quoting the message as written (`Type is required`) more.
            context, text, phrase = text, signature, message
        fields = ERROR_FIELDS
    with turn:
        outcome = _run(index, text, lang, depth, thesaurus, budget, document, fields, context, phrase)
    suggestion = None
    if outcome.total < SUGGEST_BELOW and not budget.exhausted:
        suggestion, cut_short = suggest(vocabulary, text, budget.deadline)
        budget.exhausted = budget.exhausted or cut_short
        if suggestion is None and HAN_RUN.search(text):
            with turn:
                suggestion = correct_chinese(text, lambda pair: _entries_holding(index, pair))
    with turn:
        if suggestion and correct and not budget.exhausted:  # the corrected search spends what is left of the budget
            corrected = _run(index, suggestion, lang, depth, thesaurus, budget, document, fields)
            if corrected.total > outcome.total:
                return Outcome(corrected.total, corrected.matches, _informative(index, corrected.terms), suggestion,
                               corrected.partial, corrected=True,
                               unmatched=() if context else unmatched_words(index, suggestion),
                               coverage=corrected.coverage)
        return Outcome(outcome.total, outcome.matches, _informative(index, outcome.terms), suggestion,
                       outcome.partial or budget.exhausted, unmatched=() if context else unmatched_words(index, text),
                       coverage=outcome.coverage)


def _informative(index: LexicalIndex, terms: list[str]) -> list[str]:
    """The terms worth highlighting: not those most entries hold (`not`, `names`, `不可`), unless nothing else is left.
    """
    common = index.searcher.doc_count() * COMMON_SHARE
    telling = [term for term in terms if term not in STOP_LIKE and _entries_holding(index, term) <= common]
    return telling or terms


def _entries_holding(index: LexicalIndex, term: str) -> int:
    """How many entries hold `term` in a title or an answer (at most: one may hold it in both)."""
    return sum(index.frequency(field, term) for field in SEARCH_FIELDS)


def unmatched_words(index: LexicalIndex, text: str) -> tuple[str, ...]:
    """The words of a query of several words that no entry holds in any form: "no entry mentions kubernetes"."""
    words = list(dict.fromkeys(text.split()))
    if len(words) < 2:
        return ()  # a lone word that matches nothing is the page's "no entry matches"
    searched = set(query_terms(text))  # a stop word ("out" of "CUDA out of memory") is not searched: never named
    return tuple(word for word in words[:MAX_QUERY_TERMS]
                 if (terms := [term for term in query_terms(word) if term in searched])
                 and not any(_entries_holding(index, term) for term in terms))


def _filter(lang: str | None, document: str | None) -> Query | None:
    """Restrict results to a language and/or a document."""
    filters = [Term("lang", lang)] if lang else []
    if document:
        filters.append(Term("document_id", document))
    return And(filters) if filters else None


def _clause_weight(searcher: Searcher, clause: Query) -> float:
    """How much a clause tells: idf² of its strongest term, times that term's boost.

    A rare identifier outweighs "error", and weighs in coverage as it weighs in the score.
    """
    weights = [_idf(searcher, text) ** IDF_POWER * leaf.boost
               for leaf in clause.leaves() for _, text in leaf.iter_all_terms()]
    return max(weights, default=0.0)


def _idf(searcher: Searcher, text: str) -> float:
    """A term's idf in the field that holds it most often: "api", rare in titles, is not rare."""
    return min(float(searcher.idf(field, text)) for field in SEARCH_FIELDS)


def _run(index: LexicalIndex, text: str, lang: str | None, depth: int,
         thesaurus: Thesaurus, budget: Budget, document: str | None = None, fields: Fields = SEARCH_FIELDS,
         context: str = "", phrase: str = "") -> Outcome:
    """The best `depth` matches and the total: BM25F over any term, weighted by how much of the query it holds.

    An entry that holds every rare word of the query outranks one that repeats a common
    word often; coverage is weighted by idf, so "error" or "how" missing costs little.
    """
    searcher = index.searcher
    clauses, terms = build_clauses(index, text, thesaurus, fields)
    if not clauses:
        return Outcome(total=0, matches=[], terms=[])
    filter_query = _filter(lang, document)
    known = set(terms)
    hints = [term_query(t, fields, CONTEXT_WEIGHT) for t in query_terms(context)[:MAX_QUERY_TERMS] if t not in known]
    quoted = phrase_words(phrase)
    message = Or([Phrase(field, quoted, boost=MESSAGE_WEIGHT) for field in SEARCH_FIELDS]) if len(quoted) > 1 else None
    scoring = TopK(index, budget.deadline, PHRASE_BUDGET)
    if len(clauses) == 1 and not hints and message is None:
        hits = budget.top(scoring, clauses[0], depth, filter_query)
        return Outcome(total=hits.total, matches=_matches(index, hits), terms=terms, partial=budget.exhausted)
    if len(clauses) > 1:
        strict = budget.top(scoring, And(clauses), depth, filter_query)
        if strict.total >= RERANK_DEPTH or budget.exhausted:
            # Plenty of entries hold every query word: they all cover the query, BM25 orders them.
            return Outcome(total=strict.total, matches=_matches(index, strict), terms=terms,
                           partial=budget.exhausted)
    # Context hints add to the score but not to coverage: missing them costs nothing.
    hits = budget.top(scoring, Or(clauses + hints), max(depth, RERANK_DEPTH), filter_query)
    weights = [_clause_weight(searcher, clause) for clause in clauses]
    held = _weight_held(scoring, clauses, weights, hits.docnums)
    quoting = _candidate_scores(searcher, message, hits.docnums, scoring) if message is not None else {}
    # A pasted error is written by a machine: an entry holding its words side by side quotes the same
    # message. (Readers' own questions are worded freely; rewarding word order there ranked worse.)
    pairs = _pairs_query(text) if context else None
    nearby = _candidate_scores(searcher, pairs, hits.docnums, scoring) if pairs is not None else {}
    # An entry quoting a distinctive message names the error even when it leaves out the type
    # (`Type is required` for `java.lang.IllegalArgumentException: Type is required.`).
    naming = set(quoting) if len(quoted) >= MIN_NAMING_WORDS and len(quoting) <= NAMING_MAX_ENTRIES else set()
    whole = sum(weights) or 1.0

    def coverage(docnum: int) -> float:
        return 1.0 if docnum in naming else held[docnum] / whole

    def reranked(docnum: int, score: float) -> float:
        return (score + quoting.get(docnum, 0.0) + nearby.get(docnum, 0.0)) * float(coverage(docnum) ** COVERAGE_POWER)

    scored = sorted(((reranked(docnum, score), rank)
                     for rank, (docnum, score) in enumerate(zip(hits.docnums, hits.scores, strict=True))),
                    key=lambda pair: -pair[0])
    matches = [_match(index, hits.docnums[rank], score) for score, rank in scored[:depth]]
    return Outcome(total=hits.total, matches=matches, terms=terms, partial=budget.exhausted or scoring.exhausted,
                   coverage=coverage(hits.docnums[scored[0][1]]) if scored else 1.0)


def _pairs_query(signature: str) -> Or | None:
    """Each pair of adjacent words of an error's signature (quotes already masked) as a phrase, in any
    searched field (at most MAX_PAIRS)."""
    words = phrase_words(signature)
    pairs = list(dict.fromkeys(itertools.pairwise(words)))[:MAX_PAIRS]
    if not pairs:
        return None
    return Or([Phrase(field, list(pair), boost=PAIR_WEIGHT) for pair in pairs for field in SEARCH_FIELDS])


def _candidate_scores(searcher: Searcher, query: Or, docnums: list[int], scoring: TopK) -> dict[int, float]:
    """`query`'s scores for the candidates only: a phrase's positions are read for them, not for every entry
    holding its words (`is`, `not` are in most). Its phrases are scored one by one (an `Or` sums them)
    while the phrases' share of the budget lasts: making a common phrase's matcher reads positions until its
    first match."""
    scores: dict[int, float] = {}
    wanted = sorted(docnums)
    for phrase in query.subqueries:
        if scoring.phrases_late():
            break
        for leaf, offset in searcher.leaf_searchers():
            matcher = phrase.matcher(leaf)
            for docnum in wanted:
                local = docnum - offset
                if local < 0 or not matcher.is_active():
                    continue
                if matcher.id() < local:
                    matcher.skip_to(local)
                if matcher.is_active() and matcher.id() == local:
                    scores[docnum] = scores.get(docnum, 0.0) + matcher.score()
    return scores


def _matches(index: LexicalIndex, top: Top) -> list[Match]:
    return [_match(index, docnum, score) for docnum, score in zip(top.docnums, top.scores, strict=True)]


def _match(index: LexicalIndex, docnum: int, score: float) -> Match:
    entry_id, lang = index.entry(docnum)
    return Match(entry_id, score, lang, docnum)


def _weight_held(scoring: TopK, clauses: list[Query], weights: list[float], docnums: list[int]) -> dict[int, float]:
    """For each candidate entry, the summed weight of the clauses it matches (clauses already scored by the search)."""
    held = dict.fromkeys(docnums, 0.0)
    for clause, weight in zip(clauses, weights, strict=True):
        matched = scoring.matches(clause)
        for docnum in docnums:
            if matched[docnum]:
                held[docnum] += weight
    return held
