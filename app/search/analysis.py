"""One bilingual analyzer for indexing and querying.

Text is normalised (NFKC, case folding, Traditional → Simplified), then:
Chinese runs become overlapping character bigrams (so any word inside a sentence is
found) plus jieba's dictionary words; identifiers (`PYTORCH_CUDA_ALLOC_CONF`,
`torch.cuda.OutOfMemoryError`, `flash-attn`) are kept whole *and* split into parts;
English words are stemmed (Snowball English, "Porter2"). Positions advance by one per word, never by
character offset, so phrase queries keep working.
"""

from __future__ import annotations

import logging
import re
import unicodedata
import warnings
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import jieba
import zhconv
from whoosh.analysis import Token, Tokenizer
from whoosh.lang.snowball.english import EnglishStemmer

from app.ingest.language import HAN_RANGES

jieba.setLogLevel(logging.WARNING)
with warnings.catch_warnings():
    # zhconv reads its dictionary without closing the file; load it once, quietly.
    warnings.simplefilter("ignore", ResourceWarning)
    zhconv.convert("", "zh-hans")

HAN_CHAR = rf"[{HAN_RANGES}]"
HAN_RUN = HAN_CHAR + "+"
WORD_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
WORD_SEPARATOR = r"[._\-/+]"  # inside an identifier: torch.cuda, flash-attn, a/b
WORD_TAIL = rf"[a-z0-9]*(?:{WORD_SEPARATOR}[a-z0-9]+)*"  # what follows a word's first character
WORD_RUN = rf"[a-z0-9]{WORD_TAIL}"
HAN = re.compile(HAN_RUN)
# A query's words are read up to this many characters (a word with the separators of identifiers, or a run of
# Chinese characters): every word of the labelled queries (the longest, a path, has 217) and of the corpora (180)
# is shorter. A 4,000-letter word was read whole by every pattern of the search (paste, code, identifier), for
# nothing; a 4,000-character Chinese run was segmented, looked up in the glossaries and analysed whole (124 ms).
MAX_WORD_LENGTH = 256
# The two classes share no character (`_` is a word character), and the run is taken whole (possessive): with `_`
# in both, 256 underscores and a stop were read every way they can be split, 2^256 ways, and a search hung.
_LETTER_OR_SEPARATOR = rf"[^\W{HAN_RANGES}]|[.\-/+]"
LONG_WORD = re.compile(rf"(?<!{_LETTER_OR_SEPARATOR})(?:{_LETTER_OR_SEPARATOR}){{{MAX_WORD_LENGTH + 1},}}+"
                       rf"|(?<!{HAN_CHAR}){HAN_CHAR}{{{MAX_WORD_LENGTH + 1},}}")
# The runs LONG_WORD may cut lie inside these (Chinese characters are word characters), and are these when they
# hold no Chinese.
LONG_RUN = re.compile(rf"[\w.\-/+]{{{MAX_WORD_LENGTH + 1},}}")
ENGLISH = EnglishStemmer()
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
# The same for Chinese: question and function words that every other title holds (为什么, 如何),
# as jieba segments them. A query drops their bigrams unless a content word shares them.
ZH_STOP_WORDS = frozenset("""
什么 为什么 怎么 怎么办 怎样 怎么样 如何 是否 能否 可否 有没有 请问 请教 求助 求解 一下 谢谢 大家
我们 你们 他们 这个 那个 这些 那些 哪些 哪个 这样 那样 因为 所以 但是 而且 或者 如果 然后 还是 已经
可以 能够 时候 的话
""".split())
# Particles and pronouns that stand alone between English words (`可以只微调llama layers吗?`, `lora的weights`):
# a lone character is a term of its own, and these say nothing about the problem.
ZH_STOP_CHARACTERS = frozenset("吗呢吧啊呀么的了和与或及在是我你他她它请用有")


def warm_up_analysis() -> None:
    """Load jieba's dictionary now (about a second, once per process), not inside a reader's first search."""
    jieba.initialize()


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


class _Folding(dict[int, str]):
    """`str.translate` table of normalised characters, filled as characters are met."""

    def __init__(self) -> None:
        super().__init__()
        self.uneven: set[str] = set()  # characters that normalise to none or several

    def __missing__(self, code: int) -> str:
        folded = _normalise_char(chr(code))
        if len(folded) != 1:
            self.uneven.add(chr(code))
        if code < 0x10000:  # bounded: a query of random rare characters cannot grow the table for ever
            self[code] = folded
        return folded


