"""Run a user's query against the index: BM25F over any term, reordered by how much of the query each entry holds."""

from __future__ import annotations

import html
import itertools
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from whoosh.collectors import Collector, TimeLimit, WrappingCollector
from whoosh.qparser import MultifieldParser
from whoosh.query import And, ConstantScoreQuery, Or, Phrase, Query, Term
from whoosh.searching import Results, Searcher

from app.search.analysis import HAN, analyse, identifier_words, normalise_text, query_terms, stem, term_spans
from app.search.errors import read_pasted
from app.search.spelling import Vocabulary
from app.search.topk import Top, TopK, postings_of

Glossary = Sequence[Sequence[str]]
QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
# The body holds breadcrumb, prose and code; the error field serves pasted errors. Two or
# three fields per term instead of five: same quality on the dev and project queries, and
# the search takes about half the time (measured side by side).
SEARCH_FIELDS = ("title", "body")
ERROR_FIELDS = ("title", "errors", "body")
CODE_FIELDS = ("title", "code", "body")  # for queries that look like code: identifiers, `spans`
CODE_LIKE = re.compile(r"`|\w[._/]\w|\b[A-Z0-9]+_[A-Z0-9_]+\b|==")
Fields = tuple[str, ...]
MAX_QUERY_TERMS = 64
MAX_PHRASES = 16  # "quoted phrases" searched as phrases; the rest as words
MAX_NESTING = 16  # parentheses, with syntax=raw
MAX_RAW_TERMS = 128
SNIPPET_CHARS = 180
EQUIVALENT_WEIGHT = 0.5  # a glossary equivalent counts, but less than the words the reader typed
LEXICON_WEIGHT = 0.3  # a mined equivalent counts less again: it was learnt, not written
# An equivalent in more entries than both of these is left out: it tells little (low idf) and
# costs much (every entry holding it is scored). Below the floor, any equivalent is cheap.
EQUIVALENT_MAX_SHARE = 0.05
EQUIVALENT_MIN_LIMIT = 500
SUGGEST_BELOW = 3  # offer a spelling suggestion when fewer entries than this match
SUGGEST_PREFIX = 1  # letters a correction keeps from the word as typed
WORD = re.compile(r"[A-Za-z][A-Za-z_\-]{2,}")
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
# Names with dots, digits or underscores (`libnccl.so.2`, `device_map`) identify a failure
# better than the English words around them; their segments match at a lower weight.
IDENTIFIER_LIKE = re.compile(r"[a-z][._\-/]?\d|\w[._/]\w|_")
IDENTIFIER_WEIGHT = 2.0
IDENTIFIER_SEPARATORS = re.compile(r"[._\-/+]+")
SEGMENT_WEIGHT = 0.5
SEGMENT_MAX_SHARE = 0.05  # a segment in more entries than this is not distinctive
WORDS_WEIGHT = 0.5  # an unknown identifier's words, all held by an entry (`Public Key Retrieval`)
COMPOUND = re.compile(r"[a-z]{7,}")  # an unknown word this long may be two glued together
MIN_COMPOUND_PART = 4
MIN_COMPOUND_REST = 3
CONTEXT_WEIGHT = 0.3  # the words of a pasted error outside its signature
MESSAGE_WEIGHT = 1.0  # an entry holding the pasted message's opening words as written (title or answer)
MIN_NAMING_WORDS = 3  # an opening this long, held by at most NAMING_MAX_ENTRIES entries, names the error
NAMING_MAX_ENTRIES = 3  # (an entry and its translation, or a few): `No module named` is in dozens
PAIR_WEIGHT = 1.0  # each pair of adjacent words of a pasted error's signature an entry holds as written
MAX_PAIRS = 16
# Segments that say where code lives, not what failed.
NAMESPACE_WORDS = frozenset("""
apache common core error errors exceptions http https internal java javax json main util utils yaml
""".split())


@dataclass(frozen=True)
class Match:
    """One matching entry id with its score (and its language, as the index stores it)."""

    id: str
    score: float
    lang: str = ""


