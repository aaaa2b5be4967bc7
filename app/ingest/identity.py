"""Stable entry identity: the new generation's entries inherit the ids of the previous generation's.

An entry keeps its id (and so its URL) when its question is reworded, its answer edited, it
moves to another section or its file is renamed, as long as it is recognisably the same entry.
Matching, in order, each step only among the entries still unmatched:

1. exact: the same document (or the one it was renamed from), section and question — what a
   fresh id is made from;
2. similar: within the same document (or the one it was renamed from), by question similarity,
   answer similarity and position; a pair is accepted only when it is clearly the best for both
   entries (a threshold plus a margin over every other candidate of either); then a question rewritten
   over an answer kept word for word, that answer found once among the entries left on each side;
3. moved between documents: the same question, in the same language, found once on each side,
   with much of its answer kept.

An old entry left unmatched whose answer is mostly inside one new entry's (two entries merged
into one) is forwarded to it; any other is removed.

The thresholds were chosen on the development split of measure/identity_sources.tsv (hexo, SpaceVim,
rapidjson, egg: 8 files, 133 commits; `python -m measure.identity --split dev`), sweeping ACCEPT_SCORE
0.4–0.6 and ACCEPT_MARGIN 0.05–0.2. No setting carried an id to a wrong entry there; 0.4 kept 3 more
of 335 edited entries than 0.5 (restructurings: an entry turned into a section over a new question),
but at 0.4 a question only 60% like the old one with an unrelated answer in the same place passes
(0.5 × 0.6 + 0.1), as "How do I X?" and "How do I Y?" can. At 0.5 a pair needs more than a similar
question: its answer largely kept, or its question nearly unchanged. The margin did not matter on
this data; 0.1 keeps two near-equal candidates (duplicated answers) from deciding by a hair. The
test split (23 files, 311 commits) was measured only after these values were fixed.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from app.ingest.anchors import LINK_TARGET, URL, extract_anchors

QUESTION_WEIGHT = 0.5
ANSWER_WEIGHT = 0.4
POSITION_WEIGHT = 0.1
ACCEPT_SCORE = 0.5  # a pair's weighted similarity must reach this …
ACCEPT_MARGIN = 0.1  # … and beat every other candidate of both entries by this much
KEPT_PART = 0.6  # the question or the answer must be this similar: one of them largely kept
MERGED_SHARE = 0.8  # an unmatched old entry whose answer is this much inside a new entry's was merged into it
RENAMED_DOCUMENT = 0.5  # a new document this similar to a vanished one is that one renamed
MOVED_ANSWER = 0.5  # the same question in another document: this much of its answer kept
MIN_TELLING_ANSWER = 24  # characters (spaces aside) of an answer kept word for word that may carry a rewritten question
WORD = re.compile(r"[a-z0-9_]+|[^\sa-z0-9_]")
MINOR_TOKENS = 2  # an edit that removes or adds at most this many distinct words (or Chinese characters) is minor
HYPHEN = re.compile(r"(?<=\w)-(?=\w)")
PROSE_TOKEN = re.compile(r"[a-z0-9_]+|[\u3400-\u9fff\uf900-\ufaff]")
NEUTRAL_ANCHORS = ("code:", "line:", "url:", "number:")  # what every translation carries unchanged
LINK_FORM = re.compile(r"^(?:https?://(?:www\.)?|(?:\./|/)+)", re.IGNORECASE)  # a link's form, not its page


@dataclass(frozen=True)
class Version:
    """One entry of a generation, as far as identity is concerned."""

    id: str
    document_id: str
    lang: str
    section: tuple[str, ...]
    title: str
    answer: str
    position: int  # order within its document
    document_size: int  # entries in its document


@dataclass(frozen=True)
class Vanished:
    """An entry of the previous generation whose id the new one no longer serves."""

    last: Version  # as it was last served
    moved_to: str | None  # the new entry that took its place (merged into it); None: removed


@dataclass
class Inheritance:
    """What the new generation's entries are called, and where the old ids that vanished went."""

    ids: list[str]  # one per new entry, in order: inherited or fresh, unique
    vanished: list[Vanished] = field(default_factory=list)
    inherited: int = 0  # new entries that kept an old entry's id

    @property
    def forwarded(self) -> int:
        """Vanished ids that lead to another entry."""
        return sum(1 for gone in self.vanished if gone.moved_to is not None)


