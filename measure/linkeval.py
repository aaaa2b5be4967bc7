"""`faq eval-links`: entries found and pairs made, against a gold bilingual corpus.

The corpus is laid out like `../shared/corpus/real/`: one folder per pair of documents with
`pairs.tsv` (en_file, en_question, zh_file, zh_question) and `unpaired.tsv` (file, question).
Documents are segmented and paired by the ingest's own functions; with `renamed`, every file
gets a meaningless name first, so only content can pair them.
"""

from __future__ import annotations

import csv
import random
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from app.ingest.align import LinkRules
from app.ingest.pipeline import IngestReport, ReadDocument, link_documents, read_documents
from app.ingest.segment.blocks import without_name_anchors
from app.search.embedding import ModelSlot, question_cosines

Entry = tuple[str, str, str]  # (path in the pool, question, language)


@dataclass
class LinkScore:
    """Pair counts for one folder (or all of them)."""

    name: str
    predicted: int = 0
    correct: int = 0
    gold: int = 0
    unpaired_violations: int = 0  # entries listed as unpaired that were paired anyway

    @property
    def precision(self) -> float:
        """Share of predicted pairs that are in the gold pairs."""
        return self.correct / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        """Share of gold pairs that were predicted."""
        return self.correct / self.gold if self.gold else 1.0


@dataclass
class SegmentScore:
    """Entries found in one file (or all of them) against its gold question lines."""

    name: str
    found: int = 0
    gold: int = 0
    matched: int = 0  # found entries whose question text is a gold question
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)  # found entries that are not gold questions

    @property
    def recall(self) -> float:
        """Share of gold entries found with their exact question text."""
        return self.matched / self.gold if self.gold else 1.0


def _rows(path: Path) -> list[list[str]]:
    """A gold TSV's rows; questions compared as rendered, as the corpora's READMEs ask: an anchor that only names a
    place (`<a name='x'></a>`, which the ingest drops) shows nothing."""
    with path.open(encoding="utf-8", newline="") as handle:
        return [[without_name_anchors(cell) for cell in row]
                for row in list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]]


def _predicted_pairs(files: dict[str, Path], glossary: Sequence[Sequence[str]],
                     perturbed: bool, meaning: bool = False) -> tuple[list[tuple[Entry, Entry]], set[tuple[str, str]]]:
    """Copy `files` (new name → source) into one content folder, read and align them like the ingest.

    Returns the pairs, and the (path, question) of entries a perturbation deleted.
    """
    with tempfile.TemporaryDirectory() as work:
        for name, source in files.items():
            target = Path(work) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        documents = read_documents(Path(work), IngestReport())
    deleted: set[tuple[str, str]] = set()
    if perturbed:
        documents, deleted = perturb(documents)
    alignment = link_documents(documents, glossary, LinkRules(),
                               question_cosines(ModelSlot(enabled=meaning, companion=False))).alignment
    where: dict[str, Entry] = {}
    for doc in documents:
        for entry_id, parsed in zip(doc.entry_ids, doc.entries, strict=True):
            where[entry_id] = (doc.source.relative_path, parsed.question, doc.lang)
    return [(where[p.first], where[p.second]) for p in alignment.entries], deleted


