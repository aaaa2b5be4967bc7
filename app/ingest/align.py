"""Pair the documents that translate each other, then align their entries.

Documents pair by what an editor said first (`links.tsv`, front matter `translation_of:`),
then by file names that differ only by a language marker (`faq.md`/`faq.zh.md`,
`FAQ.md`/`FAQ_zh.md`, `en/x.md`/`zh_cn/x.md`, `source_en/x.md`/`source/x.md`), then by content
alone: two documents whose entries align well on shared anchors translate each other.

Entries of a document pair are aligned by dynamic programming over anchor similarity
(monotonic, like sentence alignment), then entries that moved are paired when they are
each other's clear best match, then a lone pair left between two aligned pairs is paired
when it is similar enough. Nothing pairs without shared evidence: position only breaks ties.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from app.ingest.anchors import anchor_weights

LANG_MARKERS = re.compile(
    r"(?i)(?:(?<=[._-])|^)(?:zh[_-](?:cn|hans|hant|tw)|zh|cn|en[_-]us|en)(?=[._/-]|$)"
)
# A folder that holds one language's files: `en/`, `zh_cn/`, `cn/`, Sphinx's `source_en/`. The original often
# sits beside the language folder (`docs/faq.md`, `docs/cn/faq.md`), so the folder is dropped, not replaced.
DIR_MARKERS = re.compile(r"(?i)(^|/)(?:source_en|source|zh[_-](?:cn|hans|hant|tw)|zh|cn|en)/")

MIN_SIMILARITY = 0.12  # an aligned pair shares at least this share of its anchor weight
MOVED_SIMILARITY = 0.8  # an entry paired out of order must be this similar, stand out, and be mutually best
MOVED_MARGIN = 1.3
NEIGHBOURS = 3  # candidates each entry's margin is measured against
CONTEXT_GAP = 2  # up to this many unaligned entries on each side, between aligned pairs
CONFIDENT = 0.25  # pairs below this similarity (or found by order alone) are listed by `faq check`
POSITION_WEIGHT = 0.05  # breaks ties between equally similar candidates by relative position
DOCUMENT_COVERAGE = 0.35  # content pairing: minimum alignment score (translations score 0.6-1, others < 0.2)
DOCUMENT_CANDIDATES = 3  # content pairing: candidates per document, by shared anchors
# Questions' meaning (the cosine of their vectors, when the model runs at ingest). Measured on the 605 gold
# pairs of ../shared/corpus and eval/wild: a translation's questions have a cosine of 0.92 (median; 0.86 for
# the lowest twentieth), a question and the closest other question of the same documents 0.86 (median).
MEANING_PAIR = 0.88  # two questions left unpaired pair at this cosine, if each is the other's clear best
MEANING_MARGIN = 0.02  # over the next best of either
MEANING_VETO = 0.80  # a pair with little anchor evidence whose questions are this far apart is not a pair
# The lone entry left on each side of a gap between pairs pairs at this cosine: its place is the rest of the evidence.
# Over the nine gold corpora (real, styles, wild–wild7), with the model: as laid out 901 right and 3 wrong without it,
# 909 and 3 at 0.80 or 0.83, 904 at 0.86; with the Chinese files edited, 778 and 16 without, 783 and 22 at 0.80,
# 783 and 17 at 0.83.
PLACE_MEANING = 0.83
# A pair sharing fewer anchors than this has little evidence however similar it scores: two entries whose only
# shared anchors are two words (`enable`, the project's name) score 1.0 when nothing else of theirs is shared by the
# two documents. Such pairs are checked by meaning too (the gold pairs of ../shared/corpus and eval/wild sharing at
# most two anchors: 53, their questions' cosine 0.81 at the lowest).
MEANING_EVIDENCE = 3
Meaning = Callable[[Sequence[str], Sequence[str]], list[list[float]]]  # question texts → their cosines
PAIR_EVIDENCE = 2  # content pairing: an entry pair counts towards its documents' score with this many shared anchors
# Content pairing: an anchor held by more documents than this proposes no candidates (it still counts
# in their scores). Above every corpus of the repository (at most 202 documents pooled), so they pair as
# when every document was compared with every other.
CANDIDATE_POSTINGS = 256


@dataclass(frozen=True)
class AlignableEntry:
    """What alignment needs to know about an entry."""

    id: str
    anchors: frozenset[str]
    title: str = ""  # for messages to editors


@dataclass(frozen=True)
class AlignableDocument:
    """What alignment needs to know about a document."""

    id: str
    path: str
    lang: str
    entries: Sequence[AlignableEntry]
    translation_of: str | None = None  # front matter: the path of the document this translates
    not_translation_of: frozenset[str] = frozenset()  # front matter: paths never to pair with


@dataclass(frozen=True)
class DocumentPair:
    """Two documents in different languages that translate each other."""

    first: str
    second: str
    method: str  # "links.tsv" | "front-matter" | "file-name" | "content"
    score: float


@dataclass(frozen=True)
class EntryPair:
    """Two entries that say the same thing in two languages."""

    first: str
    second: str
    method: str  # "anchors" | "moved" | "order" | "meaning" | "links.tsv" | "same page"
    score: float

    @property
    def confident(self) -> bool:
        """False for pairs an editor should confirm (`faq check` lists them)."""
        return self.method in ("links.tsv", "meaning", "same page") or (
            self.method == "anchors" and self.score >= CONFIDENT)


@dataclass
class LinkRules:
    """An editor's overrides: pairs to force and pairs to forbid (documents or entries)."""

    force: list[tuple[str, str]] = field(default_factory=list)
    forbid: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Alignment:
    """Every document and entry pair found, with what an editor should look at."""

    documents: list[DocumentPair] = field(default_factory=list)
    entries: list[EntryPair] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, message): to fix
    review: list[tuple[str, str]] = field(default_factory=list)  # (path, message): pairs to confirm
    notices: list[tuple[str, str]] = field(default_factory=list)  # (path, message): for information


