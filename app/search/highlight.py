"""Highlighting: titles and snippets HTML-escaped, with the query's terms in <mark>."""

from __future__ import annotations

import html
import re
from bisect import bisect_right

from app.search.analysis import term_spans

SNIPPET_CHARS = 180
TAG = re.compile(r"(<[^>]*>)")
URL = re.compile(r"https?://[^\s<>\"'）。，]+")
URL_SHOWN = 48  # characters of a shortened URL
WORD_REACH = 24  # how far a snippet's edge moves to avoid cutting a word
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


def _short_url(match: re.Match[str]) -> str:
    """A URL as a reader scans it in a snippet: its host and last path segment (`github.com/…/issues/12`)."""
    url = match.group(0).rstrip(".,;:)")
    rest = match.group(0)[len(url):]
    host, _, path = url.split("://", 1)[1].partition("/")
    last = path.rstrip("/").rsplit("/", 1)[-1]
    shown = host if not last else f"{host}/{last}" if "/" not in path.rstrip("/") else f"{host}/…/{last}"
    return (shown if len(shown) <= URL_SHOWN else shown[:URL_SHOWN] + "…") + rest


def _joins(char: str) -> bool:
    """Whether `char` belongs to a word or URL of spaced text (Chinese runs have no spaces to cut at)."""
    return not char.isspace() and ord(char) < 0x2E80


def _word_start(text: str, at: int) -> int:
    """`at`, moved back to the start of the word it cuts, or on past the word when that is far (a long URL)."""
    if at <= 0 or not (_joins(text[at - 1]) and _joins(text[at])):
        return at
    back = at
    while back > 0 and _joins(text[back - 1]) and at - back < WORD_REACH:
        back -= 1
    if back == 0 or not _joins(text[back - 1]):
        return back
    while at < len(text) and _joins(text[at]):
        at += 1
    return at


def _word_end(text: str, at: int) -> int:
    """`at`, moved on to the end of the word it cuts, or back before it when that is far."""
    if at >= len(text) or at == 0 or not (_joins(text[at - 1]) and _joins(text[at])):
        return at
    on = at
    while on < len(text) and _joins(text[on]) and on - at < WORD_REACH:
        on += 1
    if on == len(text) or not _joins(text[on]):
        return on
    while at > 0 and _joins(text[at - 1]):
        at -= 1
    return at


def make_snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """An HTML-escaped excerpt of `text` around its best run of matches (in its first SCANNED_CHARS characters),
    matches in <mark>; it starts and ends between words, and URLs are shortened to their host and last segment."""
    text = URL.sub(_short_url, text)
    spans = term_spans(text[:SCANNED_CHARS], terms)
    if not spans:
        end = _word_end(text, min(len(text), width)) or min(len(text), width)
        return html.escape(text[:end].rstrip()) + ("…" if len(text) > end else "")
    # The window holding the most matches, from the first match where it starts. Spans are merged and in
    # order, so their ends are sorted: a binary search counts them (counting span by span was quadratic:
    # 390 s on an answer of 1 MB with 75,000 matches).
    ends = [end for _, end in spans]
    best_start, best_count = spans[0][0], 0
    for i, (start, _) in enumerate(spans):
        count = bisect_right(ends, start + width) - i
        if count > best_count:
            best_start, best_count = start, count
    begin = _word_start(text, max(0, best_start - width // 4))
    if begin > best_start:  # the word before the match was too long to show whole
        begin = best_start
    end = _word_end(text, min(len(text), begin + width))
    if end <= best_start:
        end = min(len(text), begin + width)
    excerpt = ("…" if begin > 0 else "") + _marked(text, spans, begin, end) + ("…" if end < len(text) else "")
    return " ".join(excerpt.split())


def mark_html(fragment: str, terms: list[str]) -> str:
    """Rendered HTML with the query's terms in <mark class="hl"> in its text (never inside a tag)."""
    if not terms:
        return fragment
    parts = TAG.split(fragment)
    for i in range(0, len(parts), 2):  # even parts are text between tags, HTML-escaped
        text = html.unescape(parts[i])
        spans = term_spans(text, terms)
        if spans:
            parts[i] = _marked(text, spans, 0, len(text)).replace("<mark>", '<mark class="hl">')
    return "".join(parts)
