"""The document as markdown-it sees it: sections under headings, titled units, plain text.

markdown-it's syntax tree is the only parser. A titled block whose title asks a question — a
`<details>` with its `<summary>`, or a mkdocs admonition `??? note "Q: …"` with its indented
body — is one unit, headings inside it included (they belong to its answer); any other is
transparent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from app.ingest.segment.evidence import EMOJI_SHORTCODE, question_score
from app.ingest.text import plain_inline

PARSER = MarkdownIt("commonmark", {"html": True, "maxNesting": 40}).enable("table")
DETAILS_OPEN = re.compile(r"(?i)<details\b")
DETAILS_CLOSE = re.compile(r"(?i)</details\s*>")
SUMMARY = re.compile(r"(?is)<summary\b[^>]*>(.*?)</summary\s*>")
SUMMARY_BREAK = re.compile(r"\n[ \t]*\n|^[ \t]*(?:```|~~~)", re.MULTILINE)
BOLD_WRAPPER = re.compile(r"(?is)^\s*<(b|strong)>(.*)</\1>\s*$")
TAG = re.compile(r"<[^>]+>")
# A heading's attributes (Pandoc, kramdown, VitePress, MkDocs: `{#its-id}`, `{: #id .class }`) name a place, not
# part of the question.
HEADING_ATTRIBUTES = re.compile(r"\s*\{:?\s*(?:[#.][\w:-]+|[\w-]+=\S+)(?:\s+(?:[#.][\w:-]+|[\w-]+=\S+))*\s*\}\s*$")
HTML_HEADING = re.compile(r"(?is)^\s*<h([1-6])\b[^>]*>(.*?)</h\1\s*>[ \t]*(?:\n|$)")
# mkdocs-material / Python-Markdown admonitions: `!!! note "Title"`, collapsible `??? tip "Title"`, `???+ …`; the
# title may be empty or left out (`!!! tip ""`, `!!! note`).
ADMONITION = re.compile(r'^(?:\?\?\?\+?|!!!)[ \t]+[\w-]+(?:[ \t]+[\w-]+)*(?:[ \t]+"(.*)")?[ \t]*$')
ADMONITION_INDENT = 4
FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# An anchor that only names a place (`<a id="x">`, `<a name="1"></a>`): no text of the question.
NAME_ANCHOR = re.compile(r"(?i)<a\s(?![^>]*\bhref\s*=)[^>]*\b(?:name|id)\s*=[^>]*>")
TRAILING_BREAK = re.compile(r"(?i)(?<!\s)\s*+(?:<\s*+/?\s*+br\s*+/?\s*+>|\\)\s*+$")
BOLD_LINE = re.compile(r"^\*\*(.+?)\*\*\s*([:：]?)\s*$|^__(.+?)__\s*([:：]?)\s*$|"
                       r"^<(?i:b|strong)>(.+?)</(?i:b|strong)>\s*([:：]?)\s*$")  # `<b>…</b>` is bold too


@dataclass(frozen=True)
class Details:
    """A titled block whose title is a question (`<details>`/`<summary>`, an admonition): one entry."""

    start: int  # 0-based line of `<details>` or of the admonition
    end: int  # exclusive
    summary_line: int
    question: str  # the title's source, tags and a `<b>` wrapper removed
    body_start: int  # first line after `</summary>` or after the admonition's title line
    indent: int = 0  # spaces the body is indented by (an admonition's 4)
    lead: str = ""  # what a summary holds after its question (a pasted log): the answer's opening


@dataclass
class Section:
    """The blocks under one heading, up to the next heading (or the preamble)."""

    heading: SyntaxTreeNode | None
    level: int
    title: str
    path: tuple[str, ...]  # titles of enclosing headings, outermost first
    blocks: list[SyntaxTreeNode]
    start_line: int  # first line of the section's own content (0-based)
    end_line: int  # exclusive: where the next heading starts
    source: str = ""  # the heading as written, marker removed (inline markdown or HTML kept)
    subtree_end: int = 0  # exclusive: where the next heading of this level or higher starts
    details: list[Details] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)  # direct sub-sections
    in_scope: bool = True
    is_title: bool = False  # the document's title heading: never part of a breadcrumb

    @property
    def is_leaf(self) -> bool:
        """No sub-sections."""
        return not self.children

    def descendants(self) -> list[Section]:
        """Every sub-section under this one, in document order."""
        found: list[Section] = []
        for child in self.children:
            found += [child, *child.descendants()]
        return found

    @property
    def heading_line(self) -> int:
        """0-based line of the heading (the start of the content for the preamble)."""
        return self.heading.map[0] if self.heading is not None and self.heading.map else self.start_line


def open_plain_admonitions(lines: list[str]) -> list[str]:
    """The lines with each admonition whose title asks nothing opened, line for line: its opening line gives way to
    its title in bold (or to nothing) and its body loses its indent, so its paragraphs, lists and code read as the
    text around it (indented four spaces, markdown took them for one block of code). An admonition whose title
    asks is an entry of its own and stays as written."""
    opened = list(lines)
    fence = ""
    number = 0
    while number < len(opened):
        line = opened[number]
        if fence:
            fence = "" if line.lstrip().startswith(fence) else fence
        elif marker := FENCE_OPEN.match(line):
            fence = marker.group(1)
        elif (match := ADMONITION.match(line.rstrip())) and not question_score(TAG.sub("", match.group(1) or "")):
            title = (match.group(1) or "").strip()
            opened[number] = f"**{title}**" if title else ""
            end = _admonition_end(number, opened)
            for inside in range(number + 1, end):
                body = opened[inside]
                opened[inside] = body[1:] if body.startswith("\t") else body[ADMONITION_INDENT:]
            number = end
            continue
        number += 1
    return opened


def _admonition_end(start: int, lines: list[str]) -> int:
    """The line after the last of the admonition at `start`'s body: the indented lines under it (blank ones
    between them)."""
    end = start + 1
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if line.strip() and not line.startswith((" " * ADMONITION_INDENT, "\t")):
            break
        if line.strip():
            end = number + 1
    return end


def parse(text: str) -> SyntaxTreeNode:
    """The syntax tree of a markdown text."""
    return SyntaxTreeNode(PARSER.parse(text))


def sections(root: SyntaxTreeNode, lines: list[str]) -> list[Section]:
    """The document cut at its headings, in order; the first section is the preamble."""
    blocks = _fold_details(list(root.children), lines)
    result = [Section(heading=None, level=0, title="", path=(), blocks=[], start_line=0, end_line=0)]
    stack: list[Section] = []
    for block in blocks:
        if isinstance(block, Details):
            result[-1].details.append(block)
            continue
        html_headings = _html_headings(block, lines)
        if block.type != "heading" and not html_headings:
            result[-1].blocks.append(block)
            continue
        if not html_headings:
            start = block.map[1] if block.map else result[-1].end_line
            title = heading_text(block)
            source = _heading_source(lines[block.map[0]]) if block.map else title
            html_headings = [(int(block.tag[1]), block.map[0] if block.map else start, source, title)]
        for level, line, source, title in html_headings:
            start = line + 1 if block.type == "html_block" else (block.map[1] if block.map else line)
            while stack and stack[-1].level >= level:
                stack.pop()
            result[-1].end_line = line
            section = Section(heading=block, level=level, title=title, source=source,
                              path=tuple(s.title for s in stack), blocks=[], start_line=start, end_line=start)
            if stack:
                stack[-1].children.append(section)
            result.append(section)
            stack.append(section)
        if block.type == "html_block" and block.map and block.map[1] > result[-1].start_line:
            result[-1].blocks.append(block)  # the answer follows the heading inside one HTML block
    result[-1].end_line = len(lines)
    for i, section in enumerate(result):
        section.subtree_end = next(
            (later.heading_line for later in result[i + 1:] if later.level <= section.level and later.level),
            len(lines))
    return result


def _html_headings(block: SyntaxTreeNode, lines: list[str]) -> list[tuple[int, int, str, str]]:
    """(level, 0-based line, source, title) of the HTML headings an HTML block opens with, one per line: two
    `<h4>` written with no blank line between them are one block, and two headings."""
    if block.type != "html_block" or not block.map or (whole := HTML_HEADING.match(block.content)) is None:
        return []
    found = []
    for number in range(block.map[0], block.map[1]):
        match = HTML_HEADING.match(lines[number])
        if match is None:
            break
        found.append(_html_heading(match, number))
    return found or [_html_heading(whole, block.map[0])]  # one heading written over several lines


def _html_heading(match: re.Match[str], line: int) -> tuple[int, int, str, str]:
    source = match.group(2).strip()
    return int(match.group(1)), line, source, " ".join(TAG.sub("", source).split())


def _fold_details(blocks: list[SyntaxTreeNode], lines: list[str]) -> list[SyntaxTreeNode | Details]:
    """Replace the blocks inside each question `<details>` or admonition by one Details unit."""
    code = _code_lines(blocks)
    result: list[SyntaxTreeNode | Details] = []
    skip_until = -1
    for index, block in enumerate(blocks):
        start, end = span(block)
        details = None
        if block.type == "html_block" and end > skip_until:
            details = _question_details(block, max(start, skip_until), blocks[index + 1:], lines, code)
        elif block.type == "paragraph" and start >= skip_until:
            details = _question_admonition(start, lines)
        if start >= skip_until:
            result.append(details or block)
        elif details is not None:
            result.append(details)
        if details is not None:
            skip_until = details.end
    return result


def _code_lines(blocks: Sequence[SyntaxTreeNode]) -> set[int]:
    """Lines inside fenced or indented code anywhere in the tree: no `<details>` tag counts there."""
    lines: set[int] = set()
    for block in blocks:
        for node in block.walk():
            if node.type in {"fence", "code_block"} and node.map:
                lines.update(range(*node.map))
    return lines


def _question_details(block: SyntaxTreeNode, first: int, following: Sequence[SyntaxTreeNode],
                      lines: list[str], code: set[int]) -> Details | None:
    _, block_end = span(block)
    start = next((n for n in range(first, block_end) if DETAILS_OPEN.search(lines[n])), None)
    if start is None:
        return None
    head = "\n".join(lines[start:start + 12])
    opening = DETAILS_OPEN.search(head)
    summary = SUMMARY.search(head)
    # The summary must open the element: nothing but white space between `<details …>` and it.
    if opening is None or summary is None or head[head.index(">", opening.end()) + 1:summary.start()].strip():
        return None
    inner = summary.group(1).strip()
    # A summary that goes on after a blank line or into a fence (`Q: …报错：` then the log in ```): its question is
    # the text before, and the rest opens the answer.
    cut = SUMMARY_BREAK.search(inner)
    inner, lead = (inner[:cut.start()].strip(), inner[cut.start():].strip()) if cut and cut.start() else (inner, "")
    wrapped = BOLD_WRAPPER.match(inner)
    question = " ".join((wrapped.group(2) if wrapped else inner).split())
    if not question_score(TAG.sub("", question)):
        return None
    text_start = summary.start(1) + len(summary.group(1)) - len(summary.group(1).lstrip())
    summary_line = start + head[:text_start].count("\n")
    body_start = start + head[:summary.end()].count("\n") + 1
    return Details(start=start, end=_details_end(start, following, lines, code), summary_line=summary_line,
                   question=question, body_start=body_start, lead=lead)


def _question_admonition(start: int, lines: list[str]) -> Details | None:
    """An admonition (`??? note "Q: …"`) whose title asks, with its indented body."""
    match = ADMONITION.match(lines[start].rstrip())
    if match is None or not question_score(TAG.sub("", match.group(1) or "")):
        return None
    return Details(start=start, end=_admonition_end(start, lines), summary_line=start,
                   question=" ".join(match.group(1).split()),
                   body_start=start + 1, indent=ADMONITION_INDENT)


def _details_end(start: int, following: Sequence[SyntaxTreeNode], lines: list[str], code: set[int]) -> int:
    depth = 0
    for number in range(start, len(lines)):
        if number in code:
            continue
        line = lines[number]
        if number == start:
            line = line[DETAILS_OPEN.search(line).start():]  # type: ignore[union-attr]
        depth += len(DETAILS_OPEN.findall(line)) - len(DETAILS_CLOSE.findall(line))
        if depth <= 0:
            return number + 1
    # Never closed: it ends where the next `<details>` or heading starts.
    for block in following:
        if block.map and (block.type == "heading" or DETAILS_OPEN.search(block.content)):
            return block.map[0]
    return len(lines)


def heading_text(node: SyntaxTreeNode) -> str:
    """Plain text of a heading node (HTML anchors, markup and emoji shortcodes dropped)."""
    text = EMOJI_SHORTCODE.sub("", HEADING_ATTRIBUTES.sub("", paragraph_text(node)))
    return " ".join(text.split()) or paragraph_text(node)


def paragraph_text(node: SyntaxTreeNode) -> str:
    """Plain text of a block with one inline child (paragraph, heading)."""
    inline = node.children[0] if node.children else None
    return " ".join(plain_inline(inline.children).split()) if inline is not None else ""


def first_line_nodes(paragraph: SyntaxTreeNode) -> list[SyntaxTreeNode]:
    """The inline nodes of a paragraph's first line."""
    inline = paragraph.children[0] if paragraph.children else None
    nodes: list[SyntaxTreeNode] = []
    for child in inline.children if inline is not None else []:
        if child.type in {"softbreak", "hardbreak"}:
            break
        nodes.append(child)
    return nodes


