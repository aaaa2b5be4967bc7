"""Hybrid ranking: the lexical ranking fused with the entries nearest in meaning.

Scores are put on one scale before they are added: a lexical score as a share of the best
lexical score of the query, a cosine as a z-score among the entries of its language (the
model rates same-language pairs about 0.03 higher, and cosines crowd into a narrow band, so a
raw cosine says little until it is compared with the rest). The candidates are the lexical
ranking's best and the nearest entries by meaning whose z-score stands out. Settings were
chosen on the development query sets only (`faq eval --compare`; docs/search.md says how).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.search.clauses import QUOTED
from app.search.dense import LANGUAGES, DenseIndex
from app.search.embedding import Vectors
from app.search.errors import TIMESTAMP, read_pasted
from app.search.ranking import Match

Floats = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]
LEXICAL_DEPTH = 100  # lexical candidates fused
DENSE_DEPTH = 50  # nearest entries by meaning considered
DENSE_WEIGHT = 0.2  # a z-score's weight beside a share of the best lexical score
# Meaning is how far an entry's question and answer stand out for the query, plus half how far its question,
# read as a query, does (a reader's question meets an entry's question as one question meets another). Over the
# development sets and their runs with one language removed, successes 449 of 535 both, MRR summed over the six
# runs 4.77 -> 4.81; checked on fresh3 and fresh4 (six runs) 356 -> 361 of 433, and on fresh5 (three) 140 -> 146
# of 194 (docs/search.md). Which entries may join by meaning alone is still decided by the first z-score: with
# the sum, made-up words ("qqxqz vvkwp") found entries.
QUESTION_WEIGHT = 0.5
# A pasted error, log or traceback is matched by its exact words: meaning scales the words' score (by
# 1 + 0.4 × z) instead of adding to it, so it reorders the entries those words found but never lifts one they
# barely found, nor adds one they did not. Added, as for a reader's words, meaning put entries that share one
# common word with a log above the one holding its error line (development sets: log 7 -> 8 of 9 found on
# fresh, error 10 -> 11 of 11 on fresh3, and every pasted kind at or above the words alone on all three sets).
PASTED_WEIGHT = 0.4
# A candidate found by meaning alone must stand out from its language (z-score: below 3, such candidates
# displaced more right answers than they added on the development sets) and be close in absolute terms:
# every query has nearest entries, and a made-up word's are noise (its best cosine is 0.76-0.80 for most on
# the development corpora, a right answer's 0.84 or more in nineteen cases of twenty).
MIN_DENSE_Z = 3.0
MIN_COSINE = 0.82
# The words' ranking is only as good as its best match: when that entry holds a small part of the query (the
# answer is in the other language, or in other words), its top share of 1 says little. Then meaning counts more
# (the shares are scaled by the square root of that part) and entries found by meaning alone need stand out less
# (the z floor falls from 3 when the best match holds every word to 1 when it holds none of it; when no entry
# holds any word it stays 3, or made-up words would find whatever is nearest them). Over the real and fresh
# sets and their runs with one language removed (`make eval-cross`): successes 455 -> 450 of 535, MRR summed
# over the six runs 4.67 -> 4.77; on fresh3 and fresh4, used only to check: 353 -> 356 of 433, 4.31 -> 4.48
# (docs/search.md gives the other powers and floors tried).
WORDS_COVERAGE_POWER = 0.5
MIN_DENSE_Z_UNMATCHED = 1.0
MIN_RELATED_Z = 3.0
# The companion model (app/search/companion.py) then reorders the fused ranking's best entries: its z-score, at
# this weight, is added to theirs. Replayed over the nine development sets and their runs with one language
# removed (1,756 queries): found 1,470 -> 1,496 at 0.15, 1,500 at 0.2, 1,497 at 0.3. Run: 778 -> 787 found in
# the queries' language, 692 -> 713 across languages; fresh10, not used to choose, 66 -> 67 and 64 -> 64 with MRR
# 0.849 -> 0.860 and 0.793 -> 0.809 (docs/search.md, session 24).
COMPANION_WEIGHT = 0.2
COMPANION_DEPTH = 50  # the fused ranking's first entries it may reorder
# Short or generic entries sit near the centre of all entries and so near every query; the cosine less 0.75
# of the entry's cosine with the mean vector (centring the query) found 126 development answers by meaning
# alone instead of 111 (real set; 97 -> 114 on fresh3, which was not used to choose it).
CENTRING = 0.75  # an entry related by meaning stands out as far from the rest as a hit found by meaning
MIN_SAMPLE = 30  # entries a language needs for a mean and spread of its own
# The model's cosines for one query spread by 0.017-0.021 (standard deviation, measured on the development
# corpora); a handful of entries can spread less by chance, which would make every difference look large.
MIN_SPREAD = 0.015


@dataclass(frozen=True)
class Fused:
    """The fused ranking's entries (number and score), best first, and how many the search found."""

    docnums: list[int]
    scores: list[float]
    total: int


