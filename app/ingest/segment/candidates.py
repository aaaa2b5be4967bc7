"""Every way a section's blocks could hold FAQ entries, with the evidence for each.

A candidate group is one reading of a section: its list items are the questions, or its
`Q:` paragraphs, or its table rows, or its `<details>` blocks, or its heading. The
decision (`decide.py`) picks among them; this module only proposes and scores.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from markdown_it.tree import SyntaxTreeNode

from app.ingest.segment.blocks import (
    BOLD_WRAPPER,
    TAG,
    Section,
    cell_markdown,
    cell_text,
    first_line_nodes,
    paragraph_text,
    span,
    trim,
)
from app.ingest.segment.evidence import (
    ANSWER_PREFIX,
    Q_PREFIX,
    TABLE_QUESTION_HEADER,
    question_score,
)
from app.ingest.text import plain_inline

LIST_MARKER = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])(\s+|$)")
BOLD_LINE = re.compile(r"^\*\*(.+?)\*\*\s*([:：]?)\s*$|^__(.+?)__\s*([:：]?)\s*$")
BOLD_COLON = re.compile(r"^\*\*(.+?)\*\*\s*[:：]\s*(\S.*)$")
STRAY_DETAILS_CLOSE = re.compile(r"(?im)^\s*</details>\s*$")
MIN_LIST_SHARE = 0.5  # of a list's items that must look like questions or errors
LABELLED_RULE = "`Q:` / `问：` paragraph"


@dataclass(frozen=True)
class Unit:
    """One proposed entry: its question as written, its answer, where it starts."""

    question: str  # source text, block marker removed (inline markdown kept)
    title: str  # plain text
    answer: str
    line: int  # 0-based line of the question
    score: float  # 0..1: how much the question looks like one


@dataclass
class Group:
    """One reading of (part of) a section: a kind of block whose units would be the entries."""

    kind: str  # "heading" | "list" | "qa" | "details" | "table"
    rule: str  # what an editor reads in `faq inspect`
    line: int  # 0-based line where the group starts
    units: list[Unit] = field(default_factory=list)
    qualifies: bool = False
    navigation: bool = False  # a list whose items are only links (a table of contents)
    why: str = ""  # why it qualifies or not, in words

    @property
    def score(self) -> float:
        """Total evidence: more and more question-like units weigh more."""
        return sum(u.score for u in self.units)


def without_stray_close(answer: str) -> str:
    """An answer without the `</details>` of a wrapper it does not open."""
    return answer if "<details" in answer.lower() else trim(STRAY_DETAILS_CLOSE.sub("", answer))


# ---------------------------------------------------------------- lists


def list_groups(section: Section, lines: list[str], faq_scope: bool) -> Iterator[Group]:
    """Each top-level list of the section, read as one entry per item."""
    for block in section.blocks:
        if block.type not in {"ordered_list", "bullet_list"}:
            continue
        items = [c for c in block.children if c.type == "list_item"]
        if not items:
            continue
        ordered = block.type == "ordered_list"
        group = Group(kind="list", rule="ordered list item" if ordered else "bullet list item",
                      line=span(block)[0])
        facts = [_item_facts(item, lines) for item in items]
        group.units = [unit for unit, _ in facts]
        navigation = sum(f["link_only"] for _, f in facts)
        asking = sum(u.score > 0 or f["bold"] for u, f in facts)
        bodies = sum(f["body"] for _, f in facts)
        bold_colon = sum(f["bold_colon"] for _, f in facts)
        share = asking / len(items)
        group.navigation = navigation * 2 >= len(items)
        if group.navigation:
            group.why = f"{navigation} of {len(items)} items are only a link: navigation"
        elif ordered:
            group.qualifies = share >= MIN_LIST_SHARE
            group.why = f"{asking} of {len(items)} items lead with a question, an error or a bold title"
        elif faq_scope and bold_colon * 2 >= len(items) and len(items) >= 2:
            group.qualifies = True
            group.rule = "bullet `**symptom**: answer`"
            group.why = f"{bold_colon} of {len(items)} items are `**symptom**: answer` lines in an FAQ section"
        else:
            asks = sum(u.score > 0 for u, _ in facts)
            group.qualifies = (asks / len(items) >= MIN_LIST_SHARE and bodies / len(items) >= MIN_LIST_SHARE
                               and (asks >= 2 or faq_scope))
            group.why = (f"{asks} of {len(items)} items lead with a question or an error, "
                         f"{bodies} have an answer under them")
        if bold_colon * 2 >= len(items) and faq_scope:
            group.units = [_bold_colon_unit(unit) for unit in group.units]
        yield group


def _item_facts(item: SyntaxTreeNode, lines: list[str]) -> tuple[Unit, dict[str, bool]]:
    start, end = span(item)
    first = lines[start] if start < len(lines) else ""
    marker = LIST_MARKER.match(first)
    indent = len(marker.group(0)) if marker else 0
    source = first[indent:].strip()
    lead = item.children[0] if item.children and item.children[0].type == "paragraph" else None
    nodes = first_line_nodes(lead) if lead is not None else []
    visible = [n for n in nodes if not (n.type == "text" and not n.content.strip())]
    text = " ".join(plain_inline(nodes).split()) if lead is not None else source
    body_lines = []
    for line in lines[start + 1:end]:
        spaces = len(line) - len(line.lstrip(" "))
        body_lines.append(line[min(spaces, indent):])
    answer = trim("\n".join(body_lines))
    bold = _bold_first_line(visible)
    facts = {
        "link_only": bool(visible) and all(n.type == "link" for n in visible),
        "bold": bold,
        "bold_colon": bool(BOLD_COLON.match(source)),
        "body": bool(answer.strip()),
    }
    question = _unwrap_bold(source)
    return Unit(question=question, title=text or question, answer=without_stray_close(answer),
                line=start, score=question_score(text)), facts


def _bold_first_line(nodes: list[SyntaxTreeNode]) -> bool:
    if not nodes:
        return False
    if nodes[0].type == "strong":
        rest = "".join(n.content for n in nodes[1:] if n.type == "text")
        return all(n.type == "text" for n in nodes[1:]) and not rest.strip(" :：")
    return nodes[0].type == "html_inline" and nodes[0].content.lower() in {"<strong>", "<b>"}


def _bold_colon_unit(unit: Unit) -> Unit:
    match = BOLD_COLON.match(unit.question)
    if match is None:
        return unit
    answer = match.group(2) + ("\n" + unit.answer if unit.answer else "")
    return Unit(question=match.group(1).strip(), title=match.group(1).strip(), answer=answer,
                line=unit.line, score=max(unit.score, 0.5))


def _unwrap_bold(source: str) -> str:
    """A first line without the `**…**` or `<strong>…</strong>` that wraps all of it."""
    source = source.strip()
    match = BOLD_LINE.match(source)
    if match:
        return (match.group(1) or match.group(3)).strip()
    wrapped = BOLD_WRAPPER.match(source)
    if wrapped:
        return wrapped.group(2).strip()
    return source


# ---------------------------------------------------------------- Q:/A: and bold question paragraphs


def is_qa_paragraph(block: SyntaxTreeNode) -> bool:
    """A paragraph labelled as a question: `Q:`, `Q3:`, `问：`, `问题2：`, bold or not."""
    return block.type == "paragraph" and bool(Q_PREFIX.match(paragraph_text(block)))


def _is_bold_question(block: SyntaxTreeNode, lines: list[str]) -> bool:
    if block.type != "paragraph":
        return False
    start, _ = span(block)
    match = BOLD_LINE.match(lines[start].strip())
    return match is not None and question_score(TAG.sub("", match.group(1) or match.group(3) or "")) >= 0.9


def qa_group(section: Section, lines: list[str]) -> Group | None:
    """The section's `Q:`-labelled (or bold question) paragraphs, each answered up to the next."""
    labelled = [b for b in section.blocks if is_qa_paragraph(b)]
    rule = LABELLED_RULE
    if not labelled:
        labelled = [b for b in section.blocks if _is_bold_question(b, lines)]
        rule = "bold question paragraph"
        if len(labelled) < 2:
            return None
    group = Group(kind="qa", rule=rule, line=span(labelled[0])[0], qualifies=True,
                  why=f"{len(labelled)} paragraphs open with a question label or are a bold question")
    for i, block in enumerate(labelled):
        start, end = span(block)
        question_end = next((k for k in range(start + 1, end) if ANSWER_PREFIX.match(lines[k])), end)
        answer_end = span(labelled[i + 1])[0] if i + 1 < len(labelled) else section.end_line
        source = " ".join(line.strip() for line in lines[start:question_end])
        question = _unwrap_bold(source)
        answer = ANSWER_PREFIX.sub("", trim("\n".join(lines[question_end:answer_end])), count=1)
        group.units.append(Unit(question=question, title=TAG.sub("", _plain(question)), line=start,
                                answer=without_stray_close(answer), score=question_score(_plain(question))))
    return group


