"""The bilingual glossary users keep in `content/glossary.tsv`: lines of equivalent terms."""

from __future__ import annotations

from pathlib import Path

GLOSSARY_FILE = "glossary.tsv"


def parse_glossary(text: str) -> tuple[list[list[str]], list[str]]:
    """Groups of equivalent terms, and a warning for each line that cannot be one."""
    groups: list[list[str]] = []
    warnings: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        terms = list(dict.fromkeys(t.strip() for t in line.split("\t") if t.strip()))
        if len(terms) < 2:
            warnings.append(f"line {number}: needs two or more tab-separated terms, found {line.strip()!r}")
            continue
        groups.append(terms)
    return groups, warnings


def read_glossary(content_dir: Path) -> tuple[list[list[str]], list[str]]:
    """The glossary of a content folder (none if the file is absent)."""
    path = content_dir / GLOSSARY_FILE
    if not path.is_file():
        return [], []
    try:
        return parse_glossary(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        return [], [f"cannot be read ({exc}); save it as UTF-8"]
