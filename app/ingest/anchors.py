"""Anchors: the parts of an entry that survive translation.

A Chinese answer and its English original share code, commands, URLs, numbers, identifiers
and library names verbatim, and the bilingual glossary bridges the words that do get
translated (显存 ↔ GPU memory). Alignment and related entries both compare entries by
these anchors; prose words on their own say little across languages.
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.ingest.language import HAN
from app.search.analysis import STOP_WORDS, normalise_text, stem

FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
URL = re.compile(r"https?://[^\s)\]>'\"`，。；）]+")
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
NUMBER = re.compile(r"(?:(?<![\w.])|(?<=\bv))\d+(?:\.\d+)+(?![\w.])|(?<![\w.])\d{2,}(?![\w.])")  # v2.1.0, 404
# A word, or a name that opens with digits (`7z`, `7-zip`, `32gb`, `2fa`): digits and letters together survive
# translation as they are, where `7z文件解压错误` holds no other anchor.
WORD = re.compile(r"(?:(?<![a-z0-9_.\-/])\d+[.\-]?(?=[a-z_]))?[a-z_][a-z0-9_]*(?:[.\-/][a-z0-9_]+)*")
FENCE_OPENER = re.compile(r"^[ \t]*(?:```|~~~)[^\n]*$", re.MULTILINE)
IDENTIFIER_PARTS = re.compile(r"[._\-/]+|\d+")
CODE_COMMENT = re.compile(r"^\s*(?:#|//|--)")
SEPARATORS = re.compile(r"[\s_-]+")
MIN_CODE_LINE = 8  # shorter code lines (`fi`, `}`) are not distinctive
MORE_STOP_WORDS = frozenset("""
need no not only other under up use used using
""".split()) | frozenset("""
apt bash cd com conda cp echo export false git github html http https install json ls md mkdir mv none
null org pip py python python3 reinstall rm sh shell sudo true txt uninstall www yaml yml
""".split())  # the shell's and the web's common words: every troubleshooting entry has them

# How much one shared anchor of each kind is worth, before its rarity (idf) is counted.
KIND_WEIGHTS = {"code": 2.0, "line": 2.0, "url": 2.0, "number": 1.0, "word": 1.0, "gloss": 1.5}


@dataclass(frozen=True)
class Glossary:
    """Compiled glossary: which concept (line) each term of a text belongs to."""

    chinese: tuple[tuple[str, int], ...]
    english: re.Pattern[str] | None
    concept_of: dict[str, int]

    @classmethod
    def from_groups(cls, groups: Sequence[Sequence[str]]) -> Glossary:
        """Compile the glossary's lines of equivalent terms; lines sharing a term are one concept."""
        concept_of_line = list(range(len(groups)))

        def root(line: int) -> int:
            while concept_of_line[line] != line:
                line = concept_of_line[line]
            return line

        first_line: dict[str, int] = {}
        for line, terms in enumerate(groups):
            for term in terms:
                key = _term_key(normalise_text(term).strip())
                if key in first_line:  # `报错 error` and `错误 error`: one concept
                    concept_of_line[root(line)] = root(first_line[key])
                else:
                    first_line[key] = line
        chinese: list[tuple[str, int]] = []
        concept_of: dict[str, int] = {}
        for key, line in first_line.items():
            if not key:
                continue
            if HAN.search(key):
                chinese.append((key.replace(" ", ""), root(line)))
            else:
                concept_of[key] = root(line)
        english = None
        if concept_of:
            alternatives = sorted(concept_of, key=len, reverse=True)
            spaced = (r"[\s_-]+".join(map(re.escape, a.split())) for a in alternatives)
            english = re.compile(r"(?<![a-z0-9])(" + "|".join(spaced) + r")(?![a-z0-9])")
        return cls(chinese=tuple(chinese), english=english, concept_of=concept_of)

    def concepts(self, normalised: str) -> set[int]:
        """The glossary concepts mentioned in normalised text, in either language."""
        found = {concept for term, concept in self.chinese if term in normalised}
        if self.english is not None:
            for match in self.english.finditer(normalised):
                found.add(self.concept_of[_term_key(match.group(1))])
        return found


def _term_key(term: str) -> str:
    """A glossary term with its separators unified: `multi-GPU`, `multi GPU` and `multi_gpu` agree."""
    return " ".join(SEPARATORS.split(term))


EMPTY_GLOSSARY = Glossary.from_groups([])


@lru_cache(maxsize=65536)
def _word_anchors(word: str) -> tuple[str, ...]:
    """A word's anchors: itself (stemmed if plain), and an identifier's parts (`libbitsandbytes_cpu.so`)."""
    word = word.strip("._-/")
    if word.isalpha() or word in MORE_STOP_WORDS:
        keep = len(word) >= 2 and word not in STOP_WORDS and word not in MORE_STOP_WORDS
        return (stem(word),) if keep else ()
    parts = [p for p in IDENTIFIER_PARTS.split(word) if p]
    return (word, *(anchor for part in parts if part != word for anchor in _word_anchors(part)))


def extract_anchors(markdown: str, glossary: Glossary = EMPTY_GLOSSARY) -> frozenset[str]:
    """The anchors of an entry's markdown, each prefixed with its kind (`code:`, `word:` …)."""
    text = normalise_text(markdown)
    anchors: set[str] = set()
    for block in FENCE.finditer(text):
        for line in block.group(2).splitlines():
            line = " ".join(line.split())
            if len(line) >= MIN_CODE_LINE and not CODE_COMMENT.match(line):
                anchors.add("line:" + line)
    anchors.update("code:" + " ".join(span.split()) for span in CODE_SPAN.findall(text) if span.strip())
    anchors.update("url:" + url.rstrip(".,;:!?") for url in URL.findall(text))
    anchors.update("url:" + target for target in LINK_TARGET.findall(text) if "://" not in target
                   and not target.startswith("#"))
    anchors.update("number:" + number for number in NUMBER.findall(text))
    prose = FENCE_OPENER.sub("\n", URL.sub(" ", text))
    for word in WORD.findall(prose):
        anchors.update("word:" + anchor for anchor in _word_anchors(word))
    # Glossary words are prose: `pip install` in a command says nothing about installation.
    anchors.update(f"gloss:{concept}" for concept in glossary.concepts(CODE_SPAN.sub(" ", FENCE.sub(" ", text))))
    # Interned: entries repeat the same few anchors, and a copy per entry would fill memory at scale.
    return frozenset(map(sys.intern, anchors))


def anchor_weights(anchor_sets: Iterable[frozenset[str]]) -> dict[str, float]:
    """Each anchor's weight among these entries: its kind's weight times its rarity (idf)."""
    sets = list(anchor_sets)
    frequency = Counter(anchor for anchors in sets for anchor in anchors)
    total = len(sets)
    return {anchor: KIND_WEIGHTS[anchor.partition(":")[0]] * math.log(1 + total / count)
            for anchor, count in frequency.items()}
