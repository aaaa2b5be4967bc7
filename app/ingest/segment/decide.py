"""Choose, section by section, which blocks hold the entries; keep the trace for `faq inspect`.

Order of reasoning:
1. Scope: in a long document (a README, a guide) with an FAQ / troubleshooting section,
   only that section holds entries; a README without one holds none.
2. A section whose heading asks a question is one entry; headings under it that do not
   ask one belong to its answer.
3. Otherwise the section's blocks are read every way they could hold entries (list items,
   `Q:` paragraphs, `<details>`, table rows) and the best-supported reading wins.
4. A section with none of those is an entry of its own only in documents whose entries
   are headings; where the document's entries are list items or paragraphs, its headings
   are categories (breadcrumbs).
An editor's hint in front matter (`entries: list-items`, `entries: h3` …) overrides 2–4.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from app.ingest.segment.blocks import Section, parse, sections, trim
from app.ingest.segment.candidates import (
    LABELLED_RULE,
    Group,
    Unit,
    details_group,
    list_groups,
    qa_group,
    table_groups,
)
from app.ingest.segment.evidence import (
    README_NAME,
    is_container,
    is_faq_section,
    is_generic,
    question_score,
    strip_numbering,
)

HINTS = ("headings", "list-items", "qa", "details", "table", "none", "h1", "h2", "h3", "h4", "h5", "h6")
CLOSE_CALL = 0.8  # a losing reading with this share of the winner's evidence makes a close call


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


@dataclass
class SectionDecision:
    """What one section became, and the readings that lost."""

    title: str
    line: int  # 1-based
    chosen: str  # the rule that made its entries, or why it has none
    entries: int = 0
    losers: list[str] = field(default_factory=list)
    close_call: bool = False


@dataclass
class ParsedDocument:
    """A document's title, its entries in source order, and how they were found."""

    title: str
    entries: list[ParsedEntry] = field(default_factory=list)
    decisions: list[SectionDecision] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the ingest summary (bad hints, close calls)

    @property
    def close_calls(self) -> list[SectionDecision]:
        """Sections whose reading was nearly another one."""
        return [d for d in self.decisions if d.close_call]


def segment_markdown(text: str, fallback_title: str = "", hint: object = None,
                     file_name: str = "") -> ParsedDocument:
    """Split a markdown document (already decoded, front matter blanked) into entries."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    all_sections = sections(parse(text), lines)
    title_section = _title_section(all_sections)
    document = ParsedDocument(title=_document_title(all_sections, fallback_title))
    forced = _read_hint(hint, document)
    if title_section is not None:
        title_section.is_title = True
    scope_note = _restrict_to_faq_sections(all_sections, title_section, file_name, forced)
    if scope_note:
        document.notes.append(scope_note)
    scoped = [s for s in all_sections if s.in_scope]
    if title_section is not None:
        for section in scoped:
            if section.path[:1] == (title_section.title,):
                section.path = section.path[1:]
    readings = {id(s): _readings(s, lines, _faq_scope(s)) for s in scoped}
    qa_total = sum(len(g.units) for s in scoped for g in readings[id(s)] if g.kind == "qa")
    # Is this a document of list / paragraph / <details> entries, or of heading entries?
    block_units = (qa_total if qa_total >= 2 else 0) + sum(
        len(g.units) for s in scoped if not _heading_asks(s)
        for g in readings[id(s)] if g.qualifies and g.kind in {"list", "details"})
    headings = [s for s in scoped if _heading_asks(s) or (s.heading is not None and not s.is_title and s.is_leaf
                                                          and _has_content(s))]
    block_style = block_units > len(headings)
    absorbed: set[int] = set()
    for section in scoped:
        if id(section) in absorbed:
            continue
        decision, units, kind = _decide(section, readings[id(section)], lines, block_style, forced,
                                        qa_total, absorbed)
        document.decisions.append(decision)
        own = kind == "heading"
        document.entries += [_entry(u, section, kind, decision.chosen, own) for u in units]
    unreadable = [e for e in document.entries if not e.title.strip()]
    if unreadable:
        # A heading of nothing but markup (`` ` ``, `**`) asks nothing: its text stays in the document.
        document.entries = [e for e in document.entries if e.title.strip()]
        document.notes.append(f"{len(unreadable)} question(s) with no readable text (line "
                              f"{', '.join(str(e.line) for e in unreadable[:5])}) left in the document, not entries")
    document.entries.sort(key=lambda e: e.line)
    document.decisions += [
        SectionDecision(title=s.title, line=s.heading_line + 1, chosen=_out_of_scope(scope_note))
        for s in all_sections if not s.in_scope and s.heading is not None]
    document.decisions.sort(key=lambda d: d.line)
    for decision in document.close_calls:
        document.notes.append(f"line {decision.line}: structure was a close call ({decision.chosen}; "
                              f"also possible: {'; '.join(decision.losers)}); see `faq inspect`")
    return document


# ---------------------------------------------------------------- scope and title


def _title_section(found: list[Section]) -> Section | None:
    """The document's single top-level `#` heading, when it opens the document."""
    headed = [s for s in found if s.heading is not None]
    level_one = [s for s in headed if s.level == 1]
    if len(level_one) == 1 and level_one[0] is headed[0]:
        return level_one[0]
    return None


