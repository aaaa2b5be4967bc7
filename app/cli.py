"""The `faq` command: ingest, serve, migrate, check, eval."""

from __future__ import annotations

import argparse
import logging
import socket
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from app.config import Settings, get_settings

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SKIPPED = 3
# What `faq check` lists; the failing kinds need an editor (fix, or confirm in content/links.tsv).
CHECK_KINDS = ("skipped", "warning", "structure", "repair-uncertain", "link-problem", "link-review", "link-info")
FAILING_KINDS = ("skipped", "repair-uncertain", "link-problem", "link-review")


def _ingest(args: argparse.Namespace, settings: Settings) -> int:
    from app.generations import current_name, describe_failure
    from app.ingest.pipeline import IngestError, run_ingest

    url = settings.resolved_database_url
    try:
        previous = current_name(settings)  # also fails fast, before the reading, when the database is unreachable
    except Exception as exc:  # noqa: BLE001  (say what failed in one line; nothing was touched)
        print(f"faq ingest: {describe_failure(exc, url)}; nothing was changed", file=sys.stderr)
        return EXIT_FAILED
    content = Path(args.content) if args.content else None
    try:
        report = run_ingest(settings, content_dir=content, progress=not args.quiet)
    except IngestError as exc:
        print(f"faq ingest: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001  (any failure: say so, keep the old data)
        outcome = (f"the previous data (generation {previous}) is still being served" if previous else
                   "nothing was published and there is no previous data to serve; fix that and run `faq ingest` "
                   "again")
        print(f"faq ingest: failed ({describe_failure(exc, url)}); {outcome}", file=sys.stderr)
        return EXIT_FAILED
    by_lang = ", ".join(f"{lang} {n}" for lang, n in sorted(report.entries_by_lang.items()))
    print(f"documents:          {report.documents}")
    print(f"entries:            {report.entries} ({by_lang})")
    print(f"translated documents: {report.document_pairs} pairs")
    print(f"translation pairs:  {report.translation_pairs}")
    print(f"related entries:    {report.related_links} links")
    if report.ids_forwarded or report.ids_removed:
        print(f"old entry URLs:     {report.ids_forwarded} now redirect (301) to the entry that took their place, "
              f"{report.ids_removed} answer 410 (removed)")
    if report.link_problems or report.link_review:
        print(f"links to check:     {report.link_problems} problems, {report.link_review} low-confidence pairs "
              "(see `faq check`)")
    if report.structure_notes:
        print(f"structure to check: {len(report.structure_notes)} (close calls, ignored hints, text left out; "
              "see `faq check`, `faq inspect FILE`)")
        for path, message in report.structure_notes:
            print(f"  structure  {path}: {message}")
    print(f"encoding repairs:   {report.repairs}")
    print(f"warnings:           {len(report.warnings)}")
    for path, message in report.warnings:
        print(f"  warning  {path}: {message}")
    print(f"skipped:            {len(report.skipped)}")
    for path, message in report.skipped:
        print(f"  skipped  {path}: {message}")
    print(f"generation:         {report.generation} ({report.seconds:.2f} s)")
    if settings.semantic:
        print("search by meaning:  once the entries' vectors are made, by a running `faq serve` in the background "
              "or now by `faq embed`; search is by words until then")
    return EXIT_SKIPPED if report.skipped else EXIT_OK


def _embed(args: argparse.Namespace, settings: Settings) -> int:
    import time

    from tqdm import tqdm

    from app.generations import current_name, describe_failure, generation
    from app.search.embedding import ModelSlot
    from app.semantic import Progress, build_vectors, embedding_turn, vectors_ready

    slot = ModelSlot(settings.semantic)
    embedder = slot.get()
    if embedder is None:
        print(f"faq embed: {slot.problem}; search stays lexical", file=sys.stderr)
        return EXIT_FAILED
    try:
        name = current_name(settings)
    except Exception as exc:  # noqa: BLE001  (say what failed in one line)
        print(f"faq embed: {describe_failure(exc, settings.resolved_database_url)}", file=sys.stderr)
        return EXIT_FAILED
    if name is None:
        print("faq embed: no data yet; run `faq ingest` first", file=sys.stderr)
        return EXIT_FAILED
    if vectors_ready(generation(settings, name).directory, embedder):
        print(f"the vectors of generation {name} are made already")
        return EXIT_OK
    started = time.perf_counter()
    bar = tqdm(desc="embedding", unit="entry", disable=args.quiet)
    last = Progress(generation=name, total=0)

    def show(progress: Progress) -> None:
        nonlocal last
        bar.total = progress.total
        bar.update(progress.done - bar.n)
        last = progress

    with embedding_turn(settings) as mine:
        if not mine:
            print("faq embed: another process is making the vectors now (a running `faq serve`); "
                  "/readyz and `faq check` show how far it is", file=sys.stderr)
            return EXIT_FAILED
        try:
            manifest = build_vectors(settings, name, embedder, args.threads or settings.embed_threads,
                                     on_progress=show)
        except Exception as exc:  # noqa: BLE001  (say what failed in one line; the cache keeps what was made)
            print(f"faq embed: failed ({describe_failure(exc, settings.resolved_database_url)}); "
                  "run it again to go on where it stopped", file=sys.stderr)
            return EXIT_FAILED
        finally:
            bar.close()
    assert manifest is not None  # nothing asks it to stop
    print(f"vectors of generation {name}: {manifest.describe()}; {last.embedded} embedded now, "
          f"{last.done - last.embedded} from the cache ({time.perf_counter() - started:.1f} s). "
          "Running servers search by meaning within seconds")
    return EXIT_OK


def _reindex(args: argparse.Namespace, settings: Settings) -> int:
    import time

    from app.generations import describe_failure
    from app.ingest.store import reindex_generation

    started = time.perf_counter()
    try:
        target, entries = reindex_generation(settings)
    except Exception as exc:  # noqa: BLE001  (say what failed in one line; the current data stays)
        print(f"faq reindex: failed ({describe_failure(exc, settings.resolved_database_url)}); the current data "
              "is unchanged", file=sys.stderr)
        return EXIT_FAILED
    print(f"reindexed {entries} entries into generation {target.name} ({time.perf_counter() - started:.2f} s)")
    return EXIT_OK


def _migrate(args: argparse.Namespace, settings: Settings) -> int:
    from app.generations import describe_failure
    from app.ingest.store import migrate_database

    try:
        print(migrate_database(settings))
    except Exception as exc:  # noqa: BLE001  (say what failed in one line)
        print(f"faq migrate: {describe_failure(exc, settings.resolved_database_url)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _stats(args: argparse.Namespace, settings: Settings) -> int:
    from app.querylog import top_queries

    for title, zero_only in (("searches that found nothing (FAQ to write)", True), ("most frequent searches", False)):
        rows = top_queries(settings, args.days, args.limit, zero_only)
        print(f"{title}, last {args.days} days:")
        for row in rows:
            print(f"  {row.searches:>6} searches  {row.zero:>6} found nothing  {row.query}")
        if not rows:
            print("  none recorded" + ("" if settings.query_log_days else " (FAQ_QUERY_LOG_DAYS=0 records nothing)"))
    return EXIT_OK


def _log_to_stderr() -> None:
    """Access logs as JSON lines and the portal's own messages, on standard error."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    for name in ("faq.access", "faq.live"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from app.generations import current_name, describe_failure

    try:
        if current_name(settings) is None:
            print(f"faq serve: no data in {settings.data_dir}; run `faq ingest` first "
                  "(pages answer 503 until then)", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001  (serve anyway: readers get 503 until the database answers)
        print(f"faq serve: {describe_failure(exc, settings.resolved_database_url)} (pages answer 503 until then)",
              file=sys.stderr)
    _log_to_stderr()
    if args.watch:
        from app.live import watch_content

        threading.Thread(target=watch_content, args=(settings, threading.Event()), name="faq-watch",
                         daemon=True).start()
        print(f"faq serve: watching {settings.content_dir}; changes are re-ingested", flush=True)
    shown = socket.gethostname() if args.host in ("0.0.0.0", "::") else args.host
    print(f"faq serve: open http://{shown}:{args.port}/ in a browser (API docs at /docs; Ctrl+C stops)",
          flush=True)
    uvicorn.run("app.main:app", host=args.host, port=args.port, workers=args.workers,
                proxy_headers=True, log_level="info", access_log=False)  # ours: JSON lines, see _log_to_stderr
    return EXIT_OK


def _eval(args: argparse.Namespace, settings: Settings) -> int:
    from measure.evaluation import compared_columns, evaluate, read_queries, report_lines, semantic_state

    path = Path(args.queries)
    if not path.is_file():
        print(f"faq eval: no query file at {path}; give a TSV of id, k, query, fingerprints", file=sys.stderr)
        return EXIT_USAGE
    queries = read_queries(path)
    if not queries:
        print(f"faq eval: no queries in {path}", file=sys.stderr)
        return EXIT_USAGE
    state = semantic_state(settings)
    semantic = state.startswith("ready")
    result = evaluate(settings, queries)
    print(f"ranking:    {'hybrid (words and meaning)' if semantic else 'lexical'}; search by meaning {state}")
    columns = compared_columns(settings, queries, semantic) if args.compare else []
    print("\n".join(report_lines(queries, result, semantic, columns)))
    return EXIT_OK


def _check(args: argparse.Namespace, settings: Settings) -> int:
    if args.self_test:
        return _repair_self_test([Path(f) for f in args.files], settings.content_dir)
    from sqlmodel import col, select

    from app.db import DataStore, NoDataError
    from app.models import IngestNote

    store = DataStore(settings, semantic=True)
    try:
        with store.session() as session:
            notes = session.exec(
                select(IngestNote).where(col(IngestNote.kind).in_(CHECK_KINDS))
                .order_by(col(IngestNote.path), col(IngestNote.line))
            ).all()
        damaged = store.fallback
        vectors = store.semantic_state(store.current())
        vectors_damaged = store.vector_problem
    except NoDataError as exc:
        print(f"faq check: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        store.close()
    if damaged:
        print(f"data: damaged: generation {damaged[0]} cannot be served ({damaged[2]}); the server falls back to "
              f"{damaged[1]}. Run `faq reindex` (or `faq ingest`) to rebuild it")
    for note in notes:
        where = f"{note.path}:{note.line}" if note.line else note.path
        print(f"{where}: {note.kind}: {note.message}")
    print(f"vectors: damaged: {vectors_damaged}; search is by words only until `faq reindex` rebuilds them"
          if vectors_damaged else f"vectors: {vectors}")
    counts = Counter(note.kind for note in notes)
    print(f"{counts['repair-uncertain']} uncertain repairs, {counts['skipped']} skipped files, "
          f"{counts['link-problem']} link problems, {counts['link-review']} low-confidence pairs to confirm "
          f"(`pair`/`unpair` in content/links.tsv), {counts['structure']} structure notes "
          f"(`faq inspect FILE`), {counts['warning']} other warnings, "
          f"{counts['link-info']} notes")
    return EXIT_FAILED if damaged or vectors_damaged or any(counts[kind] for kind in FAILING_KINDS) else EXIT_OK


def _clean_chinese_seeds(content: Path) -> list[Path]:
    """The content folder's Chinese files that show no mojibake (the damaged seed is left out)."""
    from app.ingest.repair import is_mojibake

    return [path for path in sorted(content.glob("*.zh.md")) if not is_mojibake(path.read_text(encoding="utf-8"))]


def _repair_self_test(files: Sequence[Path], content: Path) -> int:
    from app.ingest.damage import SAMPLE, score_repairs

    seeds = _clean_chinese_seeds(content)
    rows = [("sample", "cp1252", [SAMPLE]), ("sample", "cp1254", [SAMPLE]), ("seeds", "cp1254", seeds)]
    rows += [("files", "cp1254", list(files))] if files else []
    ok = True
    print(f"{'text':<7} {'code page':<10} {'files':>5} {'chars':>7} {'damaged':>8} {'identical':>10} "
          f"{'restored':>9} {'changed':>8}")
    for name, code_page, paths in rows:
        score = score_repairs((path.read_text(encoding="utf-8") for path in paths), code_page)
        print(f"{name:<7} {code_page:<10} {len(paths):>5} {score.characters:>7} {score.damaged:>8} "
              f"{score.identical_share:>10.2%} {score.restored_share:>9.2%} {score.undamaged_changed:>8}")
        ok &= score.undamaged_changed == 0
        if name == "sample":
            ok &= score.identical_share >= 0.995 and score.restored_share >= 0.85
        if name == "seeds":
            ok &= score.restored_share >= 0.95
    print("targets: sample identical ≥ 99.5% and restored ≥ 85%; seeds restored ≥ 95%; "
          "changed (undamaged characters altered) = 0:",
          "met" if ok else "NOT met")
    return EXIT_OK if ok else EXIT_FAILED


def _eval_links(args: argparse.Namespace, settings: Settings) -> int:
    from app.ingest.glossary import read_glossary
    from measure.linkeval import evaluate_links, evaluate_segments

    glossary, _ = read_glossary(settings.content_dir)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"faq eval-links: no corpus folder at {corpus}", file=sys.stderr)
        return EXIT_USAGE
    print("entries found (exact question text) against the gold questions:")
    print(f"  {'file':<52} {'found':>6} {'gold':>5} {'matched':>8} {'missed':>7} {'extra':>6}")
    for seg in evaluate_segments(corpus):
        print(f"  {seg.name[:52]:<52} {seg.found:>6} {seg.gold:>5} {seg.matched:>8} {len(seg.missed):>7} "
              f"{len(seg.extra):>6}")
        if args.verbose and seg.name != "overall":
            for question in seg.missed:
                print(f"      missed: {question[:100]}")
            for question in seg.extra:
                print(f"      extra:  {question[:100]}")
    modes = (("files as laid out:", False, False),
             ("files renamed to meaningless names (content only):", True, False),
             ("as laid out, each Chinese file edited (entries deleted, moved, inserted from another file):",
              False, True))
    for title, renamed, perturbed in modes:
        print(title)
        print(f"  {'folder':<14} {'pairs':>6} {'correct':>8} {'gold':>5} {'precision':>10} {'recall':>7} "
              f"{'unpaired paired':>16}")
        for score in evaluate_links(corpus, renamed, glossary, perturbed, meaning=settings.semantic):
            print(f"  {score.name:<14} {score.predicted:>6} {score.correct:>8} {score.gold:>5} "
                  f"{score.precision:>10.3f} {score.recall:>7.3f} {score.unpaired_violations:>16}")
    return EXIT_OK


def _inspect(args: argparse.Namespace, settings: Settings) -> int:
    from app.ingest.inspect import InspectError, inspect_file

    try:
        report = inspect_file(Path(args.file), settings.content_dir)
    except InspectError as exc:
        print(f"faq inspect: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(report)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(prog="faq", description="Bilingual FAQ portal")
    commands = parser.add_subparsers(dest="command", required=True)
    ingest = commands.add_parser("ingest", help="read content/ into a new database and search index")
    ingest.add_argument("--content", metavar="DIR", help="content folder (default: FAQ_CONTENT_DIR)")
    ingest.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
    ingest.set_defaults(handler=_ingest)
    embed = commands.add_parser(
        "embed", help="make the current generation's vectors now (servers otherwise make them in the background)")
    embed.add_argument("--threads", type=int, default=0,
                       help="threads embedding at once, one core each (default: FAQ_EMBED_THREADS)")
    embed.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
    embed.set_defaults(handler=_embed)
    reindex = commands.add_parser(
        "reindex", help="rebuild the search index from the database into a new generation and publish it")
    reindex.set_defaults(handler=_reindex)
    migrate = commands.add_parser(
        "migrate", help="bring the configured database to the latest schema revision (Alembic upgrade head)")
    migrate.set_defaults(handler=_migrate)
    serve = commands.add_parser("serve", help="serve the pages and the JSON API")
    serve.add_argument("--host", default="127.0.0.1",
                       help="interface to listen on; 0.0.0.0 for every interface (default: %(default)s)")
    serve.add_argument("--port", type=int, default=8000, help="TCP port (default: %(default)s)")
    serve.add_argument("--workers", type=int, default=1,
                       help="worker processes; each holds its own copy of the index (default: %(default)s)")
    serve.add_argument("--watch", action="store_true",
                       help="re-ingest whenever a file under the content folder changes (default: off)")
    serve.set_defaults(handler=_serve)
    check = commands.add_parser(
        "check", help="list what an editor should fix: uncertain repairs, skipped files, link problems")
    check.add_argument("--self-test", action="store_true",
                       help="damage clean text the way seed 004 was damaged (the bundled sample, the clean "
                            "Chinese seeds, and any FILEs), repair it, print the figures (default: off)")
    check.add_argument("files", nargs="*", metavar="FILE", help="with --self-test: more clean text to measure on")
    check.set_defaults(handler=_check)
    inspect = commands.add_parser(
        "inspect", help="show how one file segments: each entry, the rule that made it, the readings that lost")
    inspect.add_argument("file", metavar="FILE", help="a markdown file (inside or outside the content folder)")
    inspect.set_defaults(handler=_inspect)
    stats = commands.add_parser("stats", help="what readers searched for, and what found nothing")
    stats.add_argument("--days", type=int, default=30, help="how many days back (default: %(default)s)")
    stats.add_argument("--limit", type=int, default=20, help="queries in each list (default: %(default)s)")
    stats.set_defaults(handler=_stats)
    links = commands.add_parser("eval-links", help="precision/recall of entry pairs against a gold corpus")
    links.add_argument("corpus", nargs="?", default="../shared/corpus/real", metavar="CORPUS_DIR",
                       help="folders of documents with gold pairs.tsv/unpaired.tsv (default: %(default)s)")
    links.add_argument("--verbose", action="store_true",
                       help="list every missed and extra question (default: off)")
    links.set_defaults(handler=_eval_links)
    evaluation = commands.add_parser("eval", help="search quality on a query file (success@k, MRR@10)")
    evaluation.add_argument("queries", metavar="QUERIES.tsv",
                            help="tab-separated: id, k, query, '|'-separated fingerprints[, lang, kind]")
    evaluation.add_argument("--compare", action="store_true",
                            help="also rank by words only and by meaning only (when the vectors are made), and "
                                 "run the SQLite FTS5 trigram baseline (words OR-ed) on the same entries "
                                 "(default: off)")
    evaluation.set_defaults(handler=_eval)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `faq` command; returns the exit code."""
    args = build_parser().parse_args(argv)
    handler = args.handler
    code: int = handler(args, get_settings())
    return code


if __name__ == "__main__":
    sys.exit(main())
