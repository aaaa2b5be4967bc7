"""Choose, section by section, which blocks hold the entries; keep the trace for `faq inspect`.

Order of reasoning:
1. Scope: in a long document (a README, a guide) with an FAQ / troubleshooting section,
   only that section holds entries; a README without one holds none.
2. Explicit labels are the strongest evidence: blocks labelled `Q:` / `问：` (paragraphs,
   quotes, list items, table cells) or titled blocks whose title asks (`<details>`,
   admonitions) are the entries wherever they stand.
3. Otherwise a heading is an entry when it asks a question (or names an error), when its
   sub-headings are the parts of one answer (`Analysis`, `Solutions`), or when it stands
   among question headings of its level in a document that says it is an FAQ, by its names
   or by its shape (regular siblings name topics too). The sub-headings under it that ask
   nothing belong to its answer, up to the first that is an entry of its own.
4. Otherwise the section's blocks are read every way they could hold entries (list items,
   question paragraphs, table rows) and the best-supported reading wins.
5. A section with none of those is an entry of its own only in documents whose entries
   are headings; where the document's entries are list items or paragraphs, its headings
   are categories (breadcrumbs). Navigation (tables of contents, link lists, a heading
   named `Contents` or `目录`) is never an entry.
An editor's hint in front matter (`entries: list-items`, `entries: h3` …) overrides 2–5.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from markdown_it.tree import SyntaxTreeNode

from app.ingest.language import detect_language, language_scores
from app.ingest.segment.blocks import (
    Section,
    first_line_nodes,
    open_plain_admonitions,
    parse,
    question_source,
    sections,
    span,
    trim,
    without_name_anchors,
)
from app.ingest.segment.candidates import (
    LABELLED_RULE,
    PROBLEM_LIST_RULE,
    Group,
    Unit,
    bold_titles,
    details_group,
    list_groups,
    orphan_answers,
    qa_group,
    table_groups,
)
from app.ingest.segment.evidence import (
    ANSWER_PREFIX,
    README_NAME,
    TITLE_NUMBER,
    has_answer_label,
    has_question_label,
    heading_score,
    is_answer_part,
    is_code_table,
    is_container,
    is_error_section,
    is_faq_section,
    is_generic,
    is_navigation,
    names_a_condition,
    names_a_group,
    question_score,
    strip_numbering,
)
from app.ingest.text import plain_inline

HINTS = ("headings", "list-items", "qa", "details", "table", "none", "h1", "h2", "h3", "h4", "h5", "h6")
CLOSE_CALL = 0.8  # a losing reading with this share of the winner's evidence makes a close call
FEW_ENTRIES = 3  # an FAQ with fewer entries than this yields "almost nothing"
ASKS = 0.9  # question_score of a line that asks (or is labelled), not only names an error
SIBLING_RULE = "heading among the question headings of its level, in an FAQ"
ONE_QUESTION_PAGE = "the title of a page that asks one question"
OWN_TEXT_RULE = "heading with its own text"
NUMBERED_RULE = "heading numbered like the questions beside it, in an FAQ"
ASKING_RULE = "heading that asks a question"
PART_OF_THE_ANSWER_BEFORE = "names a part of an answer (`## 排查步骤`): it continues the entry before it"
MIN_TABLE_ROWS = 2  # rows of a table of errors or questions that outweigh a heading that does not ask
# Characters (a Chinese one counts two) of a question heading's own text that answer it: a lead-in to its
# sub-questions ("There are several causes:", "以下是常见原因：") is shorter.
MIN_OWN_ANSWER = 100
PROBLEM_STATEMENT = 30  # characters (a Chinese one counting two) of a sub-heading that says more than a label
# A heading that only numbers a question (`## Question 1`, `## 问题1`, `## Q3`): the question is written under it.
BARE_QUESTION_LABEL = re.compile(
    r"(?i)^\W*+(?:(?:question|q|问题|问)\s*+[#№]?\s*+\d{1,3}|(?:question )?title|问题标题|标题)\W*+$")
MIN_NUMBERED = 4  # numbered headings of one level, four in five of its headings: the FAQ's questions are numbered
MIN_ASKING = 3  # headings outside an FAQ section that ask, at least half of them: the document is all questions
MIN_PATTERN_WORDS = 3  # titles this long that differ in one word are items of one kind
# A case of an enumeration (`Case A: …`, `情况 B：…`, `Symptom 2: …`): cases with one label are items of one kind.
# Only labels that name a case or a problem: a step, a method or a solution is a part of one answer.
CASE_LABEL = re.compile(r"^\W*+(?i:(case|scenario|situation|symptom|problem|issue|error"
                        r"|情况|场景|症状|现象|问题|故障|错误))\s*+(?:[A-Z]|\d{1,2}|[一二三四五六七八九十]{1,3})\s*+[:：.、]")
POINTER_LENGTH = 60  # characters beside its links of a section that only points elsewhere ("Please refer to")
# A list written as lines of a paragraph: `1、[如何进行最简化部署](./Deployment.md)<br/>`.
LINK_LINE = re.compile(r"\d{1,3}[.、)）]\s*\[[^\]]*\]\([^)]*\)\s*(?:<br\s*/?>)?", re.IGNORECASE)
LINKS = re.compile(r"\[[^\]]*\]\([^)]*\)|<a\s[^>]*>.*?</a>|https?://\S+", re.IGNORECASE)
HTML_COMMENTS = re.compile(r"(?<!\s)\s*+(?:<!--.*?-->\s*+)+", re.DOTALL)


@dataclass(frozen=True)
class ParsedEntry:
    """One question and its answer, as found in the source."""

    question: str  # the question's source text, block marker removed (inline markdown kept)
    title: str  # plain text shown to readers; generic titles carry their section
    section: tuple[str, ...]  # breadcrumb: headings above the entry, plain text
    answer_markdown: str
    line: int  # 1-based source line of the question
    kind: str  # "heading" | "list" | "qa" | "table" | "details"
    rule: str = ""  # the reading that made it, in words
    twin_line: int | None = None  # 1-based line of its translation on the same page (a heading in each language)


@dataclass
class SectionDecision:
    """What one section became, and the readings that lost."""

    title: str
    line: int  # 1-based
    chosen: str  # the rule that made its entries, or why it has none
    entries: int = 0
    losers: list[str] = field(default_factory=list)
    close_call: bool = False
    notes: list[str] = field(default_factory=list)  # for the ingest summary: what was left out, and why


@dataclass
class ParsedDocument:
    """A document's title, its entries in source order, and how they were found."""

    title: str
    entries: list[ParsedEntry] = field(default_factory=list)
    decisions: list[SectionDecision] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the ingest summary (bad hints, close calls)
    says_faq: bool = False  # its title, file name, folder or a heading says FAQ
    reading: str = ""  # what the whole document says about its structure, for `faq inspect`

    @property
    def close_calls(self) -> list[SectionDecision]:
        """Sections whose reading was nearly another one."""
        return [d for d in self.decisions if d.close_call]

    @property
    def question_like(self) -> int:
        """Entries whose title asks a question or names an error."""
        return sum(question_score(e.title) > 0 for e in self.entries)

    def shortfall(self) -> str | None:
        """Why a document that says it is an FAQ yields almost nothing, or None when it does not."""
        if not self.says_faq:
            return None
        if len(self.entries) < FEW_ENTRIES:
            return f"says it is an FAQ but yields {len(self.entries)} entr{'y' if len(self.entries) == 1 else 'ies'}"
        if self.question_like * 2 < len(self.entries):
            return (f"says it is an FAQ but {len(self.entries) - self.question_like} of its {len(self.entries)} "
                    "entries do not read as questions")
        return None


