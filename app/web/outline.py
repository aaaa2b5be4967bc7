"""A document page's outline: anchors on its questions and the "on this page" list.

The document's HTML is rendered once at ingest from the whole file; its entries are stored
apart, in order. Here each entry is found again in that HTML (the first block after the
previous entry's whose text is the question), given its id as an anchor and, on headings, a
permalink. The document's own title is not repeated when the HTML opens with it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser

from app.models import EntryRef

HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
BLOCKS = HEADINGS | {"p", "li", "summary", "dt", "td", "th"}
PERMALINK_TAGS = HEADINGS | {"summary", "dt", "p", "td", "th"}
VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "col", "area", "base", "embed", "source"}
_SPACE = re.compile(r"\s+")
_SHOWN_TAG = re.compile(r"<[^<>]{0,60}>|`")  # raw HTML in markdown is shown as text; code markers


def _normal(text: str) -> str:
    text = _SHOWN_TAG.sub(" ", unicodedata.normalize("NFKC", text))
    return _SPACE.sub(" ", text).strip().casefold()


@dataclass
class _Block:
    tag: str
    start: int  # offset of "<tag"
    name_end: int  # offset just after "<tag"
    close: int = -1  # offset of "</tag>", -1 while open
    end: int = -1  # offset just after "</tag>"
    text: str = ""


class _Blocks(HTMLParser):
    """The block elements of a fragment with their offsets and text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html = html
        self.line_starts = [0]
        for match in re.finditer("\n", html):
            self.line_starts.append(match.end())
        self.blocks: list[_Block] = []
        self.open: list[tuple[_Block | None, list[str]]] = []
        self.feed(html)
        self.close()

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            if tag == "br":  # a line break parts words, as the question's text does
                self.handle_data(" ")
            return
        block = None
        if tag in BLOCKS:
            start = self._offset()
            block = _Block(tag, start, start + 1 + len(tag))
            self.blocks.append(block)
        self.open.append((block, []))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        # Close up to the matching element (rendered markdown is well formed; be lenient anyway).
        while self.open:
            block, parts = self.open.pop()
            text = "".join(parts)
            if self.open:
                self.open[-1][1].append(text)
            if block is not None:
                block.text = text
                block.close = self._offset()
                block.end = self.html.index(">", block.close) + 1
            if block is None or block.tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self.open:
            self.open[-1][1].append(data)


@dataclass(frozen=True)
class OutlineItem:
    """One entry of the "on this page" list: where it jumps."""

    entry: EntryRef
    href: str  # "#id" when the question was found on the page, else the entry's own page
    on_page: bool


PREFIX = 40  # characters a block may show before its question: numbering, "Q:", an escaped anchor


def _find(blocks: list[_Block], start: int, title: str) -> int | None:
    """The first block from `start` that is the question or opens with it."""
    if not title:
        return None
    for i in range(start, len(blocks)):
        if blocks[i].end < 0:
            continue
        text = _normal(blocks[i].text)
        at = text.find(title)
        if text == title or (len(title) >= 2 and 0 <= at <= PREFIX):
            return i
    return None


def _locate(blocks: list[_Block], start: int, title: str) -> int | None:
    found = _find(blocks, start, _normal(title))
    if found is None and " › " in title:  # a generic question ("Note") is titled with its section
        found = _find(blocks, start, _normal(title.rsplit(" › ", 1)[1]))
    return found


def outline(html: str, title: str, entries: list[EntryRef],
            permalink_label: str = "Link to this question") -> tuple[str, list[OutlineItem]]:
    """The document HTML with anchored questions (title heading dropped) and its outline."""
    blocks = _Blocks(html).blocks
    inserts: list[tuple[int, str]] = []  # (offset, text), applied from the end
    cut: tuple[int, int] | None = None
    first = next((b for b in blocks if b.tag in HEADINGS), None)
    if first is not None and first.tag == "h1" and _normal(first.text) == _normal(title) \
            and not html[:first.start].strip():
        cut = (first.start, first.end)
    items: list[OutlineItem] = []
    cursor = 0
    for entry in entries:
        found = _locate(blocks, cursor, entry.title)
        if found is None or (cut is not None and blocks[found].start == cut[0]):
            items.append(OutlineItem(entry, entry.url, on_page=False))
            continue
        block = blocks[found]
        cursor = found + 1
        anchor = escape(entry.id)
        inserts.append((block.name_end, f' id="{anchor}" class="question"'))
        if block.tag in PERMALINK_TAGS:
            label = escape(f"{permalink_label}: {entry.title}")
            inserts.append((block.close, f' <a class="permalink" href="#{anchor}" aria-label="{label}">#</a>'))
        items.append(OutlineItem(entry, f"#{entry.id}", on_page=True))
    out = html
    for offset, text in sorted(inserts, key=lambda pair: pair[0], reverse=True):
        out = out[:offset] + text + out[offset:]
    if cut is not None:  # before every insert: nothing is inserted inside the dropped heading
        out = out[:cut[0]] + out[cut[1]:].lstrip("\n")
    return out, items