_FOLDING = _Folding()


def normalise(text: str) -> tuple[str, Sequence[int]]:
    """Normalised text and, for each of its characters, the index of its source character."""
    # One character for one (nearly always): the offsets are the identity, a range, not a list of them all.
    if text.isascii():
        return text.lower(), range(len(text))
    folded = text.translate(_FOLDING)
    if _FOLDING.uneven.isdisjoint(text):
        return folded, range(len(text))
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
    return text.translate(_FOLDING)


@lru_cache(maxsize=65536)  # the same words recur in every entry
def _word_parts(original: str) -> tuple[str, ...]:
    """Split an identifier into its words: separators, camelCase and digits."""
    parts: list[str] = []
    for chunk in re.split(r"[._\-/+]+", original):
        parts.extend(PART_PATTERN.findall(chunk) or ([chunk] if chunk else []))
    return tuple(p.lower() for p in parts if p)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball English stem (words repeat in every entry and query: each is stemmed once).

    Not Whoosh's Porter: it stems `running` to runn and `generating` apart from `generate`.
    """
    stemmed: str = ENGLISH.stem(word)
    return stemmed


def jieba_words(run: str, search: bool = False) -> Iterator[tuple[str, int, int]]:
    """jieba's words of a Chinese run with their offsets, the run cut every MAX_WORD_LENGTH characters first:
    jieba reads characters it does not know by a path it copies at each one, and a run of 100,000 took 23 s
    (the longest run of the corpora has 56 characters: none is cut)."""
    for offset in range(0, len(run), MAX_WORD_LENGTH):
        piece = run[offset:offset + MAX_WORD_LENGTH]
        for word, start, end in jieba.tokenize(piece, mode="search" if search else "default"):
            yield word, offset + start, offset + end


@lru_cache(maxsize=16384)
def _dictionary_words(run: str) -> tuple[tuple[str, int, int], ...]:
    """jieba's words of three or more characters in a Chinese run (runs repeat: breadcrumbs, phrases)."""
    return tuple(word for word in jieba_words(run, search=True) if word[2] - word[1] >= 3)


@lru_cache(maxsize=16384)
def _bigram_starts(run: str, for_query: bool) -> tuple[int, ...]:
    """Where the run's bigrams start: all of them in the index; in a query, those inside its words.

    A bigram across two query words (么原 in 什么原因) is an accident of the sentence, rare in
    the index and so weighted high by BM25: it finds entries that share the accident.
    """
    every = tuple(range(len(run) - 1))
    if not for_query or not QUERY_WORD_BIGRAMS_ONLY:
        return every
    inside = tuple(i for _, w_start, w_end in jieba_words(run) for i in range(w_start, w_end - 1))
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
            yield Term(stem(word), position, src_start, src_end)
            position += 1
            continue
        yield Term(word, position, src_start, src_end)
        if not for_query:
            for i, part in enumerate(parts):
                yield Term(stem(part), position + i, src_start, src_end)
        position += len(parts)


def shorten_words(text: str) -> str:
    """`text` with each word or run of Chinese characters longer than MAX_WORD_LENGTH cut to that length."""
    if max(map(len, text.split()), default=0) <= MAX_WORD_LENGTH:  # a word holds no space: most queries end here
        return text
    return LONG_RUN.sub(_shorten_run, text)


def _shorten_run(match: re.Match[str]) -> str:
    """A long run of word characters and separators cut as LONG_WORD says: at once when it holds no Chinese (one
    character class reads 4,000 letters nine times faster than LONG_WORD's two), else by LONG_WORD itself."""
    run = match.group()
    if HAN.search(run) is None:
        return run[:MAX_WORD_LENGTH]
    return LONG_WORD.sub(lambda word: word.group()[:MAX_WORD_LENGTH], run)


def query_terms(text: str) -> list[str]:
    """Distinct query terms in order, English stop words dropped unless nothing else is left."""
    analysed = list(analyse(text, for_query=True))
    terms = list(dict.fromkeys(t.text for t in analysed))
    # Judge stop words by the word as typed: stems ("doe" for "does") are not in the list.
    stops = {t.text for t in analysed if text[t.start:t.end].lower() in STOP_WORDS} | _chinese_stops(text)
    content = [t for t in terms if t not in stops]
    return content or terms


