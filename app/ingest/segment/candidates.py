"""Every way a section's blocks could hold FAQ entries, with the evidence for each.

A candidate group is one reading of a section: its list items are the questions, or its
question paragraphs (`Q:` labels, bold questions, definition terms), or its table rows, or
its titled blocks (`<details>`, admonitions), or its heading. The decision (`decide.py`)
picks among them; this module only proposes and scores.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from markdown_it.tree import SyntaxTreeNode

from app.ingest.segment.blocks import (
    BOLD_LINE,
    TAG,
    Section,
    bold_text,
    cell_markdown,
    cell_text,
    first_line_nodes,
    paragraph_text,
    question_source,
    span,
    trim,
)
from app.ingest.segment.evidence import (
    ANSWER_PREFIX,
    ERROR_SCORE,
    TABLE_QUESTION_HEADER,
    has_answer_label,
    has_question_label,
    heading_score,
    is_answer_part,
    is_navigation,
    is_question,
    question_score,
)
from app.ingest.text import plain_inline

LIST_MARKER = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])(\s+|$)")
BOLD_COLON = re.compile(r"^\*\*(.+?)\*\*\s*[:：]\s*(\S.*)$")
STRAY_DETAILS_CLOSE = re.compile(r"(?im)^\s*</details>\s*$")
DEFINITION = re.compile(r"^[ \t]{0,3}:(?:[ \t]+|$)")  # a definition list's `: answer` line under its term
QUOTE_MARKER = re.compile(r"^[ \t]{0,3}>[ \t]?")
MIN_LIST_SHARE = 0.5  # of a list's items that must look like questions or errors
CODE_SPAN = re.compile(r"`+[^`]*`+")
TOPIC_LENGTH = 120  # characters: a topic item's first line names its topic; a longer one says the answer
# The label of a list item that states the problem its list answers (`- Error: …`, `- 错误描述：…`).
PROBLEM_ITEM = re.compile(r"(?i)^\W*(?:errors?|error message|problem|issue|symptoms?|"
                          r"错误描述|问题描述|错误信息|报错信息|错误|报错|问题|现象)\s*[:：]\s*")
PROBLEM_LIST_RULE = "a list that states a problem (`Error:`) and the parts of its answer"
CLOSING_POINTER = re.compile(r"(?i)^\W*(?:more|other|further) questions\W*$|^\W*(?:更多|其他|其它)问题\W*$")
ANSWER_BLOCKS = {"fence", "code_block", "paragraph", "blockquote"}  # what may stand between a bullet and the next
TOPIC_SCORE = 0.5  # evidence of one regular topic item in an FAQ: less than any question's
# A lead-in that announces the steps or fixes of one answer (`尝试按以下顺序解决：`, "Try the following:"), and one
# that announces questions or problems, which lists of entries have (`常见问题如下：`).
STEPS_LEAD_IN = re.compile(
    r"(?i)(?:步骤|顺序|方法|办法|方式|解决|排查|尝试|操作|如下操作|"
    r"steps?|in (?:this|that) order|following (?:ways|methods|options|solutions|fixes|commands)|to (?:fix|solve|"
    r"resolve|work around)|try|workarounds?)[^:：]*[:：]\s*$")
PROBLEMS_LEAD_IN = re.compile(
    r"(?i)(?:常见|以下|下列|如下|这些|几个|一些)[^:：，,]{0,8}(?:问题|疑问|错误|报错)|(?:问题|错误|报错)(?:如下|有)|"
    r"(?:common|following|these|some|known) (?:questions|problems|issues|errors)")
LABELLED_RULE = "`Q:` / `问：` paragraph"
BOLD_RULE = "bold question paragraph"
ASKED_AT_END = re.compile(r"[?？]\s*(?:\*\*|__)?\s*$")
PROBLEM_LABEL = re.compile(r"^\W*问题\W*")  # `**问题：**`, unnumbered: "the problem", or "question"


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
    topics: bool = False  # a list that qualifies only as topics (short items with text under them), no item asks
    spans_sub_headings: bool = False  # its last question's answer is the section's sub-headings (taken with it)
    why: str = ""  # why it qualifies or not, in words
    notes: list[str] = field(default_factory=list)  # for the ingest summary: what was left out, and why

    @property
    def score(self) -> float:
        """Total evidence: more and more question-like units weigh more."""
        return sum(u.score for u in self.units)


def without_stray_close(answer: str) -> str:
    """An answer without the `</details>` of a wrapper it does not open."""
    return answer if "<details" in answer.lower() else trim(STRAY_DETAILS_CLOSE.sub("", answer))


def _dedent(lines: Sequence[str], most: int) -> list[str]:
    """Lines without the indentation (up to `most` spaces) they all share."""
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    common = min([most, *indents])
    return [line[min(common, len(line) - len(line.lstrip(" "))):] for line in lines]


# ---------------------------------------------------------------- lists


def list_groups(section: Section, lines: list[str], faq_scope: bool, faq_document: bool) -> Iterator[Group]:
    """Each top-level list of the section (numbering that continues across lists joins them), one entry per item;
    and lists that each state a problem and its parts (`- Error: …` / `- Causes: …` / `- Solution: …`), one entry
    per list.

    `faq_scope`: the section's headings say FAQ; `faq_document`: the document or the section says it is one.
    """
    runs = list(_list_runs(section))
    problems = [run for run in runs if _problem_and_parts(run, lines)]
    if problems:
        yield _problem_group(problems, lines)
    for run in runs:
        if any(run is problem for problem in problems):
            continue
        if _introduced_as_steps(section, run[0][0], lines):
            yield Group(kind="list", rule="steps of one answer", line=span(run[0][0])[0],
                        why="the sentence before the list announces the steps or fixes of one answer")
            continue
        ordered = run[0][0].type == "ordered_list"
        items = [item for _, item in run]
        group = Group(kind="list", rule="ordered list item" if ordered else "bullet list item", line=span(run[0][0])[0])
        ends = [span(run[k + 1][1])[0] if k + 1 < len(run) and run[k + 1][0] is not block else span(item)[1]
                for k, (block, item) in enumerate(run)]
        ends[-1] = _run_end(section, run, lines)
        facts = _joined_answers(_inner_questions(
            [_item_facts(item, end, lines) for item, end in zip(items, ends, strict=True)], lines))
        if len(facts) >= 3 and (CLOSING_POINTER.match(facts[-1][0].title) or is_navigation(facts[-1][0].title)):
            # `1. More questions` / `please read the issues` closing a list of questions points elsewhere.
            group.notes.append(f"line {facts[-1][0].line + 1}: {_short(facts[-1][0].title)} points elsewhere; "
                               "it stays in the document, not an entry")
            facts = facts[:-1]
        group.units = [unit for unit, _ in facts]
        count = len(facts)
        navigation = sum(f["link_only"] for _, f in facts)
        asking = sum((u.score > 0 or f["bold"]) and not f["answer_part"] for u, f in facts)
        bodies = sum(f["body"] for _, f in facts)
        answered = sum(bool(u.answer.strip()) for u, _ in facts)
        titled = sum(_titled(u, f) for u, f in facts)
        bold_colon = sum(f["bold_colon"] for _, f in facts)
        topics = sum(f["body"] and f["short"] and not f["answer_part"] for _, f in facts)
        group.navigation = navigation * 2 >= count
        if group.navigation:
            group.why = f"{navigation} of {count} items are only a link: navigation"
        elif ordered and asking / count >= MIN_LIST_SHARE and (count >= 2 or _titled(*facts[0])) and \
                max(answered, titled) / count >= MIN_LIST_SHARE:
            # One numbered item is a question only when it is set out as one (`1. **Exec docker**`):
            # `1. 输入的数据量低。2. …` on the line under the answer's sentence is that answer going on. Numbered
            # lines with nothing under them that are not set out as questions answer nothing: `被BAN规则：` ›
            # `1. 5分钟内超过 1000 次错误请求` are rules (a titled item may be answered after the list: `**A:** …`).
            group.qualifies = True
            group.why = f"{asking} of {count} items lead with a question, an error or a bold title"
        elif faq_scope and not ordered and bold_colon * 2 >= count and count >= 2:
            group.qualifies = True
            group.rule = "bullet `**symptom**: answer`"
            group.why = f"{bold_colon} of {count} items are `**symptom**: answer` lines in an FAQ section"
        elif faq_document and count >= 2 and topics == count:
            group.qualifies = True
            group.rule = f"{group.rule} (a topic in an FAQ)"
            group.why = f"all {count} items name a topic in one short line with an answer under it, in an FAQ"
            group.units = [_as_topic(unit) for unit in group.units]
            group.topics = True
        else:
            asks = sum(u.score > 0 and not f["answer_part"] for u, f in facts)
            group.qualifies = not ordered and (asks / count >= MIN_LIST_SHARE and bodies / count >= MIN_LIST_SHARE
                                               and (asks >= 2 or faq_scope))
            group.why = (f"{asks} of {count} items lead with a question or an error, "
                         f"{bodies} have an answer under them")
        if bold_colon * 2 >= count and faq_scope:
            group.units = [_bold_colon_unit(unit) for unit in group.units]
        yield group


def _titled(unit: Unit, facts: dict[str, bool]) -> bool:
    """A list item set out as a question: bold, or ending in a question mark."""
    return facts["bold"] or unit.title.rstrip().endswith(("?", "？"))


def _problem_and_parts(run: list[tuple[SyntaxTreeNode, SyntaxTreeNode]], lines: list[str]) -> bool:
    """A list whose first item states a problem after a label (`Error: …`, `错误描述：…`) and whose other items
    name the parts of its answer (`Causes: …`, `Solution: …`, `可能原因：…`)."""
    firsts = [_item_text(item, lines) for _, item in run]
    label = PROBLEM_ITEM.match(firsts[0])
    return len(firsts) >= 2 and label is not None and bool(firsts[0][label.end():].strip()) and \
        all(is_answer_part(text) for text in firsts[1:])


def _problem_group(problems: list[list[tuple[SyntaxTreeNode, SyntaxTreeNode]]], lines: list[str]) -> Group:
    """One entry per problem list: the problem is the question, the parts its answer. Two or more such lists are the
    entries of their section; one is the answer of the heading above it."""
    group = Group(kind="list", rule=PROBLEM_LIST_RULE, line=span(problems[0][0][0])[0], qualifies=len(problems) >= 2,
                  why=f"{len(problems)} lists each state a problem (`Error:`) and the parts of its answer")
    for run in problems:
        first, end = span(run[0][1])[0], span(run[-1][1])[1]
        text = _item_text(run[0][1], lines)
        question = text[PROBLEM_ITEM.match(text).end():].strip()  # type: ignore[union-attr]
        title = _plain(question)
        group.units.append(Unit(question=question, title=title, answer=trim("\n".join(lines[first + 1:end])),
                                line=first, score=max(question_score(title), TOPIC_SCORE)))
    return group


def _item_text(item: SyntaxTreeNode, lines: list[str]) -> str:
    """The first line of a list item, without its marker."""
    first = lines[span(item)[0]]
    marker = LIST_MARKER.match(first)
    return first[len(marker.group(0)) if marker else 0:].strip()


def _introduced_as_steps(section: Section, block: SyntaxTreeNode, lines: list[str]) -> bool:
    """The paragraph right before the list ends in a colon announcing steps or fixes, not questions; or the list
    opens a section whose heading names a part of an answer (`## 排查步骤`, `### Solutions`)."""
    where = next((i for i, b in enumerate(section.blocks) if b is block), 0)
    if where == 0:
        return section.heading is not None and is_answer_part(section.title)
    if section.blocks[where - 1].type != "paragraph":
        return False
    start, end = span(section.blocks[where - 1])
    lead = " ".join(lines[start:end]).strip()
    last = re.split(r"[。.!！\n]|<br\s*/?>", lead)[-1]
    return bool(STEPS_LEAD_IN.search(last)) and not PROBLEMS_LEAD_IN.search(last)


def _list_runs(section: Section) -> Iterator[list[tuple[SyntaxTreeNode, SyntaxTreeNode]]]:
    """The section's lists as runs of (list, item); an ordered list whose numbering continues the one
    before it (`11.` after a list that ended at `10.`) is the same list, cut by an answer indented too little,
    and the bullet lists between them are part of the answer of the item before (`2.`, its answer, `- 使用STTN算法`
    at the margin, `3.`); so are one-line bullets each cut off by their answers at the margin
    (`- 服务端无法启动` then a fence)."""
    runs = list(_adjacent_runs(section))
    at = 0
    while at < len(runs):
        run, at = runs[at], at + 1
        if run[0][0].type != "ordered_list":
            yield run
            continue
        later = _past_bullets(runs, at)
        while later < len(runs) and _continues(run, runs[later][0][0], answered=later > at):
            run, at = run + runs[later], later + 1  # the bullets between are the answer of the item before
            later = _past_bullets(runs, at)
        yield run


def _continues(run: list[tuple[SyntaxTreeNode, SyntaxTreeNode]], block: SyntaxTreeNode, answered: bool) -> bool:
    """Whether an ordered list goes on with the run's numbering: it starts at the next number or, after bullets
    that answered the run's last item at the margin, repeats that item's number (`5.`, its answer, `5.` again:
    a reader sees two items numbered alike, not a new list)."""
    start, following = _list_start(block), _next_number(run)
    return start is not None and following is not None and (start == following or (answered and start == following - 1))


def _past_bullets(runs: list[list[tuple[SyntaxTreeNode, SyntaxTreeNode]]], at: int) -> int:
    """The index of the first run from `at` on that is not a bullet list."""
    while at < len(runs) and runs[at][0][0].type == "bullet_list":
        at += 1
    return at


def _adjacent_runs(section: Section) -> Iterator[list[tuple[SyntaxTreeNode, SyntaxTreeNode]]]:
    """The section's lists as runs of (list, item), joining a list only to the one right before it."""
    run: list[tuple[SyntaxTreeNode, SyntaxTreeNode]] = []
    between: list[str] = []  # the kinds of block since the last list
    for block in section.blocks:
        if block.type not in {"ordered_list", "bullet_list"}:
            between.append(block.type)
            continue
        items = [c for c in block.children if c.type == "list_item"]
        if not items:
            continue
        start = _list_start(block)
        answered = bool(between) and all(kind in ANSWER_BLOCKS for kind in between)
        bare = answered and _bare_bullet(block) and all(_bare_bullet(b) for b, _ in run)
        if run and not bare and (start is None or start != _next_number(run)):
            yield run
            run = []
        run += [(block, item) for item in items]
        between = []
    if run:
        yield run


