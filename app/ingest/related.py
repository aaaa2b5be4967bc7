"""Related entries: other entries on the same problem, in either language.

Entries are compared by their anchors (identifiers, error types, library names, commands,
glossary concepts that bridge the two languages), each weighted by its rarity, with cosine
similarity. A translation pair counts as one candidate, shown in the reader's language.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.ingest.anchors import anchor_weights

MAX_RELATED = 5
MIN_SIMILARITY = 0.08  # below this, two entries share only incidental words
POSTING_LIMIT = 50  # anchors shared by more entries than this only count when candidates are scored
QUESTION_BOOST = 2.0  # an anchor in the question names the problem; one in the answer may be incidental
PROSE_WEIGHT = 0.3  # plain English words (`get`, `work`) say little about the problem …
TECHNICAL_WEIGHT = 1.5  # … library names, tools and error types (`bitsandbytes`, `FSDP`) say much
RERANK = 3 * MAX_RELATED  # candidates scored exactly


@dataclass(frozen=True)
class RelatableEntry:
    """What finding related entries needs to know about an entry."""

    id: str
    lang: str
    anchors: frozenset[str]
    question_anchors: frozenset[str] = frozenset()  # what the question names counts double


def related_entries(entries: Sequence[RelatableEntry], translations: Mapping[str, Sequence[str]],
                    limit: int = MAX_RELATED) -> dict[str, list[tuple[str, float]]]:
    """For each entry, up to `limit` (entry id, similarity) of other entries on the same problem, best first.

    An entry and its translations form a group and are compared as one (the best-matching
    members decide), so an entry and its translation list the same related entries, each
    shown in the reader's language.
    """
    weights = anchor_weights(e.anchors for e in entries)
    # Entry numbers as a typed array, not a list of int objects: an entry's every anchor is in one,
    # and the lists were the largest thing held while the vectors are built (100 MB at 100k entries).
    postings: defaultdict[str, array[int]] = defaultdict(lambda: array("i"))
    for index, entry in enumerate(entries):
        for anchor in entry.anchors:
            postings[anchor].append(index)
    group_of = _translation_groups(entries, translations)
    technical = _technical_words(entries)

    # One float object per anchor and place (question or answer), shared by every vector holding it:
    # a float per anchor per entry was 70 MB at 100k entries.
    in_questions: dict[str, float] = {}
    in_answers: dict[str, float] = {}

    def weight(entry: RelatableEntry, anchor: str) -> float:
        in_question = anchor in entry.question_anchors
        shared = in_questions if in_question else in_answers
        if (known := shared.get(anchor)) is not None:
            return known
        boost = QUESTION_BOOST if in_question else 1.0
        if anchor.startswith("word:"):
            boost *= TECHNICAL_WEIGHT if anchor in technical else PROSE_WEIGHT
        shared[anchor] = value = weights[anchor] * boost
        return value

    # Anchors no entry outside the group has cannot relate anything: they count neither as probes
    # nor in the norm. A vector's keys are the anchors that count (no separate set of them is kept).
    vectors = [{a: weight(e, a) for a in e.anchors if any(group_of[k] != group_of[i] for k in postings[a])}
               for i, e in enumerate(entries)]
    del postings  # a posting per anchor of every entry: let it go before scoring
    # fsum: a sum over a set's order would differ from run to run with Python's string hashing (and so the ties).
    norms = [math.sqrt(math.fsum(w * w for w in vector.values())) or 1.0 for vector in vectors]

    def similarity(a: int, b: int) -> float:
        common = vectors[a].keys() & vectors[b].keys()
        return math.fsum(vectors[a][x] * vectors[b][x] for x in common) / (norms[a] * norms[b])

    # Candidates come from an exact dot product over every anchor but the commonest (which weigh
    # little and would make this quadratic); the best are then scored on all their anchors.
    # Only the postings short enough to be read are kept: the common anchors' would hold most of memory.
    holders = Counter(anchor for vector in vectors for anchor in vector)
    weighted_postings: dict[str, list[tuple[int, float]]] = {
        anchor: [] for anchor, count in holders.items() if count <= POSTING_LIMIT}
    for index, vector in enumerate(vectors):
        for anchor, value in vector.items():
            if (posting := weighted_postings.get(anchor)) is not None:
                posting.append((index, value))
    ranked_groups: dict[tuple[int, ...], list[tuple[float, tuple[int, ...]]]] = {}
    for group in dict.fromkeys(group_of):
        rough: dict[int, float] = defaultdict(float)
        for member in group:
            for anchor, value in vectors[member].items():
                if (posting := weighted_postings.get(anchor)) is not None:
                    for other, other_value in posting:
                        rough[other] += value * other_value / norms[other]
        candidates = heapq.nlargest(RERANK, (k for k in rough if group_of[k] != group), key=rough.__getitem__)
        best: dict[tuple[int, ...], float] = {}
        for other in candidates:
            score = max(similarity(member, other) for member in group)
            if score >= MIN_SIMILARITY:
                best[group_of[other]] = max(score, best.get(group_of[other], 0.0))
        ranked_groups[group] = sorted(((score, g) for g, score in best.items()), key=lambda item: (-item[0], item[1]))

    related: dict[str, list[tuple[str, float]]] = {}
    for index, entry in enumerate(entries):
        shown = []
        for score, group in ranked_groups[group_of[index]][:limit]:
            member = min(group, key=lambda k: (entries[k].lang != entry.lang, k))  # the reader's language first
            shown.append((entries[member].id, round(score, 4)))
        related[entry.id] = shown
    return related


def _translation_groups(entries: Sequence[RelatableEntry],
                        translations: Mapping[str, Sequence[str]]) -> list[tuple[int, ...]]:
    """Each entry's group: itself and its translations, as sorted positions."""
    position = {e.id: k for k, e in enumerate(entries)}
    return [tuple(sorted({k, *(position[t] for t in translations.get(e.id, ()) if t in position)}))
            for k, e in enumerate(entries)]


def _technical_words(entries: Sequence[RelatableEntry]) -> frozenset[str]:
    """Word anchors that are technical terms: identifiers, and Latin words Chinese entries use.

    Chinese prose keeps library names, error types and tools in Latin script (`bitsandbytes`,
    `FSDP`, `OOM`), so a word seen in a Chinese entry is a term, not English prose.
    """
    words = {a for e in entries for a in e.anchors if a.startswith("word:")}
    kept_by_chinese = {a for e in entries if e.lang == "zh" for a in e.anchors if a.startswith("word:")}
    return frozenset(a for a in words if a in kept_by_chinese or not a.removeprefix("word:").isalpha())
