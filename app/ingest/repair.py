"""Repair mojibake: UTF-8 text that was once decoded through a Windows code page.

When UTF-8 bytes are read as cp1252 (or cp1254, cp1250 …) and saved again, every byte
becomes one character of that page: `名` (E5 90 8D) turns into `å` plus whatever 90 and
8D map to. Bytes the page does not define (cp1252: 81 8D 8F 90 9D) have no character and
are usually dropped on that trip, so the damage is partly lossy.

The repair maps each run of such characters back to bytes, reads them as UTF-8, and where
a sequence is short of continuation bytes, tries every placement and value of the bytes
the page cannot carry. Among the characters that gives, a Chinese language model picks the
most probable: the best jieba segmentation of the candidate with its neighbours, plus a
character bigram model learnt from the project's clean Chinese text (what stands next to
what: 过程 + 中, 参数 + 量). Every lossy repair is recorded with its confidence.
Text that is not mojibake is never changed.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache

from app.ingest.chinese import CharBigrams, context_model, plausibility

CODE_PAGES = ("cp1252", "cp1254", "cp1250", "cp1257", "latin-1")
MIN_EVIDENCE = 3  # intact multi-byte sequences needed before a text counts as mojibake
CONTEXT = 3  # characters of context on each side when judging a candidate
UNCERTAIN_BELOW = 0.8
TEMPERATURE = 1.5  # fitted on the damaged real corpora: repairs stated at 0.9–1.0 were 97.9% right
JOINT_BUDGET = 4096  # combinations tried per group of adjacent damaged characters
MAX_JOINT = 3  # adjacent damaged characters decided together
EXCLUDED_CATEGORIES = {"Cc", "Cf", "Cn", "Co", "Cs"}
# Punctuation that the language model knows nothing about, weighted by how common it is
# in Chinese technical text (log-scale bonus; a common Han character scores about -6).
PUNCTUATION_BONUS = {
    "、": 13.0, "”": 13.0, "“": 12.0, "【": 10.0, "】": 10.0, "「": 9.0, "」": 9.0,
    "『": 8.0, "』": 8.0, "—": 10.0, "…": 10.0, "·": 9.0, "‘": 10.0, "’": 10.0,
}
# Presentation variants (Arabic initial forms, mathematical bold digits, circled letters …)
# exist for round-tripping old encodings and are almost never typed; full- and half-width
# forms are ordinary Chinese punctuation and keep no penalty.
PRESENTATION_PENALTY = 10.0
ORDINARY_VARIANTS = ("<wide>", "<narrow>", "<noBreak>")
# Also almost never typed: the supplementary ideographic planes (CJK extensions B and up)
# variation selectors other than VS16 (the one that follows emoji) and game tiles.
RARE_RANGES = ((0x20000, 0x3FFFF), (0xFE00, 0xFE0E), (0xE0100, 0xE01EF), (0x1F000, 0x1F0FF))


@dataclass(frozen=True)
class Repair:
    """One character restored from lost bytes."""

    line: int  # 1-based line in the repaired text
    column: int  # 1-based column in the repaired text
    damaged: str  # the mojibake characters it replaced
    chosen: str
    candidates: tuple[tuple[str, float], ...]  # best first, with probabilities
    confidence: float

    @property
    def uncertain(self) -> bool:
        """True when another candidate was nearly as likely."""
        return self.confidence < UNCERTAIN_BELOW


@dataclass
class RepairResult:
    """The repaired text and what was done to it."""

    text: str
    code_page: str | None = None
    restored: int = 0  # characters decoded from intact sequences (lossless)
    restored_by_line: dict[int, int] = field(default_factory=dict)
    repairs: list[Repair] = field(default_factory=list)  # characters rebuilt from lost bytes

    @property
    def changed(self) -> bool:
        """Whether any character was repaired."""
        return self.restored + len(self.repairs) > 0

    @property
    def repaired_characters(self) -> int:
        """All characters repaired, lossless and lossy."""
        return self.restored + len(self.repairs)

    def counts_between(self, first_line: int, end_line: int) -> tuple[int, int]:
        """Characters repaired, and uncertain repairs, on lines first_line ≤ line < end_line."""
        repaired = sum(n for line, n in self.restored_by_line.items() if first_line <= line < end_line)
        lossy = [r for r in self.repairs if first_line <= r.line < end_line]
        return repaired + len(lossy), sum(1 for r in lossy if r.uncertain)

    def describe(self, repair: Repair) -> str:
        """One line for `faq check`: what was replaced, by what, and the alternatives."""
        options = ", ".join(f"{c} {p:.2f}" for c, p in repair.candidates)
        return (f"{repair.damaged!r} → {repair.chosen!r} (confidence {repair.confidence:.2f}; "
                f"candidates: {options})")

    @property
    def uncertain(self) -> list[Repair]:
        """Lossy repairs whose choice was not clear."""
        return [r for r in self.repairs if r.uncertain]


@cache
def _page(code_page: str) -> tuple[dict[str, int], tuple[int, ...]]:
    """Character → byte for the page's upper half, and the continuation bytes it cannot carry."""
    to_byte: dict[str, int] = {}
    lost: list[int] = []
    for value in range(0x80, 0x100):
        try:
            to_byte[bytes([value]).decode(code_page)] = value
        except UnicodeDecodeError:
            if value <= 0xBF:
                lost.append(value)
    return to_byte, tuple(lost)