@dataclass(frozen=True)
class Outcome:
    """The matches for one page, the total, the terms searched, and a spelling suggestion."""

    total: int
    matches: list[Match]
    terms: list[str]
    suggestion: str | None = None
    partial: bool = False  # the time budget ran out: the best found until then


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


def _term_query(term: str, fields: Fields, weight: float = 1.0) -> Query:
    return Or([Term(field, term, boost=weight) for field in fields])


def suggest(vocabulary: Vocabulary, text: str) -> str | None:
    """The query with unknown English words replaced by the closest words of the portal, if any."""
    changed = False

    def fix(match: re.Match[str]) -> str:
        nonlocal changed
        word = match.group(0)
        if len(word) < 4 or word.lower() in vocabulary:
            return word
        # Typists rarely miss a word's first letter; fixing it cuts the candidates walked 7×
        # (35 → 5 ms a word on the seeds' vocabulary, same corrections on our typo queries).
        closest = vocabulary.closest(word.lower(), maxdist=2, prefix=SUGGEST_PREFIX)
        if closest is None:
            return word
        changed = True
        return closest

    corrected = WORD.sub(fix, text)
    return corrected if changed else None


class QueryTooComplex(ValueError):
    """A query the engine will not run: too deeply nested or too many terms; the message says which."""


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        deepest = max(deepest, depth)
    return deepest


def search_raw(searcher: Searcher, text: str, lang: str | None, depth: int, document: str | None = None) -> Outcome:
    """Whoosh query syntax (`title:fsdp AND body:grad`, wildcards, groups) for those who ask for it."""
    if _nesting(text) > MAX_NESTING:
        raise QueryTooComplex(f"q: groups are nested {_nesting(text)} deep; at most {MAX_NESTING} levels of "
                              "parentheses")
    if len(text.split()) > MAX_RAW_TERMS:
        raise QueryTooComplex(f"q: {len(text.split())} words and operators; at most {MAX_RAW_TERMS} with syntax=raw")
    try:
        parsed = MultifieldParser(list(SEARCH_FIELDS), searcher.schema).parse(text)
    except RecursionError:
        raise QueryTooComplex("q: the query is too complex to parse; simplify it") from None
    terms = sorted({str(term) for _, term in parsed.iter_all_terms() if isinstance(term, str)})
    budget = Budget()
    hits = budget.search(searcher, parsed, depth, _filter(lang, document))
    return Outcome(total=budget.count(hits), matches=[Match(h["id"], float(h.score or 0.0), h["lang"]) for h in hits],
                   terms=terms, partial=budget.exhausted)


def search_index(searcher: Searcher, text: str, lang: str | None, depth: int,
                 thesaurus: Thesaurus | None = None, document: str | None = None,
                 vocabulary: Vocabulary | None = None) -> Outcome:
    """Entries matching `text`, best first (see `_run`); `lang` filters by language.

    A pasted error or traceback is searched by its signature; a query that finds nothing
    and looks misspelled is searched as corrected, and the correction is returned.
    """
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
    thesaurus = thesaurus or Thesaurus()
    budget = Budget()  # one for the request: the corrected search below spends what is left of it
    outcome = _run(searcher, text, lang, depth, thesaurus, budget, document, fields, context, phrase)
    suggestion = suggest(vocabulary, text) if vocabulary is not None and outcome.total < SUGGEST_BELOW else None
    if suggestion and not budget.exhausted:
        corrected = _run(searcher, suggestion, lang, depth, thesaurus, budget, document, fields)
        if corrected.total > outcome.total:
            return Outcome(corrected.total, corrected.matches, corrected.terms, suggestion, corrected.partial)
    return Outcome(outcome.total, outcome.matches, outcome.terms, suggestion, outcome.partial)


def _filter(lang: str | None, document: str | None) -> Query | None:
    """Restrict results to a language and/or a document."""
    filters = [Term("lang", lang)] if lang else []
    if document:
        filters.append(Term("document_id", document))
    return And(filters) if filters else None


@lru_cache(maxsize=65536)
def _phrase_terms(phrase: str) -> tuple[str, ...]:
    """A glossary phrase's query terms (the same lines are read for every query)."""
    return tuple(query_terms(phrase))