def language_neutral_name(path: str) -> str:
    """A path with its language markers removed: `en/faq.md` and `zh_cn/faq.md` agree."""
    path = DIR_MARKERS.sub(r"\1", path)
    stem, _, suffix = path.rpartition(".")
    stem = stem or suffix
    stem = LANG_MARKERS.sub("", stem).rstrip("._-")
    return stem.lower()


def similarity_matrix(first: Sequence[AlignableEntry], second: Sequence[AlignableEntry]) -> list[list[float]]:
    """Weighted Dice similarity of every entry pair over the anchors both documents use."""
    weights = anchor_weights(e.anchors for e in [*first, *second])
    shared = frozenset().union(*(e.anchors for e in first)) & frozenset().union(*(e.anchors for e in second))
    # fsum over sets: an order-dependent float sum differed between runs (Python's string hashing), and so ties.
    mass_first = [math.fsum(weights[a] for a in e.anchors & shared) for e in first]
    mass_second = [math.fsum(weights[a] for a in e.anchors & shared) for e in second]
    # Summed anchor by anchor through the anchors' holders: intersecting every pair's sets costs
    # several times more, and at scale nearly every pair shares some anchor.
    holders: defaultdict[str, list[int]] = defaultdict(list)
    for j, other in enumerate(second):
        for anchor in other.anchors & shared:
            holders[anchor].append(j)
    matrix = []
    for i, entry in enumerate(first):
        common = [0.0] * len(second)
        for anchor in entry.anchors & shared:
            weight = weights[anchor]
            for j in holders[anchor]:
                common[j] += weight
        matrix.append([2 * w / (mass_first[i] + mass_second[j]) if w else 0.0 for j, w in enumerate(common)])
    return matrix


