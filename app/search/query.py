"""Run a user's query against the index: AND first, then OR to fill the page."""

from __future__ import annotations

import html
from dataclasses import dataclass

from whoosh.query import And, Or, Query, Term
from whoosh.searching import Searcher

from app.search.analysis import analyse, query_terms

SEARCH_FIELDS = ("title", "section", "code", "body")
MAX_QUERY_TERMS = 64
SNIPPET_CHARS = 180


@dataclass(frozen=True)
class Match:
    """One matching entry id with its score."""

    id: str
    score: float


@dataclass(frozen=True)
class Outcome:
    """The matches for one page, the total, and the terms that were searched."""

    total: int
    matches: list[Match]
    terms: list[str]


def _term_query(term: str) -> Query:
    return Or([Term(field, term) for field in SEARCH_FIELDS])


def search_index(searcher: Searcher, text: str, lang: str | None, limit: int, offset: int) -> Outcome:
    """Entries matching `text`: all terms first, then any term; `lang` filters by language."""
    terms = query_terms(text)[:MAX_QUERY_TERMS]
    if not terms:
        return Outcome(total=0, matches=[], terms=[])
    wanted = offset + limit
    filter_query = Term("lang", lang) if lang else None
    strict = searcher.search(And([_term_query(t) for t in terms]), limit=None, filter=filter_query)
    found = [Match(hit["id"], float(hit.score or 0.0)) for hit in strict]
    total = len(found)
    if len(terms) > 1 and total < wanted:
        seen = {hit.docnum for hit in strict}
        loose = searcher.search(Or([_term_query(t) for t in terms]), limit=None, filter=filter_query)
        extra = [Match(hit["id"], float(hit.score or 0.0)) for hit in loose if hit.docnum not in seen]
        found.extend(extra)
        total += len(extra)
    return Outcome(total=total, matches=found[offset:wanted], terms=terms)


def make_snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """An HTML-escaped excerpt of `text` around its best run of matches, matches in <mark>."""
    wanted = set(terms)
    spans: list[tuple[int, int]] = []
    for term in analyse(text):
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
