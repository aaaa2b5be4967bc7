"""Spelling corrections from the portal's own words: a sorted word list with counts, beside the index.

The index once held these words as a field of every entry, a quarter of all it wrote at
ingest for a list that a few hundred thousand distinct words make. Corrections are found
the way Whoosh finds them in a field, a Levenshtein automaton walked over the sorted words;
the nearest words win, and of those the most frequent.

Every input of the automaton is bounded: a word longer than the vocabulary's longest word plus the
edits allowed cannot be corrected (its automaton was the cost of a 4,000-letter word, 1.5 s), at most
MAX_CORRECTED_WORDS words of a query are looked up, and the walk stops at the search's deadline.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton

VOCABULARY_FILE = "VOCABULARY"
WORD = re.compile(r"[A-Za-z][A-Za-z_\-]{2,}")  # words a reader may misspell (unstemmed, as written)
SUGGEST_PREFIX = 1  # letters a correction keeps from the word as typed
SUGGEST_DISTANCE = 2  # edits a correction may make
MAX_CORRECTED_LETTERS = 40  # longer words are not looked up, whatever the vocabulary holds
MAX_CORRECTED_WORDS = 8  # unknown words of one query looked up; the others stay as typed


class OutOfTime(Exception):
    """The search's deadline passed while a correction was being looked for."""


def count_words(texts: Iterable[str]) -> Counter[str]:
    """How often each correctable word occurs in `texts`, lower-cased."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(word.lower() for word in WORD.findall(text))
    return counts


class Vocabulary:
    """The words of one generation and how often each occurs."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self.words = sorted(counts)
        self.longest = max(map(len, self.words), default=0)

    def __contains__(self, word: str) -> bool:
        return word in self.counts

    def save(self, directory: Path) -> None:
        """Write the words, sorted, one `word<TAB>count` per line."""
        lines = "".join(f"{word}\t{self.counts[word]}\n" for word in self.words)
        (directory / VOCABULARY_FILE).write_text(lines, encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> Vocabulary:
        """The words saved in `directory`; none when an older index has no list or it cannot be read
        (then nothing is corrected, and searches go on), and without the lines that are damaged."""
        try:
            text = (directory / VOCABULARY_FILE).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return cls({})
        counts = {}
        for line in text.splitlines():
            word, _, count = line.partition("\t")
            if word and count.isdigit():
                counts[word] = int(count)
        return cls(counts)

    def closest(self, word: str, maxdist: int, prefix: int, deadline: float = float("inf")) -> str | None:
        """The nearest word within `maxdist` edits of `word` that keeps its first `prefix` letters
        (of the nearest, the most frequent): `rrsults` → results, not the commoner `result`.

        None for a word too long to be a misspelling of any; raises OutOfTime past `deadline`.
        """
        if len(word) > min(self.longest + maxdist, MAX_CORRECTED_LETTERS):
            return None
        for distance in range(1, maxdist + 1) if self.words else ():
            dfa = levenshtein_automaton(word, distance, prefix).to_dfa()
            found: list[str] = list(find_all_matches(dfa, _Skipper(self.words, deadline)))
            if found:
                return min(found, key=lambda match: (-self.counts[match], match))
        return None


class _Skipper:
    """The first word at or after a string, for the automaton's walk.

    Whoosh's `ListCorrector.Skipper` steps past the word it was last at before looking, and so
    let `gradienx` reach `gradients` at one edit.
    """

    def __init__(self, words: list[str], deadline: float) -> None:
        self.words = words
        self.deadline = deadline

    def __call__(self, start: str) -> str | None:
        if time.monotonic() > self.deadline:
            raise OutOfTime
        at = bisect_left(self.words, start)
        return self.words[at] if at < len(self.words) else None


def suggest(vocabulary: Vocabulary, text: str, deadline: float = float("inf")) -> tuple[str | None, bool]:
    """The query with unknown English words replaced by the closest words of the portal, if any, and whether
    the deadline cut the search for them short (the words not reached stay as typed)."""
    changed = cut_short = False
    looked_up = 0

    def fix(match: re.Match[str]) -> str:
        nonlocal changed, cut_short, looked_up
        word = match.group(0)
        if cut_short or looked_up >= MAX_CORRECTED_WORDS or len(word) < 4 or word.lower() in vocabulary:
            return word
        looked_up += 1
        # Typists rarely miss a word's first letter; fixing it cuts the candidates walked 7×
        # (35 → 5 ms a word on the seeds' vocabulary, same corrections on our typo queries).
        try:
            closest = vocabulary.closest(word.lower(), SUGGEST_DISTANCE, SUGGEST_PREFIX, deadline)
        except OutOfTime:
            cut_short = True
            return word
        if closest is None:
            return word
        changed = True
        return closest

    corrected = WORD.sub(fix, text)
    return (corrected if changed else None), cut_short
