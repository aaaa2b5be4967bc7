"""Build the technical lexicon the portal ships: English and Chinese words that translate each other in the
translation pairs of many real bilingual FAQs.

    python -m measure.technical_lexicon [FOLDER ...] [--out FILE]

CC-CEDICT, the general dictionary, lacks the senses troubleshooting pages use (崩溃 is "to collapse", never
"crash"; 导出 is "to derive" five senses before "to export"), and a corpus with one language has no translation
pairs of its own to mine. This mines the pairs of the gold ingest corpora (default: `eval/wild*`, real FAQs of
public projects, none of them a corpus of the query sets) the way an ingest mines its own (app/ingest/lexicon.py),
with stricter thresholds, since its words are applied to corpora they were not learnt from: a pairing must also meet
in the pairs of two projects or more (one project's pairs all name its topic: `contig` ~ `染色体` is a genome tool's
subject, not a translation). Each folder is ingested on its own, without the meaning model (pairs by anchors and
position), and its translation pairs read; a project is a folder's first-level folder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from sqlmodel import select

from app.config import Settings
from app.db import DataStore
from app.ingest.dictionary import TECHNICAL_LEXICON
from app.ingest.lexicon import mine_lexicon, pair_words
from app.ingest.pipeline import run_ingest
from app.models import Document, Entry, EntryLink
from app.search.analysis import stem
from measure.localserver import ROOT

MIN_PAIRS = 3  # the ingest's own miner takes two: its pairs are the corpus it serves
MIN_DICE = 0.5
MIN_PROJECTS = 2

Pair = tuple[str, str, str]  # (project, English text, Chinese text)


def translation_texts(content: Path) -> list[Pair]:
    """(project, English, Chinese) question-and-answer texts of the translation pairs an ingest of `content` makes."""
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(content_dir=content, data_dir=Path(scratch), database_url="", query_log_days=0,
                            semantic=False, _env_file=None)
        run_ingest(settings, progress=False)
        store = DataStore(settings)
        try:
            with store.session() as session:
                entries = {entry.id: entry for entry in session.exec(select(Entry))}
                paths = {document.id: document.path for document in session.exec(select(Document))}
                links = session.exec(select(EntryLink).where(EntryLink.kind == "translation")).all()
        finally:
            store.close()
    texts = []
    for link in links:
        english, chinese = entries[link.source_id], entries[link.target_id]
        if english.lang == "en" and chinese.lang == "zh":
            project = f"{content.name}/{paths[english.document_id].split('/')[0]}"
            texts.append((project, f"{english.question}\n{english.body_text}",
                          f"{chinese.question}\n{chinese.body_text}"))
    return texts


def build(folders: Sequence[Path]) -> tuple[list[list[str]], int]:
    """The lexicon's [English word, Chinese word] groups, and how many translation pairs taught them."""
    pairs: list[Pair] = []
    for folder in folders:
        found = translation_texts(folder)
        print(f"{folder.name}: {len(found)} translation pairs", file=sys.stderr)
        pairs += found
    groups = mine_lexicon([(english, chinese) for _, english, chinese in pairs], MIN_PAIRS, MIN_DICE)
    taught = taught_words(pairs)
    return [group for group in groups if len(projects_teaching(group, taught)) >= MIN_PROJECTS], len(pairs)


Taught = list[tuple[str, set[str], set[str]]]  # (project, English stems, Chinese words) of each pair


def taught_words(pairs: Sequence[Pair]) -> Taught:
    """The words each translation pair may teach (read once, not once per group)."""
    return [(project, set(english), chinese)
            for project, english_text, chinese_text in pairs
            for english, chinese in [pair_words(english_text, chinese_text)]]


def projects_teaching(group: list[str], taught: Taught) -> set[str]:
    """The projects with a translation pair that holds both words of an [English, Chinese] group."""
    english, chinese = group
    wanted = stem(english)
    return {project for project, stems, words in taught if chinese in words and wanted in stems}


def main(argv: Sequence[str] | None = None) -> int:
    """Write the lexicon file."""
    parser = argparse.ArgumentParser(prog="python -m measure.technical_lexicon", description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="gold corpora (default: eval/wild*)")
    parser.add_argument("--out", type=Path, default=TECHNICAL_LEXICON)
    args = parser.parse_args(argv)
    folders = args.folders or sorted(path for path in (ROOT / "eval").glob("wild*") if path.is_dir())
    groups, pairs = build(folders)
    names = " ".join(folder.name for folder in folders)
    header = [
        "# English and Chinese words that translate each other in real bilingual FAQs (measure/technical_lexicon.py):",
        f"# mined from {pairs} translation pairs of {names}",
        f"# (each pairing seen in {MIN_PAIRS} pairs or more, of {MIN_PROJECTS} projects or more, with a Dice of "
        f"{MIN_DICE} or more). English<TAB>Chinese.",
    ]
    args.out.write_text("\n".join(header + ["\t".join(group) for group in groups]) + "\n", encoding="utf-8")
    print(f"{len(groups)} word pairs from {pairs} translation pairs -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