Line = tuple[str, Sequence[str], float]  # a phrase, its line (the phrase among its equivalents), the weight


class Thesaurus:
    """The editor's glossary and the lexicons, indexed by how a query can mention their phrases.

    A Chinese phrase is mentioned when the query holds it as written; another phrase when
    the query holds all its stems. Built once per generation: a query looks up its own
    substrings and stems instead of testing thousands of lines.
    """

    def __init__(self, sources: Sequence[tuple[Glossary, float]] = ()) -> None:
        self.written: dict[str, list[Line]] = {}  # normalised Chinese phrase → lines
        self.by_first_stem: dict[str, list[Line]] = {}
        for groups, weight in sources:
            for group in groups:
                for phrase in group:
                    normalised = normalise_text(phrase)
                    if HAN.search(normalised):
                        self.written.setdefault(normalised, []).append((phrase, group, weight))
                    elif stems := _phrase_terms(phrase):
                        self.by_first_stem.setdefault(stems[0], []).append((phrase, group, weight))
        self.lengths = sorted({len(key) for key in self.written})

    def mentioned(self, normalised_query: str, query_stems: set[str]) -> list[Line]:
        """The lines whose phrase the query mentions, in source order."""
        found: list[Line] = []
        text = normalised_query
        for start in range(len(text)):
            for length in self.lengths:
                if start + length > len(text):
                    break
                found.extend(self.written.get(text[start:start + length], ()))
        for first in query_stems:
            found.extend(line for line in self.by_first_stem.get(first, ())
                         if all(t in query_stems for t in _phrase_terms(line[0])))
        return found


def _identifier_query(term: str, fields: Fields, searcher: Searcher, words: Sequence[str] = ()) -> Query:
    """A term; an identifier weighs more and also matches its distinctive segments, weighted lower.

    `com.datastax…NoHostAvailableException` must meet an entry that names the exception
    alone, `libnccl.so.2` one that says `libnccl`, `flash-attn` one that says `flash_attn`.
    A segment found in many entries (`flag`, `peft` in a PEFT portal) tells nothing and
    would only make the search slow.
    """
    weight = IDENTIFIER_WEIGHT if IDENTIFIER_LIKE.search(term) else 1.0
    whole = _term_query(term, fields, weight)
    limit = SEGMENT_MAX_SHARE * searcher.doc_count()
    segments = [part for part in dict.fromkeys(IDENTIFIER_SEPARATORS.split(term))
                if len(part) >= 4 and not part.isdigit() and part not in NAMESPACE_WORDS and part != term]
    if not segments and _unknown(searcher, term, fields):
        segments = _known_prefix(searcher, term, fields)
    options = [whole]
    for part in segments:
        for form in dict.fromkeys((part, stem(part))):
            if max(_frequency(searcher, field, form) for field in fields) <= limit:
                options.append(_term_query(form, fields, weight * SEGMENT_WEIGHT))
    words = [word for word in dict.fromkeys(words) if len(word) >= 3 and word.isalpha() and word != term]
    if words and _unknown(searcher, term, fields):  # `onSelect` → select: short words say little alone
        options.append(And([_term_query(word, fields, weight * WORDS_WEIGHT) for word in words]))
    return Or(options) if len(options) > 1 else whole


def _unknown(searcher: Searcher, term: str, fields: Fields) -> bool:
    return not any(_frequency(searcher, field, term) for field in fields)


def _frequency(searcher: Searcher, field: str, text: str) -> int:
    return postings_of(searcher).frequency(searcher, field, text)


def _known_prefix(searcher: Searcher, term: str, fields: Fields) -> list[str]:
    """The longest indexed word that starts an unknown compound: `etcdserver` → `etcd`.

    Error messages glue names together that the entries write apart; a substring search
    finds them, a word index does not without this.
    """
    if not COMPOUND.fullmatch(term):
        return []
    for end in range(len(term) - MIN_COMPOUND_REST, MIN_COMPOUND_PART - 1, -1):
        if not _unknown(searcher, term[:end], fields):
            return [term[:end]]
    return []


