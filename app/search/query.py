"""Run a user's query against the index: AND first, then OR to fill the page."""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from whoosh.qparser import MultifieldParser
from whoosh.query import And, Or, Phrase, Query, Term
from whoosh.searching import Searcher

from app.search.analysis import HAN_RUN, analyse, normalise_text, query_terms
from app.search.errors import error_signature, looks_like_error

Glossary = Sequence[Sequence[str]]
HAN = re.compile(HAN_RUN)
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
SNIPPET_CHARS = 180
EQUIVALENT_WEIGHT = 0.5  # a glossary equivalent counts, but less than the words the reader typed
SUGGEST_BELOW = 3  # offer a spelling suggestion when fewer entries than this match
WORD = re.compile(r"[A-Za-z][A-Za-z_\-]{2,}")


@dataclass(frozen=True)
class Match:
    """One matching entry id with its score."""

    id: str
    score: float


@dataclass(frozen=True)
class Outcome:
    """The matches for one page, the total, the terms searched, and a spelling suggestion."""

    total: int
    matches: list[Match]
    terms: list[str]
    suggestion: str | None = None


def _term_query(term: str, fields: Fields, weight: float = 1.0) -> Query:
    return Or([Term(field, term, boost=weight) for field in fields])


def suggest(searcher: Searcher, text: str) -> str | None:
    """The query with unknown English words replaced by the closest indexed words, if any."""
    corrector = searcher.corrector("vocabulary")
    reader = searcher.reader()
    changed = False

    def fix(match: re.Match[str]) -> str:
        nonlocal changed
        word = match.group(0)
        if len(word) < 4 or reader.doc_frequency("vocabulary", word.lower()):
            return word
        options = corrector.suggest(word.lower(), limit=1, maxdist=2)
        if not options:
            return word
        changed = True
        return str(options[0])

    corrected = WORD.sub(fix, text)
    return corrected if changed else None


def search_raw(searcher: Searcher, text: str, lang: str | None, depth: int, document: str | None = None) -> Outcome:
    """Whoosh query syntax (`title:fsdp AND body:grad`, wildcards, groups) for those who ask for it."""
    parsed = MultifieldParser(list(SEARCH_FIELDS), searcher.schema).parse(text)
    terms = sorted({str(term) for _, term in parsed.iter_all_terms() if isinstance(term, str)})
    hits = searcher.search(parsed, limit=depth, filter=_filter(lang, document))
    return Outcome(total=len(hits), matches=[Match(h["id"], float(h.score or 0.0)) for h in hits], terms=terms)


def search_index(searcher: Searcher, text: str, lang: str | None, depth: int,
                 glossary: Glossary = (), document: str | None = None) -> Outcome:
    """Entries matching `text`: all terms first, then any term; `lang` filters by language.

    A pasted error or traceback is searched by its signature; a query that finds nothing
    and looks misspelled is searched as corrected, and the correction is returned.
    """
    fields: Fields = CODE_FIELDS if CODE_LIKE.search(text) else SEARCH_FIELDS
    if looks_like_error(text):
        text = error_signature(text) or text
        fields = ERROR_FIELDS
    outcome = _run(searcher, text, lang, depth, glossary, document, fields)
    suggestion = suggest(searcher, text) if outcome.total < SUGGEST_BELOW else None
    if suggestion:
        corrected = _run(searcher, suggestion, lang, depth, glossary, document, fields)
        if corrected.total > outcome.total:
            return Outcome(corrected.total, corrected.matches, corrected.terms, suggestion)
    return Outcome(outcome.total, outcome.matches, outcome.terms, suggestion)


def _filter(lang: str | None, document: str | None) -> Query | None:
    """Restrict results to a language and/or a document."""
    filters = [Term("lang", lang)] if lang else []
    if document:
        filters.append(Term("document_id", document))
    return And(filters) if filters else None


def _mentions(normalised_query: str, term: str) -> bool:
    if HAN.search(term):
        return term in normalised_query
    return re.search(rf"(?<![a-z0-9]){re.escape(term)}(?![a-z0-9])", normalised_query) is not None


def _phrase_query(terms: list[str], fields: Fields) -> Query:
    if len(terms) == 1:
        return _term_query(terms[0], fields)
    return Or([Phrase(field, terms) for field in fields])