def _sequence_length(lead: int) -> int:
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


@dataclass
class _Slot:
    """One character of the repaired line: fixed, or a choice among candidates."""

    text: str
    source: str = ""
    candidates: list[str] = field(default_factory=list)

    @property
    def open(self) -> bool:
        return bool(self.candidates)


def _lost_bytes(text: str, code_page: str) -> tuple[int, ...]:
    """Continuation bytes that cannot have survived: undefined in the page, or mapped to an
    invisible character (the soft hyphen, U+00AD) that editors strip and the text never shows."""
    to_byte, undefined = _page(code_page)
    invisible = [b for ch, b in to_byte.items()
                 if b <= 0xBF and unicodedata.category(ch) == "Cf" and ch not in text]
    return tuple(sorted({*undefined, *invisible}))


def _parse_run(run: str, to_byte: dict[str, int], lost: tuple[int, ...]) -> list[_Slot] | None:
    """Slots for one run of code-page characters, or None if it is not damaged UTF-8."""
    data: list[int | None] = [None if ch == "\ufffd" else to_byte[ch] for ch in run]
    slots: list[_Slot] = []
    i = 0
    while i < len(data):
        lead = data[i]
        need = _sequence_length(lead) if lead is not None else 0
        if need == 0:
            return None  # a continuation byte with no lead: this run is not UTF-8
        j = i + 1
        while j < len(data) and j - i < need and (data[j] is None or 0x80 <= (data[j] or 0) <= 0xBF):
            j += 1
        present = data[i + 1:j]
        source = run[i:j]
        if len(present) == need - 1 and None not in present:
            try:
                slots.append(_Slot(bytes([lead, *present]).decode("utf-8"), source))  # type: ignore[list-item]
            except UnicodeDecodeError:
                return None
        else:
            candidates = _candidates(lead, present, need, lost)  # type: ignore[arg-type]
            if not candidates:
                return None
            slots.append(_Slot(candidates[0], source, candidates))
        i = j
    return slots