def identifier_words(text: str) -> dict[str, list[str]]:
    """The query's identifiers (as `query_terms` gives them) and their stemmed words: `AllowPublicKeyRetrieval` →
    allow, public, key, retriev; `java.net.SocketTimeoutException` → socket, timeout, except."""
    norm, offsets = normalise(text)
    words: dict[str, list[str]] = {}
    for match in TOKEN_PATTERN.finditer(norm):
        if match.lastgroup == "word":
            src_start, src_end = offsets[match.start()], offsets[match.end() - 1] + 1
            written = unicodedata.normalize("NFKC", text[src_start:src_end])
            # A qualified name's words are its last name's: `java.net.SocketTimeoutException` → socket, timeout…
            parts = _word_parts(written.rsplit(".", 1)[-1])
            if len(parts) < 2:
                parts = _word_parts(written)
            if len(parts) > 1:
                words[match.group()] = [stem(part) for part in parts]
    return words


def _chinese_stops(text: str) -> set[str]:
    """The bigrams of the query's Chinese function words (为什么 → 为什, 什么), unless a content word holds them
    too, and its lone particles (`吗`)."""
    stop: set[str] = set()
    content: set[str] = set()
    for run in HAN.findall(normalise_text(text)):
        if run in ZH_STOP_CHARACTERS:
            stop.add(run)
            continue
        for word, _, _ in jieba_words(run):
            (stop if word in ZH_STOP_WORDS else content).update(word[i:i + 2] for i in range(len(word) - 1))
    return stop - content


def term_spans(text: str, terms: Iterable[str]) -> list[tuple[int, int]]:
    """Where `text` holds any of the query's terms, adjacent matches merged, in order (for highlighting).

    The query's analysis without its positions: words as stems or whole identifiers, and a
    Chinese term wherever its bigram occurs.
    """
    found_by = _highlighting(tuple(terms))
    norm, offsets = normalise(text)
    found: list[tuple[int, int]] = []
    for pattern in found_by.lone_characters:
        found.extend(match.span() for match in pattern.finditer(norm))
    for term in found_by.chinese:
        at = norm.find(term)
        while at >= 0:
            found.append((at, at + len(term)))
            at = norm.find(term, at + 1)
    if found_by.words is not None:
        for match in found_by.words.finditer(norm):
            word = match.group()
            if word in found_by.wanted or stem(word) in found_by.wanted:
                found.append(match.span())
    return merged_spans(found, offsets)


class Highlighting(NamedTuple):
    """How to find a query's terms in a text."""

    wanted: frozenset[str]  # every term
    lone_characters: list[re.Pattern[str]]  # a one-character Chinese term, where it stands alone
    chinese: list[str]  # longer Chinese terms, wherever they occur
    words: re.Pattern[str] | None  # the words that may be (or stem to) one of the other terms


@lru_cache(maxsize=256)  # a search highlights the same terms in each of its hits' titles and snippets
def _highlighting(terms: tuple[str, ...]) -> Highlighting:
    wanted = frozenset(terms)
    chinese = [term for term in wanted if HAN.fullmatch(term)]
    # A lone character (我) only where it stands alone, as in the index.
    lone = [re.compile(f"(?<!{HAN_CHAR}){term}(?!{HAN_CHAR})") for term in chinese if len(term) == 1]
    # Only a word whose first letter starts some term can match one (the stemmer rewrites endings, not
    # beginnings), so the scan yields just those, delimited as the tokenizer delimits them.
    starts = "".join(sorted({t[0] for t in wanted if t[0] in WORD_CHARACTERS}))
    words = _words_starting_with(starts) if starts else None
    return Highlighting(wanted, lone, [term for term in chinese if len(term) > 1], words)


def merged_spans(found: Iterable[tuple[int, int]], offsets: Sequence[int]) -> list[tuple[int, int]]:
    """Spans found in the normalised text as spans of the source text, in order, touching ones merged."""
    spans: list[tuple[int, int]] = []
    for start, end in sorted(found):
        src_start, src_end = offsets[start], offsets[end - 1] + 1
        if spans and src_start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], src_end))
        else:
            spans.append((src_start, src_end))
    return spans


def _words_starting_with(starts: str) -> re.Pattern[str]:
    """TOKEN_PATTERN's words that begin with one of `starts`: a word begins where no word goes on."""
    return re.compile(rf"(?<![a-z0-9])(?<![a-z0-9]{WORD_SEPARATOR})[{starts}]{WORD_TAIL}")


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
