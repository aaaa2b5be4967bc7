"""Highlighting: titles and snippets HTML-escaped, with the query's terms in <mark>."""

from __future__ import annotations

import html

from app.search.analysis import term_spans

SNIPPET_CHARS = 180


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