def align_entries(first: Sequence[AlignableEntry], second: Sequence[AlignableEntry],
                  forbidden: Iterable[tuple[str, str]] = (), meaning: Meaning | None = None,
                  doubtful_below: float = 0.0) -> list[EntryPair]:
    """Entry pairs of two documents that translate each other, in the first's order.

    With `meaning`, pairs with little anchor evidence are checked against their questions' meaning, and
    questions left unpaired pair by meaning (two entries that share no anchor: `browser compatibility`,
    `浏览器兼容性`). When the documents align by their anchors below `doubtful_below` (two documents paired by
    their names only, which may be different pages), every pair is checked so.
    """
    if not first or not second:
        return []
    sim = similarity_matrix(first, second)
    banned = {(a, b) for a, b in forbidden} | {(b, a) for a, b in forbidden}
    for i, entry in enumerate(first):
        for j, other in enumerate(second):
            if (entry.id, other.id) in banned:
                sim[i][j] = 0.0
    margin = margin_matrix(sim)
    matched = _monotonic(sim, margin)
    _add_moved(sim, margin, matched)
    _add_by_order(sim, matched)
    doubtful = doubtful_below > 0 and evidenced_alignment(
        [EntryPair(first[i].id, second[j].id, method, sim[i][j]) for i, (j, method) in matched.items()],
        first, second) < doubtful_below
    by_meaning = (_check_by_meaning(first, second, sim, matched, meaning, banned, doubtful)
                  if meaning is not None else {})
    pairs = []
    for i, (j, method) in sorted(matched.items()):
        pairs.append(EntryPair(first[i].id, second[j].id, method, round(by_meaning.get(i, sim[i][j]), 4)))
    return pairs


def evidenced_alignment(pairs: Sequence[EntryPair], first: Sequence[AlignableEntry],
                        second: Sequence[AlignableEntry]) -> float:
    """How well two documents align (`alignment_score`) by their entry pairs that share PAIR_EVIDENCE anchors or
    more: one shared anchor (a glossary word, `add`) makes two tiny entries look identical, chance, not evidence."""
    anchors = {e.id: e.anchors for e in [*first, *second]}
    evidenced = [p for p in pairs if len(anchors[p.first] & anchors[p.second]) >= PAIR_EVIDENCE]
    return alignment_score(evidenced, len(first), len(second))


def _check_by_meaning(first: Sequence[AlignableEntry], second: Sequence[AlignableEntry], sim: list[list[float]],
                      matched: dict[int, tuple[int, str]], meaning: Meaning,
                      banned: set[tuple[str, str]], doubtful: bool = False) -> dict[int, float]:
    """Drop weak pairs whose questions mean different things, then pair what is left by meaning; returns the
    cosine of each pair made by meaning (by its row). Weak: found out of order or by position, less similar
    than CONFIDENT, or sharing fewer than MEANING_EVIDENCE anchors (a high similarity on two shared words is chance);
    every pair when the documents are `doubtful`, whose pairs must then mean what a lone pair's do (PLACE_MEANING).

    Only the weak pairs and the entries left over are embedded: a few per document pair.
    """
    weak = [(i, j) for i, (j, method) in matched.items() if doubtful or method != "anchors"
            or sim[i][j] < CONFIDENT or len(first[i].anchors & second[j].anchors) < MEANING_EVIDENCE]
    if weak:
        cosines = meaning([first[i].title for i, _ in weak], [second[j].title for _, j in weak])
        # In doubtful documents a pair's place is no evidence: its questions must mean what a lone pair's do.
        veto = PLACE_MEANING if doubtful else MEANING_VETO
        for k, (i, _) in enumerate(weak):
            if cosines[k][k] < veto:
                del matched[i]
    taken = {j for j, _ in matched.values()}
    rows = [i for i in range(len(first)) if i not in matched]
    columns = [j for j in range(len(second)) if j not in taken]
    if not rows or not columns:
        return {}
    cosines = meaning([first[i].title for i in rows], [second[j].title for j in columns])
    made: dict[int, float] = {}
    for a, i in enumerate(rows):
        b = max(range(len(columns)), key=cosines[a].__getitem__)
        best = cosines[a][b]
        runner_up = max([c for k, c in enumerate(cosines[a]) if k != b] +
                        [cosines[k][b] for k in range(len(rows)) if k != a], default=0.0)
        mutual = max(range(len(rows)), key=lambda k: cosines[k][b]) == a
        if (mutual and best >= MEANING_PAIR and best - runner_up >= MEANING_MARGIN
                and (first[i].id, second[columns[b]].id) not in banned):
            matched[i] = (columns[b], "meaning")
            made[i] = best
    _add_lone_by_place(matched, rows, columns, cosines, made, banned, first, second)
    return made


