"""Pair documents that translate each other, and their entries.

This first version pairs documents by naming convention (`faq.en.md`/`faq.zh.md`,
`FAQ.md`/`FAQ_zh.md`, `en/faq.md`/`zh_cn/faq.md`) or front matter (`translation_of:`), and
pairs their entries by position when both have the same number of entries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

LANG_MARKERS = re.compile(
    r"(?i)(?:(?<=[._-])|^)(?:zh[_-](?:cn|hans|hant|tw)|zh|cn|en[_-]us|en)(?=[._/-]|$)"
)
DIR_MARKERS = re.compile(r"(?i)(^|/)(?:source_en|source|zh[_-]cn|zh|en)(/)")


@dataclass(frozen=True)
class AlignableDocument:
    """What alignment needs to know about a document."""

    id: str
    path: str
    lang: str
    translation_of: str | None
    entry_ids: Sequence[str]


@dataclass(frozen=True)
class DocumentPair:
    """Two documents in different languages that translate each other."""

    first: str
    second: str
    method: str


def language_neutral_name(path: str) -> str:
    """A path with its language markers removed: `en/faq.md` and `zh_cn/faq.md` agree."""
    path = DIR_MARKERS.sub(r"\1<lang>\2", path)
    stem, _, suffix = path.rpartition(".")
    stem = stem or suffix
    stem = LANG_MARKERS.sub("", stem).rstrip("._-")
    return stem.lower()


def pair_documents(documents: Sequence[AlignableDocument]) -> list[DocumentPair]:
    """Pairs of documents that translate each other, explicit metadata first."""
    by_path = {d.path: d for d in documents}
    paired: set[str] = set()
    pairs: list[DocumentPair] = []
    for doc in documents:
        target = by_path.get(doc.translation_of or "")
        if target and target.lang != doc.lang and not {doc.id, target.id} & paired:
            pairs.append(DocumentPair(doc.id, target.id, "front-matter"))
            paired |= {doc.id, target.id}
    groups: dict[str, list[AlignableDocument]] = {}
    for doc in documents:
        if doc.id not in paired:
            groups.setdefault(language_neutral_name(doc.path), []).append(doc)
    for group in groups.values():
        langs = {d.lang for d in group}
        if len(group) == 2 and len(langs) == 2:
            pairs.append(DocumentPair(group[0].id, group[1].id, "file-name"))
    return pairs


def pair_entries(first: Sequence[str], second: Sequence[str]) -> list[tuple[str, str]]:
    """Entry pairs of two translated documents (by position, when the counts agree)."""
    if len(first) != len(second):
        return []
    return list(zip(first, second, strict=True))