def cell_text(node: SyntaxTreeNode) -> str:
    """Plain text of a table cell, `<br>` read as a space."""
    return " ".join(plain_inline(node.children[0].children if node.children else []).split())


def cell_markdown(node: SyntaxTreeNode) -> str:
    """A table cell's inline source, with `<br>` turned into line breaks."""
    inline = node.children[0] if node.children else None
    content = inline.content if inline is not None else ""
    return re.sub(r"(?i)<br\s*/?>", "\n", content).strip()


def span(node: SyntaxTreeNode) -> tuple[int, int]:
    """0-based first line and exclusive end line of a block."""
    return (node.map[0], node.map[1]) if node.map else (0, 0)


def _heading_source(line: str) -> str:
    return HEADING_ATTRIBUTES.sub("", re.sub(r"^\s{0,3}#{1,6}\s*", "", line).rstrip().rstrip("#").rstrip())


def bold_text(match: re.Match[str]) -> str:
    """The text inside a `BOLD_LINE` match's wrapper."""
    return match.group(1) or match.group(3) or match.group(5) or ""


def question_source(line: str) -> str:
    """A question's first line as written, without a trailing hard break (`<br>`, `</br>`, `\\`) and
    without the `**…**` or `<strong>…</strong>` that wraps all of it."""
    source = TRAILING_BREAK.sub("", line.strip()).strip()
    match = BOLD_LINE.match(source)
    inner = bold_text(match) if match else ""
    if match and "**" not in inner and "__" not in inner:  # `**a** **b**` is two bold runs, not one wrapper
        return inner.strip()
    wrapped = BOLD_WRAPPER.match(source)
    if wrapped:
        return wrapped.group(2).strip()
    return source


def without_name_anchors(source: str) -> str:
    """A question's source without anchors that only name a place (`<a name="1"></a>`, `<a id=…>…</a>`)."""
    if not NAME_ANCHOR.search(source):
        return source
    text = NAME_ANCHOR.sub("", source)
    if not re.search(r"(?i)<a\s", text):  # no link left: every `</a>` closed a name anchor
        text = re.sub(r"(?i)</a\s*>", "", text)
    return text.strip()


def trim(text: str) -> str:
    """Without leading blank lines and trailing white space."""
    return text.strip("\n").rstrip()