def _add_lone_by_place(matched: dict[int, tuple[int, str]], rows: list[int], columns: list[int],
                       cosines: list[list[float]], made: dict[int, float], banned: set[tuple[str, str]],
                       first: Sequence[AlignableEntry], second: Sequence[AlignableEntry]) -> None:
    """Pair the one entry left on each side of a gap between pairs (or before the first, after the last) when their
    questions do not mean different things: translated prose may share no word (`…why can I only see a single
    line?` / `…只能看到一条线，是怎么回事？`), and its place is the evidence. Listed by `faq check` to confirm."""
    row_at = {i: a for a, i in enumerate(rows)}
    column_at = {j: b for b, j in enumerate(columns)}
    paired = sorted((i, j) for i, (j, _) in matched.items())
    taken = {j for _, j in paired}
    bounds = [(-1, -1), *paired, (len(first), len(second))]
    for (i0, j0), (i1, j1) in itertools.pairwise(bounds):
        left = [i for i in range(i0 + 1, i1) if i not in matched]
        right = [j for j in range(j0 + 1, j1) if j not in taken]
        if len(left) == len(right) == 1 and left[0] in row_at and right[0] in column_at:
            i, j = left[0], right[0]
            cosine = cosines[row_at[i]][column_at[j]]
            if cosine >= PLACE_MEANING and (first[i].id, second[j].id) not in banned:
                matched[i] = (j, "order")
                made[i] = cosine


def margin_matrix(sim: list[list[float]]) -> list[list[float]]:
    """How much each pair stands out from its neighbours: similarity over the mean of both top-k.

    Ratio margin (as in bitext mining): a pair is only as good as it is better than the other
    candidates of its two entries, so entries that resemble everything pair with nothing.
    """
    k = NEIGHBOURS
    row_means = [sum(sorted(row, reverse=True)[:k]) / k for row in sim]
    columns = list(zip(*sim, strict=True))
    col_means = [sum(sorted(col, reverse=True)[:k]) / k for col in columns]
    return [[s / ((row_means[i] + col_means[j]) / 2) if s else 0.0 for j, s in enumerate(row)]
            for i, row in enumerate(sim)]


def _monotonic(sim: list[list[float]], margin: list[list[float]]) -> dict[int, tuple[int, str]]:
    """The order-keeping alignment of pairs that stand out most, in total (dynamic programming)."""
    n, m = len(sim), len(sim[0])
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row, above = best[i], best[i - 1]
        for j in range(1, m + 1):
            score = max(above[j], row[j - 1])
            gain = margin[i - 1][j - 1] - 1
            if gain > 0 and sim[i - 1][j - 1] >= MIN_SIMILARITY:
                drift = abs((i - 0.5) / n - (j - 0.5) / m)
                score = max(score, above[j - 1] + gain + POSITION_WEIGHT * (1 - drift))
            row[j] = score
    matched: dict[int, tuple[int, str]] = {}
    i, j = n, m
    while i > 0 and j > 0:
        if best[i][j] == best[i - 1][j]:
            i -= 1
        elif best[i][j] == best[i][j - 1]:
            j -= 1
        else:
            matched[i - 1] = (j - 1, "anchors")
            i, j = i - 1, j - 1
    return matched


def _add_moved(sim: list[list[float]], margin: list[list[float]], matched: dict[int, tuple[int, str]]) -> None:
    """Pair entries that moved: unaligned, similar, standing out, and each other's best match of all.

    "Best of all", not best of what is left: when an entry's translation was deleted, the
    best of the leftovers is only the least bad.
    """
    taken = {j for j, _ in matched.values()}
    columns = list(zip(*sim, strict=True))
    for i, row in enumerate(sim):
        if i in matched:
            continue
        j = max(range(len(row)), key=row.__getitem__)
        if j in taken or row[j] < MOVED_SIMILARITY or margin[i][j] < MOVED_MARGIN:
            continue
        if max(range(len(columns[j])), key=columns[j].__getitem__) == i:
            matched[i] = (j, "moved")
            taken.add(j)