def _phrase_words(text: str) -> list[str]:
    """Index-side terms of a phrase, the finest one per position (identifier parts, bigrams),
    so the phrase lines up with the positions stored in the index."""
    finest: dict[int, str] = {}
    for term in analyse(text):
        if term.position not in finest or len(term.text) < len(finest[term.position]):
            finest[term.position] = term.text
    return [finest[p] for p in sorted(finest)]


def _phrase_query(terms: list[str], fields: Fields) -> Query:
    if len(terms) == 1:
        return _term_query(terms[0], fields)
    return Or([Phrase(field, terms) for field in fields])


def _clauses(searcher: Searcher, text: str, thesaurus: Thesaurus, fields: Fields) -> tuple[list[Query], list[str]]:
    """One clause per query term or "quoted phrase"; a glossary or lexicon term also matches its equivalents.

    The editor's glossary comes first; the mined lexicon fills in, weighted lower still.

    Returns the clauses and every term worth highlighting (equivalents included).
    """
    phrases: list[Query] = []
    quoted_terms: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for match in itertools.islice(QUOTED.finditer(text), MAX_PHRASES):
        words = _phrase_words(match.group(1) or match.group(2))
        if words and tuple(words) not in seen:  # a phrase quoted twice asks for nothing more
            seen.add(tuple(words))
            phrases.append(_phrase_query(words, fields))
            quoted_terms.extend(words)
    text = QUOTED.sub(" ", text, count=MAX_PHRASES)
    terms = query_terms(text)[:MAX_QUERY_TERMS]
    normalised = normalise_text(text)
    remaining = list(terms)
    highlighted = list(terms)
    clauses: list[Query] = []
    query_stems = set(terms)
    mentioned = thesaurus.mentioned(normalised, query_stems)
    # The editor's lines first; the longest phrase wins where lines overlap ("memory fragmentation" over "memory").
    for phrase, group, weight in sorted(mentioned, key=lambda pgw: (-pgw[2], -len(_phrase_terms(pgw[0])))):
        covered = list(_phrase_terms(phrase))
        if not covered or not all(t in remaining for t in covered):
            continue
        options: list[Query] = [And([_term_query(t, fields) for t in covered])]
        for other in group:
            other_terms = list(_phrase_terms(other))
            if other != phrase and other_terms and not _too_common(searcher, other_terms, fields):
                options.append(And([_term_query(t, fields, weight) for t in other_terms]))
                highlighted.extend(other_terms)
        clauses.append(Or(options))
        for t in covered:
            remaining.remove(t)
    identifiers = identifier_words(text)
    clauses.extend(_identifier_query(t, fields, searcher, identifiers.get(t, [])) for t in remaining)
    return phrases + clauses, list(dict.fromkeys(quoted_terms + highlighted))


def _too_common(searcher: Searcher, terms: Sequence[str], fields: Fields) -> bool:
    """Whether an equivalent's rarest word is in so many entries that it tells little and costs much.

    `模型 ~ model` in a portal about models would score most entries at a fraction of a weight.
    """
    limit: float = max(EQUIVALENT_MAX_SHARE * searcher.doc_count(), EQUIVALENT_MIN_LIMIT)
    rarest: int = min(max(_frequency(searcher, field, t) for field in fields) for t in terms)
    return rarest > limit


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