def inherit_ids(previous: Sequence[Version], current: Sequence[Version]) -> Inheritance:
    """Match `current` (with fresh ids) to `previous` (the served generation) and name each current entry."""
    match: dict[int, int] = {}  # current index → previous index
    lineage = _renamed_documents(previous, current)
    _match_exact(previous, current, lineage, match)
    shapes = _Shapes(previous, current)
    _match_similar(previous, current, lineage, match, shapes)
    _match_same_answer(previous, current, lineage, match)
    _match_moved(previous, current, match, shapes)
    ids = _unique_ids(previous, current, match)
    taken = set(match.values())
    result = Inheritance(ids=ids, inherited=len(match))
    kept_ids = set(ids)
    by_lineage: dict[str, list[int]] = defaultdict(list)
    for k, new in enumerate(current):
        if new.document_id in lineage:
            by_lineage[lineage[new.document_id]].append(k)
    for k, old in enumerate(previous):
        if k in taken or old.id in kept_ids:
            continue
        target = _merged_into(k, previous, current, by_lineage[old.document_id], shapes)
        result.vanished.append(Vanished(old, None if target is None else ids[target]))
    return result


def _renamed_documents(previous: Sequence[Version], current: Sequence[Version]) -> dict[str, str]:
    """Each current document id → the previous document it continues (itself, or the one it was renamed from)."""
    old_documents = {entry.document_id for entry in previous}
    new_documents = {entry.document_id for entry in current}
    lineage = {doc: doc for doc in new_documents & old_documents}
    vanished, appeared = old_documents - new_documents, new_documents - old_documents
    if not vanished or not appeared:
        return lineage
    # Only the documents that came and went are read as text: the others are what they were.
    old_texts = _document_texts(entry for entry in previous if entry.document_id in vanished)
    new_texts = _document_texts(entry for entry in current if entry.document_id in appeared)
    scores = {(new, old): _cosine(new_texts[new], old_texts[old]) for new in appeared for old in vanished}
    for (new, old), score in sorted(scores.items(), key=lambda item: -item[1]):
        if new in lineage or old in lineage.values() or score < RENAMED_DOCUMENT:
            continue
        rivals = [s for (n, o), s in scores.items() if (n == new) != (o == old)]
        if all(score - rival >= ACCEPT_MARGIN for rival in rivals):
            lineage[new] = old
    return lineage


def _document_texts(entries: Iterable[Version]) -> dict[str, Counter[str]]:
    texts: dict[str, Counter[str]] = defaultdict(Counter)
    for entry in entries:
        texts[entry.document_id].update(shingles(f"{entry.title}\n{entry.answer}"))
    return texts


def _match_exact(previous: Sequence[Version], current: Sequence[Version], lineage: dict[str, str],
                 match: dict[int, int]) -> None:
    """Pair entries with the same document lineage, section and question, in document order."""
    waiting: dict[tuple[str, tuple[str, ...], str], list[int]] = defaultdict(list)
    for k, old in enumerate(previous):
        waiting[(old.document_id, old.section, old.title)].append(k)
    for k, new in enumerate(current):
        old_document = lineage.get(new.document_id)
        queue = waiting.get((old_document, new.section, new.title)) if old_document else None
        if queue:
            match[k] = queue.pop(0)


class _Shapes:
    """The character shingles of every question and answer, made once, when first asked for."""

    def __init__(self, previous: Sequence[Version], current: Sequence[Version]) -> None:
        self._entries = {False: previous, True: current}
        self._made: dict[tuple[bool, int, str], Counter[str]] = {}

    def of(self, is_new: bool, k: int, part: str) -> Counter[str]:
        key = (is_new, k, part)
        if key not in self._made:
            entry = self._entries[is_new][k]
            self._made[key] = shingles(entry.title if part == "title" else entry.answer)
        return self._made[key]

    def score(self, old: int, new: int) -> tuple[float, float, float]:
        """The weighted similarity of two entries, with its question and answer parts."""
        before, after = self._entries[False][old], self._entries[True][new]
        question = _cosine(self.of(False, old, "title"), self.of(True, new, "title"))
        if before.answer.strip() and after.answer.strip():
            answer = _cosine(self.of(False, old, "answer"), self.of(True, new, "answer"))
        else:
            answer = question  # an answer written (or emptied) since: only the question can tell
        position = 1.0 - abs(_relative(before) - _relative(after))
        total = QUESTION_WEIGHT * question + ANSWER_WEIGHT * answer + POSITION_WEIGHT * position
        return total, question, answer


