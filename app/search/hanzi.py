"""Chinese typo corrections: a character pair that no entry holds, corrected by sound or by shape.

Chinese is typed through input methods, so its typos are the wrong character of the right sound
(`显纯` for `显存`: xian chun for xian cun, one of the confusions pinyin typists make, z/zh, c/ch,
s/sh, n/l, an/ang, en/eng, in/ing) or, with handwriting and shape-based methods, a character that
looks alike (same four-corner code: `己`/`已`). A pair of characters is suspect when no entry holds
it; each of its characters is tried against its neighbours by sound and shape, and the
replacement that the most entries hold wins.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

HAN_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
# (what typists confuse) → one spelling for both: initials first, then finals.
INITIALS = (("zh", "z"), ("ch", "c"), ("sh", "s"), ("n", "l"))
FINALS = (("ang", "an"), ("eng", "en"), ("ing", "in"))
MAX_SUSPECTS = 8  # character pairs examined in one query
MAX_FIXES = 2  # characters replaced in one query


def _toneless(reading: str) -> str:
    """`chún` → `chun`, `lǜ` → `lv`."""
    reading = reading.replace("ü", "v")
    return "".join(c for c in unicodedata.normalize("NFD", reading) if not unicodedata.combining(c))


def sound_key(syllable: str) -> str:
    """A toneless syllable with the confusions folded: `chun` and `cun` both give `cun`."""
    for typed, folded in INITIALS:
        if syllable.startswith(typed):
            syllable = folded + syllable[len(typed):]
            break
    for typed, folded in FINALS:
        if syllable.endswith(typed):
            return syllable[: -len(typed)] + folded
    return syllable


@lru_cache(maxsize=1)
def _by_sound() -> dict[str, frozenset[str]]:
    """Common characters by folded sound (every reading of each)."""
    from pypinyin.pinyin_dict import pinyin_dict

    groups: dict[str, set[str]] = {}
    for code, readings in pinyin_dict.items():
        if 0x4E00 <= code <= 0x9FFF:
            for reading in readings.split(","):
                key = sound_key(_toneless(reading))
                groups.setdefault(key, set()).add(chr(code))
    return {key: frozenset(chars) for key, chars in groups.items()}


@lru_cache(maxsize=1)
def _by_shape() -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    """Each common character's four-corner code (its first four digits) and the characters sharing each."""
    from four_corner_method import FourCornerMethod

    codes = {char: code[:4] for char, code in FourCornerMethod().data.items()
             if len(char) == 1 and 0x4E00 <= ord(char) <= 0x9FFF and code}
    groups: dict[str, set[str]] = {}
    for char, code in codes.items():
        groups.setdefault(code, set()).add(char)
    return codes, {code: frozenset(chars) for code, chars in groups.items()}


def warm_up_corrections() -> None:
    """Load the tables Chinese typos are corrected with (over a second on a busy machine), not inside a search."""
    from pypinyin import lazy_pinyin

    lazy_pinyin("显")
    _by_sound()
    _by_shape()


def neighbours(char: str) -> set[str]:
    """The characters a typist may have meant instead of `char`: the same folded sound, or the same shape code."""
    from pypinyin import lazy_pinyin  # loaded on the first Chinese typo, not when a server starts

    found: set[str] = set()
    found |= _by_sound().get(sound_key(_toneless(lazy_pinyin(char)[0])), frozenset())
    codes, shapes = _by_shape()
    if char in codes:
        found |= shapes[codes[char]]
    found.discard(char)
    return found


def correct_chinese(text: str, entries_holding: Callable[[str], int]) -> str | None:
    """`text` with up to two characters replaced where a pair no entry holds becomes one that entries hold, or
    None when nothing needs it. A replacement must leave every pair it is part of held by some entry (so
    `梯度剪裁` is not turned into `梯度减裁` for the sake of `度减`); the one held most often wins."""
    chars = list(text)
    fixes = examined = 0
    for run in HAN_RUN.finditer(text):
        for at in range(run.start(), run.end() - 1):
            if fixes >= MAX_FIXES or examined >= MAX_SUSPECTS:
                break
            if entries_holding(chars[at] + chars[at + 1]):
                continue
            examined += 1
            best = (0, 0, "")
            for position in (at, at + 1):
                for replacement in sorted(neighbours(chars[position])):
                    pairs = [(left, left + 1) for left in (position - 1, position)
                             if run.start() <= left and left + 1 < run.end()]
                    held = [entries_holding("".join(replacement if i == position else chars[i] for i in pair))
                            for pair in pairs]
                    if all(held) and sum(held) > best[0]:
                        best = (sum(held), position, replacement)
            if best[0]:
                chars[best[1]] = best[2]
                fixes += 1
    return "".join(chars) if fixes else None
