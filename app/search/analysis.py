"""One bilingual analyzer for indexing and querying.

Text is normalised (NFKC, case folding, Traditional → Simplified), then:
Chinese runs become overlapping character bigrams (so any word inside a sentence is
found) plus jieba's dictionary words; identifiers (`PYTORCH_CUDA_ALLOC_CONF`,
`torch.cuda.OutOfMemoryError`, `flash-attn`) are kept whole *and* split into parts;
English words are Porter-stemmed. Positions advance by one per word, never by
character offset, so phrase queries keep working.
"""

from __future__ import annotations

import logging
import re
import unicodedata
import warnings
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, NamedTuple

import jieba
import zhconv
from whoosh.analysis import Token, Tokenizer
from whoosh.lang.porter import stem

jieba.setLogLevel(logging.WARNING)
with warnings.catch_warnings():
    # zhconv reads its dictionary without closing the file; load it once, quietly.
    warnings.simplefilter("ignore", ResourceWarning)
    zhconv.convert("", "zh-hans")

HAN_RUN = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+"
WORD_RUN = r"[a-z0-9]+(?:[._\-/+][a-z0-9]+)*"
TOKEN_PATTERN = re.compile(f"(?P<han>{HAN_RUN})|(?P<word>{WORD_RUN})")
PART_PATTERN = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+(?:\.[0-9]+)*")
QUERY_WORD_BIGRAMS_ONLY = True
STOP_WORDS = frozenset("""
a an and are as at be by do does for from how i if in is it of on or so that the this to was
what when where which who why will with can my me we you your
about after all also am any been before but both could did didn don doesn each had has have
here into its just may might more most much must our out over same should some such than their
them then there these they those through too very via were would yes
""".split())


class Term(NamedTuple):
    """One indexed or queried term with its position and source character span."""

    text: str
    position: int
    start: int
    end: int


def to_simplified(text: str) -> str:
    """Traditional Chinese converted to Simplified (other text unchanged)."""
    converted: str = zhconv.convert(text, "zh-hans")
    return converted


@lru_cache(maxsize=4096)
def _normalise_char(char: str) -> str:
    folded = unicodedata.normalize("NFKC", char).casefold()
    return "".join(to_simplified(c) if "\u3400" <= c <= "\ufaff" else c for c in folded)


def normalise(text: str) -> tuple[str, list[int]]:
    """Normalised text and, for each of its characters, the index of its source character."""
    if text.isascii():
        return text.lower(), list(range(len(text)))
    out: list[str] = []
    offsets: list[int] = []
    for index, char in enumerate(text):
        folded = _normalise_char(char)
        out.append(folded)
        offsets.extend([index] * len(folded))
    return "".join(out), offsets


def normalise_text(text: str) -> str:
    """Just the normalised text (for cache keys, vocabulary and anchors), without offsets."""
    if text.isascii():
        return text.lower()
    return "".join(map(_normalise_char, text))


@lru_cache(maxsize=65536)  # the same words recur in every entry
def _word_parts(original: str) -> tuple[str, ...]:
    """Split an identifier into its words: separators, camelCase and digits."""
    parts: list[str] = []
    for chunk in re.split(r"[._\-/+]+", original):
        parts.extend(PART_PATTERN.findall(chunk) or ([chunk] if chunk else []))
    return tuple(p.lower() for p in parts if p)


_stem = lru_cache(maxsize=65536)(stem)  # Porter stemming is pure and costly; words recur


@lru_cache(maxsize=16384)
def _dictionary_words(run: str) -> tuple[tuple[str, int, int], ...]:
    """jieba's words of three or more characters in a Chinese run (runs repeat: breadcrumbs, phrases)."""
    return tuple((word, start, end) for word, start, end in jieba.tokenize(run, mode="search") if end - start >= 3)


@lru_cache(maxsize=16384)
def _bigram_starts(run: str, for_query: bool) -> tuple[int, ...]:
    """Where the run's bigrams start: all of them in the index; in a query, those inside its words.

    A bigram across two query words (么原 in 什么原因) is an accident of the sentence, rare in
    the index and so weighted high by BM25: it finds entries that share the accident.
    """
    every = tuple(range(len(run) - 1))
    if not for_query or not QUERY_WORD_BIGRAMS_ONLY:
        return every
    inside = tuple(i for _, w_start, w_end in jieba.tokenize(run) for i in range(w_start, w_end - 1))
    return inside or every


def analyse(text: str, for_query: bool = False) -> Iterator[Term]:
    """The terms of `text`, in order; queries get bigrams only for Chinese (exact containment)."""
    norm, offsets = normalise(text)
    position = 0
    for match in TOKEN_PATTERN.finditer(norm):
        start, end = match.span()
        src_start, src_end = offsets[start], offsets[end - 1] + 1
        if match.lastgroup == "han":
            run = match.group()
            if len(run) == 1:
                yield Term(run, position, src_start, src_end)
                position += 1
                continue
            for i in _bigram_starts(run, for_query):
                yield Term(run[i:i + 2], position + i, offsets[start + i], offsets[start + i + 1] + 1)
            if not for_query:
                for word, w_start, w_end in _dictionary_words(run):
                    yield Term(word, position + w_start, offsets[start + w_start],
                               offsets[start + w_end - 1] + 1)
            position += len(run) - 1
            continue
        word = match.group()
        parts = _word_parts(unicodedata.normalize("NFKC", text[src_start:src_end]))
        if len(parts) <= 1:
            yield Term(_stem(word), position, src_start, src_end)
            position += 1
            continue
        yield Term(word, position, src_start, src_end)
        if not for_query:
            for i, part in enumerate(parts):
                yield Term(_stem(part), position + i, src_start, src_end)
        position += len(parts)


def query_terms(text: str) -> list[str]:
    """Distinct query terms in order, English stop words dropped unless nothing else is left."""
    analysed = list(analyse(text, for_query=True))
    terms = list(dict.fromkeys(t.text for t in analysed))
    # Judge stop words by the word as typed: stems ("doe" for "does") are not in the list.
    stops = {t.text for t in analysed if text[t.start:t.end].lower() in STOP_WORDS}
    content = [t for t in terms if t not in stops]
    return content or terms


class BilingualTokenizer(Tokenizer):  # type: ignore[misc]
    """Whoosh tokenizer around `analyse` (index side)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BilingualTokenizer)

    def __hash__(self) -> int:
        return hash(BilingualTokenizer)

    def __call__(self, value: str, positions: bool = False, chars: bool = False,
                 keeporiginal: bool = False, removestops: bool = True, start_pos: int = 0,
                 start_char: int = 0, tokenize: bool = True, mode: str = "",
                 **kwargs: Any) -> Iterator[Token]:
        """Yield Whoosh tokens (one reused object, as Whoosh expects)."""
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for term in analyse(value, for_query=(mode == "query")):
            token.text = term.text
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = value[term.start:term.end]
            if positions:
                token.pos = start_pos + term.position
            if chars:
                token.startchar = start_char + term.start
                token.endchar = start_char + term.end
            yield token


def bilingual_analyzer() -> BilingualTokenizer:
    """The analyzer stored in the index schema."""
    return BilingualTokenizer()