def _relative(entry: Version) -> float:
    return entry.position / max(1, entry.document_size - 1)


def _match_similar(previous: Sequence[Version], current: Sequence[Version], lineage: dict[str, str],
                   match: dict[int, int], shapes: _Shapes) -> None:
    """Pair the entries left in each document lineage that are clearly each other's best match."""
    taken = set(match.values())
    old_by_document: dict[str, list[int]] = defaultdict(list)
    for k, before in enumerate(previous):
        if k not in taken:
            old_by_document[before.document_id].append(k)
    new_by_document: dict[str, list[int]] = defaultdict(list)
    for k, after in enumerate(current):
        if k not in match and after.document_id in lineage:
            new_by_document[lineage[after.document_id]].append(k)
    for document, news in new_by_document.items():
        olds = old_by_document.get(document, [])
        scores: dict[tuple[int, int], float] = {}
        for new in news:
            telling = _telling(current[new].answer)
            for old in olds:
                if previous[old].lang != current[new].lang:
                    continue
                total, question, answer = shapes.score(old, new)
                if question >= KEPT_PART or (answer >= KEPT_PART and telling):
                    scores[(new, old)] = total
                else:
                    scores[(new, old)] = min(total, ACCEPT_SCORE - ACCEPT_MARGIN)  # a rival, never a match
        _accept_clear_best(scores, match)


def _accept_clear_best(scores: dict[tuple[int, int], float], match: dict[int, int]) -> None:
    """Accept pairs, best first, whose score reaches the threshold and beats both entries' other candidates."""
    by_new: dict[int, list[float]] = defaultdict(list)
    by_old: dict[int, list[float]] = defaultdict(list)
    for (new, old), score in scores.items():
        by_new[new].append(score)
        by_old[old].append(score)
    taken = set(match.values())
    for (new, old), score in sorted(scores.items(), key=lambda item: -item[1]):
        if score < ACCEPT_SCORE:
            break
        if new in match or old in taken:
            continue
        if _second(by_new[new], score) > score - ACCEPT_MARGIN or _second(by_old[old], score) > score - ACCEPT_MARGIN:
            continue
        match[new] = old
        taken.add(old)


def _second(scores: list[float], best: float) -> float:
    """The best of `scores` once `best` is left out once."""
    rest = sorted(scores, reverse=True)
    rest.remove(best)
    return rest[0] if rest else 0.0


def _match_same_answer(previous: Sequence[Version], current: Sequence[Version], lineage: dict[str, str],
                       match: dict[int, int]) -> None:
    """Pair a question rewritten over an answer kept word for word: within a document lineage, an answer found once
    among the entries left on each side (hexo renamed "Git Deployment Problems" to "RPC failed" and kept its answer;
    a question wholly rewritten scores below the similar match's threshold however much of the answer is kept)."""
    taken = set(match.values())
    olds: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, before in enumerate(previous):
        if k not in taken and _telling(before.answer):
            olds[(before.document_id, _normal_answer(before.answer))].append(k)
    news: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, after in enumerate(current):
        if k not in match and after.document_id in lineage and _telling(after.answer):
            news[(lineage[after.document_id], _normal_answer(after.answer))].append(k)
    for key, found in news.items():
        if len(found) == 1 and len(olds.get(key, [])) == 1 and previous[olds[key][0]].lang == current[found[0]].lang:
            match[found[0]] = olds[key][0]


def _normal_answer(text: str) -> str:
    return " ".join(text.split())


def _telling(answer: str) -> bool:
    """Long enough to tell one entry from another ("Yes." or "See above." says nothing about which question)."""
    return len("".join(answer.split())) >= MIN_TELLING_ANSWER


def _match_moved(previous: Sequence[Version], current: Sequence[Version], match: dict[int, int],
                 shapes: _Shapes) -> None:
    """Pair a question that left its document for another: found once on each side, its answer largely kept."""
    taken = set(match.values())
    olds: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, before in enumerate(previous):
        if k not in taken:
            olds[(before.lang, before.title)].append(k)
    news: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, after in enumerate(current):
        if k not in match:
            news[(after.lang, after.title)].append(k)
    for key, found in news.items():
        if len(found) == 1 and len(olds.get(key, [])) == 1:
            new, old = found[0], olds[key][0]
            if shapes.score(old, new)[2] >= MOVED_ANSWER:
                match[new] = old