def _clauses(text: str, glossary: Glossary, fields: Fields) -> tuple[list[Query], list[str]]:
    """One clause per query term or "quoted phrase"; a glossary term also matches its equivalents.

    Returns the clauses and every term worth highlighting (equivalents included).
    """
    phrases: list[Query] = []
    quoted_terms: list[str] = []
    for match in QUOTED.finditer(text):
        # Index-side terms, the finest one per position (identifier parts, bigrams), so the
        # phrase lines up with the positions stored in the index.
        finest: dict[int, str] = {}
        for term in analyse(match.group(1) or match.group(2)):
            if term.position not in finest or len(term.text) < len(finest[term.position]):
                finest[term.position] = term.text
        words = [finest[p] for p in sorted(finest)]
        if words:
            phrases.append(_phrase_query(words, fields))
            quoted_terms.extend(words)
    text = QUOTED.sub(" ", text)
    terms = query_terms(text)[:MAX_QUERY_TERMS]
    normalised = normalise_text(text)
    remaining = list(terms)
    highlighted = list(terms)
    clauses: list[Query] = []
    mentioned = [(phrase, group) for group in glossary for phrase in group
                 if _mentions(normalised, normalise_text(phrase))]
    # The longest phrase wins where glossary lines overlap ("memory fragmentation" over "memory").
    for phrase, group in sorted(mentioned, key=lambda pg: -len(query_terms(pg[0]))):
        covered = query_terms(phrase)
        if not covered or not all(t in remaining for t in covered):
            continue
        options: list[Query] = [And([_term_query(t, fields) for t in covered])]
        for other in group:
            other_terms = query_terms(other)
            if other != phrase and other_terms:
                options.append(And([_term_query(t, fields, EQUIVALENT_WEIGHT) for t in other_terms]))
                highlighted.extend(other_terms)
        clauses.append(Or(options))
        for t in covered:
            remaining.remove(t)
    clauses.extend(_term_query(t, fields) for t in remaining)
    return phrases + clauses, list(dict.fromkeys(quoted_terms + highlighted))


def _run(searcher: Searcher, text: str, lang: str | None, depth: int,
         glossary: Glossary = (), document: str | None = None, fields: Fields = SEARCH_FIELDS) -> Outcome:
    """The best `depth` matches (all terms first, then any term) and the total."""
    clauses, terms = _clauses(text, glossary, fields)
    if not clauses:
        return Outcome(total=0, matches=[], terms=[])
    filter_query = _filter(lang, document)
    strict = searcher.search(And(clauses), limit=None, filter=filter_query)
    # Stored ids are read only for the hits returned; the rest are counted by docnum.
    found = [Match(hit["id"], float(hit.score or 0.0)) for hit in strict[:depth]]
    total = len(strict)
    if len(clauses) > 1 and total < depth:
        seen = set(strict.docs())
        loose = searcher.search(Or(clauses), limit=None, filter=filter_query)
        extra = (hit for hit in loose if hit.docnum not in seen)
        found += [Match(hit["id"], float(hit.score or 0.0)) for hit in itertools.islice(extra, depth - len(found))]
        total += len(set(loose.docs()) - seen)
    return Outcome(total=total, matches=found, terms=terms)


def make_snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """An HTML-escaped excerpt of `text` around its best run of matches, matches in <mark>."""
    wanted = set(terms)
    spans: list[tuple[int, int]] = []
    # Query-side analysis: the same bigrams and whole words queries use, without jieba's cost.
    for term in analyse(text, for_query=True):
        if term.text in wanted:
            if spans and term.start <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(spans[-1][1], term.end))
            else:
                spans.append((term.start, term.end))
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
    parts: list[str] = ["…" if begin > 0 else ""]
    cursor = begin
    for start, stop in spans:
        if stop <= begin or start >= end:
            continue
        start, stop = max(start, begin), min(stop, end)
        parts.append(html.escape(text[cursor:start]))
        parts.append(f"<mark>{html.escape(text[start:stop])}</mark>")
        cursor = stop
    parts.append(html.escape(text[cursor:end]))
    parts.append("…" if end < len(text) else "")
    return " ".join("".join(parts).split())