def _list_start(block: SyntaxTreeNode) -> int | None:
    """The number an ordered list starts at (None for bullets)."""
    return int(str(block.attrs.get("start", 1))) if block.type == "ordered_list" else None


def _next_number(run: list[tuple[SyntaxTreeNode, SyntaxTreeNode]]) -> int | None:
    """The number the item after a run would have, if its last list is ordered."""
    last = run[-1][0]
    start = _list_start(last)
    return None if start is None else start + sum(1 for block, _ in run if block is last)


def _bare_bullet(block: SyntaxTreeNode) -> bool:
    """A bullet list of one item that is one paragraph: a question whose answer, at the margin, ended the list."""
    return block.type == "bullet_list" and _bare_item(block)


def _bare_item(block: SyntaxTreeNode) -> bool:
    """A list of one item that is one paragraph (`3. 7z文件解压错误` then its answer at the margin)."""
    items = [c for c in block.children if c.type == "list_item"]
    return len(items) == 1 and len(items[0].children) <= 1


def _run_end(section: Section, run: list[tuple[SyntaxTreeNode, SyntaxTreeNode]], lines: list[str]) -> int:
    """Where the answer of a run's last item ends: its own end; or, when that item is one paragraph and the bullets
    right after it are indented (its answer, indented too little to be inside it: `9.  问题` then `   - 答案`), the
    end of those bullets; or, when the run's lists were each cut off by an answer at the margin and the last is
    one bare item too, the next list or the section's end."""
    last = run[-1][0]
    item = run[-1][1]
    after = [b for b in section.blocks if span(b)[0] >= span(last)[1]]
    if len(item.children) <= 1 and after and after[0].type == "bullet_list" and span(after[0])[0] < len(lines) \
            and lines[span(after[0])[0]][:1] in (" ", "\t"):
        return span(after[0])[1]
    if len(run) < 2 or run[0][0] is last or not _bare_item(last):
        return span(run[-1][1])[1]
    later = [b for b in section.blocks if span(b)[0] > span(last)[0] and b.type in {"ordered_list", "bullet_list"}]
    return span(later[0])[0] if later else section.end_line


