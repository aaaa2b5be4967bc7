"""A small Chinese language model from jieba's dictionary: how plausible is a string?"""

from __future__ import annotations

import logging
import math
import re
from functools import lru_cache

import jieba

from app.search.analysis import to_simplified

jieba.setLogLevel(logging.WARNING)

HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")



@lru_cache(maxsize=1)
def _dictionary() -> tuple[dict[str, int], float]:
    jieba.dt.check_initialized()
    return jieba.dt.FREQ, math.log(jieba.dt.total)


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
    runs = [to_simplified(run) for run in HAN_RUN.findall(text)]
    count = sum(len(run) for run in runs)
    if not count:
        return 0.0, 0
    return sum(plausibility(run) for run in runs) / count, count