def _unique_ids(previous: Sequence[Version], current: Sequence[Version], match: dict[int, int]) -> list[str]:
    """Inherited ids for matched entries; fresh ids for the others, lengthened where an inherited id has them."""
    ids = [previous[match[k]].id if k in match else "" for k in range(len(current))]
    used = set(ids) - {""}
    for k, new in enumerate(current):
        if ids[k]:
            continue
        candidate, suffix = new.id, 2
        while candidate in used:  # an inherited id is this fresh one: the entry that carried it keeps it
            candidate = f"{new.id}-{suffix}"
            suffix += 1
        ids[k] = candidate
        used.add(candidate)
    return ids


def _merged_into(old: int, previous: Sequence[Version], current: Sequence[Version], candidates: list[int],
                 shapes: _Shapes) -> int | None:
    """The new entry (of `candidates`: its document's) that an unmatched old entry was merged into: the one whose
    answer holds most of the old answer, when that is most of it and no other comes close; None otherwise."""
    best, best_share, second = None, 0.0, 0.0
    answer = shapes.of(False, old, "answer")
    for k in candidates:
        if current[k].lang != previous[old].lang:
            continue
        share = _contained(answer, shapes.of(True, k, "answer"))
        if share > best_share:
            best, best_share, second = k, share, best_share
        elif share > second:
            second = share
    if best is None or best_share < MERGED_SHARE or best_share - second < ACCEPT_MARGIN:
        return None
    return best


def minor_edit(before_title: str, before_answer: str, after_title: str, after_answer: str) -> bool:
    """Whether an edit changes a word or two of prose only (a typo fixed, a word added), leaving every code span,
    code line, URL and number as it was: it does not change what the entry says to a translator."""
    before, after = f"{before_title}\n{before_answer}", f"{after_title}\n{after_answer}"
    if _neutral(before) != _neutral(after):
        return False
    return len(set(_prose_tokens(before)) ^ set(_prose_tokens(after))) <= MINOR_TOKENS


def _neutral(text: str) -> frozenset[str]:
    return frozenset(_same_target(anchor) for anchor in extract_anchors(text) if anchor.startswith(NEUTRAL_ANCHORS))


def _same_target(anchor: str) -> str:
    """A URL anchor as the page it names: `/api.html`, `./api.html` and `api.html/` name one page, as do
    `http://www.a.org` and `https://a.org`; a translation need not follow such a rewrite."""
    if not anchor.startswith("url:"):
        return anchor
    return "url:" + LINK_FORM.sub("", anchor[4:]).rstrip("/")


def _prose_tokens(text: str) -> list[str]:
    """Words and Chinese characters, letter case, full-width forms and hyphens (plug-ins, plugins) aside; URLs are
    anchors, not prose."""
    text = HYPHEN.sub("", URL.sub(" ", LINK_TARGET.sub("]", text)))
    return PROSE_TOKEN.findall(unicodedata.normalize("NFKC", text).lower())


def shingles(text: str) -> Counter[str]:
    """The text's word and character pairs, for a cosine: Chinese characters and English words alike."""
    text = unicodedata.normalize("NFKC", text).lower()
    tokens = WORD.findall(text)
    pairs = Counter(tokens)
    pairs.update(f"{a} {b}" for a, b in itertools.pairwise(tokens))
    return pairs


def _contained(part: Counter[str], whole: Counter[str]) -> float:
    """How much of `part` is found in `whole` (0 when `part` is empty)."""
    total = sum(part.values())
    return sum(min(count, whole.get(token, 0)) for token, count in part.items()) / total if total else 0.0


def _cosine(first: Counter[str], second: Counter[str]) -> float:
    if not first or not second:
        return 0.0
    if len(first) > len(second):
        first, second = second, first
    dot = sum(count * second.get(token, 0) for token, count in first.items())
    norm = math.sqrt(sum(c * c for c in first.values())) * math.sqrt(sum(c * c for c in second.values()))
    return dot / norm if norm else 0.0
