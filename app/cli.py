"""The `faq` command: ingest, serve, migrate, check, eval."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NoReturn, TextIO

# Only the standard library above: `main` hears Ctrl+C and SIGTERM before anything slow is imported.
if TYPE_CHECKING:
    from pydantic import ValidationError

    from app.config import Settings
    from app.search.embedding import Embedder

# The exit codes of `faq` (README: "Exit codes"); each kind of mistake has its own.
EXIT_OK = 0
EXIT_FAILED = 1  # the command failed; nothing was changed (the previous data is still served)
EXIT_USAGE = 2  # the command line: an unknown option, an invalid value (--port 99999, --days -5)
EXIT_SKIPPED = 3  # `faq ingest`: published, but some files were skipped
EXIT_LISTEN = 4  # `faq serve`: cannot listen (port in use, unknown host, a port below 1024)
EXIT_SETTINGS = 5  # a setting is wrong: an FAQ_* value, a database driver not installed, no folder to watch
EXIT_RIGHTS = 6  # the database role lacks a right it needs
EXIT_INTERRUPTED = 130  # Ctrl+C
EXIT_TERMINATED = 143  # SIGTERM
VECTORS_POLL_SECONDS = 2.0  # `faq eval` waiting for a server's background embedding
# Commands that never open the database (they need no FAQ_DATABASE_URL check).
WITHOUT_DATABASE = ("inspect", "eval-links")
# What `faq check` lists; the failing kinds need an editor (fix, or confirm in content/links.tsv).
CHECK_KINDS = ("skipped", "warning", "structure", "repair-uncertain", "link-problem", "link-review", "link-info")
FAILING_KINDS = ("skipped", "repair-uncertain", "link-problem", "link-review")


def _ingest(args: argparse.Namespace, settings: Settings) -> int:
    from app.generations import IngestRunning, current_name, describe_failure
    from app.ingest.freshness import content_checksum, record_checksum, recorded_checksum

    url = settings.resolved_database_url
    try:
        previous = current_name(settings)  # also fails fast, before the reading, when the database is unreachable
    except Exception as exc:  # noqa: BLE001  (say what failed in one line; nothing was touched)
        print(f"faq ingest: {describe_failure(exc, url)}; nothing was changed", file=sys.stderr)
        return _failure_code(exc)
    content = Path(args.content) if args.content else None
    folder = content or settings.content_dir
    checksum = content_checksum(folder) if folder.is_dir() else None
    if args.if_changed and previous is not None and checksum is not None and checksum == recorded_checksum(settings):
        print(f"data is up to date (generation {previous}): {folder} and the portal are unchanged since the last "
              "ingest; nothing to do")
        return EXIT_OK
    from app.ingest.pipeline import IngestError, run_ingest  # a second of imports: only when there is work

    try:
        report = run_ingest(settings, content_dir=content, progress=not args.quiet)
    except (IngestError, IngestRunning) as exc:
        print(f"faq ingest: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001  (any failure: say so, keep the old data)
        outcome = (f"the previous data (generation {previous}) is still being served" if previous else
                   "nothing was published and there is no previous data to serve; fix that and run `faq ingest` "
                   "again")
        print(f"faq ingest: failed ({describe_failure(exc, url)}); {outcome}", file=sys.stderr)
        return _failure_code(exc)
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
    if checksum is not None:
        record_checksum(settings, checksum)
    return EXIT_SKIPPED if report.skipped else EXIT_OK


def _embed(args: argparse.Namespace, settings: Settings) -> int:
    return _make_vectors(settings, "embed", args.threads or settings.embed_threads, quiet=args.quiet)


def _make_vectors(settings: Settings, command: str, threads: int, quiet: bool, wait: bool = False) -> int:
    """Make the current generation's vectors unless they are made; `wait` for another process making them
    instead of failing. Says in one line on standard error when it cannot."""
    import time

    from app.generations import current_name, describe_failure, generation
    from app.search.embedding import ModelSlot
    from app.semantic import embedding_turn, vectors_ready

    slot = ModelSlot(settings.semantic, companion=settings.semantic_companion, model_dir=settings.model_dir)
    embedder = slot.get()
    if embedder is None:
        print(f"faq {command}: {slot.problem}; search stays lexical", file=sys.stderr)
        return EXIT_FAILED
    try:
        name = current_name(settings)
    except Exception as exc:  # noqa: BLE001  (say what failed in one line)
        print(f"faq {command}: {describe_failure(exc, settings.resolved_database_url)}", file=sys.stderr)
        return _failure_code(exc)
    if name is None:
        print(f"faq {command}: no data yet; run `faq ingest` first", file=sys.stderr)
        return EXIT_FAILED
    directory = generation(settings, name).directory
    said = sys.stdout if command == "embed" else sys.stderr  # `faq eval` keeps its standard output for figures
    if vectors_ready(directory, embedder):
        print(f"the vectors of generation {name} are made already", file=said)
        return EXIT_OK
    waited = False
    while True:
        with embedding_turn(settings) as mine:
            if mine:
                return _build_vectors_now(settings, command, name, embedder, threads, quiet, said)
        if not wait:
            print(f"faq {command}: another process is making the vectors now (a running `faq serve`); "
                  "/readyz and `faq check` show how far it is", file=sys.stderr)
            return EXIT_FAILED
        if vectors_ready(directory, embedder):
            return EXIT_OK
        if not waited:
            print(f"faq {command}: another process (a running `faq serve`) is making the vectors of generation "
                  f"{name}; waiting for them (Ctrl+C stops)", file=sys.stderr, flush=True)
            waited = True
        time.sleep(VECTORS_POLL_SECONDS)


def _usable_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _build_vectors_now(settings: Settings, command: str, name: str, embedder: Embedder, threads: int, quiet: bool,
                       said: TextIO) -> int:
    """Embed generation `name`'s entries (this process holds the embedding turn), with a progress bar."""
    import time

    from tqdm import tqdm

    from app.generations import describe_failure
    from app.semantic import Progress, build_vectors

    started = time.perf_counter()
    bar = tqdm(desc="embedding", unit="entry", disable=quiet)
    last = Progress(generation=name, total=0)

    def show(progress: Progress) -> None:
        nonlocal last
        bar.total = progress.total
        bar.update(progress.done - bar.n)
        last = progress

    try:
        manifest = build_vectors(settings, name, embedder, threads, on_progress=show)
    except Exception as exc:  # noqa: BLE001  (say what failed in one line; the cache keeps what was made)
        print(f"faq {command}: failed ({describe_failure(exc, settings.resolved_database_url)}); "
              "run it again to go on where it stopped", file=sys.stderr)
        return _failure_code(exc)
    finally:
        bar.close()
    assert manifest is not None  # nothing asks it to stop
    print(f"vectors of generation {name}: {manifest.describe()}; {last.embedded} embedded now, "
          f"{last.done - last.embedded} from the cache ({time.perf_counter() - started:.1f} s). "
          "Running servers search by meaning within seconds", file=said)
    return EXIT_OK


