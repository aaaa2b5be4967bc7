"""Split one markdown document into FAQ entries, using markdown-it-py's syntax tree.

An FAQ writer expresses "question + answer" in a handful of ways, and one document may
mix them. The segmenter recognises, in order of precedence:

* ``**Q: …**`` paragraphs followed by their answer (question-and-answer mode, whole document);
* top-level ordered lists whose items lead with a question or a bold title;
* tables whose first column lists error messages or questions (one entry per row);
* headings that carry their own text (the deepest level, or a topic with its own content).

Everything else (intros, navigation, category blurbs) belongs to the document page only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from app.ingest.text import plain_inline

# A section titled like this holds questions; the section itself is never a question.
FAQ_CONTAINER = re.compile(
    r"(?i)^(?:\W|\d)*(?:faqs?|q\s*&\s*a|frequently[- ]asked[- ]questions|troubleshooting|"
    r"others?|other questions|common (?:questions|issues|problems)|常见问题|问题汇总|其他问题|其它问题|"
    r"疑难解答|问答|答疑|其他|其它)\b"
)
FAQ_ANYWHERE = re.compile(r"(?i)\bfaqs?\b|frequently[- ]asked|常见问题|问题汇总")
Q_PREFIX = re.compile(r"^\s*(?:Q|问)\s*\d*\s*[:：.、]\s*")
ANSWER_PREFIX = re.compile(r"^\s*(?:\*\*\s*(?:A|答)\s*[:：]\s*\*\*|(?:A|答)\s*[:：])\s*")
NUMBERING = re.compile(r"^\s*\d{1,3}\s*[.、)）]\s+|^\s*\d{1,3}[.、]")
ORDERED_MARKER = re.compile(r"^(\s*)(\d{1,9})([.)])(\s*)")
QUESTION_WORDS = re.compile(
    r"(?ix)"
    r"[?？]\W*$"
    r"|^\s*(?:Q|问)\s*\d*\s*[:：]"
    r"|^\s*(?:how|what|why|when|where|which|who|can|could|does|do|did|is|are|should|will|would|any)\b"
    r"|如何|怎么|怎样|为什么|为何|是否|能否|吗\W*$|什么|哪些|哪个|多大|多少|多长"
)
ERROR_WORDS = re.compile(
    r"(?i)\w*(?:error|exception)\b|not found|no module|cannot|can't|unable|failed|failure|"
    r"timeout|\boom\b|killed|undefined|报错|错误|失败|异常|无法|出错|超时"
)
TABLE_QUESTION_HEADER = re.compile(r"(?i)报错|错误|error|问题|question|issue|症状|symptom|现象|message")
# GitHub emoji shortcodes (`:rocket:`, a `[(:link:)](url)` link): decoration, not words.
EMOJI_SHORTCODE = re.compile(r"\(\s*:[a-z0-9_+-]+:\s*\)|(?<![\w:]):[a-z0-9_+-]+:(?![\w:])")
GENERIC_TITLES = {
    "note", "notes", "tip", "tips", "other", "others", "misc", "error", "errors", "warning",
    "注意", "备注", "提示", "其他", "其它", "说明", "报错", "错误", "问题",
}


@dataclass(frozen=True)
class ParsedEntry:
    """One question and its answer, as found in the source."""

    question: str  # the question's source text, block marker removed (inline markdown kept)
    title: str  # plain text shown to readers; generic titles carry their section
    section: tuple[str, ...]  # breadcrumb: headings above the entry, plain text
    answer_markdown: str
    line: int  # 1-based source line of the question
    kind: str  # "heading" | "list" | "qa" | "table"


@dataclass(frozen=True)
class ParsedDocument:
    """A document's title and its entries in source order."""

    title: str
    entries: list[ParsedEntry] = field(default_factory=list)