def perturb(documents: list[ReadDocument], seed: int = 13) -> tuple[list[ReadDocument], set[tuple[str, str]]]:
    """Edit every Chinese document the way translations drift: entries deleted, moved, and inserted.

    About one entry in seven is deleted, one or two move elsewhere, and two entries of another
    Chinese document are inserted (they must stay unpaired). Returns the edited documents and
    the (path, question) of the deleted entries.
    """
    rng = random.Random(seed)
    chinese = [d for d in documents if d.lang == "zh" and len(d.entries) >= 4]
    deleted: set[tuple[str, str]] = set()
    edited: dict[str, ReadDocument] = {}
    for number, doc in enumerate(chinese):
        rows = list(zip(doc.entries, doc.entry_ids, doc.entry_langs, strict=True))
        for row in rng.sample(rows, max(1, len(rows) // 7)):
            rows.remove(row)
            deleted.add((doc.source.relative_path, row[0].question))
        for _ in range(1 + len(rows) // 20):
            row = rows.pop(rng.randrange(len(rows)))
            rows.insert(rng.randrange(len(rows) + 1), row)
        donor = chinese[(number + 1) % len(chinese)]
        if donor is not doc:
            for k, (parsed, entry_id, lang) in enumerate(rng.sample(
                    list(zip(donor.entries, donor.entry_ids, donor.entry_langs, strict=True)), 2)):
                rows.insert(rng.randrange(len(rows) + 1), (parsed, f"{entry_id}-inserted-{k}", lang))
        entries, ids, langs = (list(column) for column in zip(*rows, strict=True))
        edited[doc.id] = replace(doc, entries=entries, entry_ids=ids, entry_langs=langs)
    return [edited.get(d.id, d) for d in documents], deleted


def evaluate_links(corpus: Path, renamed: bool = False, glossary: Sequence[Sequence[str]] = (),
                   perturbed: bool = False, meaning: bool = False) -> list[LinkScore]:
    """Scores per folder, then the total; every folder's files are aligned together, in one content folder.

    With `perturbed`, the Chinese documents are edited first (see `perturb`); gold pairs whose
    Chinese entry was deleted no longer count.
    """
    folders = sorted(p for p in corpus.iterdir() if (p / "pairs.tsv").is_file())
    files: dict[str, Path] = {}
    origin: dict[str, tuple[str, str]] = {}  # name in the pool → (folder, path in the folder)
    for folder in folders:
        for path in sorted(folder.rglob("*.md")):
            relative = path.relative_to(folder).as_posix()
            name = f"doc{len(files):03d}.md" if renamed else f"{folder.name}/{relative}"
            files[name] = path
            origin[name] = (folder.name, relative)
    scores = {folder.name: LinkScore(folder.name) for folder in folders}
    gold: set[tuple[str, str, str, str, str]] = set()
    unpaired: set[tuple[str, str, str]] = set()
    for folder in folders:
        gold |= {(folder.name, *row[:4]) for row in _rows(folder / "pairs.tsv")}  # type: ignore[misc]
        unpaired |= {(folder.name, row[0], row[1]) for row in _rows(folder / "unpaired.tsv")}
        scores[folder.name].gold = len(_rows(folder / "pairs.tsv"))
    predicted, deleted = _predicted_pairs(files, glossary, perturbed, meaning)
    pool_name = {value: key for key, value in origin.items()}
    for folder_name, _, _, zh_file, zh_question in gold:
        if (pool_name[(folder_name, zh_file)], zh_question) in deleted:
            scores[folder_name].gold -= 1
    for first, second in predicted:
        en, zh = (first, second) if first[2] == "en" else (second, first)
        (en_folder, en_file), (zh_folder, zh_file) = origin[en[0]], origin[zh[0]]
        score = scores[en_folder]
        score.predicted += 1
        score.correct += en_folder == zh_folder and (en_folder, en_file, en[1], zh_file, zh[1]) in gold
        score.unpaired_violations += ((en_folder, en_file, en[1]) in unpaired) + (
            (zh_folder, zh_file, zh[1]) in unpaired)
    total = LinkScore("overall")
    for s in scores.values():
        total.predicted += s.predicted
        total.correct += s.correct
        total.gold += s.gold
        total.unpaired_violations += s.unpaired_violations
    return [*scores.values(), total]


def gold_questions(folder: Path) -> dict[str, list[str]]:
    """Each file's gold questions (pairs and unpaired entries), by path relative to the folder."""
    questions: dict[str, list[str]] = {}
    for en_file, en_question, zh_file, zh_question in (row[:4] for row in _rows(folder / "pairs.tsv")):
        questions.setdefault(en_file, []).append(en_question)
        questions.setdefault(zh_file, []).append(zh_question)
    for file, question in (row[:2] for row in _rows(folder / "unpaired.tsv")):
        questions.setdefault(file, []).append(question)
    if (folder / "counts.tsv").is_file():
        for file, _ in (row[:2] for row in _rows(folder / "counts.tsv")):
            questions.setdefault(file, [])
    return questions


def evaluate_segments(corpus: Path) -> list[SegmentScore]:
    """Per file, the entries the ingest cuts out against the gold questions; then the total."""
    scores: list[SegmentScore] = []
    for folder in sorted(p for p in corpus.iterdir() if (p / "pairs.tsv").is_file()):
        gold = gold_questions(folder)
        found = {doc.source.relative_path: [e.question for e in doc.entries]
                 for doc in read_documents(folder, IngestReport())}
        for file in sorted(gold):
            wanted, got = set(gold[file]), found.get(file, [])
            scores.append(SegmentScore(
                name=f"{folder.name}/{file}", found=len(got), gold=len(wanted),
                matched=len(wanted & set(got)),
                missed=[q for q in gold[file] if q not in got], extra=[q for q in got if q not in wanted]))
    total = SegmentScore("overall")
    for score in scores:
        total.found += score.found
        total.gold += score.gold
        total.matched += score.matched
        total.missed += score.missed
        total.extra += score.extra
    return [*scores, total]
