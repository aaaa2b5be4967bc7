"""A document page's outline: anchors on its questions, the "on this page" list, and parts for long documents.

The document's HTML is rendered once at ingest from the whole file; its entries are stored
apart, in order. Here each entry is found again in that HTML (the first block after the
previous entry's whose text is the question), given its id as an anchor and, on headings, a
permalink. The document's own title is not repeated when the HTML opens with it.

Everything here is linear in the size of the HTML: a 100,000-line document took minutes when
each missing question was looked for down the whole rest of the page and each anchor was
inserted by copying the page. A long document is cut into parts at questions that stand at
the top level (never inside a list or table), so a page shows a bounded share of it.
"""

from __future__ import annotations

import html as html_module
import re
import unicodedata
from dataclasses import dataclass
from html import escape

from app.models import EntryRef

HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
BLOCKS = HEADINGS | {"p", "li", "summary", "dt", "td", "th"}
PERMALINK_TAGS = HEADINGS | {"summary", "dt", "p", "td", "th"}
VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "col", "area", "base", "embed", "source"}
# A tag of the rendered HTML (attribute values may hold `>`: the sanitiser leaves it unescaped there). The name and
# the attributes are taken whole (possessive): a `<a` and 26 letters with no `>` were split every way, 5.6 s.
TAG = re.compile(r"""<(/?)([a-zA-Z][a-zA-Z0-9-]*+)((?:[^>"']+|"[^"]*"|'[^']*')*+)>""")
_SPACE = re.compile(r"\s+")
_SHOWN_TAG = re.compile(r"<[^<>]{0,60}>|`")  # a tag written in content and shown as text; code markers
LOOKAHEAD = 400  # blocks a question is looked for past the previous one: a missing one must not cost a scan
PART_CHARS = 100_000  # HTML a part of a long document holds, about: its page (with its outline) under 20 KB gzipped


def _normal(text: str) -> str:
    text = _SHOWN_TAG.sub(" ", unicodedata.normalize("NFKC", html_module.unescape(text)))
    return _SPACE.sub(" ", text).strip().casefold()


@dataclass(slots=True)
class _Block:
    tag: str
    start: int  # offset of "<tag"
    name_end: int  # offset just after "<tag"
    inner: int  # offset just after the opening tag's ">"
    top: bool  # not inside another element
    source: str  # the whole fragment (shared, not copied)
    close: int = -1  # offset of "</tag>", -1 while open
    end: int = -1  # offset just after "</tag>"
    normal: str | None = None

    @property
    def text(self) -> str:
        """The block's text: tags dropped, a <br> a space (as the question's text parts words)."""
        inner = self.source[self.inner:self.close]
        return TAG.sub(_tag_as_text, inner) if "<" in inner else inner

    def normalised(self) -> str:
        """The block's text as compared with questions (computed once, and only for blocks compared)."""
        if self.normal is None:
            self.normal = _normal(self.text)
        return self.normal


def _tag_as_text(match: re.Match[str]) -> str:
    return " " if match.group(2).lower() == "br" else ""


def _blocks(html: str) -> list[_Block]:
    """The block elements of a fragment with their offsets; their text is read only when a question is looked
    for in them (collecting every block's text as the tags went by took most of a 100,000-line page's time)."""
    blocks: list[_Block] = []
    open_: list[tuple[str, _Block | None]] = []
    for match in TAG.finditer(html):
        closing, tag = match.group(1, 2)
        tag = tag.lower()
        if tag in VOID:
            continue
        if not closing:
            block = _Block(tag, match.start(), match.start() + 1 + len(tag), match.end(), not open_, html) \
                if tag in BLOCKS else None
            if block is not None:
                blocks.append(block)
            open_.append((tag, block))
            continue
        # Close up to the matching element (rendered markdown is well formed; be lenient anyway).
        while open_:
            name, block = open_.pop()
            if block is not None:
                block.close, block.end = match.start(), match.end()
            if name == tag:
                break
    return blocks


@dataclass(frozen=True)
class OutlineItem:
    """One entry of the "on this page" list: where it jumps."""

    entry: EntryRef
    href: str  # "#id" when the question was found on the page, else the entry's own page
    on_page: bool
    part: int = 1  # the part of a long document that holds it


@dataclass(frozen=True)
class Outline:
    """A document's HTML, cut into parts (one for most documents), and its questions."""

    parts: list[str]
    items: list[OutlineItem]


PREFIX = 40  # characters a block may show before its question: numbering, "Q:", an escaped anchor


def _find(blocks: list[_Block], start: int, title: str) -> int | None:
    """The first block from `start` (within LOOKAHEAD) that is the question or opens with it."""
    if not title:
        return None
    for i in range(start, min(len(blocks), start + LOOKAHEAD)):
        if blocks[i].end < 0:
            continue
        text = blocks[i].normalised()
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
    document = paginated(html, title, entries, permalink_label, part_chars=None)
    return document.parts[0], document.items


def paginated(html: str, title: str, entries: list[EntryRef], permalink_label: str = "Link to this question",
              part_chars: int | None = PART_CHARS) -> Outline:
    """The document HTML with anchored questions, cut into parts of about `part_chars` (None: one part)."""
    blocks = _blocks(html)
    inserts: list[tuple[int, str]] = []  # (offset, text)
    cut: tuple[int, int] | None = None
    first = next((b for b in blocks if b.tag in HEADINGS), None)
    if first is not None and first.tag == "h1" and first.normalised() == _normal(title) \
            and not html[:first.start].strip():
        cut = (first.start, first.end)
    found_items: list[tuple[EntryRef, _Block | None]] = []
    cursor = 0
    for entry in entries:
        found = _locate(blocks, cursor, entry.title)
        if found is None or (cut is not None and blocks[found].start == cut[0]):
            found_items.append((entry, None))
            continue
        block = blocks[found]
        cursor = found + 1
        anchor = escape(entry.id)
        inserts.append((block.name_end, f' id="{anchor}" class="question"'))
        if block.tag in PERMALINK_TAGS:
            label = escape(f"{permalink_label}: {entry.title}")
            inserts.append((block.close, f' <a class="permalink" href="#{anchor}" aria-label="{label}">#</a>'))
        found_items.append((entry, block))
    # Parts start at a question standing at the top level, once the part before holds enough.
    starts = [0 if cut is None else cut[1]]
    if part_chars is not None:
        for _, where in found_items:
            if where is not None and where.top and where.start - starts[-1] >= part_chars:
                starts.append(where.start)
    bounds = list(zip(starts, [*starts[1:], len(html)], strict=True))
    parts = [_assemble(html, begin, end, inserts).lstrip("\n") for begin, end in bounds]
    items: list[OutlineItem] = []
    for entry, where in found_items:
        if where is None:
            items.append(OutlineItem(entry, entry.url, on_page=False))
            continue
        part = sum(1 for begin in starts if begin <= where.start)
        items.append(OutlineItem(entry, f"#{entry.id}", on_page=True, part=part))
    if cut is not None and cut[0] > 0:
        parts[0] = html[:cut[0]] + parts[0]
    return Outline(parts, items)


def _assemble(html: str, begin: int, end: int, inserts: list[tuple[int, str]]) -> str:
    """`html[begin:end]` with the inserts that fall inside it, in one pass."""
    pieces: list[str] = []
    cursor = begin
    for offset, text in sorted(insert for insert in inserts if begin <= insert[0] < end):
        pieces.append(html[cursor:offset])
        pieces.append(text)
        cursor = offset
    pieces.append(html[cursor:end])
    return "".join(pieces)