def meaning_scores(dense: DenseIndex, cosines: Floats) -> Floats:
    """How much closer in meaning each entry is than the rest of its language: the cosine less a share of the
    entry's closeness to every entry (a "hub" near the centre is near every query), as a z-score."""
    return standardised(dense, cosines - CENTRING * dense.hubness)


def with_questions(dense: DenseIndex, z: Floats, question_cosines: Floats | None) -> Floats:
    """The z-scores of meaning with half those of the entries' questions read as queries added (as they are
    when the vector file holds no question vectors)."""
    if question_cosines is None or dense.questions is None:
        return z
    return z + QUESTION_WEIGHT * standardised(dense, question_cosines - CENTRING * dense.questions.hubness)


def standardised(dense: DenseIndex, cosines: Floats) -> Floats:
    """Each cosine as a z-score among the entries of its language that have a vector (among all of them when
    a language has too few for its own mean and spread)."""
    z = np.zeros(len(cosines), dtype=np.float32)
    if not dense.present.any():
        return z
    everyone = _mean_and_spread(cosines[dense.present])
    for code in (*range(len(LANGUAGES)), -1):
        members = (dense.languages == code) & dense.present
        count = int(members.sum())
        if not count:
            continue
        mean, spread = _mean_and_spread(cosines[members]) if count >= MIN_SAMPLE else everyone
        z[members] = (cosines[members] - mean) / spread
    return z


def companion_scores(dense: DenseIndex, query: Vectors, docnums: list[int]) -> Floats:
    """The companion model's z-scores of entries `docnums`, each among the entries of its language as
    `standardised` has it, from the moments of their rows rather than every row's cosine."""
    everyone = dense.companion_everyone
    cosines = dense.companion_cosines(query, docnums) if everyone is not None else None
    if everyone is None or cosines is None:  # none, or its file cannot be read any more: the ranking stands
        return np.zeros(len(docnums), dtype=np.float32)
    statistics = {}  # only the languages of these entries: each is a 512 × 512 product
    for code in {int(dense.languages[docnum]) for docnum in docnums}:
        group = dense.companion_moments[code]
        statistics[code] = (group if group.count >= MIN_SAMPLE else everyone).mean_and_spread(query)
    z = np.zeros(len(docnums), dtype=np.float32)
    for row, docnum in enumerate(docnums):
        if dense.present[docnum]:
            mean, spread = statistics[int(dense.languages[docnum])]
            z[row] = (cosines[row] - mean) / max(spread, MIN_SPREAD)
    return z


def _mean_and_spread(values: Floats) -> tuple[float, float]:
    return float(values.mean()), max(float(values.std()), MIN_SPREAD)


@dataclass(frozen=True)
class Blend:
    """How meaning joins the words' ranking for one query."""

    weight: float  # a z-score's weight
    scales: bool  # meaning scales the words' score (pasted text) rather than adding to it
    adds: bool  # entries found by meaning alone may join the ranking


def blend_for(text: str) -> Blend:
    """How meaning weighs for this query: a pasted error or log is matched by its words, which meaning only
    reorders; a quoted phrase asks for the entries that hold it (meaning still orders those)."""
    if read_pasted(text) or TIMESTAMP.search(text):
        return Blend(PASTED_WEIGHT, scales=True, adds=False)
    return Blend(DENSE_WEIGHT, scales=False, adds=QUOTED.search(text) is None)


