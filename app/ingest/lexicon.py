"""A bilingual lexicon mined from the portal's own translation pairs.

Aligned entries say the same thing in two languages, so an English word and a Chinese
word that keep appearing in the same pairs, and rarely apart, translate each other
(微调 ~ fine-tune, 显存 ~ memory). Search uses the lexicon below the reader's own words
to reach answers written only in the other language; the editor's `glossary.tsv` stays
the override.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from app.search.analysis import STOP_WORDS, jieba_words, stem, to_simplified

ENGLISH_WORD = re.compile(r"(?<![\w.\-/])[a-z]{3,}(?![\w\-/])")
CHINESE_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
MIN_PAIRS = 2  # a pairing seen once is chance
MIN_DICE = 0.3  # how often the two words come together, against how often each appears
MAX_SHARE = 0.2  # words in more than this share of the pairs (问题, issue) say nothing …
MIN_LIMIT = 10  # … once there are enough pairs to tell
# Words that every troubleshooting entry has in both languages; they would pair with anything.
CHINESE_FUNCTION_WORDS = frozenset("""
可以 如果 使用 需要 进行 没有 这个 一个 我们 你们 他们 因为 所以 但是 或者 以及 然后 时候 什么 怎么 如何
为什么 是否 能否 已经 就是 还是 不是 这样 那么 其他 通过 可能 相关 对应 目前 其中 以下 以上 请问
""".split())


def _english_words(text: str) -> dict[str, str]:
    """Stem → the first surface form, for the English content words of a text."""
    words: dict[str, str] = {}
    for word in ENGLISH_WORD.findall(text.lower()):
        if word not in STOP_WORDS:
            words.setdefault(stem(word), word)
    return words


def _chinese_words(text: str) -> set[str]:
    """jieba's words of two or more Han characters in a text (Simplified)."""
    words: set[str] = set()
    for run in CHINESE_RUN.findall(to_simplified(text)):
        words.update(_run_words(run))
    return words


@lru_cache(maxsize=65536)
def _run_words(run: str) -> tuple[str, ...]:
    """jieba's content words of one Han run. Runs repeat across a corpus (phrases, boilerplate sentences): each is
    cut once (jieba was 5 of the 8 s mining 9,600 pairs, profiled)."""
    return tuple(w for w, _, _ in jieba_words(run) if len(w) >= 2 and w not in CHINESE_FUNCTION_WORDS)


def pair_words(english_text: str, chinese_text: str) -> tuple[dict[str, str], set[str]]:
    """The words one aligned pair may teach: its English content words (stem → surface form) that the Chinese text
    does not also hold (shared, not translated), and the Chinese text's words."""
    english = _english_words(english_text)
    shared = set(_english_words(chinese_text))
    return {s: w for s, w in english.items() if s not in shared}, _chinese_words(chinese_text)


def mine_lexicon(pairs: Iterable[tuple[str, str]], min_pairs: int = MIN_PAIRS,
                 min_dice: float = MIN_DICE) -> list[list[str]]:
    """[English word, Chinese word] groups that translate each other in the aligned (en, zh) texts: seen together
    in `min_pairs` pairs or more, with a Dice of `min_dice` or more.

    Association is Dice over pairs; each word keeps only its best partners (competitive
    linking), so a frequent word does not collect every neighbour.
    """
    english_df: Counter[str] = Counter()
    chinese_df: Counter[str] = Counter()
    together: Counter[tuple[str, str]] = Counter()
    surface: dict[str, str] = {}
    count = 0
    for english_text, chinese_text in pairs:
        count += 1
        english, chinese = pair_words(english_text, chinese_text)
        for s, w in english.items():
            surface.setdefault(s, w)
        english_df.update(english.keys())
        chinese_df.update(chinese)
        together.update((e, z) for e in english for z in chinese)
    if not count:
        return []
    limit = max(MIN_LIMIT, MAX_SHARE * count)
    scored = {(e, z): 2 * n / (english_df[e] + chinese_df[z]) for (e, z), n in together.items()
              if n >= min_pairs and english_df[e] <= limit and chinese_df[z] <= limit}
    best_for_english: dict[str, float] = {}
    best_for_chinese: dict[str, float] = {}
    for (e, z), dice in scored.items():
        best_for_english[e] = max(best_for_english.get(e, 0.0), dice)
        best_for_chinese[z] = max(best_for_chinese.get(z, 0.0), dice)
    # Ties in the words' order: the order pairs were counted in follows the hashing of a set of words.
    groups = [[surface[e], z] for (e, z), dice in sorted(scored.items(), key=lambda item: (-item[1], item[0]))
              if dice >= min_dice and (dice == best_for_english[e] or dice == best_for_chinese[z])]
    return groups


def pair_texts(pairs: Sequence[tuple[str, str]], texts: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    """(English text, Chinese text) for entry-id pairs, whichever order each pair is in."""
    result: list[tuple[str, str]] = []
    for first, second in pairs:
        (lang_a, text_a), (lang_b, text_b) = texts[first], texts[second]
        if {lang_a, lang_b} == {"en", "zh"}:
            result.append((text_a, text_b) if lang_a == "en" else (text_b, text_a))
    return result