def _reindex(args: argparse.Namespace, settings: Settings) -> int:
    import time

    from app.generations import IngestRunning, describe_failure
    from app.ingest.store import reindex_generation

    started = time.perf_counter()
    try:
        target, entries = reindex_generation(settings)
    except IngestRunning as exc:
        print(f"faq reindex: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001  (say what failed in one line; the current data stays)
        print(f"faq reindex: failed ({describe_failure(exc, settings.resolved_database_url)}); the current data "
              "is unchanged", file=sys.stderr)
        return _failure_code(exc)
    print(f"reindexed {entries} entries into generation {target.name} ({time.perf_counter() - started:.2f} s)")
    return EXIT_OK


def _migrate(args: argparse.Namespace, settings: Settings) -> int:
    from app.generations import describe_failure
    from app.ingest.store import migrate_database

    try:
        print(migrate_database(settings))
    except Exception as exc:  # noqa: BLE001  (say what failed in one line)
        print(f"faq migrate: {describe_failure(exc, settings.resolved_database_url)}", file=sys.stderr)
        return _failure_code(exc)
    return EXIT_OK


def _stats(args: argparse.Namespace, settings: Settings) -> int:
    from app.feedback import entry_feedback
    from app.generations import describe_failure
    from app.querylog import top_queries

    for title, zero_only in (("searches that found nothing (FAQ to write)", True), ("most frequent searches", False)):
        try:
            rows = top_queries(settings, args.days, args.limit, zero_only)
        except Exception as exc:  # noqa: BLE001  (say what failed in one line)
            return _fail("stats", describe_failure(exc, settings.resolved_database_url), _failure_code(exc))
        print(f"{title}, last {args.days} days:")
        for row in rows:
            print(f"  {row.searches:>6} searches  {row.zero:>6} found nothing  {row.query}")
        if not rows:
            print("  none recorded" + ("" if settings.query_log_days else " (FAQ_QUERY_LOG_DAYS=0 records nothing)"))
    print(f"was it helpful? the least helpful entries first, last {args.days} days:")
    try:
        helpfulness = entry_feedback(settings, args.days, args.limit)
    except Exception as exc:  # noqa: BLE001  (say what failed in one line)
        return _fail("stats", describe_failure(exc, settings.resolved_database_url), _failure_code(exc))
    for votes in helpfulness:
        print(f"  {votes.helpful:>6} helpful  {votes.unhelpful:>6} not helpful  {votes.entry_id}")
        for day, helpful, comment in votes.comments[:3]:
            print(f"           {day} {'+' if helpful else '-'} {comment[:160]}")
    return EXIT_OK


def _report(args: argparse.Namespace, settings: Settings) -> int:
    from app.db import NoDataError
    from app.generations import describe_failure
    from app.report import build_report, current_reader, to_markdown
    from app.web.strings import INTERFACE

    try:
        with current_reader(settings) as reader:
            report = build_report(reader, settings, args.days, args.limit)
    except NoDataError as exc:
        return _fail("report", str(exc), EXIT_FAILED)
    except Exception as exc:  # noqa: BLE001  (an unreachable database, a missing right: one line)
        return _fail("report", describe_failure(exc, settings.resolved_database_url), _failure_code(exc))
    if args.format == "html":
        from app.report import to_html

        text = to_html(report, settings.public_url)
    else:
        text = to_markdown(report, INTERFACE["en"], settings.public_url)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            return _fail("report", f"cannot write {args.output}: {exc.strerror or exc}", EXIT_FAILED)
    else:
        sys.stdout.write(text)
    failing = report.failing(args.fail_on)
    if failing:
        found = ", ".join(f"{section.name} {len(section.findings)}" for section in failing)
        return _fail("report", f"--fail-on {','.join(args.fail_on)}: found {found}", EXIT_FAILED)
    return EXIT_OK


def _sections(text: str) -> list[str]:
    """A comma list of the report's section names (`untranslated,links`)."""
    from app.report import SECTION_NAMES

    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in SECTION_NAMES]
    if unknown or not names:
        said = f"unknown section {unknown[0]!r}" if unknown else "no section named"
        raise argparse.ArgumentTypeError(f"{said}: give a comma list of {', '.join(SECTION_NAMES)}")
    return names


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import logging.config

    import uvicorn

    from app.generations import NO_DATA_ADVICE, current_name, describe_failure, is_sqlite, lacks_rights
    from app.limits import MAX_REQUEST_HEAD
    from app.logs import logging_config
    from app.startup import claim_watch, free_space_problem, listen_problem, watcher_pid, writable_problem

    problem = listen_problem(args.host, args.port)  # before anything else is said: nothing else matters then
    if problem:
        return _fail("serve", problem, EXIT_LISTEN)
    if args.watch and not settings.content_dir.is_dir():
        return _fail("serve", f"--watch: no content folder at {settings.content_dir}; create it, or set "
                              "FAQ_CONTENT_DIR to your folder of markdown", EXIT_SETTINGS)
    log_format = args.log_format or settings.log_format
    logging.config.dictConfig(logging_config(log_format))
    say = _announcer(log_format)
    url = settings.resolved_database_url
    local = is_sqlite(url)
    unwritable = writable_problem(settings.data_dir)
    if unwritable:
        say(f"{unwritable}: serving the data it holds; " + (
            "search statistics are off and `faq ingest` cannot publish here until it is writable" if local else
            "its search index cannot be built here until it is writable"))
    elif (low := free_space_problem(settings.data_dir)) is not None:
        say(f"{low}: serving the data it holds; a new generation or the search statistics may not fit")
    try:
        if current_name(settings) is None:
            say(f"no data in {settings.data_dir if local else 'the database'} yet; {NO_DATA_ADVICE} "
                "(pages answer 503 until then)")
    except Exception as exc:  # noqa: BLE001  (serve anyway: readers get 503 until the database answers)
        if lacks_rights(exc):
            return _fail("serve", describe_failure(exc, url), EXIT_RIGHTS)
        say(f"{describe_failure(exc, url)} (pages answer 503 until then)")
    if args.watch:
        from app.live import watch_content

        watch_lock = claim_watch(settings.data_dir)  # held (open) while this process serves
        if watch_lock is None:
            say(f"another `faq serve --watch` (pid {watcher_pid(settings.data_dir)}) already re-ingests "
                f"{settings.content_dir} for this data folder; this one serves without watching")
        else:
            threading.Thread(target=watch_content, args=(settings, threading.Event()), name="faq-watch",
                             daemon=True).start()
            say(f"watching {settings.content_dir}; changes are re-ingested")
    shown = socket.gethostname() if args.host in ("0.0.0.0", "::") else args.host
    say(f"open http://{shown}:{args.port}/ in a browser (API docs at /docs; Ctrl+C stops)")
    try:
        uvicorn.run("app.main:app", host=args.host, port=args.port, workers=args.workers, proxy_headers=True,
                    http="app.web.http:NoDelayProtocol", h11_max_incomplete_event_size=MAX_REQUEST_HEAD,
                    log_config=logging_config(log_format), access_log=False)  # ours: app/web/operations.py
    except (_Stopped, KeyboardInterrupt) as stop:  # uvicorn has shut down and passes the signal on
        if log_format != "json":
            raise
        say(f"stopped ({'SIGTERM' if isinstance(stop, _Stopped) else 'Ctrl+C'})")
        return EXIT_TERMINATED if isinstance(stop, _Stopped) else EXIT_INTERRUPTED
    return EXIT_OK


