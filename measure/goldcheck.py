"""Check a gold corpus: every labelled question must be the text of one source line of its file.

A corpus is laid out like `eval/wild/` (see its README): one folder per project with
`pairs.tsv` (en_file, en_question, zh_file, zh_question) and `unpaired.tsv` (file, question).
A question is found when one line of the named file, outside fenced code, reads as the
question once its block marker is removed (`question_text`). A question found on several
lines is reported with the line taken (the first). Run as `python -m measure.goldcheck DIR`.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# Heading syntax is the ingest's: a `{#its-id}`, an HTML heading element and its tags are not question text.
from app.ingest.segment.blocks import HEADING_ATTRIBUTES, HTML_HEADING, TAG

PAIRS_HEADER = ["en_file", "en_question", "zh_file", "zh_question"]
UNPAIRED_HEADER = ["file", "question"]

# A fence opens with three backticks or tildes; a backtick fence's info string holds no backtick (CommonMark),
# so a line such as "  ```conda env create```" is a paragraph with a code span, not a fence.
FENCE = re.compile(r"^\s*(`{3,}(?=[^`]*$)|~{3,})")
BLOCKQUOTE = re.compile(r"^>\s?")
ADMONITION = re.compile(r'^[?!]{3}\+?\s+[\w-]+\s+"(.*)"\s*$')
SUMMARY = re.compile(r"(?i)<summary\b[^>]*>(.*?)(?:</summary\s*>|$)")
ATX_HEADING = re.compile(r"^#{1,6}(?:[ \t]+|$)")
LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+")
LINE_BREAK = re.compile(r"(?i)(?:\s*</?br\s*/?>)+\s*$|\\$")
BOLD = re.compile(r"^(\*\*|__)(.+?)\1\s*[:：]?$")
HTML_BOLD = re.compile(r"(?i)^<(b|strong)>(.*?)</\1>\s*[:：]?$")


def _unwrap_bold(text: str) -> str:
    """The text without a `**…**`, `__…__`, `<b>…</b>` or `<strong>…</strong>` wrapping all of it."""
    match = BOLD.match(text)
    if match and match.group(1) not in match.group(2):
        return match.group(2).strip()
    html = HTML_BOLD.match(text)
    if html and "<" not in html.group(2):
        return html.group(2).strip()
    return text


def question_text(line: str) -> str:
    """The question a source line records: its text with the block-level marker removed.

    Removed, in this order: indentation and `>` blockquote markers; then either an mkdocs
    admonition (`??? note "…"` gives the quoted title), a `<summary>` (its content, a bold
    wrapper removed, white space collapsed), an HTML heading (`<h4 id="1.1">…</h4>`: its text, tags
    removed), a `#` heading marker (and a closing `#` run and a
    trailing attribute block such as `{#its-id}`), a
    list marker (`- `, `* `, `+ `, `N. `, `N) `) or a table row (its first cell); then a
    trailing hard break (`<br>`, `</br>`, `\\`) and a bold wrapper around the whole rest. Inline
    markup, labels such as `Q3:` / `问：` and numbering inside a heading are kept.
    """
    text = line.strip()
    while BLOCKQUOTE.match(text):
        text = BLOCKQUOTE.sub("", text, count=1).strip()
    admonition = ADMONITION.match(text)
    if admonition:
        return admonition.group(1).strip()
    summary = SUMMARY.search(text)
    if summary:
        inner = summary.group(1).strip()
        return " ".join(_unwrap_bold(inner).split())
    html_heading = HTML_HEADING.match(text)
    if html_heading:
        return " ".join(TAG.sub("", html_heading.group(2)).split())
    if ATX_HEADING.match(text):
        text = ATX_HEADING.sub("", text, count=1)
        text = re.sub(r"(?:^|[ \t]+)#+[ \t]*$", "", text).strip()
        text = HEADING_ATTRIBUTES.sub("", text).strip()
    elif LIST_MARKER.match(text):
        text = LIST_MARKER.sub("", text, count=1).strip()
    elif text.startswith("|"):
        text = text.strip("|").split("|")[0].strip()
    text = LINE_BREAK.sub("", text).strip()
    return _unwrap_bold(text)


def source_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Each line of a markdown file outside fenced code, with its 1-based number."""
    fence = ""
    with path.open(encoding="utf-8", newline="") as handle:
        for number, line in enumerate(handle.read().splitlines(), start=1):
            opening = FENCE.match(line)
            if fence:
                if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) \
                        and not line.strip()[len(opening.group(1)):].strip():
                    fence = ""
                continue
            if opening:
                fence = opening.group(1)
                continue
            yield number, line


