"""A small Chinese language model from jieba's dictionary: how plausible is a string?"""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import jieba

from app.search.analysis import HAN, to_simplified

jieba.setLogLevel(logging.WARNING)

# Clean Chinese text the project ships: the bundled sample and text written for the model.
TRAINING_TEXTS = Path(__file__).with_name("data")
TEXT_PRIOR = 8.0  # how many observed followers of a character outweigh the dictionary's estimate
DICTIONARY_PRIOR = 5000.0  # the same, for the dictionary's within-word pairs against single characters
HAN_TYPES = 50000  # add-one smoothing over the Han characters the dictionary may lack


@lru_cache(maxsize=1)
def _dictionary() -> tuple[dict[str, int], float]:
    jieba.dt.check_initialized()
    return jieba.dt.FREQ, math.log(jieba.dt.total)


@lru_cache(maxsize=1)
def _dictionary_pairs() -> tuple[Counter[str], Counter[str], int]:
    """Characters and adjacent pairs inside jieba's words, weighted by word frequency."""
    freq, _ = _dictionary()
    chars: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    for word, count in freq.items():
        if count:
            for char in word:
                chars[char] += count
            for k in range(len(word) - 1):
                pairs[word[k:k + 2]] += count
    return chars, pairs, sum(chars.values())


def _token(char: str) -> str:
    """Letters and digits are one class to the model: `fp16与` and `GPU与` are the same context."""
    if char.isascii():
        return "A" if char.isalnum() else (" " if char.isspace() else char)
    return char


@dataclass
class CharBigrams:
    """Adjacent-character counts from clean text, backed off to jieba's within-word pairs.

    jieba's dictionary knows words but not what stands around them (过程 + 中, 参数 + 量);
    running text does, so the two are interpolated.
    """

    singles: Counter[str] = field(default_factory=Counter)
    pairs: Counter[str] = field(default_factory=Counter)
    _memo: dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    def learn(self, text: str, sign: int = 1) -> None:
        """Count (or with sign=-1, uncount) the characters and pairs of every line of `text`."""
        self._memo.clear()
        for line in text.split("\n"):
            tokens = [_token(char) for char in line]
            for token in tokens[:-1]:
                self.singles[token] += sign
            for k in range(len(tokens) - 1):
                self.pairs[tokens[k] + tokens[k + 1]] += sign

    def without(self, text: str) -> CharBigrams:
        """A copy that has not seen `text` (to measure on text the model learnt from)."""
        copy = CharBigrams(Counter(self.singles), Counter(self.pairs))
        copy.learn(text, -1)
        return copy

    def log_probability(self, text: str) -> float:
        """Log-probability of `text`'s characters, each given the one before it."""
        tokens = [_token(char) for char in text]
        return sum(self._pair(tokens[k], tokens[k + 1]) for k in range(len(tokens) - 1))

    def _pair(self, first: str, second: str) -> float:
        key = first + second
        if (known := self._memo.get(key)) is not None:
            return known
        chars, pairs, total = _dictionary_pairs()
        single = (chars.get(second, 0) + 1) / (total + HAN_TYPES)
        within = ((pairs.get(first + second, 0) + DICTIONARY_PRIOR * single)
                  / (chars.get(first, 0) + DICTIONARY_PRIOR))
        seen = self.singles.get(first, 0)
        self._memo[key] = math.log((self.pairs.get(key, 0) + TEXT_PRIOR * within) / (seen + TEXT_PRIOR))
        return self._memo[key]


@lru_cache(maxsize=1)
def _training_texts() -> tuple[str, ...]:
    return tuple(path.read_text(encoding="utf-8") for path in sorted(TRAINING_TEXTS.glob("*.md")))


@lru_cache(maxsize=1)
def context_model() -> CharBigrams:
    """The bigram model learnt from the project's own clean Chinese text."""
    model = CharBigrams()
    for text in _training_texts():
        model.learn(text)
    return model


def held_out_model(text: str) -> CharBigrams:
    """The context model, less `text` if it learnt from it: measuring on training text flatters."""
    return context_model().without(text) if text in _training_texts() else context_model()


def plausibility(text: str) -> float:
    """Log-probability of the best segmentation of `text` into dictionary words.

    Unknown characters count as words seen once, so text made of rare or impossible
    characters scores low and fluent Chinese scores high.
    """
    if not text:
        return 0.0
    freq, log_total = _dictionary()
    n = len(text)
    best = [0.0] * (n + 1)
    for start in range(n - 1, -1, -1):
        candidates = []
        for end in range(start + 1, min(n, start + 8) + 1):
            word = text[start:end]
            count = freq.get(word)
            if count or end == start + 1:
                candidates.append(math.log(count or 1) - log_total + best[end])
        best[start] = max(candidates)
    return best[0]



def han_fluency(text: str) -> tuple[float, int]:
    """Mean log-probability per Han character of the text's Chinese runs, and how many there are."""
    # The dictionary is Simplified: read Traditional text (Big5 files) through zhconv.
    runs = [to_simplified(run) for run in HAN.findall(text)]
    count = sum(len(run) for run in runs)
    if not count:
        return 0.0, 0
    return sum(plausibility(run) for run in runs) / count, count