def _candidates(lead: int, present: list[int | None], need: int, lost: tuple[int, ...]) -> list[str]:
    """Every character the damaged sequence can have been, given which bytes can be lost."""
    missing = need - 1 - len([b for b in present if b is not None])
    known = [b for b in present if b is not None]
    fixed_gaps = [k for k, b in enumerate(present) if b is None]
    found: dict[str, None] = {}
    slots = need - 1
    for positions in itertools.combinations(range(slots), missing):
        if fixed_gaps and not all(g in positions for g in fixed_gaps):
            continue
        for values in itertools.product(lost, repeat=missing):
            tail: list[int] = []
            known_iter = iter(known)
            value_iter = iter(values)
            for k in range(slots):
                tail.append(next(value_iter) if k in positions else next(known_iter))
            try:
                char = bytes([lead, *tail]).decode("utf-8")
            except UnicodeDecodeError:
                continue
            if unicodedata.category(char) not in EXCLUDED_CATEGORIES:
                found[char] = None
    return list(found)


def _runs(line: str, code_page: str) -> list[tuple[int, int]]:
    """Spans of consecutive characters from the page's upper half (or U+FFFD)."""
    return [match.span() for match in _run_pattern(code_page).finditer(line)]


@cache
def _run_pattern(code_page: str) -> re.Pattern[str]:
    """A run of the page's upper-half characters or U+FFFD: one regex scan, not a loop per character."""
    to_byte, _ = _page(code_page)
    return re.compile("[" + "".join(map(re.escape, sorted(to_byte))) + "\ufffd]+")


def _evidence(text: str, code_page: str) -> tuple[int, int]:
    """Intact multi-byte sequences and runs that are not UTF-8, were the text this page's mojibake."""
    if _run_pattern(code_page).search(text) is None:
        return 0, 0  # no character of the page's upper half: nothing to weigh (most files, for every page)
    to_byte, _ = _page(code_page)
    lost = _lost_bytes(text, code_page)
    intact = invalid = 0
    for line in text.split("\n"):
        for start, end in _runs(line, code_page):
            slots = _parse_run(line[start:end], to_byte, lost)
            if slots is None:
                invalid += 1
            else:
                intact += sum(1 for s in slots if not s.open)
    return intact, invalid


class _Judge:
    """How plausible a stretch of text is: jieba's words plus the context model's neighbours."""

    def __init__(self, model: CharBigrams) -> None:
        self.model = model
        self.known: dict[str, float] = {}  # the same windows recur across candidates and passes

    def __call__(self, text: str) -> float:
        if (score := self.known.get(text)) is None:
            score = self.known[text] = plausibility(text) + self.model.log_probability(text)
        return score


def _score(slots: list[_Slot], first: int, last: int, choice: tuple[str, ...], judge: _Judge) -> float:
    """How plausible the open slots first..last are with `choice` filled in, with neighbours."""
    left = "".join(s.text for s in slots[max(0, first - CONTEXT):first])
    right = "".join(s.text for s in slots[last + 1:last + 1 + CONTEXT])
    middle = list(s.text for s in slots[first:last + 1])
    for offset, char in zip(range(first, last + 1), choice, strict=True):
        middle[offset - first] = char
    return judge(left + "".join(middle) + right) + sum(_prior(char) for char in choice)


@cache
def _prior(char: str) -> float:
    """Log-scale adjustment for characters the language model cannot judge."""
    tag = unicodedata.decomposition(char).split(" ")[0]
    rare = any(low <= ord(char) <= high for low, high in RARE_RANGES)
    if rare or (tag.startswith("<") and tag not in ORDINARY_VARIANTS):
        return -PRESENTATION_PENALTY
    return PUNCTUATION_BONUS.get(char, 0.0)


def _groups(slots: list[_Slot]) -> list[list[int]]:
    """Runs of adjacent open slots, at most MAX_JOINT long: they are decided together."""
    groups: list[list[int]] = []
    for k, slot in enumerate(slots):
        if not slot.open:
            continue
        if groups and groups[-1][-1] == k - 1 and len(groups[-1]) < MAX_JOINT:
            groups[-1].append(k)
        else:
            groups.append([k])
    return groups