def _announcer(log_format: str) -> Callable[[str], None]:
    """How `faq serve` says what it does at start: a plain line on standard output, or a JSON log line."""
    if log_format == "json":
        import logging

        serve_log = logging.getLogger("faq.serve")
        return lambda message: serve_log.info("faq serve: %s", message)
    return lambda message: print(f"faq serve: {message}", flush=True)


def _failure_code(exc: BaseException) -> int:
    """EXIT_RIGHTS when the database refused for want of a right, else EXIT_FAILED."""
    from app.generations import lacks_rights

    return EXIT_RIGHTS if lacks_rights(exc) else EXIT_FAILED


def _fail(command: str, message: str, code: int) -> int:
    """Say in one line on standard error why `faq COMMAND` stops; return its exit code."""
    print(f"faq {command}: {message}", file=sys.stderr, flush=True)
    return code


def _eval(args: argparse.Namespace, settings: Settings) -> int:
    from measure.evaluation import compared_columns, evaluate, read_queries, report_lines, semantic_state

    path = Path(args.queries)
    if not path.is_file():
        print(f"faq eval: no query file at {path}; give a tab-separated file of id, k, query, expected texts "
              "(e.g. eval/queries-project.tsv)", file=sys.stderr)
        return EXIT_USAGE
    queries = read_queries(path)
    if not queries:
        print(f"faq eval: no queries in {path}", file=sys.stderr)
        return EXIT_USAGE
    from app.db import NoDataError
    from app.generations import NO_DATA_ADVICE, current_name, describe_failure

    try:
        if current_name(settings) is None:
            return _fail("eval", f"no data yet: {NO_DATA_ADVICE}", EXIT_FAILED)
        if settings.semantic:
            # The figures are those of the ranking readers get once the vectors are made, not of the words alone
            # while a server would still be making them: make them first (from the cache, mostly), or wait for
            # the server making them. FAQ_SEMANTIC=false measures the words alone.
            # No reader waits on this machine's cores meanwhile: every core embeds, not FAQ_EMBED_THREADS.
            threads = max(settings.embed_threads, _usable_cores())
            _make_vectors(settings, "eval", threads, quiet=not sys.stderr.isatty(), wait=True)
        state = semantic_state(settings)
        semantic = state.startswith("ready")
        result = evaluate(settings, queries)
        columns = compared_columns(settings, queries, semantic) if args.compare else []
    except NoDataError as exc:
        return _fail("eval", str(exc), EXIT_FAILED)
    except Exception as exc:  # noqa: BLE001  (an unreachable database, a missing right: one line)
        return _fail("eval", describe_failure(exc, settings.resolved_database_url), _failure_code(exc))
    print(f"ranking:    {'hybrid (words and meaning)' if semantic else 'lexical'}; search by meaning {state}")
    print("\n".join(report_lines(queries, result, semantic, columns)))
    return EXIT_OK