@dataclass
class _Reading:
    """What the whole document says about how its sections hold entries."""

    lines: list[str]
    readings: dict[int, list[Group]]  # by id(section)
    forced: str | None
    faq_document: bool
    entry_level: int | None  # the heading level where this document's question headings stand
    first_question: int | None = None  # 0-based line of the first question heading at that level (in an FAQ)
    block_style: bool = False  # its entries are list items, paragraphs or titled blocks, not headings
    qa_total: int = 0
    absorbed: set[int] = field(default_factory=set)
    scoped: list[Section] = field(default_factory=list)
    position: dict[int, int] = field(default_factory=dict)  # id(section) → its place in `scoped`
    levels: Counter[int] = field(default_factory=Counter)  # headings per level (the title's aside)
    beside: dict[tuple[tuple[str, ...], int], list[Section]] = field(default_factory=dict)  # by (path, level)
    plain_beside: dict[tuple[tuple[str, ...], int], set[int]] = field(default_factory=dict)  # leaves with text
    numbered_level: int | None = None  # the level where nearly every heading is numbered (`#### 12、…`), in an FAQ


def segment_markdown(text: str, fallback_title: str = "", hint: object = None,
                     file_name: str = "", title: str = "") -> ParsedDocument:
    """Split a markdown document (already decoded, front matter blanked) into entries.

    `title` is the front matter's title, if any: like the file name, it can say the document is an FAQ.
    """
    lines = open_plain_admonitions(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    all_sections = sections(parse("\n".join(lines)), lines)
    title_section = _title_section(all_sections)
    naming = _naming_heading(all_sections)
    document = ParsedDocument(title=naming.title if naming is not None else fallback_title)
    forced = _read_hint(hint, document, all_sections)
    if title_section is not None:
        title_section.is_title = True
    scope_note = _restrict_to_faq_sections(all_sections, title_section, file_name, forced, title, lines)
    if scope_note:
        document.notes.append(scope_note)
    scoped = [s for s in all_sections if s.in_scope]
    if title_section is not None:
        for section in scoped:
            if section.path[:1] == (title_section.title,):
                section.path = section.path[1:]
    document.says_faq = _says_faq(document.title, title, file_name, all_sections)
    reading = _read_shape(scoped, lines, forced, document.says_faq)
    document.reading = _describe(reading, document.says_faq)
    empty = [s.heading_line + 1 for s in scoped if s.heading is not None and not s.title.strip()]
    if empty:
        document.notes.append(f"{len(empty)} heading(s) with no text (line {', '.join(map(str, empty[:5]))}): "
                              "not entries")
    for position, section in enumerate(scoped):
        if id(section) in reading.absorbed:
            continue
        twin = _translated_below(section, scoped[position + 1] if position + 1 < len(scoped) else None, reading)
        if twin is not None:  # `## 为什么网络不是每次都变强的` over `## Why doesn't the network get stronger…`
            below, answers = twin
            reading.absorbed.add(id(below))
            decisions, entries = _twin_headings(section, below, answers)
            document.decisions += decisions
            document.entries += entries
            continue
        decision, units, kind = _decide(section, reading.readings[id(section)], reading)
        document.decisions.append(decision)
        if decision.chosen == PART_OF_THE_ANSWER_BEFORE and document.entries and document.entries[-1].kind == "heading":
            _continue_answer(document, section, reading)
        own = kind == "heading"
        document.entries += [_entry(u, section, kind, decision.chosen, own) for u in units]
        document.notes += decision.notes
        if not own or not units:
            first = min((u.line for u in units), default=None)
            document.notes += [f"line {n + 1}: an answer (`A:`) with no question before it stays in the document"
                               for n in orphan_answers(section, first)]
    if title_section is not None and (not document.entries or _parts_of_its_title(document.entries, title_section)) \
            and _one_question_page(title_section, scoped, document.says_faq):
        for made in (d for d in document.decisions if d.entries):  # the sub-headings cut as entries are its answer
            made.chosen, made.entries = "a part of the answer to the page's title", 0
        document.entries = []
        reading.absorbed.clear()
        decision = SectionDecision(title=title_section.title, line=title_section.heading_line + 1, chosen="")
        decision, units, _ = _heading_decision(title_section, decision, [], reading, ONE_QUESTION_PAGE)
        document.decisions = [d for d in document.decisions if (d.line, d.title) != (decision.line, decision.title)]
        document.decisions.append(decision)  # in place of "document title or preamble"
        document.entries += [_entry(u, title_section, "heading", decision.chosen, True) for u in units]
    unreadable = [e for e in document.entries if not e.title.strip()]
    if unreadable:
        # A heading of nothing but markup (`` ` ``, `**`) asks nothing: its text stays in the document.
        document.entries = [e for e in document.entries if e.title.strip()]
        document.notes.append(f"{len(unreadable)} question(s) with no readable text (line "
                              f"{', '.join(str(e.line) for e in unreadable[:5])}) left in the document, not entries")
    document.entries.sort(key=lambda e: e.line)
    if len(document.entries) > 1 and naming is not None and \
            any(e.line == naming.heading_line + 1 for e in document.entries):
        document.title = fallback_title or document.title  # its first heading asks a question: an entry, not a name
    document.decisions += [
        SectionDecision(title=s.title, line=s.heading_line + 1, chosen=_out_of_scope(scope_note))
        for s in all_sections if not s.in_scope and s.heading is not None]
    document.decisions.sort(key=lambda d: d.line)
    for decision in document.close_calls:
        document.notes.append(f"line {decision.line}: structure was a close call ({decision.chosen}; "
                              f"also possible: {'; '.join(decision.losers)}); see `faq inspect`")
    return document


def _read_shape(scoped: list[Section], lines: list[str], forced: str | None, says_faq: bool) -> _Reading:
    """Every section's readings, and what they say about the whole document: is it an FAQ, where do its
    question headings stand, are its entries headings or blocks."""
    bold_topics = 2 if all(s.heading is None for s in scoped) else 1 if _bold_led_categories(scoped, lines) else 0
    readings = {id(s): _readings(s, lines, _faq_scope(s), says_faq, bold_topics if says_faq else 0) for s in scoped}
    level = _entry_level(scoped)
    reading = _Reading(lines=lines, readings=readings, forced=forced,
                       faq_document=says_faq or _asks_like_an_faq(scoped, level), entry_level=level, scoped=scoped)
    reading.position = {id(s): i for i, s in enumerate(scoped)}
    for section in scoped:
        if section.heading is not None and not section.is_title:
            reading.levels[section.level] += 1
            reading.beside.setdefault((section.path, section.level), []).append(section)
    reading.qa_total = sum(len(g.units) for s in scoped for g in readings[id(s)] if g.kind == "qa")
    # Problem lists (`- Error:` over its parts) sit among heading entries in troubleshooting pages: they do not make
    # the headings around them categories.
    block_units = (reading.qa_total if reading.qa_total >= 2 else 0) + sum(
        len(g.units) for s in scoped if not _heading_asks(s)
        for g in readings[id(s)] if g.qualifies and g.kind in {"list", "details"} and g.rule != PROBLEM_LIST_RULE)
    headings = [s for s in scoped if _heading_asks(s) or (s.heading is not None and not s.is_title and s.is_leaf
                                                          and _has_content(s))]
    reading.block_style = block_units > len(headings)
    if reading.faq_document and level is not None:
        reading.first_question = min((s.heading_line for s in scoped if s.level == level and _heading_asks(s)),
                                     default=None)
    if reading.faq_document:
        reading.numbered_level = _numbered_level(scoped)
    return reading


def _bold_led_categories(scoped: list[Section], lines: list[str]) -> bool:
    """Headings that only name categories, none asking, each opening with a one-line bold title over text
    (`## Issues with Installation` › `**Error Related to Silero**` › its answer): the bold lines are the questions."""
    headed = [s for s in scoped if s.heading is not None and not s.is_title and _has_content(s)]
    return len(headed) >= 2 and not any(_heading_asks(s) for s in scoped) and all(
        (titles := bold_titles(s, lines)) and titles[0] is s.blocks[0] for s in headed)


def _parts_of_its_title(entries: list[ParsedEntry], title: Section) -> bool:
    """Whether a page's title asks one question and the entries cut under it are only headings that ask nothing,
    each read as an entry for its own text (`# 如何手动替换ArkUI-X SDK` over `### 标准替换流程`,
    `### 常见问题解决`): the steps of the title's answer, not questions of their own."""
    return heading_score(title.title) > 0 and not is_faq_section(title.title) and all(
        e.kind == "heading" and e.rule.startswith(OWN_TEXT_RULE) and heading_score(e.title) == 0 for e in entries)


def _one_question_page(title: Section, scoped: list[Section], says_faq: bool) -> bool:
    """A page that cuts no entry, whose title asks (or states a problem) over text that answers it, in an FAQ or with
    no sub-heading other than the parts of an answer (`# Why can't I read the HTTP body?` over its reasons)."""
    below = [s for s in scoped if s.heading is not None and s is not title]
    return (heading_score(title.title) > 0 and any(_has_content(s) for s in [title, *below])
            and (says_faq or all(is_answer_part(s.title) for s in below)))


def _numbered_level(scoped: list[Section]) -> int | None:
    """The heading level where at least MIN_NUMBERED headings without sub-headings, four in five of them, are
    numbered (numbered categories over questions, `## 一、编译问题`, are not entries)."""
    numbered: Counter[int] = Counter()
    total: Counter[int] = Counter()
    for section in scoped:
        if section.heading is not None and not section.is_title and section.is_leaf:
            total[section.level] += 1
            numbered[section.level] += _numbered(section.title)
    level = max(numbered, key=lambda lvl: (numbered[lvl], -lvl), default=None)
    if level is None or numbered[level] < MIN_NUMBERED or numbered[level] * 5 < total[level] * 4:
        return None
    return level


def _numbered(title: str) -> bool:
    """Opens with a number and says something after it (`12、视频音画不同步`, `3. The software…`)."""
    match = TITLE_NUMBER.match(title)
    return match is not None and bool(title[match.end():].strip())


def _numbers_its_questions(section: Section, reading: _Reading) -> bool:
    """Whether the section's sub-headings are the document's numbered questions, numbered within its own number
    (`## 3. 基础系统` over `### 3.1 Invalid bound statement`, `### 3.2 Unknown Column`): its one-line scope note
    ("这里主要是指…") introduces them, it answers nothing."""
    own = TITLE_NUMBER.match(section.title)
    if own is None or not section.children or reading.numbered_level is None:
        return False
    prefix = re.sub(r"\D+$", "", own.group().strip()) + "."
    return all(c.level == reading.numbered_level and _numbered(c.title) and c.title.lstrip().startswith(prefix)
               for c in section.children)


def _off_the_numbering(section: Section, reading: _Reading) -> bool:
    """An unnumbered heading that asks nothing among numbered questions (`#### 更多配置` after `#### 27、…`): a note."""
    return (section.level == reading.numbered_level and not _numbered(section.title)
            and heading_score(section.title) == 0)


def _describe(reading: _Reading, named: bool) -> str:
    """The document-wide facts the decisions used, in words; `named`: its title, name, folder or a heading
    says FAQ."""
    facts = ["an FAQ (its title, name, folder or a heading says so)" if named else
             "an FAQ by its shape (most headings of one level ask)" if reading.faq_document else "not an FAQ by name"]
    if reading.entry_level is not None:
        facts.append(f"question headings stand at level {reading.entry_level}")
    facts.append("entries are list items, paragraphs or titled blocks" if reading.block_style
                 else "entries are headings where no block asks")
    return "; ".join(facts)


def suggest_hint(text: str, inferred: int, file_name: str = "", title: str = "") -> tuple[str, int] | None:
    """The front matter `entries:` value under which the document reads as an FAQ — more question-like entries
    than the `inferred` reading's, and mostly questions — with their count; None when no hint does."""
    best: tuple[str, int] | None = None
    for hint in HINTS:
        if hint == "none":
            continue
        hinted = segment_markdown(text, hint=hint, file_name=file_name, title=title)
        found = hinted.question_like
        if found > inferred and found * 2 >= len(hinted.entries) and (best is None or found > best[1]):
            best = (hint, found)
    return best


# ---------------------------------------------------------------- scope and title


def _title_section(found: list[Section]) -> Section | None:
    """The document's single top-level `#` heading, when it opens the document; with no `#` heading, a first heading
    that names the document as an FAQ without asking (`## GSYVideoPlayer 问题集锦`)."""
    headed = [s for s in found if s.heading is not None]
    level_one = [s for s in headed if s.level == 1]
    if len(level_one) == 1 and level_one[0] is headed[0]:
        return level_one[0]
    first = headed[0] if headed else None
    if first is not None and not level_one and is_faq_section(first.title) and heading_score(first.title) == 0 \
            and not any(s.level == first.level and TITLE_NUMBER.sub("", s.title, count=1).strip() for s in headed[1:]):
        return first
    return None


def _naming_heading(found: list[Section]) -> Section | None:
    """The heading that names the document: its only `#` heading, else its first heading."""
    headed = [s for s in found if s.heading is not None]
    level_one = [s for s in headed if s.level == 1]
    if len(level_one) == 1:
        return level_one[0]
    return headed[0] if headed else None


def _says_faq(document_title: str, title: str, file_name: str, found: list[Section]) -> bool:
    """The document says it is an FAQ: its title, front matter title, file name, a folder or a heading."""
    path = PurePosixPath(file_name)
    names = [document_title, title, path.stem, *path.parent.parts]
    return any(is_faq_section(name) for name in names if name) or any(
        is_faq_section(s.title) for s in found if s.heading is not None)


def _restrict_to_faq_sections(found: list[Section], title_section: Section | None, file_name: str,
                              forced: str | None, title: str, lines: list[str]) -> str | None:
    """In a long document (README, guide) with an FAQ section, only that section holds entries; a document whose
    name or front matter title says FAQ is one whole, and a heading that only points to more FAQ elsewhere
    (`#### More FAQ` over a link) marks no section; nor does an FAQ heading in a document whose other headings
    mostly ask themselves."""
    headed = [s for s in found if s.heading is not None]
    faq = [s for s in headed if is_faq_section(s.title) and not _points_elsewhere(s, lines)]
    stem = PurePosixPath(file_name).stem
    if not faq and README_NAME.match(stem):  # a README's `## Common errors` is its troubleshooting part
        faq = [s for s in headed if is_error_section(s.title)]
    if title and is_faq_section(title):
        return None
    if not faq:
        if README_NAME.match(stem) and forced is None:
            for section in found:
                section.in_scope = False
            return "a README without an FAQ section: no entries (front matter `entries:` overrides)"
        return None
    if faq[0] is headed[0] or faq[0] is title_section or is_faq_section(stem):
        return None
    for section in found:
        section.in_scope = False
    for i, section in enumerate(found):
        if section in faq:
            section.in_scope = True
            for later in found[i + 1:]:
                if later.level <= section.level:
                    break
                later.in_scope = True
    outside = [s for s in found if not s.in_scope and s.heading is not None and not is_navigation(s.title)]
    asking = sum(heading_score(s.title) > 0 for s in outside)
    if asking >= MIN_ASKING and asking * 2 >= len(outside):
        # `# Common knowledge` asking `### How to check logs?` … before `# Frequently Asked Questions`: a page of
        # questions throughout, whose FAQ heading names only a part of them. (A README's four `## Why Yi?` among
        # fifty headings introduce the project.)
        for section in found:
            section.in_scope = True
    return None


def _points_elsewhere(section: Section, lines: list[str]) -> bool:
    """A section with no sub-sections whose text is little more than a link: `More FAQ` › "Please refer to <url>"."""
    text = "\n".join(lines[section.start_line:section.end_line])
    words = LINKS.sub("", text)
    return section.is_leaf and words != text and _substance(words) < POINTER_LENGTH


def _out_of_scope(scope_note: str | None) -> str:
    return "a README without an FAQ section: not read" if scope_note else "outside the FAQ section: not read"


def _faq_scope(section: Section) -> bool:
    return any(is_faq_section(t) for t in (*section.path, section.title))


def _asks_like_an_faq(scoped: list[Section], level: int | None) -> bool:
    """Its headings say it: at least three of one level, two in three of them, ask."""
    headings = [s for s in scoped if s.heading is not None and s.level == level and not is_navigation(s.title)]
    asking = sum(heading_score(s.title) > 0 for s in headings)
    return asking >= 3 and asking * 3 >= len(headings) * 2


def _entry_level(scoped: list[Section]) -> int | None:
    """The heading level where most headings ask a question: there, regular siblings are entries too."""
    asking: Counter[int] = Counter()
    total: Counter[int] = Counter()
    for section in scoped:
        if section.heading is not None and not section.is_title and not is_navigation(section.title):
            total[section.level] += 1
            asking[section.level] += heading_score(section.title) > 0
    level = max(asking, key=lambda lvl: (asking[lvl], -lvl), default=None)
    if level is None or asking[level] < 2 or asking[level] * 2 < total[level]:
        return None
    return level


def _read_hint(hint: object, document: ParsedDocument, found: list[Section]) -> str | None:
    if hint is None or hint == "":
        return None
    value = str(hint).strip().lower().replace("_", "-").replace(" ", "-")
    value = {"list": "list-items", "lists": "list-items", "heading": "headings", "q&a": "qa"}.get(value, value)
    if value not in HINTS:
        document.notes.append(f"front matter `entries: {hint}` is not one of {', '.join(HINTS)}; ignored")
        return None
    if value.startswith("h") and value[1:].isdigit() and not any(
            s.heading is not None and s.level == int(value[1:]) for s in found):
        document.notes.append(f"front matter `entries: {hint}`: the document has no level-{value[1:]} heading; "
                              "ignored")
        return None
    return value


# ---------------------------------------------------------------- per-section decision


def _readings(section: Section, lines: list[str], faq_scope: bool, faq_document: bool,
              bold_topics: int = 0) -> list[Group]:
    groups: list[Group] = []
    for group in (details_group(section, lines), qa_group(section, lines, bold_topics)):
        if group is not None:
            groups.append(group)
    groups += list(list_groups(section, lines, faq_scope, faq_document or faq_scope))
    groups += list(table_groups(section))
    return groups


def _labelled(group: Group) -> bool:
    """Most of the group's units carry an explicit question label (or a titled block asks)."""
    if group.kind == "details":
        return True
    labels = sum(has_question_label(u.question) for u in group.units)
    return group.qualifies and labels > 0 and labels * 2 >= len(group.units)


def _decide(section: Section, readings: list[Group], reading: _Reading
            ) -> tuple[SectionDecision, list[Unit], str]:
    """The section's decision, its entries' units and their kind."""
    decision = SectionDecision(title=section.title or "(before the first heading)",
                               line=section.heading_line + 1, chosen="")
    if reading.forced is not None:
        return _decide_forced(section, readings, reading, decision)
    details = [g for g in readings if g.kind == "details"]
    # One bold question paragraph in a whole document is emphasis; one `Q:` label is still a question.
    others = [g for g in readings if g.kind != "details"
              and (g.kind != "qa" or g.rule == LABELLED_RULE or reading.qa_total >= 2)]
    labelled = any(_labelled(g) for g in [*details, *others])
    evidence = _heading_evidence(section, readings, reading)
    # A table of errors or questions answers each row; a heading that only names errors (`## 常见错误处理`)
    # above it is their category, not one entry holding them all.
    tabled = heading_score(section.title) < ASKS and any(
        g.kind == "table" and g.qualifies and len(g.units) >= MIN_TABLE_ROWS for g in readings)
    if evidence and not labelled and not tabled:
        reply = _answer_heading_after(section, reading)
        if reply is not None:  # `### Q: …?` then `### A: …`: the answer is written as the next heading
            reading.absorbed.add(id(reply))
            text = "\n".join([ANSWER_PREFIX.sub("", reply.source, count=1),
                              *reading.lines[reply.start_line:reply.subtree_end]])
            unit = Unit(question=section.source, title=section.title, answer=trim(text), line=section.heading_line,
                        score=question_score(section.title))
            decision.chosen, decision.entries = f"{evidence}, answered by the `A:` heading after it", 1
            return decision, [unit], "heading"
        shared = _shares_the_answer_after(section, reading)
        if shared is not None:  # two errors in a row answered once ("以上两种错误")
            unit = Unit(question=section.source, title=section.title,
                        answer=trim("\n".join(reading.lines[shared.start_line:shared.end_line])),
                        line=section.heading_line, score=question_score(section.title))
            decision.chosen, decision.entries = f"{evidence}, sharing the answer of the question after it", 1
            return decision, [unit], "heading"
        if not _has_content(section) and not section.children:
            decision.chosen = "a heading with no answer under it: no entry"
            if question_score(section.title) >= ASKS:  # a bare error name is a category left empty
                    decision.notes.append(f"line {decision.line}: the question {section.title[:60]!r} has no answer "
                                      "under it; it stays in the document, not an entry")
            return decision, [], "heading"
        if not _has_content(section) and _holds_entries(section.children[0], reading):
            # `## 症状 5：引用插入异常` › `### 情况 A：…`, `### 情况 B：…`: its answer would be empty; it names them
            decision.chosen = "no text of its own over sub-headings that are entries: a category"
            return decision, [], "heading"
        if _is_category(section, evidence, reading.lines):
            decision.chosen = "a category of question headings: its text stays on the document page"
            return decision, [], "heading"
        return _heading_decision(section, decision, readings, reading, evidence)
    if is_navigation(section.title) and not labelled:
        decision.chosen = f"{section.title!r} names navigation or a preface: no entry"
        return decision, [], "heading"
    qualifying = sorted((g for g in others if g.qualifies), key=lambda g: -g.score)
    if qualifying and qualifying[0].topics and not details and _answers_among_heading_entries(section, reading):
        # `### Requests stall` › "To fix this:" › `- Raise the limit with ulimit` + code: the steps of one answer.
        decision.losers.append(f"{qualifying[0].rule} (the steps of the heading's answer: its text leads in, and "
                               "the headings beside it are entries)")
        qualifying = []
    units: list[Unit] = [u for g in details for u in g.units]
    kind = "details" if units else ""
    decision.notes += [note for g in details for note in g.notes]
    decision.losers = [f"{g.rule} ({g.why})" for g in others if not g.qualifies]
    if qualifying:
        best = qualifying[0]
        if best.spans_sub_headings:
            reading.absorbed.update(id(d) for d in section.descendants())
        units += best.units
        decision.notes += best.notes
        kind = kind or best.kind
        decision.chosen = best.rule if not details else f"{details[0].rule} and {best.rule}"
        for loser in qualifying[1:]:
            decision.losers.append(f"{loser.rule} ({len(loser.units)} units; less evidence)")
            decision.close_call |= loser.score >= CLOSE_CALL * best.score and loser.kind != best.kind
    elif details:
        decision.chosen = details[0].rule
    if units:
        decision.entries = len(units)
        return decision, sorted(units, key=lambda u: u.line), kind
    return _fallback(section, decision, readings, reading)


def _heading_evidence(section: Section, readings: list[Group], reading: _Reading) -> str:
    """Why the section's heading is an entry's question (the rule, in words), or "" when it is not."""
    if section.heading is None or section.is_title or is_navigation(section.title):
        return ""
    if heading_score(section.title) > 0 and not is_code_table(section.title):  # `## Error codes` › `### 126`
        return ASKING_RULE
    if section.level == reading.numbered_level and section.is_leaf and _numbered(section.title) and \
            (not reading.block_style or not any(g.qualifies for g in readings)) and \
            not _navigation_only(section, readings, reading.lines):
        # In a document whose entries are headings, `#### 12. The video sound and picture are not synchronized.`
        # over a checklist that asks; in one whose numbered headings hold `Q:` paragraphs, the numbered heading
        # that holds none but an answer (`### 9.总结不上怪`) is an entry of its own, not a category of nothing
        return NUMBERED_RULE
    parts = [c for c in section.children if is_answer_part(c.title)]
    if len(parts) >= 2 and len(parts) * 2 >= len(section.children):
        return "heading whose sub-headings are the parts of one answer"
    if (reading.faq_document and section.level == reading.entry_level and not _groups(section)
            and not is_navigation(section.title) and not is_answer_part(section.title)
            and not _table_of_contents(section, readings, reading.lines)
            and not _off_the_numbering(section, reading)
            and (_has_content(section) or section.is_leaf or not names_a_group(section.title))):
        # `## Runtime related issues` with no text over `###` errors is their category
        return SIBLING_RULE
    return ""


def _fallback(section: Section, decision: SectionDecision, readings: list[Group], reading: _Reading
              ) -> tuple[SectionDecision, list[Unit], str]:
    """A section with no question blocks: an entry of its own, or a category."""
    if section.heading is None or section.is_title:
        decision.chosen = "document title or preamble: no entry"
    elif not _has_content(section) and section.children and names_a_condition(section.children[0].title) \
            and not _mostly_questions(section) and not is_container(section.title):
        # `### Docker socket location` › `#### v0.3.4 or older`, `#### v0.4.0 or newer`: one answer in variants
        return _heading_decision(section, decision, readings, reading, "heading over the versions or platforms of "
                                 "its answer")
    elif not _has_content(section):
        decision.chosen = "no text of its own: a category"
    elif _groups(section):
        decision.chosen = f"{section.title!r} names a group of questions: a category"
    elif is_answer_part(section.title):
        decision.chosen = PART_OF_THE_ANSWER_BEFORE
    elif not section.is_leaf and _mostly_questions(section):
        decision.chosen = "a category of question headings: its text stays on the document page"
    elif not section.is_leaf and (is_faq_section(section.title) or is_generic(section.title)) and \
            not all(is_answer_part(c.title) for c in section.children):
        # `## Storage Device FAQ` over warnings and its `###` topics, `## 一、常见问题与解决方案` over a line of
        # introduction and its `### 1.` … `### 10.`, `## 错误和警告` over its errors: its text introduces them
        decision.chosen = "names an FAQ or a kind of problem over its questions: a category, its text stays on the " \
                          "document page"
    elif _numbers_its_questions(section, reading):
        decision.chosen = "numbered over the numbered questions under it (`3.` over `3.1`, `3.2`): a category"
    elif _navigation_only(section, readings, reading.lines):
        decision.chosen = "only links: navigation"
    elif _off_the_numbering(section, reading):
        decision.chosen = "not numbered like the questions beside it: a note, its text stays on the document page"
    elif reading.block_style:
        decision.chosen = "a category: this document's entries are list items, paragraphs or <details>"
    elif reading.first_question is not None and section.heading_line < reading.first_question and section.is_leaf \
            and section.level < (reading.entry_level or 0):
        decision.chosen = "plain text before the first question, above the question headings: a preface"
    else:
        # Among heading entries, or below the level of the document's question headings, a sub-heading that asks
        # nothing is a part of this one's answer (`#### macOS`; `### 部署到 GitHub Pages` › `#### 手动部署`).
        below = reading.entry_level is not None and section.level > reading.entry_level
        absorb = not section.is_leaf and (below or _answers_among_heading_entries(section, reading))
        return _heading_decision(section, decision, readings, reading, OWN_TEXT_RULE, absorb=absorb,
                                 labels_only=True)
    return decision, [], "heading"


def _heading_decision(section: Section, decision: SectionDecision, readings: list[Group], reading: _Reading,
                      rule: str, absorb: bool = True, labels_only: bool = False
                      ) -> tuple[SectionDecision, list[Unit], str]:
    """The section's heading is the question; the sub-headings that follow it and hold no entry of their own
    belong to its answer, up to the first that does (with `labels_only`, also up to the first that states a
    problem of its own in a clause rather than labelling a part: `Windows 安装版在升级后，卸载了旧版本，…`)."""
    end = section.end_line
    if absorb and section.children:
        descendants = section.descendants()
        # The one heading of its level above the level of the document's questions is a question set one level
        # too high (`## … cannot be found` among `###` questions): the headings after it at that level are not its.
        off = _one_level_off(section, reading)
        own = next((d for d in descendants if _holds_entries(d, reading) or d.level == off
                    or (labels_only and _states_a_problem(d.title))), None)
        end = own.heading_line if own is not None else section.subtree_end
        taken = [d for d in descendants if d.heading_line < end]
        reading.absorbed.update(id(d) for d in taken)
        if taken:
            rule += ", sub-headings included"
    assert section.heading is not None
    if BARE_QUESTION_LABEL.match(section.title) and section.blocks and section.blocks[0].type == "paragraph":
        # `## Question 1` / `## 问题1` only numbers the question: it is the line under it (`_Description_: …`)
        first, _ = span(section.blocks[0])
        title = " ".join(plain_inline(first_line_nodes(section.blocks[0])).split())
        unit = Unit(question=question_source(reading.lines[first]), title=title,
                    answer=trim("\n".join(reading.lines[first + 1:end])), line=first, score=question_score(title))
        rule += ", its question the line under it"
    else:
        unit = Unit(question=section.source, title=section.title,
                    answer=trim("\n".join(reading.lines[section.start_line:end])), line=section.heading_line,
                    score=question_score(section.title))
    decision.chosen, decision.entries = rule, 1
    decision.losers += [f"{g.rule} ({g.why})" for g in readings if g.qualifies]
    return decision, [unit], "heading"


def _answers_among_heading_entries(section: Section, reading: _Reading) -> bool:
    """The section's own text leads its answer (or it opens with numbered steps), and most headings beside it (same
    parent, same level) are entries by their own text: leaves with text and no block that asks. Then it is an entry
    like them, and its lists and sub-headings are the parts of its answer."""
    if reading.block_style or section.heading is None or section.is_title or \
            not section.blocks or section.blocks[0].type not in ("paragraph", "ordered_list"):
        return False
    key = (section.path, section.level)
    if key not in reading.plain_beside:
        reading.plain_beside[key] = {id(s) for s in reading.beside.get(key, []) if s.is_leaf and _has_content(s)
                                     and not is_navigation(s.title)
                                     and not any(g.qualifies and not g.topics for g in reading.readings[id(s)])}
    siblings = len(reading.beside.get(key, [])) - 1
    entries = len(reading.plain_beside[key]) - (id(section) in reading.plain_beside[key])
    return entries >= 2 and entries * 2 > siblings


def _states_a_problem(title: str) -> bool:
    """A title that says something in clauses (a comma) or at a sentence's length, not a label (`macOS`, `手动部署`)."""
    return bool(re.search(r"[,，；;]", title)) or _substance(title) >= PROBLEM_STATEMENT


def _one_level_off(section: Section, reading: _Reading) -> int | None:
    """The level most of the document's headings stand at, when the section is the only heading of a higher level
    (a question set one level too high); else None."""
    levels = reading.levels
    usual, count = levels.most_common(1)[0] if levels else (0, 0)
    if levels[section.level] != 1 or section.level >= usual or count < 3 or count * 2 <= sum(levels.values()):
        return None
    return usual


def _answer_heading_after(section: Section, reading: _Reading) -> Section | None:
    """The heading right after a question heading with no text of its own, when it carries an answer label at the
    same level (`### A: …`)."""
    if _has_content(section) or section.children:
        return None
    after = _next_section(section, reading)
    if after is None or after.heading is None or after.level != section.level or not has_answer_label(after.title):
        return None
    return after


def _next_section(section: Section, reading: _Reading) -> Section | None:
    """The section right after this one in the document, if any."""
    at = reading.position.get(id(section), len(reading.scoped)) + 1
    return reading.scoped[at] if at < len(reading.scoped) else None


def _shares_the_answer_after(section: Section, reading: _Reading) -> Section | None:
    """The heading right after an error heading with nothing under it, at the same level, naming an error too and
    answering it: one answer for both (`### …register breakpoint fail…` then `### …add monitor failed…` and "以上两种
    错误"). A question that asks and has no answer stays unanswered."""
    if _has_content(section) or section.children or not _names_an_error(section.title):
        return None
    after = _next_section(section, reading)
    if after is None or after.heading is None or after.level != section.level or not _has_content(after) or \
            not _names_an_error(after.title):
        return None
    return after


def _names_an_error(title: str) -> bool:
    """Names an error or a failure without asking a question."""
    return 0 < question_score(title) < ASKS


def _continue_answer(document: ParsedDocument, section: Section, reading: _Reading) -> None:
    """The section, heading and all, appended to the answer of the heading entry before it."""
    last = document.entries[-1]
    text = trim("\n".join(reading.lines[section.heading_line:section.subtree_end]))
    document.entries[-1] = replace(last, answer_markdown=f"{last.answer_markdown}\n\n{text}".strip())
    reading.absorbed.update(id(d) for d in section.descendants())


def _holds_entries(section: Section, reading: _Reading) -> bool:
    """A sub-section that is an entry of its own: its heading asks, or it holds labelled blocks, or a heading beside it
    written to the same pattern asks (`### cloudcore in pending status` beside `### cloudcore in CrashLoopBackOff
    status`: items of one kind are read alike)."""
    if heading_score(section.title) > 0 or any(_labelled(g) for g in reading.readings.get(id(section), [])):
        return True
    return any(other is not section and heading_score(other.title) > 0 and _same_pattern(section.title, other.title)
               for other in reading.beside.get((section.path, section.level), []))


def _same_pattern(first: str, second: str) -> bool:
    """Two titles of at least three words that differ in one word only (`cloudcore in pending status`,
    `cloudcore in ImagePullBackOff status`), or two cases of one enumeration (`情况 A：触发词不弹窗`,
    `情况 C：Wikilink 跳转失败`)."""
    a, b = first.split(), second.split()
    if len(a) == len(b) >= MIN_PATTERN_WORDS and sum(x != y for x, y in zip(a, b, strict=True)) == 1:
        return True
    cases = CASE_LABEL.match(first), CASE_LABEL.match(second)
    return cases[0] is not None and cases[1] is not None and cases[0][1].lower() == cases[1][1].lower()


def _decide_forced(section: Section, readings: list[Group], reading: _Reading, decision: SectionDecision
                   ) -> tuple[SectionDecision, list[Unit], str]:
    forced = reading.forced
    assert forced is not None
    if forced == "none":
        decision.chosen = "front matter `entries: none`"
        return decision, [], "heading"
    if forced.startswith("h"):
        wanted = int(forced[1]) if forced != "headings" else None
        if section.heading is not None and not section.is_title and _has_content(section) and (
                (wanted is None and section.is_leaf) or section.level == wanted):
            return _heading_decision(section, decision, [], reading, f"front matter `entries: {forced}`",
                                     absorb=wanted is not None)
        decision.chosen = f"not a `{forced}` heading (front matter `entries: {forced}`)"
        return decision, [], "heading"
    kind = {"list-items": "list"}.get(forced, forced)
    units = [u for g in readings if g.kind == kind for u in g.units]
    decision.chosen = f"front matter `entries: {forced}`"
    decision.entries = len(units)
    return decision, sorted(units, key=lambda u: u.line), kind


# ---------------------------------------------------------------- helpers


def _heading_asks(section: Section) -> bool:
    return section.heading is not None and not section.is_title and heading_score(section.title) > 0


def _groups(section: Section) -> bool:
    """Named as a group of questions (`Others`, `FAQ`), unless it is one more topic of its own beside the entries
    (`### Other LCD issues in ESP-IDF` over a link: it holds an answer and no questions, and says more than
    `Others`)."""
    if not is_container(section.title):
        return False
    return not (section.is_leaf and _has_content(section) and not is_generic(section.title)
                and len(TITLE_NUMBER.sub("", section.title, count=1).split()) >= 3)


def _mostly_questions(section: Section) -> bool:
    titles = [c.title for c in section.children]
    return bool(titles) and sum(heading_score(t) > 0 for t in titles) * 2 >= len(titles)


def _is_category(section: Section, evidence: str, lines: list[str]) -> bool:
    """A heading whose sub-headings are mostly questions only groups them; at the entry level, though, a first
    sub-heading that asks nothing starts the heading's answer (`### Windows CUDA` › `#### CUDA version`) unless none
    asks and the heading has no text of its own (then it only labels its topics), and a
    heading that asks a question and answers it before follow-up questions (`## Where are models stored?` ›
    `### How do I move them?`) is an entry like them."""
    if evidence == SIBLING_RULE and not _has_content(section) and len(section.children) >= 2 and all(
            _has_content(c) and heading_score(c.title) == 0 for c in section.children) and \
            not names_a_condition(section.children[0].title):
        return True  # `## 部署文档` over `### 非根目录部署`, `### 部署到 GitHub Pages`: a label over its topics
    if not _mostly_questions(section):
        return False
    if evidence == ASKING_RULE and _substance("\n".join(lines[section.start_line:section.end_line])) >= MIN_OWN_ANSWER:
        return False
    return evidence != SIBLING_RULE or heading_score(section.children[0].title) > 0


def _substance(text: str) -> int:
    """How much a text says: its characters other than spaces, a Chinese one counting two (it is a word)."""
    return sum(2 if "\u4e00" <= char <= "\u9fff" else 1 for char in text if not char.isspace())


def _has_content(section: Section) -> bool:
    return bool(section.details) or any(_visible(b) for b in section.blocks)


def _visible(block: SyntaxTreeNode) -> bool:
    """A block a reader sees: not a rule, nor an HTML comment (`<!-- ==== -->` under a category heading)."""
    return block.type != "hr" and not (block.type == "html_block" and HTML_COMMENTS.fullmatch(block.content))


def _navigation_only(section: Section, readings: list[Group], lines: list[str]) -> bool:
    """Only links: lists of links (a table of contents, further reading), also written as numbered lines of a
    paragraph (`1、[如何进行最简化部署](./Deployment.md)<br/>` …); or a heading that is only a link."""
    if section.heading is not None and LINKS.sub("", section.source).strip(" #*_") == "" and \
            LINKS.search(section.source) and "](#" not in section.source:  # `### [CDN](#cdn)` is its own anchor
        return True
    lists = [g for g in readings if g.kind == "list"]
    blocks = [b for b in section.blocks if _visible(b)]
    if lists and len(lists) == len(blocks) and all(g.navigation for g in lists):
        return True
    if not blocks or any(b.type != "paragraph" for b in blocks):
        return False
    written = [line for line in lines[section.start_line:section.end_line] if line.strip()]
    return len(written) >= 2 and all(LINK_LINE.fullmatch(line.strip()) for line in written)


def _table_of_contents(section: Section, readings: list[Group], lines: list[str]) -> bool:
    """Only links, several or to places in this document: a table of contents, not an answer that is a link."""
    if not _navigation_only(section, readings, lines):
        return False
    text = "\n".join(lines[section.start_line:section.end_line])
    return len(LINKS.findall(text)) >= 2 or "](#" in text


TWIN_RULE = "heading over its translation's heading, the answer in both languages below: one entry in each"


def _translated_below(section: Section, below: Section | None, reading: _Reading
                      ) -> tuple[Section, dict[str, str]] | None:
    """The heading right after `section` that translates it, with its answer by language, when `section` has nothing
    under it and the one below answers in both languages (a page that writes each question in Chinese, then in
    English, then both answers), in an FAQ or where the headings ask; never against a hint in front matter."""
    if below is None or reading.forced is not None or section.heading is None or section.is_title or \
            below.heading is None or _has_content(section) or section.children or below.children or \
            below.level != section.level or below.path != section.path or not _has_content(below):
        return None
    first, second = _title_language(section.title), _title_language(below.title)
    if first is None or second is None or first == second:
        return None
    if not reading.faq_document and heading_score(section.title) == 0 and heading_score(below.title) == 0:
        return None
    parts = _by_language(below, reading.lines)
    return (below, parts) if parts["zh"] and parts["en"] else None


def _title_language(title: str) -> str | None:
    """'zh' for a title with Chinese in it, 'en' for one in Latin words only, None for one with too little prose."""
    han, latin = language_scores(title)
    return "zh" if han >= 2 else "en" if han == 0 and latin >= 2 else None


def _by_language(section: Section, lines: list[str]) -> dict[str, str]:
    """The section's own text split by language: each paragraph, list or quote to its language; code, tables and
    anything with too little prose to tell go to both."""
    parts: dict[str, list[str]] = {"zh": [], "en": []}
    for block in section.blocks:
        start, end = span(block)
        text = "\n".join(lines[start:end])
        prose = block.type in ("paragraph", "bullet_list", "ordered_list", "blockquote")
        lang = detect_language(text, default="") if prose else ""
        for side in (lang,) if lang else ("zh", "en"):
            parts[side].append(text)
    return {lang: trim("\n\n".join(texts)) for lang, texts in parts.items()}


def _twin_headings(first: Section, second: Section, parts: dict[str, str]
                   ) -> tuple[list[SectionDecision], list[ParsedEntry]]:
    """Two entries, one per heading, each answered by the text in its language; each names the other as its twin."""
    decisions, entries = [], []
    for this, other in ((first, second), (second, first)):
        unit = Unit(question=this.source, title=this.title, answer=parts[_title_language(this.title) or "en"],
                    line=this.heading_line, score=question_score(this.title))
        entries.append(replace(_entry(unit, this, "heading", TWIN_RULE, True), twin_line=other.heading_line + 1))
        decisions.append(SectionDecision(title=this.title, line=this.heading_line + 1, chosen=TWIN_RULE, entries=1))
    return decisions, entries


def _entry(unit: Unit, section: Section, kind: str, rule: str, own: bool) -> ParsedEntry:
    """An entry; `own` says whether the section's heading is the question itself."""
    inner = (section.title,) if section.title and not section.is_title else ()
    breadcrumb = section.path if own else section.path + inner
    clean = display_title(unit.title)
    if is_generic(clean) and breadcrumb:
        clean = f"{breadcrumb[-1]} › {clean}"
    # `答：` / `**A**:` opening an answer under a question heading or summary says what the layout already does.
    answer = ANSWER_PREFIX.sub("", unit.answer, count=1) or unit.answer
    question = without_name_anchors(unit.question).strip()
    if kind == "heading":  # `##### **1）fooView耗电吗？**`: bold over the whole heading is the heading's own emphasis
        question = WHOLE_BOLD.sub(lambda whole: whole.group(1) or whole.group(2), question)
    return ParsedEntry(question=question, title=clean, section=breadcrumb, answer_markdown=answer,
                       line=unit.line + 1, kind=kind, rule=rule)


WHOLE_BOLD = re.compile(r"^\*\*((?:(?!\*\*).)+)\*\*$|^__((?:(?!__).)+)__$")
WRAPPING_QUOTES = {'"': '"', "“": "”", "「": "」", "『": "』"}


def display_title(text: str) -> str:
    """A question's plain text as readers see it: no numbering, no Q: prefix, one line, not wrapped in quotes
    (NebulaGraph's FAQ writes `### "How to scale out or scale in?"`)."""
    title = strip_numbering(" ".join(text.split())).rstrip(" :：")
    opening, closing = title[:1], WRAPPING_QUOTES.get(title[:1])
    if closing and len(title) > 2 and title.endswith(closing) and opening not in title[1:-1] \
            and closing not in title[1:-1]:
        return title[1:-1].strip()
    return title
