"""Related entries: other entries on the same problem, in either language.

Entries are compared by their anchors (identifiers, error types, library names, commands,
glossary concepts that bridge the two languages), each weighted by its rarity, with cosine
similarity. A translation pair counts as one candidate, shown in the reader's language.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.ingest.anchors import anchor_weights

MAX_RELATED = 5
MIN_SIMILARITY = 0.08  # below this, two entries share only incidental words
PROBE_ANCHORS = 16  # an entry looks for candidates through its rarest anchors only …
POSTING_LIMIT = 64  # … and skips anchors shared by more entries than this (they relate everything)
QUESTION_BOOST = 2.0  # an anchor in the question names the problem; one in the answer may be incidental
PROSE_WEIGHT = 0.3  # plain English words (`get`, `work`) say less than technical terms
RERANK = 4 * MAX_RELATED  # candidates scored exactly


@dataclass(frozen=True)
class RelatableEntry:
    """What finding related entries needs to know about an entry."""

    id: str
    lang: str
    anchors: frozenset[str]
    question_anchors: frozenset[str] = frozenset()  # what the question names counts double


def related_entries(entries: Sequence[RelatableEntry], translations: Mapping[str, Sequence[str]],
                    limit: int = MAX_RELATED) -> dict[str, list[tuple[str, float]]]:
    """For each entry, up to `limit` (entry id, similarity) of other entries on the same problem, best first."""
    weights = anchor_weights(e.anchors for e in entries)
    postings: dict[str, list[int]] = defaultdict(list)
    for index, entry in enumerate(entries):
        for anchor in entry.anchors:
            postings[anchor].append(index)
    position = {e.id: k for k, e in enumerate(entries)}
    groups = [[e, *(entries[position[t]] for t in translations.get(e.id, ()) if t in position)] for e in entries]
    # Anchors no other entry has (its translation aside) cannot relate anything: they count neither
    # as probes nor in the norm.
    shared = [frozenset(a for a in e.anchors if len(postings[a]) > sum(a in g.anchors for g in group))
              for e, group in zip(entries, groups, strict=True)]
    technical = _technical_words(entries)

    def weight(entry: RelatableEntry, anchor: str) -> float:
        boost = QUESTION_BOOST if anchor in entry.question_anchors else 1.0
        prose = anchor.startswith("word:") and anchor not in technical
        return weights[anchor] * boost * (PROSE_WEIGHT if prose else 1.0)

    vectors = [{a: weight(e, a) for a in anchors} for e, anchors in zip(entries, shared, strict=True)]
    norms = [math.sqrt(sum(w * w for w in vector.values())) or 1.0 for vector in vectors]

    def similarity(a: int, b: int) -> float:
        common = shared[a] & shared[b]
        return sum(vectors[a][x] * vectors[b][x] for x in common) / (norms[a] * norms[b])

    related: dict[str, list[tuple[str, float]]] = {}
    for index, entry in enumerate(entries):
        probes = heapq.nlargest(PROBE_ANCHORS, (a for a in shared[index] if len(postings[a]) <= POSTING_LIMIT),
                                key=lambda a: weights[a])
        rough: dict[int, float] = defaultdict(float)
        for anchor in probes:
            for other in postings[anchor]:
                rough[other] += weights[anchor] ** 2
        excluded = {index, *(position[t] for t in translations.get(entry.id, ()) if t in position)}
        candidates = heapq.nlargest(RERANK, (k for k in rough if k not in excluded), key=rough.__getitem__)
        best: dict[frozenset[int], tuple[float, int]] = {}
        for other in candidates:
            score = similarity(index, other)
            if score < MIN_SIMILARITY:
                continue
            # An entry and its translation are one candidate: keep the better score, shown in the reader's language.
            group = frozenset({other, *(position[t] for t in translations.get(entries[other].id, ()) if t in position)})
            shown = min(group, key=lambda k: (entries[k].lang != entry.lang, k))
            if shown in excluded:
                continue
            previous = best.get(group)
            best[group] = (max(score, previous[0] if previous else 0.0), shown)
        ranked = sorted(best.values(), key=lambda item: (-item[0], item[1]))[:limit]
        related[entry.id] = [(entries[k].id, round(score, 4)) for score, k in ranked]
    return related


def _technical_words(entries: Sequence[RelatableEntry]) -> frozenset[str]:
    """Word anchors that are technical terms: identifiers, and Latin words Chinese entries use.

    Chinese prose keeps library names, error types and tools in Latin script (`bitsandbytes`,
    `FSDP`, `OOM`), so a word seen in a Chinese entry is a term, not English prose.
    """
    words = {a for e in entries for a in e.anchors if a.startswith("word:")}
    kept_by_chinese = {a for e in entries if e.lang == "zh" for a in e.anchors if a.startswith("word:")}
    return frozenset(a for a in words if a in kept_by_chinese or not a.removeprefix("word:").isalpha())