def _item_facts(item: SyntaxTreeNode, end: int, lines: list[str]) -> tuple[Unit, dict[str, bool]]:
    start, _ = span(item)
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
    answer = ANSWER_PREFIX.sub("", trim("\n".join(body_lines)), count=1)
    wrapped = lead is not None and span(lead)[1] - span(lead)[0] > 1 and _leaves_open(source)
    facts = {
        "link_only": bool(visible) and all(n.type == "link" for n in visible),
        "bold": _bold_first_line(visible),
        "bold_colon": bool(BOLD_COLON.match(source)),
        "body": bool(answer.strip()),
        "short": len(text) <= TOPIC_LENGTH and not wrapped,
        "answer_part": is_answer_part(text),
        "answer_label": has_answer_label(text),
    }
    question = question_source(source)
    return Unit(question=question, title=text or question, answer=without_stray_close(answer),
                line=start, score=question_score(text)), facts


def _leaves_open(line: str) -> bool:
    """The line leaves a code span, bracket or quote open: its sentence goes on at the next line (a wrapped
    `- 下载源码后，使用`Android` / `studio`打开项目`), so it names no topic of its own."""
    text = CODE_SPAN.sub("", line)
    return ("`" in text or text.count("(") + text.count("（") > text.count(")") + text.count("）")
            or text.count("[") > text.count("]") or text.count('"') % 2 == 1 or text.count("“") > text.count("”"))


