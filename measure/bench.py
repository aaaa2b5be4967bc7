"""`make bench`: ingest time, cold start and search latency over HTTP, printed as a table.

Figures are measured side by side in one run; compare ratios across runs, not absolute
times (the machines are shared and noisy).
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import httpx
import numpy as np
from sqlmodel import Session

from app.config import Settings
from app.db import DataStore
from app.generations import current_name, generation
from app.ingest.pipeline import run_ingest
from app.queries import Reader, all_entries
from app.search.embedding import COMPANION_RECIPE, PASSAGE_RECIPE
from app.vectorcache import VectorCache, vector_key
from measure import semantic_bench
from measure.corpus import BenchEntry, generate, make_queries, vague_queries, write_corpus
from measure.evaluation import TrigramBaseline, read_queries
from measure.localserver import ROOT, running_server

DEFAULT_QUERIES = ROOT / "eval" / "queries-project.tsv"  # another query file: the first argument
FALLBACK_QUERIES = ["FSDP", "显存", "PYTORCH_CUDA_ALLOC_CONF", "内存碎片", "deepspeed 版本", "fused_adam"]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def bench_ingest(content: Path, rounds: int = 3) -> list[float]:
    """Seconds per full ingest of `content`, each into a fresh data directory."""
    times = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as data:
            settings = Settings(content_dir=content, data_dir=Path(data), database_url="")
            started = time.perf_counter()
            run_ingest(settings, progress=False)
            times.append(time.perf_counter() - started)
    return times


def bench_server(data: Path, queries: list[str], rounds: int, cache: bool) -> tuple[float, list[float]]:
    """Cold start (process start → first search answered) and per-request latencies."""
    env = {"FAQ_DATA_DIR": str(data), "FAQ_SEARCH_CACHE_SIZE": "512" if cache else "0"}
    first = "/api/v1/search?" + urlencode({"q": queries[0]})
    with running_server(env, ready_path=first) as (base, cold, _), httpx.Client(timeout=10) as client:
        latencies = []
        for _ in range(rounds):
            for query in queries:
                t0 = time.perf_counter()
                client.get(base + "/api/v1/search", params={"q": query, "limit": 10}).raise_for_status()
                latencies.append((time.perf_counter() - t0) * 1000)
    return cold, latencies


def keystrokes(titles: list[str], longest: int = 12) -> list[str]:
    """What a reader types on the way to each title: its first 1, 2, … `longest` characters."""
    return [title[:n] for title in titles for n in range(1, min(len(title), longest) + 1) if title[:n].strip()]


def bench_suggest(data: Path, titles: int | None = None) -> list[float]:
    """Per-request latencies of /api/v1/suggest over HTTP, one request per keystroke towards every title
    (or towards `titles` of them, spread evenly)."""
    every = [e.title for e in all_entries(Settings(data_dir=data, database_url=""))]
    typed = keystrokes(every[::max(1, len(every) // titles)] if titles else every)
    with running_server({"FAQ_DATA_DIR": str(data)}, ready_path="/api/v1/suggest?q=a") as (base, _, _), \
            httpx.Client(timeout=10) as client:
        latencies = []
        for text in typed:
            t0 = time.perf_counter()
            client.get(base + "/api/v1/suggest", params={"q": text}).raise_for_status()
            latencies.append((time.perf_counter() - t0) * 1000)
    return latencies


Pool = dict[str, tuple[list[str], list[str]]]


def _pool(data: Path) -> Pool:
    """Titles and answers per language from an ingested generation, to recombine."""
    entries = all_entries(Settings(data_dir=data, database_url=""))
    return {lang: ([e.title for e in entries if e.lang == lang], [e.body_text for e in entries if e.lang == lang])
            for lang in ("en", "zh")}


def _keys_by_id(data: Path) -> dict[str, str]:
    return {e.id: m.group(1).lower() for e in all_entries(Settings(data_dir=data, database_url=""))
            if (m := re.search(r"export ([A-Z0-9_]+)=1", e.body_markdown))}


def _in_process_ms(data: Path, queries: list[str]) -> list[float]:
    """The portal's search called directly, result cache off: the figure to set beside FTS5 in-process."""
    store = DataStore(Settings(data_dir=data, database_url="", search_cache_size=0, query_log_days=0))
    snapshot = store.current()
    latencies = []
    try:
        for query in queries[:1] + queries:  # the first warms the generation's caches, as the server's does
            with Session(snapshot.engine) as session:
                t0 = time.perf_counter()
                Reader(snapshot=snapshot, session=session, cache_size=0).search(query, None, 10, 0)
                latencies.append((time.perf_counter() - t0) * 1000)
    finally:
        store.close()
    return latencies[1:]


def _sizes(data: Path, label: str) -> tuple[str, str, str]:
    """The current generation's database file and index folder, in MB."""
    settings = Settings(data_dir=data, database_url="")
    name = current_name(settings)
    if name is None:
        raise RuntimeError(f"no generation was published in {data}")
    current = generation(settings, name)
    database = current.database_file.stat().st_size / 1e6
    index = sum(f.stat().st_size for f in current.index_dir.iterdir()) / 1e6
    return f"data {label}: database / index (MB)", f"{database:.0f} / {index:.0f}", ""


