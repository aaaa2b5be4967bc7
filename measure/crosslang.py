"""Answers only in the other language: real queries over their corpus with the query's language removed.

For an English query only the Chinese documents are kept, for a Chinese or mixed one only the English
documents; a query whose answer is not left in the other language is not counted. This is how the
held-out check measures answering across languages, and the one case where nothing mined from
translation pairs can help (there are none).

    python -m measure.crosslang QUERIES.tsv CONTENT_DIR [--compare] [--work DIR]

The work folder keeps each corpus's vectors (`<work>/<lang>/data/vectors.db`), so a second run embeds nothing.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from sqlmodel import select

from app.config import Settings
from app.db import DataStore
from app.ingest.pipeline import run_ingest
from app.models import Document
from app.queries import all_entries
from app.search.embedding import ModelSlot
from app.semantic import build_vectors
from app.vectorcache import CACHE_FILE
from measure.evaluation import (
    EvalQuery,
    EvalResult,
    answerable,
    breakdown,
    compared_columns,
    evaluate,
    read_queries,
    report_lines,
    semantic_state,
)

# The language removed for a query in each language: the answer must be found in the other one.
REMOVED = {"en": "en", "zh": "zh", "mixed": "zh"}


def document_languages(content: Path, work: Path) -> dict[str, str]:
    """Each document's language as the ingest decides it (path relative to `content` → en/zh)."""
    settings = _settings(content, work / "all")
    run_ingest(settings, progress=False)
    store = DataStore(settings)
    try:
        with store.session() as session:
            return {path: lang for path, lang in session.exec(select(Document.path, Document.lang))}
    finally:
        store.close()


def _settings(content: Path, folder: Path) -> Settings:
    return Settings(content_dir=content, data_dir=folder / "data", database_url="", query_log_days=0,
                    _env_file=None)


def one_language_corpus(content: Path, languages: dict[str, str], removed: str, folder: Path,
                        cache: Path | None = None) -> Settings:
    """`content` without its documents in `removed`, ingested into `folder` with its vectors made (starting from
    the vector cache `cache`, if given: the whole corpus's)."""
    kept = folder / "content"
    shutil.rmtree(kept, ignore_errors=True)
    for path, lang in languages.items():
        if lang != removed:
            (kept / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(content / path, kept / path)
    settings = _settings(kept, folder)
    if cache is not None and cache.is_file() and not (settings.data_dir / CACHE_FILE).exists():
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cache, settings.data_dir / CACHE_FILE)
    report = run_ingest(settings, progress=False)
    embedder = ModelSlot(enabled=settings.semantic, companion=settings.semantic_companion).get()
    if embedder is not None:
        build_vectors(settings, report.generation, embedder, settings.embed_threads)
    return settings


def evaluate_other_language(queries: Sequence[EvalQuery], content: Path, work: Path,
                            compare: bool, cache: Path | None = None) -> list[str]:
    """The report over both directions together (English queries on Chinese answers and the reverse)."""
    languages = document_languages(content, work)
    kept: list[EvalQuery] = []
    result = EvalResult()
    others: dict[str, EvalResult] = {}
    semantic = True
    for removed in ("en", "zh"):
        settings = one_language_corpus(content, languages, removed, work / f"without-{removed}", cache)
        asked = answerable([q for q in queries if REMOVED.get(q.lang) == removed], all_entries(settings))
        semantic = semantic and semantic_state(settings).startswith("ready")
        _add(result, asked, evaluate(settings, asked))
        for name, groups in compared_columns(settings, asked, semantic) if compare else []:
            _add(others.setdefault(name, EvalResult()), asked, groups["all"])
        kept += asked
    return report_lines(kept, result, semantic, [(name, breakdown(kept, other)) for name, other in others.items()])


def _add(total: EvalResult, queries: Sequence[EvalQuery], part: EvalResult) -> None:
    for query in queries:
        total.add(query, part.ranks[query.id])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the check and print the report."""
    parser = argparse.ArgumentParser(prog="python -m measure.crosslang", description=__doc__.splitlines()[0])
    parser.add_argument("queries", type=Path)
    parser.add_argument("content", type=Path)
    parser.add_argument("--compare", action="store_true", help="lexical, semantic and FTS5 beside the default")
    parser.add_argument("--work", type=Path, help="work folder kept between runs (default: a temporary one)")
    parser.add_argument("--cache", type=Path, help="a vector cache to start from (the whole corpus's vectors.db)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        print("\n".join(evaluate_other_language(read_queries(args.queries), args.content, work, args.compare,
                                                 args.cache)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
