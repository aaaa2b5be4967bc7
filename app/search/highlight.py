"""Highlighting: titles and snippets HTML-escaped, with the query's terms in <mark>."""

from __future__ import annotations

import html
from bisect import bisect_right

from app.search.analysis import term_spans

SNIPPET_CHARS = 180
# Matches are looked for this far into an answer: a snippet is one line, and an answer of a megabyte took a
# second per result to scan whole.
SCANNED_CHARS = 20_000


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
    """An HTML-escaped excerpt of `text` around its best run of matches (in its first SCANNED_CHARS characters),
    matches in <mark>."""
    spans = term_spans(text[:SCANNED_CHARS], terms)
    if not spans:
        excerpt = text[:width]
        return html.escape(excerpt) + ("…" if len(text) > width else "")
    # The window holding the most matches, from the first match where it starts. Spans are merged and in
    # order, so their ends are sorted: a binary search counts them (counting span by span was quadratic:
    # 390 s on an answer of 1 MB with 75,000 matches).
    ends = [end for _, end in spans]
    best_start, best_count = spans[0][0], 0
    for i, (start, _) in enumerate(spans):
        count = bisect_right(ends, start + width) - i
        if count > best_count:
            best_start, best_count = start, count
    begin = max(0, best_start - width // 4)
    end = min(len(text), begin + width)
    excerpt = ("…" if begin > 0 else "") + _marked(text, spans, begin, end) + ("…" if end < len(text) else "")
    return " ".join(excerpt.split())