def _inner_questions(facts: list[tuple[Unit, dict[str, bool]]], lines: list[str]
                     ) -> list[tuple[Unit, dict[str, bool]]]:
    """A paragraph inside a labelled item's answer that opens with a question label too (`**Question:** …` whose
    `- ` was lost) starts the next question: a label outranks the list's nesting."""
    split: list[tuple[Unit, dict[str, bool]]] = []
    for unit, fact in facts:
        while has_question_label(unit.question):
            body = unit.answer.split("\n")
            at = next((k for k in range(1, len(body)) if not body[k - 1].strip() and body[k] == body[k].lstrip()
                       and has_question_label(body[k])), None)
            if at is None:
                break
            question = body[at].strip()
            split.append((replace(unit, answer=trim("\n".join(body[:at]))), fact))
            rest = trim("\n".join(body[at + 1:]))
            title = _plain(question)
            line = next((n for n in range(unit.line + 1, len(lines)) if lines[n].strip() == question), unit.line)
            unit = Unit(question=question, title=title, answer=rest, line=line, score=question_score(title))
            fact = {**fact, "body": bool(rest.strip())}
        split.append((unit, fact))
    return split


def _joined_answers(facts: list[tuple[Unit, dict[str, bool]]]) -> list[tuple[Unit, dict[str, bool]]]:
    """Items labelled `A:` / `答：` are the answer of the item before them, not entries."""
    joined: list[tuple[Unit, dict[str, bool]]] = []
    for unit, fact in facts:
        if fact["answer_label"] and joined:
            previous, previous_fact = joined[-1]
            reply = ANSWER_PREFIX.sub("", unit.question, count=1)
            answer = "\n\n".join(part for part in (previous.answer, reply, unit.answer) if part.strip())
            joined[-1] = (Unit(question=previous.question, title=previous.title, answer=answer,
                               line=previous.line, score=previous.score), {**previous_fact, "body": True})
        else:
            joined.append((unit, fact))
    return joined


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