def _document_title(found: list[Section], fallback: str) -> str:
    headed = [s for s in found if s.heading is not None]
    level_one = [s for s in headed if s.level == 1]
    if len(level_one) == 1:
        return level_one[0].title
    return headed[0].title if headed else fallback


def _restrict_to_faq_sections(found: list[Section], title_section: Section | None, file_name: str,
                              forced: str | None) -> str | None:
    """In a long document (README, guide) with an FAQ section, only that section holds entries."""
    headed = [s for s in found if s.heading is not None]
    faq = [s for s in headed if is_faq_section(s.title)]
    stem = PurePosixPath(file_name).stem
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
    return None


def _out_of_scope(scope_note: str | None) -> str:
    return "a README without an FAQ section: not read" if scope_note else "outside the FAQ section: not read"


def _faq_scope(section: Section) -> bool:
    return any(is_faq_section(t) for t in (*section.path, section.title))


def _read_hint(hint: object, document: ParsedDocument) -> str | None:
    if hint is None or hint == "":
        return None
    value = str(hint).strip().lower().replace("_", "-").replace(" ", "-")
    value = {"list": "list-items", "lists": "list-items", "heading": "headings", "q&a": "qa"}.get(value, value)
    if value not in HINTS:
        document.notes.append(f"front matter `entries: {hint}` is not one of {', '.join(HINTS)}; ignored")
        return None
    return value


# ---------------------------------------------------------------- per-section decision


def _readings(section: Section, lines: list[str], faq_scope: bool) -> list[Group]:
    groups: list[Group] = []
    for group in (details_group(section, lines), qa_group(section, lines)):
        if group is not None:
            groups.append(group)
    groups += list(list_groups(section, lines, faq_scope))
    groups += list(table_groups(section))
    return groups


def _decide(section: Section, readings: list[Group], lines: list[str], block_style: bool,
            forced: str | None, qa_total: int, absorbed: set[int]) -> tuple[SectionDecision, list[Unit], str]:
    decision = SectionDecision(title=section.title or "(before the first heading)",
                               line=section.heading_line + 1, chosen="")
    if forced is not None:
        return _decide_forced(section, readings, lines, forced, decision, absorbed)
    details = [g for g in readings if g.kind == "details"]
    others = [g for g in readings if g.kind != "details" and (g.kind != "qa" or qa_total >= 2)]
    labelled = bool(details) or any(g.rule == LABELLED_RULE for g in others)
    if _heading_asks(section) and not labelled:
        if not _has_content(section) and not section.children:
            decision.chosen = "a heading with no text: no entry"
            return decision, [], "heading"
        if _mostly_questions(section):
            decision.chosen = "a category of question headings: its text stays on the document page"
            return decision, [], "heading"
        return _heading_decision(section, lines, decision, readings, absorbed, "heading that asks a question")
    qualifying = sorted((g for g in others if g.qualifies), key=lambda g: -g.score)
    units: list[Unit] = [u for g in details for u in g.units]
    kind = "details" if units else ""
    decision.losers = [f"{g.rule} ({g.why})" for g in others if not g.qualifies]
    if qualifying:
        best = qualifying[0]
        units += best.units
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
    return _fallback(section, lines, decision, block_style, readings, absorbed)