READERS_WORDS = Blend(DENSE_WEIGHT, scales=False, adds=True)


def nearest(z: Floats, allowed: Mask, depth: int) -> npt.NDArray[np.intp]:
    """The allowed entries with the highest z-scores, at most `depth`."""
    candidates = np.flatnonzero(allowed)
    if len(candidates) > depth:
        candidates = candidates[np.argpartition(-z[candidates], depth - 1)[:depth]]
    ordered: npt.NDArray[np.intp] = candidates[np.argsort(-z[candidates], kind="stable")]
    return ordered


Companion = Callable[[list[int]], Floats]  # the companion model's z-scores of some entries


def fuse(lexical: list[Match], lexical_total: int, cosines: Floats, z: Floats, allowed: Mask, depth: int,
         blend: Blend = READERS_WORDS, coverage: float = 1.0, admitted: Floats | None = None,
         companion: Companion | None = None) -> Fused:
    """The lexical matches and (if the blend adds them) the nearest allowed entries by meaning, on one scale,
    best first; `coverage` is the share of the query the best lexical match holds (see `words_strength`).
    `admitted` are the z-scores that decide which entries join by meaning alone (default: `z`): the question
    vectors reorder, but what may join is decided as with one vector, so made-up words still find nothing.
    `companion` gives the companion model's z-scores, which reorder the first COMPANION_DEPTH entries."""
    top = max((match.score for match in lexical[:LEXICAL_DEPTH]), default=0.0) or 1.0
    strength = words_strength(coverage) if blend.adds else 1.0
    scores: dict[int, float] = {match.docnum: strength * match.score / top for match in lexical[:LEXICAL_DEPTH]}
    # With no word matched at all, the floor stays: a made-up word is near some entries too.
    floor = MIN_DENSE_Z_UNMATCHED + (MIN_DENSE_Z - MIN_DENSE_Z_UNMATCHED) * coverage if lexical else MIN_DENSE_Z
    standing = z if admitted is None else admitted
    close = allowed & (standing >= floor) & (cosines >= MIN_COSINE)
    found_by_meaning = [int(d) for d in nearest(standing, close, DENSE_DEPTH) if int(d) not in scores] \
        if blend.adds else []
    for docnum in found_by_meaning:
        scores[docnum] = 0.0
    if blend.scales:  # never below zero: a poor match by meaning sinks an entry, it does not invert its words
        fused = {docnum: score * max(0.0, 1 + blend.weight * float(z[docnum])) for docnum, score in scores.items()}
    else:
        fused = {docnum: score + blend.weight * float(z[docnum]) for docnum, score in scores.items()}
    ranked = sorted(fused, key=lambda d: (-fused[d], d))
    if companion is not None:
        head = ranked[:COMPANION_DEPTH]
        for docnum, score in zip(head, companion(head), strict=True):
            fused[docnum] += COMPANION_WEIGHT * float(score)
        ranked = sorted(head, key=lambda d: (-fused[d], d)) + ranked[COMPANION_DEPTH:]
    ranked = ranked[:depth]
    return Fused(ranked, [fused[d] for d in ranked], lexical_total + len(found_by_meaning))


def words_strength(coverage: float) -> float:
    """How much the words' ranking counts beside meaning, from the share of the query its best match holds."""
    return float(max(0.0, coverage) ** WORDS_COVERAGE_POWER)


def by_meaning(z: Floats, allowed: Mask, depth: int) -> Fused:
    """The nearest allowed entries by meaning alone (for comparison: `mode=semantic`)."""
    ranked = nearest(z, allowed, depth)
    return Fused([int(d) for d in ranked], [float(z[d]) for d in ranked], len(ranked))


EntryOf = Callable[[int], tuple[str, str]]


def as_matches(fused: Fused, entry_of: EntryOf) -> list[Match]:
    """The fused ranking as matches with their ids and languages."""
    matches = []
    for docnum, score in zip(fused.docnums, fused.scores, strict=True):
        entry_id, lang = entry_of(docnum)
        matches.append(Match(entry_id, score, lang, docnum))
    return matches
