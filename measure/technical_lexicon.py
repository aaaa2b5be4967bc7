"""Build the technical lexicon the portal ships: English and Chinese words that translate each other in the
translation pairs of many real bilingual FAQs.

    python -m measure.technical_lexicon [FOLDER ...] [--out FILE]

CC-CEDICT, the general dictionary, lacks the senses troubleshooting pages use (崩溃 is "to collapse", never
"crash"; 导出 is "to derive" five senses before "to export"), and a corpus with one language has no translation
pairs of its own to mine. This mines the pairs of the gold ingest corpora (default: `eval/wild*`, real FAQs of
public projects, none of them a corpus of the query sets) the way an ingest mines its own (app/ingest/lexicon.py),
with stricter thresholds, since its words are applied to corpora they were not learnt from. Each folder is
ingested on its own, without the meaning model (pairs by anchors and position), and its translation pairs read.
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
from app.ingest.lexicon import mine_lexicon
from app.ingest.pipeline import run_ingest
from app.models import Entry, EntryLink
from measure.localserver import ROOT

MIN_PAIRS = 3  # the ingest's own miner takes two: its pairs are the corpus it serves
MIN_DICE = 0.5


def translation_texts(content: Path) -> list[tuple[str, str]]:
    """(English, Chinese) question-and-answer texts of the translation pairs an ingest of `content` makes."""
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(content_dir=content, data_dir=Path(scratch), database_url="", query_log_days=0,
                            semantic=False, _env_file=None)
        run_ingest(settings, progress=False)
        store = DataStore(settings)
        try:
            with store.session() as session:
                entries = {entry.id: entry for entry in session.exec(select(Entry))}
                links = session.exec(select(EntryLink).where(EntryLink.kind == "translation")).all()
        finally:
            store.close()
    texts = []
    for link in links:
        english, chinese = entries[link.source_id], entries[link.target_id]
        if english.lang == "en" and chinese.lang == "zh":
            texts.append((f"{english.question}\n{english.body_text}", f"{chinese.question}\n{chinese.body_text}"))
    return texts


def build(folders: Sequence[Path]) -> tuple[list[list[str]], int]:
    """The lexicon's [English word, Chinese word] groups, and how many translation pairs taught them."""
    pairs = []
    for folder in folders:
        found = translation_texts(folder)
        print(f"{folder.name}: {len(found)} translation pairs", file=sys.stderr)
        pairs += found
    return mine_lexicon(pairs, min_pairs=MIN_PAIRS, min_dice=MIN_DICE), len(pairs)


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
        f"# (each pairing seen in {MIN_PAIRS} pairs or more, Dice {MIN_DICE} or more). English<TAB>Chinese.",
    ]
    args.out.write_text("\n".join(header + ["\t".join(group) for group in groups]) + "\n", encoding="utf-8")
    print(f"{len(groups)} word pairs from {pairs} translation pairs -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