def _choose(slots: list[_Slot], judge: _Judge) -> dict[int, list[tuple[str, float]]]:
    """Pick the open slots' characters: each alone first, then adjacent ones jointly."""
    ranked: dict[int, list[tuple[str, float]]] = {}
    shortlist: dict[int, list[str]] = {}
    for k in (k for k, s in enumerate(slots) if s.open):
        alone = sorted(((c, _score(slots, k, k, (c,), judge)) for c in slots[k].candidates), key=lambda cs: -cs[1])
        shortlist[k] = [c for c, _ in alone]
        slots[k].text = alone[0][0]
    for _ in range(2):
        for group in _groups(slots):
            width = max(2, min(16, int(JOINT_BUDGET ** (1 / len(group)))))
            combos = list(itertools.product(*(shortlist[k][:width] for k in group)))
            scores = [_score(slots, group[0], group[-1], combo, judge) for combo in combos]
            top = max(scores)
            weights = [math.exp((score - top) / TEMPERATURE) for score in scores]
            total = sum(weights)
            for position, k in enumerate(group):
                marginal: dict[str, float] = {}
                for combo, weight in zip(combos, weights, strict=True):
                    marginal[combo[position]] = marginal.get(combo[position], 0.0) + weight / total
                ranked[k] = sorted(marginal.items(), key=lambda cp: -cp[1])
            best = combos[scores.index(top)]
            for position, k in enumerate(group):
                slots[k].text = best[position]
    return ranked


def _line_slots(line: str, code_page: str, lost: tuple[int, ...]) -> list[_Slot]:
    to_byte, _ = _page(code_page)
    slots: list[_Slot] = []
    cursor = 0
    for start, end in _runs(line, code_page):
        parsed = _parse_run(line[start:end], to_byte, lost)
        if parsed is None:
            continue  # not damaged UTF-8: leave these characters exactly as they are
        slots.extend(_Slot(ch) for ch in line[cursor:start])
        slots.extend(parsed)
        cursor = end
    slots.extend(_Slot(ch) for ch in line[cursor:])
    return slots


def _suspect_pages(text: str) -> list[str]:
    """The code pages that best explain `text` as mojibake; none when it shows no such damage."""
    evidence = {code_page: _evidence(text, code_page) for code_page in CODE_PAGES}
    best = max(evidence.values(), key=lambda e: (e[0], -e[1]))
    if best[0] < MIN_EVIDENCE or best[0] < 2 * best[1]:
        return []
    return [page for page in CODE_PAGES if evidence[page] == best]


def is_mojibake(text: str) -> bool:
    """Whether `text` shows UTF-8-read-as-code-page damage (cheap: no repair is attempted)."""
    return bool(_suspect_pages(text))


def repair_mojibake(text: str, model: CharBigrams | None = None) -> RepairResult:
    """Undo UTF-8-read-as-code-page damage in `text`; unchanged if it shows no such damage."""
    # Pages that explain the text equally well are all suspects: any byte that one of
    # them cannot carry may be missing.
    suspects = _suspect_pages(text)
    if not suspects:
        return RepairResult(text=text)
    best_page = suspects[0]
    lost = tuple(sorted({b for page in suspects for b in _lost_bytes(text, page)}))
    result = RepairResult(text=text, code_page=best_page)
    judge = _Judge(model or context_model())
    lines: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        slots = _line_slots(line, best_page, lost)
        ranked = _choose(slots, judge)
        column = 1
        for k, slot in enumerate(slots):
            if slot.source:
                if k in ranked:
                    choices = tuple((c, round(p, 4)) for c, p in ranked[k][:4])
                    result.repairs.append(Repair(line=number, column=column, damaged=slot.source,
                                                 chosen=slot.text, candidates=choices,
                                                 confidence=round(ranked[k][0][1], 4)))
                else:
                    result.restored += 1
                    result.restored_by_line[number] = result.restored_by_line.get(number, 0) + 1
            column += len(slot.text)
        lines.append("".join(s.text for s in slots))
    result.text = "\n".join(lines)
    return result