def _check(args: argparse.Namespace, settings: Settings) -> int:
    if args.self_test:
        return _repair_self_test([Path(f) for f in args.files], settings.content_dir)
    from sqlmodel import col, select

    from app.db import DataStore, NoDataError
    from app.generations import REBUILD_ADVICE, describe_failure
    from app.models import IngestNote

    store = DataStore(settings, semantic=True)
    try:
        with store.session() as session:
            notes = session.exec(
                select(IngestNote).where(col(IngestNote.kind).in_(CHECK_KINDS))
                .order_by(col(IngestNote.path), col(IngestNote.line))
            ).all()
        damaged = store.fallback
        pointer_problem = store.pointer_problem
        vectors = store.semantic_state(store.current())
        vectors_damaged = store.vector_problem
    except NoDataError as exc:
        print(f"faq check: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001  (an unreachable database, a missing right: one line)
        return _fail("check", describe_failure(exc, settings.resolved_database_url), _failure_code(exc))
    finally:
        store.close()
    if damaged:
        print(f"data: damaged: generation {damaged[0]} cannot be served ({damaged[2]}); the server falls back to "
              f"{damaged[1]}; {REBUILD_ADVICE}")
    if pointer_problem:
        print(f"data: {pointer_problem}")
    for note in notes:
        where = f"{note.path}:{note.line}" if note.line else note.path
        print(f"{where}: {note.kind}: {note.message}")
    print(f"vectors: damaged: {vectors_damaged}; search is by words only until `faq reindex` rebuilds them"
          if vectors_damaged else f"vectors: {vectors}")
    counts = Counter(note.kind for note in notes)
    print(f"{int(bool(damaged))} damaged generations, {int(bool(vectors_damaged))} damaged vector files, "
          f"{counts['repair-uncertain']} uncertain repairs, {counts['skipped']} skipped files, "
          f"{counts['link-problem']} link problems, {counts['link-review']} low-confidence pairs to confirm "
          f"(`pair`/`unpair` in content/links.tsv), {counts['structure']} structure notes "
          f"(`faq inspect FILE`), {counts['warning']} other warnings, "
          f"{counts['link-info']} notes")
    failing = damaged or pointer_problem or vectors_damaged or any(counts[kind] for kind in FAILING_KINDS)
    return EXIT_FAILED if failing else EXIT_OK


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


class _Parser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line (what was wrong, where to look) instead of the usage text."""

    def error(self, message: str) -> NoReturn:
        """Exit 2 with `faq CMD: <what was wrong>; see `faq CMD --help``."""
        self.exit(EXIT_USAGE, f"{self.prog}: {message}; see `{self.prog} --help`\n")


def _whole_number(text: str, minimum: int, maximum: int | None = None, what: str = "") -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < minimum or (maximum is not None and value > maximum):
        span = f"{minimum} to {maximum}" if maximum is not None else f"{minimum} or more"
        raise argparse.ArgumentTypeError(f"{text} is out of range: give {what or 'a number'} {span}")
    return value


def _port(text: str) -> int:
    """A TCP port, 1 to 65535."""
    return _whole_number(text, 1, 65535, "a TCP port")


def _at_least_one(text: str) -> int:
    """A whole number of 1 or more."""
    return _whole_number(text, 1)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("faq-portal")
    except PackageNotFoundError:
        return "unknown (not installed: run `make install`)"


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    from app.report import SECTION_NAMES  # the standard library only: no database layer
    parser = _Parser(prog="faq", description="Bilingual FAQ portal")
    parser.add_argument("--version", action="version", version=f"faq {_version()}",
                        help="print the portal's version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ingest = commands.add_parser("ingest", help="read content/ into a new database and search index")
    ingest.add_argument("--content", metavar="DIR", help="content folder (default: FAQ_CONTENT_DIR)")
    ingest.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
    ingest.add_argument("--if-changed", action="store_true",
                        help="do nothing when the content and the portal are unchanged since the last ingest into "
                             "this data folder (default: off)")
    ingest.set_defaults(handler=_ingest)
    embed = commands.add_parser(
        "embed", help="make the current generation's vectors now (servers otherwise make them in the background)")
    embed.add_argument("--threads", type=_at_least_one, default=0,
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
    serve.add_argument("--port", type=_port, default=8000, help="TCP port, 1 to 65535 (default: %(default)s)")
    serve.add_argument("--workers", type=_at_least_one, default=1,
                       help="worker processes; each holds its own copy of the index (default: %(default)s)")
    serve.add_argument("--watch", action="store_true",
                       help="re-ingest whenever a file under the content folder changes (default: off)")
    serve.add_argument("--log-format", choices=("plain", "json"), default=None,
                       help="log lines: plain (readable) or json (one object per line, ISO 8601 times) "
                            "(default: FAQ_LOG_FORMAT, plain)")
    serve.set_defaults(handler=_serve)
    check = commands.add_parser(
        "check", help="list what an editor should fix: uncertain repairs, skipped files, link problems")
    check.add_argument("--self-test", action="store_true",
                       help="damage clean Chinese text the way mojibake damages it (the bundled repair sample, the "
                            "content's clean Chinese files, and any FILEs), repair it, print the figures "
                            "(default: off)")
    check.add_argument("files", nargs="*", metavar="FILE", help="with --self-test: more clean text to measure on")
    check.set_defaults(handler=_check)
    inspect = commands.add_parser(
        "inspect", help="show how one file segments: each entry, the rule that made it, the readings that lost")
    inspect.add_argument("file", metavar="FILE", help="a markdown file (inside or outside the content folder)")
    inspect.set_defaults(handler=_inspect)
    stats = commands.add_parser("stats", help="what readers searched for, what found nothing, what did not help")
    stats.add_argument("--days", type=_at_least_one, default=30, help="how many days back (default: %(default)s)")
    stats.add_argument("--limit", type=_at_least_one, default=20,
                       help="queries in each list (default: %(default)s)")
    stats.set_defaults(handler=_stats)
    report = commands.add_parser(
        "report", help="the editors' report, per document and language: untranslated entries, entries readers found "
                       "unhelpful, searches that found nothing, uncertain repairs, structure close calls, broken "
                       "links (for a docs repository's CI)")
    report.add_argument("--format", choices=("markdown", "html"), default="markdown",
                        help="markdown or a standalone HTML page (default: %(default)s)")
    report.add_argument("--output", metavar="FILE", help="write the report to FILE (default: standard output)")
    report.add_argument("--fail-on", type=_sections, default=[], metavar="SECTIONS",
                        help="exit 1 when any of these sections has findings, a comma list of "
                             f"{', '.join(SECTION_NAMES)} (default: never)")
    report.add_argument("--days", type=_at_least_one, default=30,
                        help="readers' searches and votes of how many days back (default: %(default)s)")
    report.add_argument("--limit", type=_at_least_one, default=50,
                        help="searches that found nothing listed, the most frequent first (default: %(default)s)")
    report.set_defaults(handler=_report)
    links = commands.add_parser("eval-links", help="precision/recall of entry pairs against a gold corpus")
    links.add_argument("corpus", metavar="CORPUS_DIR",
                       help="folders of documents with gold pairs.tsv/unpaired.tsv, e.g. tests/fixtures/styles")
    links.add_argument("--verbose", action="store_true",
                       help="list every missed and extra question (default: off)")
    links.set_defaults(handler=_eval_links)
    evaluation = commands.add_parser("eval", help="search quality on a query file (success@k, MRR@10)")
    evaluation.add_argument("queries", metavar="QUERIES.tsv",
                            help="tab-separated: id, k, query, expected (texts of the answering entry, '|' between "
                                 "them)[, lang, kind], e.g. eval/queries-project.tsv")
    evaluation.add_argument("--compare", action="store_true",
                            help="also rank by words only and by meaning only (when the vectors are made), and "
                                 "run the SQLite FTS5 trigram baseline (words OR-ed) on the same entries "
                                 "(default: off)")
    evaluation.set_defaults(handler=_eval)
    return parser


class _Stopped(BaseException):
    """SIGTERM arrived: unwind (finally blocks clean up a half-built generation) and say so in one line."""


def _on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise _Stopped


@contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """While a command runs in the main thread, SIGTERM raises _Stopped instead of killing the process silently."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _settings_problem(exc: ValidationError) -> str:
    """The first invalid FAQ_* setting as one line."""
    error = exc.errors()[0]
    name = f"FAQ_{str(error['loc'][0]).upper()}" if error["loc"] else "a setting"
    reason = str(error["msg"]).removeprefix("Value error, ")
    return f"{name}={error.get('input')!s}: {reason}; fix it in the environment or .env"


def get_settings() -> Settings:
    """The portal's settings (app.config, with pydantic, is imported only once `main` handles signals)."""
    from app.config import get_settings as read_settings

    return read_settings()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `faq` command; returns the exit code. Ctrl+C or SIGTERM at any point, start-up included, is one
    line."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    command = next((word for word in arguments if not word.startswith("-")), "")
    publishing = command in ("ingest", "reindex")
    after = "; nothing was published: the data served before is unchanged" if publishing else ""
    try:
        with _sigterm_unwinds():
            return _run(arguments)
    except KeyboardInterrupt:
        return _fail(command, f"stopped (Ctrl+C){after}", EXIT_INTERRUPTED)
    except _Stopped:
        return _fail(command, f"stopped (SIGTERM){after}", EXIT_TERMINATED)
    except BrokenPipeError:  # `faq inspect … | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes
        return 0


def _run(arguments: Sequence[str]) -> int:
    """Parse `arguments`, check the settings and the database driver, then run the command."""
    from pydantic import ValidationError

    from app.generations import database_url_problem

    args = build_parser().parse_args(arguments)
    try:
        settings = get_settings()
    except ValidationError as exc:
        return _fail(args.command, _settings_problem(exc), EXIT_SETTINGS)
    if args.command not in WITHOUT_DATABASE and not (args.command == "check" and args.self_test):
        problem = database_url_problem(settings.resolved_database_url)
        if problem:
            return _fail(args.command, problem, EXIT_SETTINGS)
    code: int = args.handler(args, settings)
    return code


if __name__ == "__main__":
    sys.exit(main())