def _add_by_order(sim: list[list[float]], matched: dict[int, tuple[int, str]]) -> None:
    """Pair equal runs of unaligned entries between aligned pairs, when each pair is similar enough.

    Such a pair did not stand out from its neighbours (an entry resembling two others), but its
    place between two aligned pairs is evidence the similarity alone was not.
    """
    anchors = sorted((i, j) for i, (j, method) in matched.items() if method == "anchors")
    bounds = [(-1, -1), *anchors, (len(sim), len(sim[0]))]
    taken = {j for j, _ in matched.values()}
    for (i0, j0), (i1, j1) in itertools.pairwise(bounds):
        rows = [i for i in range(i0 + 1, i1) if i not in matched]
        cols = [j for j in range(j0 + 1, j1) if j not in taken]
        pairs = list(zip(rows, cols, strict=False))
        if 0 < len(rows) == len(cols) <= CONTEXT_GAP and all(sim[i][j] >= MIN_SIMILARITY for i, j in pairs):
            for i, j in pairs:
                matched[i] = (j, "order")


def alignment_score(pairs: Sequence[EntryPair], first: int, second: int) -> float:
    """How well two documents align: summed pair similarity over the larger one's entry count.

    Two unrelated documents still have a few pairs that stand out from their neighbours; they
    share little in total, and the larger document's count keeps a tiny one from pairing with
    anything on two lucky matches.
    """
    larger = max(first, second)
    return sum(pair.score for pair in pairs) / larger if larger else 0.0


def pair_documents(documents: Sequence[AlignableDocument], rules: LinkRules | None = None,
                   meaning: Meaning | None = None) -> Alignment:
    """Document pairs (explicit first, then names, then content) and their entry alignments (with the questions'
    meaning as evidence too, when given)."""
    return _Pairing(documents, rules or LinkRules(), meaning).run()


