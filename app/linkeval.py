"""`faq eval-links`: precision and recall of entry pairs against a gold bilingual corpus.

The corpus is laid out like `../shared/corpus/real/`: one folder per pair of documents with
`pairs.tsv` (en_file, en_question, zh_file, zh_question) and `unpaired.tsv` (file, question).
Documents are segmented and paired by the ingest's own functions; with `renamed`, every file
gets a meaningless name first, so only content can pair them.
"""

from __future__ import annotations

import csv
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from app.ingest.align import AlignableDocument, pair_documents, pair_entries
from app.ingest.language import detect_language, language_from_name
from app.ingest.segment import segment_markdown


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


def _rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]


def score_folder(folder: Path, renamed: bool = False) -> LinkScore:
    """Segment and pair one folder's documents and compare with its gold files."""
    score = LinkScore(folder.name)
    gold = {(r[0], r[1], r[2], r[3]) for r in _rows(folder / "pairs.tsv")}
    unpaired = {(r[0], r[1]) for r in _rows(folder / "unpaired.tsv")}
    score.gold = len(gold)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md"))
    with tempfile.TemporaryDirectory() as work:
        names = {f: (f"doc{n:02d}.md" if renamed else f) for n, f in enumerate(files)}
        questions: dict[str, list[str]] = {}
        documents = []
        for original, name in names.items():
            target = Path(work) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / original, target)
            text = target.read_text(encoding="utf-8")
            entries = segment_markdown(text).entries
            questions[original] = [e.question for e in entries]
            lang = language_from_name(name) or detect_language(text)
            ids = [f"{original}\x1f{e.question}\x1f{k}" for k, e in enumerate(entries)]
            documents.append(AlignableDocument(id=original, path=name, lang=lang, translation_of=None, entry_ids=ids))
        langs = {d.id: d.lang for d in documents}
        for pair in pair_documents(documents):
            first = next(d for d in documents if d.id == pair.first)
            second = next(d for d in documents if d.id == pair.second)
            for a, b in pair_entries(first.entry_ids, second.entry_ids):
                (fa, qa, _), (fb, qb, _) = a.split("\x1f"), b.split("\x1f")
                en, zh = ((fa, qa), (fb, qb)) if langs[fa] == "en" else ((fb, qb), (fa, qa))
                score.predicted += 1
                score.correct += (en[0], en[1], zh[0], zh[1]) in gold
                score.unpaired_violations += (fa, qa) in unpaired or (fb, qb) in unpaired
    return score


def evaluate_links(corpus: Path, renamed: bool = False) -> list[LinkScore]:
    """Scores per folder, then the total."""
    folders = sorted(p for p in corpus.iterdir() if (p / "pairs.tsv").is_file())
    scores = [score_folder(folder, renamed) for folder in folders]
    total = LinkScore("overall")
    for s in scores:
        total.predicted += s.predicted
        total.correct += s.correct
        total.gold += s.gold
        total.unpaired_violations += s.unpaired_violations
    return [*scores, total]