def _plain(source: str) -> str:
    return " ".join(re.sub(r"\*\*|__|`", "", source).split())


# ---------------------------------------------------------------- <details> and tables


def details_group(section: Section, lines: list[str]) -> Group | None:
    """The section's `<details>` blocks whose summary is a question."""
    if not section.details:
        return None
    group = Group(kind="details", rule="`<details>` with a question `<summary>`", line=section.details[0].start,
                  qualifies=True, why=f"{len(section.details)} `<summary>` lines ask a question")
    for details in section.details:
        body = lines[details.body_start:details.end]
        while body and not body[-1].strip():
            body.pop()
        if body and re.fullmatch(r"(?i)\s*</details>\s*", body[-1]):
            body.pop()
        plain = TAG.sub("", details.question)
        group.units.append(Unit(question=details.question, title=" ".join(plain.split()),
                                answer=trim("\n".join(body)), line=details.summary_line,
                                score=question_score(plain)))
    return group


def table_groups(section: Section) -> Iterator[Group]:
    """Each table whose first column is headed like errors or questions: one entry per row."""
    for block in section.blocks:
        if block.type != "table":
            continue
        rows = [row for part in block.children for row in part.children if row.type == "tr"]
        header = [cell_text(c) for c in rows[0].children] if rows else []
        group = Group(kind="table", rule="table row", line=span(block)[0])
        if len(rows) < 2 or len(header) < 2 or not TABLE_QUESTION_HEADER.search(header[0]):
            group.why = f"first column headed {header[0]!r}, not errors or questions" if header else "no rows"
            yield group
            continue
        group.qualifies = True
        group.why = f"first column headed {header[0]!r}"
        for row in rows[1:]:
            cells = row.children
            answer = "\n\n".join(cell_markdown(c) for c in cells[1:] if cell_markdown(c))
            line = row.map[0] if row.map else section.start_line
            text = cell_text(cells[0])
            group.units.append(Unit(question=cell_markdown(cells[0]), title=text, answer=answer, line=line,
                                    score=max(question_score(text), 0.5)))
        yield group