def _as_topic(unit: Unit) -> Unit:
    return Unit(question=unit.question, title=unit.title, answer=unit.answer, line=unit.line,
                score=max(unit.score, TOPIC_SCORE))


# ---------------------------------------------------------------- question paragraphs


def _lead_text(block: SyntaxTreeNode) -> str:
    """The plain text of a paragraph, or of a blockquote's first paragraph."""
    if block.type == "blockquote":
        inner = block.children[0] if block.children else None
        return paragraph_text(inner) if inner is not None and inner.type == "paragraph" else ""
    return paragraph_text(block) if block.type == "paragraph" else ""


def is_qa_paragraph(block: SyntaxTreeNode) -> bool:
    """A paragraph (or quoted paragraph) labelled as a question: `Q:`, `Q3:`, `问：`, `问题2：`, bold or not."""
    return has_question_label(_lead_text(block))


def _problem_statements(blocks: list[SyntaxTreeNode]) -> set[int]:
    """`问题：` paragraphs that state a problem (they ask nothing) answered by a part (`解决方法：`) rather than an
    answer label (`答：`): the two halves of one answer under its heading, not a question and its answer."""
    texts = [_lead_text(b) for b in blocks]
    if not any(is_answer_part(t) for t in texts) or any(has_answer_label(t) for t in texts):
        return set()
    return {i for i, text in enumerate(texts)
            if PROBLEM_LABEL.match(text) and not is_question(PROBLEM_LABEL.sub("", text, count=1))}