@dataclass
class _Region:
    """The blocks under one heading, up to the next heading (or the preamble)."""

    heading: SyntaxTreeNode | None
    level: int
    title: str
    path: tuple[str, ...]  # titles of enclosing headings, outermost first
    blocks: list[SyntaxTreeNode]
    start_line: int  # first line of the region's own content (0-based)
    end_line: int  # exclusive
    is_leaf: bool = True
    child_titles: list[str] = field(default_factory=list)
    in_scope: bool = True
    is_title: bool = False  # the document's title heading: never part of a breadcrumb


_PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")


def segment_markdown(text: str, fallback_title: str = "") -> ParsedDocument:
    """Split a markdown document (already decoded, front matter removed) into entries."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    root = SyntaxTreeNode(_PARSER.parse(text))
    regions = _regions(root.children, len(lines))
    title_region = _title_region(regions)
    title = _document_title(regions, fallback_title)
    _restrict_to_faq_sections(regions, title_region)
    scoped = [r for r in regions if r.in_scope]
    if title_region is not None:
        title_region.is_title = True
        for region in scoped:
            if region.path[:1] == (title_region.title,) and region is not title_region:
                region.path = region.path[1:]

    if _count_qa_paragraphs(scoped) >= 2:
        entries = [e for r in scoped for e in _qa_entries(r, lines)]
    else:
        entries = [e for r in scoped for e in _region_entries(r, lines)]
    return ParsedDocument(title=title, entries=entries)


# ---------------------------------------------------------------- regions


def _regions(blocks: Sequence[SyntaxTreeNode], line_count: int) -> list[_Region]:
    regions: list[_Region] = [
        _Region(heading=None, level=0, title="", path=(), blocks=[], start_line=0, end_line=0)
    ]
    stack: list[tuple[int, str]] = []
    for block in blocks:
        if block.type == "heading":
            level = int(block.tag[1])
            title = heading_text(block)
            while stack and stack[-1][0] >= level:
                stack.pop()
            start = block.map[1] if block.map else regions[-1].end_line
            regions[-1].end_line = block.map[0] if block.map else start
            regions.append(
                _Region(
                    heading=block, level=level, title=title,
                    path=tuple(t for _, t in stack), blocks=[], start_line=start, end_line=start,
                )
            )
            stack.append((level, title))
        else:
            regions[-1].blocks.append(block)
    regions[-1].end_line = line_count
    for i, region in enumerate(regions):
        if region.heading is None:
            continue
        descendants: list[_Region] = []
        for later in regions[i + 1:]:
            if later.level <= region.level:
                break
            descendants.append(later)
        if descendants:
            region.is_leaf = False
            child_level = min(d.level for d in descendants)
            region.child_titles = [d.title for d in descendants if d.level == child_level]
    return regions


def _title_region(regions: list[_Region]) -> _Region | None:
    """The document's single top-level `#` heading, when it opens the document."""
    headed = [r for r in regions if r.heading is not None]
    level_one = [r for r in headed if r.level == 1]
    if len(level_one) == 1 and level_one[0] is headed[0]:
        return level_one[0]
    return None


def _document_title(regions: list[_Region], fallback: str) -> str:
    headed = [r for r in regions if r.heading is not None]
    level_one = [r for r in headed if r.level == 1]
    if len(level_one) == 1:
        return level_one[0].title
    return headed[0].title if headed else fallback


def _restrict_to_faq_sections(regions: list[_Region], title_region: _Region | None) -> None:
    """In a long document (a README) with an FAQ section, only that section holds entries."""
    headed = [r for r in regions if r.heading is not None]
    faq = [r for r in headed if FAQ_ANYWHERE.search(r.title)]
    if not faq or faq[0] is headed[0] or faq[0] is title_region:
        return
    for region in regions:
        region.in_scope = False
    for i, region in enumerate(regions):
        if region in faq:
            region.in_scope = True
            for later in regions[i + 1:]:
                if later.level <= region.level:
                    break
                later.in_scope = True


# ---------------------------------------------------------------- question-and-answer paragraphs


def _is_qa_paragraph(block: SyntaxTreeNode) -> bool:
    if block.type != "paragraph":
        return False
    return bool(Q_PREFIX.match(paragraph_text(block)))


def _count_qa_paragraphs(regions: list[_Region]) -> int:
    return sum(1 for r in regions for b in r.blocks if _is_qa_paragraph(b))