class _Pairing:
    """One run of document pairing with its bookkeeping."""

    def __init__(self, documents: Sequence[AlignableDocument], rules: LinkRules,
                 meaning: Meaning | None = None) -> None:
        self.documents = list(documents)
        self.meaning = meaning
        self.by_path = {d.path: d for d in documents}
        self.by_id = {d.id: d for d in documents}
        self.entry_document = {e.id: d for d in documents for e in d.entries}
        self.rules = rules
        self.result = Alignment()
        self.partner: dict[str, str] = {}
        self.forbidden_documents: set[frozenset[str]] = set()
        self.forbidden_entries: list[tuple[str, str]] = []
        self.forced_entries: list[tuple[str, str]] = []

    def run(self) -> Alignment:
        self._read_rules()
        self._pair_by_front_matter()
        self._pair_by_name()
        self._pair_by_content()
        self._align_pairs()
        for doc in self.documents:
            if doc.id not in self.partner:
                self.result.notices.append((doc.path, f"no translation found ({doc.lang} only)"))
        return self.result

    # -- explicit --------------------------------------------------------------------------

    def _resolve(self, reference: str) -> tuple[str, str] | None:
        """('document', id) or ('entry', id) for a links.tsv reference; None if nothing matches."""
        if reference in self.by_path:
            return "document", self.by_path[reference].id
        if reference in self.entry_document:
            return "entry", reference
        if reference in self.by_id:
            return "document", reference
        return None

    def _read_rules(self) -> None:
        for action, pairs in (("unpair", self.rules.forbid), ("pair", self.rules.force)):
            for a, b in pairs:
                first, second = self._resolve(a), self._resolve(b)
                if first is None or second is None:
                    missing = a if first is None else b
                    self.result.problems.append(("links.tsv", f"{action} {a} ↔ {b}: no document or entry {missing!r}"))
                    continue
                if first[0] != second[0]:
                    self.result.problems.append(
                        ("links.tsv", f"{action} {a} ↔ {b}: pairs a document with an entry; name two of a kind"))
                    continue
                if first[0] == "document" and action == "unpair":
                    self.forbidden_documents.add(frozenset((first[1], second[1])))
                elif first[0] == "document":
                    self._pair(self.by_id[first[1]], self.by_id[second[1]], "links.tsv", 1.0, "links.tsv")
                elif action == "unpair":
                    self.forbidden_entries.append((first[1], second[1]))
                else:
                    self._force_entries(first[1], second[1], f"{action} {a} ↔ {b}")
        for doc in self.documents:
            for path in doc.not_translation_of:
                other = self.by_path.get(path)
                if other is None:
                    self.result.problems.append((doc.path, f"not_translation_of: no document {path!r}"))
                else:
                    self.forbidden_documents.add(frozenset((doc.id, other.id)))

    def _force_entries(self, first: str, second: str, rule: str) -> None:
        """Record an editor's entry pair, unless it repeats one or pairs an entry with its own language."""
        if {first, second} in [set(pair) for pair in self.forced_entries]:
            return
        first_lang, second_lang = self.entry_document[first].lang, self.entry_document[second].lang
        if first == second or first_lang == second_lang:
            self.result.problems.append(
                ("links.tsv", f"{rule}: both entries are {first_lang}; a translation is in the other language"))
            return
        self.forced_entries.append((first, second))

    def _pair(self, first: AlignableDocument, second: AlignableDocument, method: str, score: float,
              where: str) -> bool:
        """Record a document pair, or report why it cannot be one."""
        if first.id == second.id:
            self.result.problems.append((where, f"{first.path} cannot be its own translation"))
            return False
        for doc in (first, second):
            if doc.id in self.partner:
                taken = self.by_id[self.partner[doc.id]].path
                if {self.partner[doc.id]} == {first.id, second.id} - {doc.id}:
                    return False  # already paired with each other
                self.result.problems.append(
                    (where, f"{first.path} ↔ {second.path}: {doc.path} is already paired with {taken} "
                            "(two documents claim the same translation; fix one of them)"))
                return False
        if first.lang == second.lang:
            self.result.problems.append(
                (where, f"{first.path} ↔ {second.path}: both are {first.lang}; a translation is in the other "
                        "language (set `lang:` in front matter if one is detected wrongly)"))
            return False
        self.partner[first.id], self.partner[second.id] = second.id, first.id
        self.result.documents.append(DocumentPair(first.id, second.id, method, score))
        return True

    def _pair_by_front_matter(self) -> None:
        for doc in self.documents:
            if not doc.translation_of:
                continue
            target = self.by_path.get(doc.translation_of)
            if target is None:
                self.result.problems.append(
                    (doc.path, f"translation_of: no document {doc.translation_of!r} (paths are relative to the "
                               "content folder)"))
                continue
            if self._in_cycle(doc):
                self.result.problems.append(
                    (doc.path, f"translation_of forms a cycle through {target.path}; point each translation at "
                               "the original instead"))
                continue
            self._pair(doc, target, "front-matter", 1.0, doc.path)

    def _in_cycle(self, start: AlignableDocument) -> bool:
        """True when following translation_of from `start` comes back after more than two steps."""
        seen = [start.id]
        doc: AlignableDocument | None = start
        while doc is not None and doc.translation_of:
            doc = self.by_path.get(doc.translation_of)
            if doc is None:
                return False
            if doc.id in seen:
                return doc.id == start.id and len(seen) > 2
            seen.append(doc.id)
        return False

    # -- implicit --------------------------------------------------------------------------

    def _free(self, doc: AlignableDocument) -> bool:
        return doc.id not in self.partner

    def _allowed(self, first: AlignableDocument, second: AlignableDocument) -> bool:
        return frozenset((first.id, second.id)) not in self.forbidden_documents

    def _pair_by_name(self) -> None:
        groups: dict[str, list[AlignableDocument]] = defaultdict(list)
        for doc in self.documents:
            if self._free(doc):
                groups[language_neutral_name(doc.path)].append(doc)
        for group in groups.values():
            candidates = [(a, b) for a in group for b in group
                          if a.lang < b.lang and self._allowed(a, b)]
            if len(candidates) == 1:
                self._pair(*candidates[0], "file-name", 1.0, candidates[0][0].path)
            elif candidates:  # several files share a name: let content choose among them
                self._pair_best(candidates, "file-name", minimum=0.0)

    def _pair_by_content(self) -> None:
        """Pair documents whose entries align well, among each document's few best candidates by shared anchors.

        A document's candidates are the documents of the other language with the highest summed weight of
        the anchors both hold. Only documents sharing an anchor that few documents hold are scored: comparing
        every document with every other took 38 s at 4,000 documents and grew with their square. Anchors held
        by more than CANDIDATE_POSTINGS documents still count in the scores of the documents found.
        """
        free = [d for d in self.documents if self._free(d) and d.entries]
        document_anchors = {d.id: frozenset().union(*(e.anchors for e in d.entries)) for d in free}
        weights = anchor_weights(document_anchors.values())
        holders: defaultdict[str, list[AlignableDocument]] = defaultdict(list)
        for doc in free:
            for anchor in document_anchors[doc.id]:
                holders[anchor].append(doc)
        # Each rare anchor's holders in another language than a given one, in order: listed once per language
        # instead of being filtered again for every document holding the anchor.
        other_holders: dict[tuple[str, str], list[str]] = {}
        candidates: set[tuple[str, str]] = set()
        for doc in free:
            anchors = document_anchors[doc.id]
            # What the rare anchors give each document found, and at most what the common ones can add.
            rare: defaultdict[str, float] = defaultdict(float)
            common = 0.0
            for anchor in anchors:
                if len(holders[anchor]) > CANDIDATE_POSTINGS:
                    common += weights[anchor]
                    continue
                if (others := other_holders.get((anchor, doc.lang))) is None:
                    others = other_holders[anchor, doc.lang] = [o.id for o in holders[anchor] if o.lang != doc.lang]
                weight = weights[anchor]
                for other_id in others:
                    rare[other_id] += weight
            best: list[tuple[float, str]] = []  # (score, id), best first, as the candidates are ranked
            for other_id, least in sorted(rare.items(), key=lambda found: -found[1]):
                if len(best) == DOCUMENT_CANDIDATES and least + common < best[-1][0] * (1 - 1e-9):
                    break  # neither this one nor any after it can be among the best
                if self._allowed(doc, self.by_id[other_id]):
                    score = math.fsum(weights[a] for a in anchors & document_anchors[other_id])
                    best = sorted([*best, (score, other_id)], reverse=True)[:DOCUMENT_CANDIDATES]
            for _, other_id in best:
                candidates.add((min(doc.id, other_id), max(doc.id, other_id)))
        pairs = [(self.by_id[a], self.by_id[b]) for a, b in sorted(candidates)]
        self._pair_best(pairs, "content", minimum=DOCUMENT_COVERAGE)

    def _pair_best(self, candidates: Sequence[tuple[AlignableDocument, AlignableDocument]], method: str,
                   minimum: float) -> None:
        """Pair the best-aligned candidates first, each document at most once."""
        scored = []
        for first, second in candidates:
            pairs = align_entries(first.entries, second.entries)
            scored.append((evidenced_alignment(pairs, first.entries, second.entries), first.id, second.id))
        for score, first_id, second_id in sorted(scored, reverse=True):
            first, second = self.by_id[first_id], self.by_id[second_id]
            if score >= minimum and self._free(first) and self._free(second):
                self._pair(first, second, method, round(score, 4), first.path)

    # -- entries ---------------------------------------------------------------------------

    def _align_pairs(self) -> None:
        forced_ids = {e for pair in self.forced_entries for e in pair}
        for pair in self.result.documents:
            first, second = self.by_id[pair.first], self.by_id[pair.second]
            entries_first = [e for e in first.entries if e.id not in forced_ids]
            entries_second = [e for e in second.entries if e.id not in forced_ids]
            # A name is weaker evidence than an editor's word or aligned content: two files of one name may be
            # different pages (a project's English and Chinese FAQs written apart), whose answers share commands.
            doubtful_below = DOCUMENT_COVERAGE if pair.method == "file-name" else 0.0
            self.result.entries.extend(align_entries(entries_first, entries_second, self.forbidden_entries,
                                                     self.meaning, doubtful_below))
        for a, b in self.forced_entries:
            self.result.entries.append(EntryPair(a, b, "links.tsv", 1.0))
        titles = {e.id: e.title for d in self.documents for e in d.entries}
        for entry_pair in self.result.entries:
            if not entry_pair.confident:
                where = self.entry_document[entry_pair.first].path
                self.result.review.append((where, (
                    f"low-confidence pair ({entry_pair.method}, similarity {entry_pair.score:.2f}): "
                    f"{titles[entry_pair.first]!r} ↔ {titles[entry_pair.second]!r} "
                    f"(pair or unpair {entry_pair.first} {entry_pair.second})")))