def is_answer_paragraph(block: SyntaxTreeNode) -> bool:
    """A paragraph (or quoted paragraph) labelled as an answer: `A:`, `**A1**:`, `答：`."""
    return has_answer_label(_lead_text(block))


def _is_bold_question(block: SyntaxTreeNode, lines: list[str], least: float = 0.9) -> bool:
    """A paragraph whose first line is wholly bold and asks (`least` 0.9), or also one that states
    an error (`least` ERROR_SCORE)."""
    if block.type != "paragraph":
        return False
    start, _ = span(block)
    line = lines[start].strip()
    asked_after = line.endswith(("?", "？")) and not BOLD_LINE.match(line)  # `**…为什么要NAT Gateway**?`
    match = BOLD_LINE.match(line[:-1].rstrip() if asked_after else line)
    return match is not None and question_score(TAG.sub("", bold_text(match)) + ("?" if asked_after else "")) >= least


def _definition_line(block: SyntaxTreeNode, lines: list[str]) -> int | None:
    """Where the definition of a definition list's term starts, if `block` is one: its one line, then `: ` and the
    definition, on the next line or after blank lines (Hugo, PHP Markdown Extra, Pandoc allow both)."""
    if block.type != "paragraph":
        return None
    start, end = span(block)
    if DEFINITION.match(lines[start]):  # a term's second definition, not a term
        return None
    if end - start >= 2:
        return start + 1 if DEFINITION.match(lines[start + 1]) else None
    below = next((n for n in range(end, len(lines)) if lines[n].strip()), None)
    return below if below is not None and DEFINITION.match(lines[below]) else None


def _is_definition_term(block: SyntaxTreeNode, lines: list[str]) -> bool:
    """A definition list's term (see `_definition_line`)."""
    return _definition_line(block, lines) is not None


def _answered_below(section: Section) -> bool:
    """Whether the section's sub-headings can be the parts of one answer: there are some and none asks."""
    below = section.descendants()
    return bool(below) and all(heading_score(sub.title) == 0 for sub in below)