def _qa_entries(region: _Region, lines: list[str]) -> Iterator[ParsedEntry]:
    questions = [b for b in region.blocks if _is_qa_paragraph(b)]
    for i, block in enumerate(questions):
        start, end = _span(block)
        answer_end = _span(questions[i + 1])[0] if i + 1 < len(questions) else region.end_line
        source = " ".join(line.strip() for line in lines[start:end])
        question = _strip_bold(source)
        answer = ANSWER_PREFIX.sub("", _trim("\n".join(lines[end:answer_end])), count=1)
        yield _entry(question, paragraph_text(block), region, answer, start, "qa", own=False)


# ---------------------------------------------------------------- per-region entries


def _region_entries(region: _Region, lines: list[str]) -> Iterator[ParsedEntry]:
    heading_is_question = bool(region.heading is not None and _question_like(region.title))
    if not heading_is_question:
        listed = list(_list_entries(region, lines))
        if listed:
            yield from listed
            return
        tabled = list(_table_entries(region, lines))
        if tabled:
            yield from tabled
            return
    if region.heading is None or region.is_title or not _has_content(region):
        return
    if FAQ_CONTAINER.match(region.title) and not heading_is_question:
        return
    if not region.is_leaf and _mostly_questions(region.child_titles):
        return  # a category blurb: its text stays on the document page
    answer = _trim("\n".join(lines[region.start_line:region.end_line]))
    start = region.heading.map[0] if region.heading.map else region.start_line
    question = _heading_source(lines[start])
    yield _entry(question, region.title, region, answer, start, "heading", own=True)


def _list_entries(region: _Region, lines: list[str]) -> Iterator[ParsedEntry]:
    for block in region.blocks:
        if block.type != "ordered_list":
            continue
        items = [c for c in block.children if c.type == "list_item"]
        leads = [_item_lead(item) for item in items]
        qualified = [lead is not None and (_bold_lead(lead) or _question_like(paragraph_text(lead)))
                     for lead in leads]
        if not items or sum(qualified) * 2 < len(items):
            continue
        for item in items:
            yield _list_item_entry(item, region, lines)


def _list_item_entry(item: SyntaxTreeNode, region: _Region, lines: list[str]) -> ParsedEntry:
    start, end = _span(item)
    first = lines[start]
    marker = ORDERED_MARKER.match(first)
    indent = len(marker.group(0)) if marker else 0
    question_source = first[indent:].strip()
    lead = _item_lead(item)
    body: list[str] = []
    for line in lines[start + 1:end]:
        spaces = len(line) - len(line.lstrip(" "))
        body.append(line[min(spaces, indent):])
    title = _first_line_text(lead, question_source) if lead is not None else question_source
    return _entry(_strip_bold(question_source), title, region, _trim("\n".join(body)), start,
                  "list", own=False)


def _table_entries(region: _Region, lines: list[str]) -> Iterator[ParsedEntry]:
    for block in region.blocks:
        if block.type != "table":
            continue
        rows = [row for part in block.children for row in part.children if row.type == "tr"]
        if len(rows) < 2:
            continue
        header = [cell_text(c) for c in rows[0].children]
        if len(header) < 2 or not TABLE_QUESTION_HEADER.search(header[0]):
            continue
        for row in rows[1:]:
            cells = row.children
            question_md = cell_markdown(cells[0])
            answer = "\n\n".join(cell_markdown(c) for c in cells[1:] if cell_markdown(c))
            line = row.map[0] if row.map else region.start_line
            yield _entry(question_md, cell_text(cells[0]), region, answer, line, "table", own=False)


# ---------------------------------------------------------------- helpers


def _entry(question: str, title: str, region: _Region, answer: str, line: int, kind: str,
           own: bool) -> ParsedEntry:
    """Build an entry; `own` says whether the region's heading is the question itself."""
    inner = (region.title,) if region.title and not region.is_title else ()
    section = region.path if own else region.path + inner
    clean = display_title(title)
    if _is_generic(clean) and section:
        clean = f"{section[-1]} › {clean}"
    return ParsedEntry(question=question.strip(), title=clean, section=section,
                       answer_markdown=answer, line=line + 1, kind=kind)