def bench_large(pool: Pool, size: int, query_count: int, readiness: int = 1000) -> list[tuple[str, str, str]]:
    """Ingest time at 1k and `size` entries; Whoosh over HTTP vs FTS5 trigram on the same queries; then search by
    meaning at that size (see `bench_semantic`)."""
    rows = []
    entries = generate(pool, size)
    queries = make_queries(entries, query_count)
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        for label, subset in (("1k", entries[:1000]), (f"{size // 1000}k", entries)):
            write_corpus(subset, root / f"content-{label}")
            settings = Settings(content_dir=root / f"content-{label}", data_dir=root / f"data-{label}", database_url="")
            started = time.perf_counter()
            run_ingest(settings, progress=False)
            rows.append((f"ingest {label} generated entries (s)", f"{time.perf_counter() - started:.2f}", ""))
        data = root / f"data-{size // 1000}k"
        label = f"{size // 1000}k"
        rows.append(_sizes(data, label))
        keys = _keys_by_id(data)
        whoosh_hits, whoosh_ms = 0, []
        vague, vague_ms = vague_queries(entries, query_count // 2), []
        env = {"FAQ_DATA_DIR": str(data), "FAQ_SEARCH_CACHE_SIZE": "0"}
        first = "/api/v1/search?" + urlencode({"q": queries[0].text})
        with running_server(env, ready_path=first) as server, httpx.Client(timeout=30) as client:
            base = server.base
            for query in queries:
                t0 = time.perf_counter()
                body = client.get(base + "/api/v1/search", params={"q": query.text, "limit": 10}).json()
                whoosh_ms.append((time.perf_counter() - t0) * 1000)
                whoosh_hits += query.key in [keys.get(r["id"]) for r in body["results"]]
            for text in vague:
                t0 = time.perf_counter()
                client.get(base + "/api/v1/search", params={"q": text, "limit": 10}).raise_for_status()
                vague_ms.append((time.perf_counter() - t0) * 1000)
            rows += [(f"server {label}: cold start to the first search answered (s)", f"{server.cold:.2f}", ""),
                     (f"server {label}: resident memory after the searches (MB)",
                      f"{server.resident_megabytes():.0f}", "")]
        in_process_ms = _in_process_ms(data, [query.text for query in queries])
        suggest = bench_suggest(data, titles=200)
        fts = TrigramBaseline((e.key, f"{e.title}\n{e.body}") for e in entries)
        fts_hits, fts_ms = 0, []
        for query in queries:
            t0 = time.perf_counter()
            found = fts.search(query.text, limit=10)
            fts_ms.append((time.perf_counter() - t0) * 1000)
            fts_hits += query.key in found
        vague_fts_ms: list[float] = []
        for text in vague:
            t0 = time.perf_counter()
            fts.search(text, limit=10)
            vague_fts_ms.append((time.perf_counter() - t0) * 1000)
        n = len(queries)
        rows += [
            (f"search {label} selective, Whoosh over HTTP (ms)", f"p50 {_percentile(whoosh_ms, 0.5):.1f}",
             f"p95 {_percentile(whoosh_ms, 0.95):.1f}  p99 {_percentile(whoosh_ms, 0.99):.1f}  "
             f"success@10 {whoosh_hits / n:.1%}  n={n}"),
            (f"search {label} selective, Whoosh in-process (ms)", f"p50 {_percentile(in_process_ms, 0.5):.1f}",
             f"p95 {_percentile(in_process_ms, 0.95):.1f}  p99 {_percentile(in_process_ms, 0.99):.1f}  "
             "(the same search, snippets included, without HTTP)"),
            (f"search {label} selective, FTS5 trigram in-process (ms)", f"p50 {_percentile(fts_ms, 0.5):.1f}",
             f"p95 {_percentile(fts_ms, 0.95):.1f}  success@10 {fts_hits / n:.1%}  build {fts.build_seconds:.2f} s"),
            (f"search {label} vague, Whoosh over HTTP (ms)", f"p50 {_percentile(vague_ms, 0.5):.1f}",
             f"p95 {_percentile(vague_ms, 0.95):.1f}  p99 {_percentile(vague_ms, 0.99):.1f}  n={len(vague)}"),
            (f"search {label} vague, FTS5 trigram in-process (ms)", f"p50 {_percentile(vague_fts_ms, 0.5):.1f}",
             f"p95 {_percentile(vague_fts_ms, 0.95):.1f}  p99 {_percentile(vague_fts_ms, 0.99):.1f}"),
            (f"suggest {label}, per keystroke over HTTP (ms)", f"p50 {_percentile(suggest, 0.5):.1f}",
             f"p95 {_percentile(suggest, 0.95):.1f}  n={len(suggest)}"),
        ]
        rows += bench_semantic(root, entries, size, [query.text for query in queries], vague, readiness)
    return rows


def bench_semantic(root: Path, entries: list[BenchEntry], size: int, queries: list[str], vague: list[str],
                   readiness: int) -> list[tuple[str, str, str]]:
    """Search by meaning on the generated corpora: embedding throughput, the time from publication to hybrid
    search at `readiness` entries (extrapolated to `size`) and what a re-ingest then embeds again, and hybrid
    beside lexical at `size` entries (with stand-in vectors past `readiness`: see measure/semantic_bench.py)."""
    model = semantic_bench.embedder()
    label, ready_label = f"{size // 1000}k", f"{readiness:,} entries"
    big = Settings(content_dir=root / f"content-{label}", data_dir=root / f"data-{label}", database_url="")
    measured = big if readiness >= size else Settings(content_dir=root / "content-ready",
                                                      data_dir=root / "data-ready", database_url="")
    if measured is not big:
        write_corpus(entries[:readiness], measured.content_dir)
        run_ingest(measured, progress=False)
    texts = semantic_bench.generation_texts(measured, model)
    rows = semantic_bench.throughput_rows(model, texts[:160])
    threads = int(os.environ.get("FAQ_EMBED_THREADS", "1"))
    ready_rows, ready_seconds = semantic_bench.readiness_rows(measured.data_dir, ready_label, threads)
    rows += ready_rows
    rows += semantic_bench.reingest_rows(measured, model)
    if measured is not big:
        sample = VectorCache(measured, model.dimensions)
        companion = model.companion
        second = VectorCache(measured, companion.dimensions) if companion is not None else None
        try:
            found = sample.get([vector_key(model.name, PASSAGE_RECIPE, text) for text in texts])
            also = second.get([vector_key(companion.name, COMPANION_RECIPE, text) for text in texts]) \
                if second is not None and companion is not None else {}
        finally:
            sample.close()
            if second is not None:
                second.close()
        semantic_bench.stand_in_vectors(big, model, np.stack(list(found.values())),
                                        np.stack(list(also.values())) if also else None)
        rows.append((f"vectors {label}", "stand-ins", f"the {ready_label}' real vectors repeated: latency and "
                                                       "memory as at this size, not its ranking quality"))
        rows.append((f"semantic readiness {label}: publish to hybrid search (s)",
                     f"~{ready_seconds * size / readiness:.0f}",
                     f"extrapolated from {ready_label}: embedding time grows with the entries"))
    rows += semantic_bench.search_rows(big.data_dir, f"{label} selective", queries)
    rows += semantic_bench.search_rows(big.data_dir, f"{label} vague", vague)
    if measured is not big:  # the cache holds every entry's (stand-in) vector: only the edited ones are embedded
        rows += semantic_bench.reingest_rows(big, model)
    return rows


def main() -> int:
    """Run every benchmark and print the table."""
    content = ROOT / "content"
    query_file = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_QUERIES
    queries = [q.query for q in read_queries(query_file)] if query_file.exists() else FALLBACK_QUERIES
    ingest = bench_ingest(content)
    rows = [("ingest content/ (s)", f"median {statistics.median(ingest):.2f}", f"min {min(ingest):.2f}")]
    with tempfile.TemporaryDirectory() as data:
        run_ingest(Settings(content_dir=content, data_dir=Path(data), database_url=""), progress=False)
        for cache in (False, True):
            cold, latencies = bench_server(Path(data), queries, rounds=10, cache=cache)
            label = "cached" if cache else "uncached"
            rows.append((f"cold start, {label} (s)", f"{cold:.2f}", ""))
            rows.append((f"search over HTTP, {label} (ms)", f"p50 {_percentile(latencies, 0.5):.1f}",
                         f"p95 {_percentile(latencies, 0.95):.1f}  n={len(latencies)}"))
        suggest = bench_suggest(Path(data))
        rows.append(("suggest over HTTP, per keystroke (ms)", f"p50 {_percentile(suggest, 0.5):.1f}",
                     f"p95 {_percentile(suggest, 0.95):.1f}  n={len(suggest)}"))
        pool = _pool(Path(data))
        seeds = Settings(content_dir=content, data_dir=Path(data), database_url="")
        seconds, embedded = semantic_bench.embed_now(seeds, semantic_bench.embedder())
        rows.append(("embed content/ (s)", f"{seconds:.1f}", f"{embedded} entries, 2 threads"))
        rows += semantic_bench.search_rows(Path(data), "content/", queries, rounds=10)
    rows += semantic_bench.model_rows()
    size = int(os.environ.get("BENCH_ENTRIES", "10000"))
    rows += bench_large(pool, size, query_count=int(os.environ.get("BENCH_QUERIES", "200")),
                        readiness=int(os.environ.get("BENCH_READINESS", "1000")))
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'figure':<14}  detail")
    for name, figure, detail in rows:
        print(f"{name:<{width}}  {figure:<14}  {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