def qa_group(section: Section, lines: list[str], bold_topics: int = 0) -> Group | None:
    """The section's question paragraphs, each answered up to the next: `Q:`-labelled ones; else bold questions
    (two or more); else one-line quotes that ask over their answers (two or more); else, where `bold_topics` is the
    least that count (an FAQ written without headings: 2; one whose headings only name categories, each opening with
    a bold title: 1), one-line bold paragraphs over text of their own; else definition terms that ask (or two or
    more)."""
    statements = _problem_statements(section.blocks)
    labelled = [b for i, b in enumerate(section.blocks) if is_qa_paragraph(b) and i not in statements]
    rule, why = LABELLED_RULE, "open with a question label"
    if not labelled:
        labelled = bold = [b for b in section.blocks if _is_bold_question(b, lines)]
        if len(labelled) >= 2:  # among bold questions, a bold line in their rhythm that states a failure is one too
            labelled = [b for b in section.blocks if _is_bold_question(b, lines, least=ERROR_SCORE)]
        rule, why = BOLD_RULE, "are a bold question"
        if len(labelled) < 2 and len(quotes := _quoted_questions(section, lines)) >= 2:
            labelled, rule, why = quotes, "quoted question paragraph", "are a one-line quote that asks, over an answer"
        elif len(labelled) < 2 and bold_topics and len(titles := bold_titles(section, lines)) >= bold_topics:
            labelled = titles
            rule = "bold title paragraph (" + ("an FAQ without headings)" if bold_topics >= 2 else
                                               "under headings that only name categories)")
            why = "are one bold line over text of their own"
        elif len(labelled) < 2:
            terms = [b for b in section.blocks if _is_definition_term(b, lines)]
            asking = [b for b in terms if question_score(lines[span(b)[0]].strip())]
            labelled = terms if len(terms) >= 2 else asking
            rule, why = "definition list term", "are definition list terms (`: answer` under them)"
            if not labelled and bold:  # one bold question: an entry where the document has more (`qa_total`)
                labelled, rule, why = bold, BOLD_RULE, "are a bold question"
            if not labelled:
                return None
    group = Group(kind="qa", rule=rule, line=span(labelled[0])[0], qualifies=True,
                  why=f"{len(labelled)} paragraphs {why}")
    quoted = {n for b in section.blocks if b.type == "blockquote" for n in range(*span(b))}
    source_lines = [QUOTE_MARKER.sub("", line) if n in quoted else line for n, line in enumerate(lines)]
    for i, block in enumerate(labelled):
        start, end = span(block)
        answer_end = span(labelled[i + 1])[0] if i + 1 < len(labelled) else section.end_line
        if rule == "definition list term":
            question_end = start + 1
            definition = _definition_line(block, lines) or question_end
            # a term may have several definitions, each opening with `: `: all of them answer it
            answer_lines = [DEFINITION.sub("", source_lines[definition], count=1),
                            *(DEFINITION.sub("", line, count=1)
                              for line in _dedent(source_lines[definition + 1:answer_end], most=4))]
        else:
            # The question ends at an answer label, or at the end of a line that asks when the paragraph goes on
            # (`Q1：ADD JAR语法如何支持s3路径？` then its answer on the next line).
            # A bold question is its bold first line: its answer may go on in the same paragraph.
            question_end = next((k for k in range(start + 1, end) if ANSWER_PREFIX.match(source_lines[k])
                                 or (rule == LABELLED_RULE and ASKED_AT_END.search(source_lines[k - 1]))
                                 or rule == BOLD_RULE), end)
            answer_lines = source_lines[question_end:answer_end]
        source = question_source(" ".join(line.strip() for line in source_lines[start:question_end]))
        answer = ANSWER_PREFIX.sub("", trim("\n".join(answer_lines)), count=1)
        if not answer.strip() and rule == LABELLED_RULE and i + 1 == len(labelled) and _answered_below(section):
            # `***Q***: How to migrate to Hatch?` then `### Build system`, `### Environments`: a label outranks the
            # headings that divide its answer
            answer = trim("\n".join(source_lines[question_end:section.subtree_end]))
            group.spans_sub_headings = True
        if not answer.strip():
            group.notes.append(f"line {start + 1}: the question {_short(source)} has no answer; it stays in the "
                               "document, not an entry")
            continue
        title = _plain(TAG.sub("", source))
        group.units.append(Unit(question=source, title=title, line=start,
                                answer=without_stray_close(answer), score=question_score(title)))
    if rule.startswith("bold title"):
        group.units = [_as_topic(unit) for unit in group.units]
    return group


def _quoted_questions(section: Section, lines: list[str]) -> list[SyntaxTreeNode]:
    """One-line quotes that ask, each followed by unquoted text (`> How do you see the exception log?` over its
    answer); where two or more ask, a quoted line in their rhythm that states a failure is one too."""
    blocks = section.blocks

    def quoted_line(block: SyntaxTreeNode, least: float) -> bool:
        start, end = span(block)
        return block.type == "blockquote" and end - start == 1 and \
            question_score(_plain(QUOTE_MARKER.sub("", lines[start]))) >= least

    answered = [b for b, after in itertools.pairwise(blocks) if after.type != "blockquote"]
    asking = [b for b in answered if quoted_line(b, 0.9)]
    return [b for b in answered if quoted_line(b, ERROR_SCORE)] if len(asking) >= 2 else asking