def _fallback(section: Section, lines: list[str], decision: SectionDecision, block_style: bool,
              readings: list[Group], absorbed: set[int]) -> tuple[SectionDecision, list[Unit], str]:
    """A section with no question blocks: an entry of its own, or a category."""
    if section.heading is None or section.is_title:
        decision.chosen = "document title or preamble: no entry"
    elif not _has_content(section):
        decision.chosen = "no text of its own: a category"
    elif is_container(section.title):
        decision.chosen = f"{section.title!r} names a group of questions: a category"
    elif not section.is_leaf and _mostly_questions(section):
        decision.chosen = "a category of question headings: its text stays on the document page"
    elif _navigation_only(section, readings):
        decision.chosen = "only links: navigation"
    elif block_style:
        decision.chosen = "a category: this document's entries are list items, paragraphs or <details>"
    else:
        return _heading_decision(section, lines, decision, readings, absorbed, "heading with its own text",
                                 absorb=False)
    return decision, [], "heading"


def _heading_decision(section: Section, lines: list[str], decision: SectionDecision, readings: list[Group],
                      absorbed: set[int], rule: str, absorb: bool = True) -> tuple[SectionDecision, list[Unit], str]:
    """The section's heading is the question; sub-headings that ask nothing belong to its answer."""
    end = section.end_line
    if absorb and section.children and not any(question_score(c.title) for c in _descendants(section)):
        end = section.subtree_end
        absorbed.update(id(d) for d in _descendants(section))
        rule += ", sub-headings included"
    assert section.heading is not None
    start = section.heading_line
    unit = Unit(question=section.source, title=section.title,
                answer=trim("\n".join(lines[section.start_line:end])), line=start,
                score=question_score(section.title))
    decision.chosen, decision.entries = rule, 1
    decision.losers += [f"{g.rule} ({g.why})" for g in readings if g.qualifies]
    return decision, [unit], "heading"


def _decide_forced(section: Section, readings: list[Group], lines: list[str], forced: str,
                   decision: SectionDecision, absorbed: set[int]) -> tuple[SectionDecision, list[Unit], str]:
    if forced == "none":
        decision.chosen = "front matter `entries: none`"
        return decision, [], "heading"
    if forced.startswith("h"):
        wanted = int(forced[1]) if forced != "headings" else None
        if section.heading is not None and not section.is_title and _has_content(section) and (
                (wanted is None and section.is_leaf) or section.level == wanted):
            return _heading_decision(section, lines, decision, [], absorbed, f"front matter `entries: {forced}`",
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
    return section.heading is not None and not section.is_title and question_score(section.title) > 0


def _descendants(section: Section) -> list[Section]:
    found: list[Section] = []
    for child in section.children:
        found += [child, *_descendants(child)]
    return found


def _mostly_questions(section: Section) -> bool:
    titles = [c.title for c in section.children]
    return bool(titles) and sum(question_score(t) > 0 for t in titles) * 2 >= len(titles)


def _has_content(section: Section) -> bool:
    return bool(section.details) or any(b.type != "hr" for b in section.blocks)


def _navigation_only(section: Section, readings: list[Group]) -> bool:
    """Only lists, all of links (a table of contents, a list of further reading)."""
    lists = [g for g in readings if g.kind == "list"]
    blocks = [b for b in section.blocks if b.type != "hr"]
    return bool(lists) and len(lists) == len(blocks) and all(g.navigation for g in lists)


def _entry(unit: Unit, section: Section, kind: str, rule: str, own: bool) -> ParsedEntry:
    """An entry; `own` says whether the section's heading is the question itself."""
    inner = (section.title,) if section.title and not section.is_title else ()
    breadcrumb = section.path if own else section.path + inner
    clean = display_title(unit.title)
    if is_generic(clean) and breadcrumb:
        clean = f"{breadcrumb[-1]} › {clean}"
    return ParsedEntry(question=unit.question.strip(), title=clean, section=breadcrumb,
                       answer_markdown=unit.answer, line=unit.line + 1, kind=kind, rule=rule)


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