def _run(searcher: Searcher, text: str, lang: str | None, depth: int,
         thesaurus: Thesaurus, budget: Budget, document: str | None = None, fields: Fields = SEARCH_FIELDS,
         context: str = "", phrase: str = "") -> Outcome:
    """The best `depth` matches and the total: BM25F over any term, weighted by how much of the query it holds.

    An entry that holds every rare word of the query outranks one that repeats a common
    word often; coverage is weighted by idf, so "error" or "how" missing costs little.
    """
    clauses, terms = _clauses(searcher, text, thesaurus, fields)
    if not clauses:
        return Outcome(total=0, matches=[], terms=[])
    filter_query = _filter(lang, document)
    known = set(terms)
    hints = [_term_query(t, fields, CONTEXT_WEIGHT) for t in query_terms(context)[:MAX_QUERY_TERMS] if t not in known]
    quoted = _phrase_words(phrase)
    message = Or([Phrase(field, quoted, boost=MESSAGE_WEIGHT) for field in SEARCH_FIELDS]) if len(quoted) > 1 else None
    scoring = TopK(searcher, budget.deadline, PHRASE_BUDGET)
    if len(clauses) == 1 and not hints and message is None:
        hits = budget.top(scoring, clauses[0], depth, filter_query)
        return Outcome(total=hits.total, matches=_matches(searcher, hits), terms=terms, partial=budget.exhausted)
    if len(clauses) > 1:
        strict = budget.top(scoring, And(clauses), depth, filter_query)
        if strict.total >= RERANK_DEPTH or budget.exhausted:
            # Plenty of entries hold every query word: they all cover the query, BM25 orders them.
            return Outcome(total=strict.total, matches=_matches(searcher, strict), terms=terms,
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

    def reranked(docnum: int, score: float) -> float:
        coverage: float = 1.0 if docnum in naming else held[docnum] / whole
        return (score + quoting.get(docnum, 0.0) + nearby.get(docnum, 0.0)) * float(coverage ** COVERAGE_POWER)

    scored = sorted(((reranked(docnum, score), rank)
                     for rank, (docnum, score) in enumerate(zip(hits.docnums, hits.scores, strict=True))),
                    key=lambda pair: -pair[0])
    matches = [_match(searcher, hits.docnums[rank], score) for score, rank in scored[:depth]]
    return Outcome(total=hits.total, matches=matches, terms=terms, partial=budget.exhausted or scoring.exhausted)


def _pairs_query(signature: str) -> Or | None:
    """Each pair of adjacent words of an error's signature (quotes already masked) as a phrase, in any
    searched field (at most MAX_PAIRS)."""
    words = _phrase_words(signature)
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


def _matches(searcher: Searcher, top: Top) -> list[Match]:
    return [_match(searcher, docnum, score) for docnum, score in zip(top.docnums, top.scores, strict=True)]


def _match(searcher: Searcher, docnum: int, score: float) -> Match:
    entry_id, lang = postings_of(searcher).entry(searcher, docnum)
    return Match(entry_id, score, lang)


def _weight_held(scoring: TopK, clauses: list[Query], weights: list[float], docnums: list[int]) -> dict[int, float]:
    """For each candidate entry, the summed weight of the clauses it matches (clauses already scored by the search)."""
    held = dict.fromkeys(docnums, 0.0)
    for clause, weight in zip(clauses, weights, strict=True):
        matched = scoring.matches(clause)
        for docnum in docnums:
            if matched[docnum]:
                held[docnum] += weight
    return held


def _marked(text: str, spans: list[tuple[int, int]], begin: int, end: int) -> str:
    """`text[begin:end]` HTML-escaped, with the spans inside it in <mark>."""
    parts: list[str] = []
    cursor = begin
    for start, stop in spans:
        if stop <= begin or start >= end:
            continue
        start, stop = max(start, begin), min(stop, end)
        parts.append(html.escape(text[cursor:start]))
        parts.append(f"<mark>{html.escape(text[start:stop])}</mark>")
        cursor = stop
    parts.append(html.escape(text[cursor:end]))
    return "".join(parts)


def mark_terms(text: str, terms: list[str]) -> str:
    """All of `text`, HTML-escaped, with the query's terms in <mark> (for titles)."""
    return _marked(text, term_spans(text, terms), 0, len(text))


def make_snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """An HTML-escaped excerpt of `text` around its best run of matches, matches in <mark>."""
    spans = term_spans(text, terms)
    if not spans:
        excerpt = text[:width]
        return html.escape(excerpt) + ("…" if len(text) > width else "")
    best_start, best_count = spans[0][0], 0
    for i, (start, _) in enumerate(spans):
        count = sum(1 for s, e in spans[i:] if e <= start + width)
        if count > best_count:
            best_start, best_count = start, count
    begin = max(0, best_start - width // 4)
    end = min(len(text), begin + width)
    excerpt = ("…" if begin > 0 else "") + _marked(text, spans, begin, end) + ("…" if end < len(text) else "")
    return " ".join(excerpt.split())