def bold_titles(section: Section, lines: list[str]) -> list[SyntaxTreeNode]:
    """One-line paragraphs wholly in bold, each followed by a block that is not one: the titles of a writer who
    uses no headings (`**workdir目录结构**` over a list)."""
    def bold(block: SyntaxTreeNode) -> bool:
        start, end = span(block)
        return block.type == "paragraph" and end - start == 1 and bool(BOLD_LINE.match(lines[start].strip()))

    blocks = section.blocks
    return [b for i, b in enumerate(blocks) if bold(b) and i + 1 < len(blocks) and not bold(blocks[i + 1])]


def orphan_answers(section: Section, first_question: int | None) -> list[int]:
    """0-based lines of answer-labelled paragraphs with no question before them in the section."""
    return [span(b)[0] for b in section.blocks
            if is_answer_paragraph(b) and (first_question is None or span(b)[0] < first_question)]


def _plain(source: str) -> str:
    """The source line as readers see it: no emphasis or code marks, character references (`&nbsp;`) decoded."""
    return " ".join(html.unescape(re.sub(r"\*\*|__|`", "", source)).split())


def _short(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 60 else text[:57] + "…")


# ---------------------------------------------------------------- titled blocks and tables


def details_group(section: Section, lines: list[str]) -> Group | None:
    """The section's `<details>` blocks and admonitions whose title is a question."""
    if not section.details:
        return None
    admonitions = all(d.indent for d in section.details)
    rule = "admonition with a question title" if admonitions else "`<details>` with a question `<summary>`"
    what = "admonition titles" if admonitions else "`<summary>` lines"
    group = Group(kind="details", rule=rule, line=section.details[0].start,
                  why=f"{len(section.details)} {what} ask a question")
    for details in section.details:
        body = _dedent(lines[details.body_start:details.end], most=details.indent) if details.indent else \
            lines[details.body_start:details.end]
        while body and not body[-1].strip():
            body.pop()
        if body and re.fullmatch(r"(?i)\s*</details>\s*", body[-1]):
            body.pop()
        plain = TAG.sub("", details.question)
        if is_navigation(" ".join(plain.split())):
            # `!!! question "Not finding what you're looking for?"` over where to ask: the page's business
            group.notes.append(f"line {details.summary_line + 1}: {_short(plain)} says where to ask; it stays in "
                               "the document, not an entry")
            continue
        while details.lead and body and not body[0].strip():
            body.pop(0)
        answer = "\n".join([details.lead, "", *body]) if details.lead else "\n".join(body)
        group.units.append(Unit(question=details.question, title=" ".join(plain.split()),
                                answer=trim(answer), line=details.summary_line,
                                score=question_score(plain)))
    group.qualifies = bool(group.units)
    return group


def table_groups(section: Section) -> Iterator[Group]:
    """Each table whose first column is headed like errors or questions (or holds `Q:` labels): one entry per row.

    A row whose first cell is empty asks nothing: it is left in the document and named in a note.
    """
    for block in section.blocks:
        if block.type != "table":
            continue
        rows = [row for part in block.children for row in part.children if row.type == "tr"]
        header = [cell_text(c) for c in rows[0].children] if rows else []
        group = Group(kind="table", rule="table row", line=span(block)[0])
        labelled = sum(has_question_label(cell_text(row.children[0])) for row in rows[1:] if row.children)
        if len(rows) < 2 or len(header) < 2 or not (
                TABLE_QUESTION_HEADER.search(header[0]) or labelled * 2 >= len(rows) - 1):
            group.why = f"first column headed {header[0]!r}, not errors or questions" if header else "no rows"
            yield group
            continue
        group.qualifies = True
        group.why = f"first column headed {header[0]!r}" + (f", {labelled} cells labelled `Q:`" if labelled else "")
        for row in rows[1:]:
            cells = row.children
            line = row.map[0] if row.map else section.start_line
            text = cell_text(cells[0]) if cells else ""
            if not text:
                group.notes.append(f"line {line + 1}: a table row with an empty first cell is not an entry")
                continue
            answer = "\n\n".join(cell_markdown(c) for c in cells[1:] if cell_markdown(c))
            group.units.append(Unit(question=cell_markdown(cells[0]), title=text, answer=answer, line=line,
                                    score=max(question_score(text), 0.5)))
        yield group