def read_tsv(path: Path, header: Sequence[str]) -> list[list[str]]:
    """The rows of a gold TSV file (UTF-8, tab-separated, no quoting), checked against its header."""
    data = path.read_bytes()
    if b"\r" in data:
        raise ValueError(f"{path}: CR line endings")
    rows = list(csv.reader(data.decode("utf-8").splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or rows[0] != list(header):
        raise ValueError(f"{path}: header is not {'/'.join(header)}")
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header) or not all(cell.strip() for cell in row):
            raise ValueError(f"{path}:{number}: expected {len(header)} non-empty fields, got {row!r}")
    return rows[1:]


@dataclass
class FolderReport:
    """What the check found in one folder."""

    name: str
    files: int = 0
    pairs: int = 0
    unpaired: int = 0
    found: int = 0
    missing: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def check_folder(folder: Path) -> FolderReport:
    """Check every gold question of one folder against the file it names."""
    report = FolderReport(folder.name)
    try:
        pairs = read_tsv(folder / "pairs.tsv", PAIRS_HEADER)
        unpaired = read_tsv(folder / "unpaired.tsv", UNPAIRED_HEADER)
    except (OSError, ValueError) as exc:
        report.problems.append(str(exc))
        return report
    report.pairs, report.unpaired = len(pairs), len(unpaired)
    wanted: list[tuple[str, str]] = [(row[0], row[1]) for row in pairs]
    wanted += [(row[2], row[3]) for row in pairs]
    wanted += [(row[0], row[1]) for row in unpaired]
    for key in sorted({k for k in wanted if wanted.count(k) > 1}):
        report.problems.append(f"listed more than once: {key[0]}: {key[1]}")
    report.files = len(list(folder.rglob("*.md")))
    index: dict[str, dict[str, list[int]]] = {}
    for file, question in dict.fromkeys(wanted):
        path = folder / file
        if file not in index:
            if not path.is_file():
                report.problems.append(f"no file {file}")
                index[file] = {}
            else:
                lines: dict[str, list[int]] = {}
                for number, line in source_lines(path):
                    lines.setdefault(question_text(line), []).append(number)
                index[file] = lines
        numbers = index[file].get(question, [])
        if not numbers:
            report.missing.append(f"{file}: {question}")
            continue
        report.found += 1
        if len(numbers) > 1:
            report.ambiguous.append(f"{file}: {question} (on lines {', '.join(map(str, numbers))}; "
                                    f"took line {numbers[0]})")
    return report


def check_corpus(corpus: Path) -> list[FolderReport]:
    """Check every folder of a corpus that has gold files."""
    folders = sorted(p for p in corpus.iterdir() if p.is_dir() and (
        (p / "pairs.tsv").is_file() or (p / "unpaired.tsv").is_file()))
    return [check_folder(folder) for folder in folders]


def main(argv: Sequence[str] | None = None) -> int:
    """Print per-folder counts and every problem; exit 1 when a question is missing or a file is malformed."""
    parser = argparse.ArgumentParser(prog="python -m measure.goldcheck", description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="folder of project folders with pairs.tsv / unpaired.tsv")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"goldcheck: no folder {args.corpus}", file=sys.stderr)
        return 2
    reports = check_corpus(args.corpus)
    print(f"{'folder':<22} {'files':>5} {'pairs':>6} {'unpaired':>9} {'questions':>10} {'found':>6} "
          f"{'missing':>8} {'ambiguous':>10}")
    for r in reports:
        total = 2 * r.pairs + r.unpaired
        print(f"{r.name:<22} {r.files:>5} {r.pairs:>6} {r.unpaired:>9} {total:>10} {r.found:>6} "
              f"{len(r.missing):>8} {len(r.ambiguous):>10}")
        for kind, lines in (("problem", r.problems), ("missing", r.missing), ("ambiguous", r.ambiguous)):
            for line in lines:
                print(f"    {kind + ':':<10} {line}")
    questions = sum(2 * r.pairs + r.unpaired for r in reports)
    missing = sum(len(r.missing) for r in reports)
    bad = sum(len(r.problems) for r in reports)
    print(f"{len(reports)} folders, {sum(r.files for r in reports)} files, {sum(r.pairs for r in reports)} pairs, "
          f"{questions} gold questions: {sum(r.found for r in reports)} found, {missing} missing, "
          f"{sum(len(r.ambiguous) for r in reports)} ambiguous, {bad} file problems")
    return 1 if missing or bad else 0


if __name__ == "__main__":
    sys.exit(main())