def display_title(text: str) -> str:
    """A question's plain text as readers see it: no numbering, no Q: prefix, one line."""
    text = " ".join(text.split())
    text = Q_PREFIX.sub("", text, count=1) or text
    text = NUMBERING.sub("", text, count=1) or text
    return text.rstrip(" :：")


def _is_generic(title: str) -> bool:
    return title.strip(" :：.。!！").lower() in GENERIC_TITLES


def _question_like(text: str) -> bool:
    text = NUMBERING.sub("", text.strip(), count=1)
    return bool(QUESTION_WORDS.search(text) or ERROR_WORDS.search(text))


def _mostly_questions(titles: list[str]) -> bool:
    return bool(titles) and sum(_question_like(t) for t in titles) * 2 >= len(titles)


def _has_content(region: _Region) -> bool:
    return any(b.type not in {"hr"} for b in region.blocks)


def _item_lead(item: SyntaxTreeNode) -> SyntaxTreeNode | None:
    first = item.children[0] if item.children else None
    return first if first is not None and first.type == "paragraph" else None


def _bold_lead(paragraph: SyntaxTreeNode) -> bool:
    inline = paragraph.children[0] if paragraph.children else None
    if inline is None or not inline.children:
        return False
    first_line: list[SyntaxTreeNode] = []
    for child in inline.children:
        if child.type in {"softbreak", "hardbreak"}:
            break
        if child.type != "text" or child.content.strip():
            first_line.append(child)
    if not first_line or first_line[0].type != "strong":
        return False
    rest = "".join(c.content for c in first_line[1:] if c.type == "text")
    return all(c.type == "text" for c in first_line[1:]) and not rest.strip(" :：")


def _first_line_text(paragraph: SyntaxTreeNode, fallback: str) -> str:
    inline = paragraph.children[0] if paragraph.children else None
    if inline is None:
        return fallback
    parts: list[SyntaxTreeNode] = []
    for child in inline.children:
        if child.type in {"softbreak", "hardbreak"}:
            break
        parts.append(child)
    return plain_inline(parts) or fallback


def _strip_bold(source: str) -> str:
    source = source.strip()
    match = re.fullmatch(r"\*\*(.+?)\*\*\s*([:：]?)\s*", source)
    if match:
        return match.group(1).strip()
    if source.startswith("**") and source.count("**") >= 2:
        inner, _, rest = source[2:].partition("**")
        if not rest.strip(" :："):
            return inner.strip()
    return source


def _heading_source(line: str) -> str:
    return re.sub(r"^\s{0,3}#{1,6}\s*", "", line).rstrip().rstrip("#").rstrip()


def _span(node: SyntaxTreeNode) -> tuple[int, int]:
    return (node.map[0], node.map[1]) if node.map else (0, 0)


def _trim(text: str) -> str:
    return text.strip("\n").rstrip()


def heading_text(node: SyntaxTreeNode) -> str:
    """Plain text of a heading node (HTML anchors, markup and emoji shortcodes dropped)."""
    text = EMOJI_SHORTCODE.sub("", paragraph_text(node))
    return " ".join(text.split()) or paragraph_text(node)


def paragraph_text(node: SyntaxTreeNode) -> str:
    """Plain text of a block with one inline child (paragraph, heading)."""
    inline = node.children[0] if node.children else None
    return " ".join(plain_inline(inline.children).split()) if inline is not None else ""


def cell_text(node: SyntaxTreeNode) -> str:
    """Plain text of a table cell, `<br>` read as a space."""
    return " ".join(plain_inline(node.children[0].children if node.children else []).split())


def cell_markdown(node: SyntaxTreeNode) -> str:
    """A table cell's inline source, with `<br>` turned into line breaks."""
    inline = node.children[0] if node.children else None
    content = inline.content if inline is not None else ""
    return re.sub(r"(?i)<br\s*/?>", "\n", content).strip()
