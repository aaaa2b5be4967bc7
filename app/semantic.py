"""Making a generation's vectors: embed what the cache lacks, then assemble the generation's vector file.

An ingest publishes lexically and never waits for the model (a few minutes per thousand entries on
a CPU). Each server runs a `VectorWorker` thread that embeds the current generation's entries in
the background, one process at a time per data folder (SQLite) or per database (PostgreSQL: one
replica embeds into the shared cache, each replica then assembles its own file from it), and tells
the server when the file is ready; the server then searches by meaning as well. `faq embed` does
the same in the foreground. Progress is written beside the generation, for `/readyz` and `faq check`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import NullPool, create_engine, func, select

from app.config import Settings
from app.generations import Generation, current_name, exclusive_turn, generation, in_schema
from app.models import INDEX_ORDER, Entry
from app.search.companion import Companion
from app.search.dense import Quantised, VectorManifest, VectorsDamaged, quantise, read_manifest, write_vectors
from app.search.embedding import (
    COMPANION_RECIPE,
    PASSAGE_RECIPE,
    QUESTION_RECIPE,
    Embedder,
    Vectors,
    clean,
    passage_text,
    vectors_recipe,
)
from app.vectorcache import VectorCache, vector_key

log = logging.getLogger("faq.semantic")

CHUNK = 256  # entries read, looked up and embedded at a time
BATCH = 16  # texts per call of the model (they share each layer's matrix product)
COMPANION_BATCH = 32  # texts per call of the companion model (about 6 ms each)
POLL_SECONDS = 2.0
STOP_WAIT_SECONDS = 2.0
PROGRESS_FILE = "vectors.progress.json"
LOCK_FILE = "EMBEDDING.lock"
EMBED_LOCK = 7_414_752  # pg_try_advisory_lock key: one embedder per database


@dataclass
class Progress:
    """How far the vectors of one generation are: entries looked at, and of those, embedded now."""

    generation: str
    total: int
    done: int = 0
    embedded: int = 0
    started: float = 0.0
    updated: float = 0.0

    def describe(self) -> str:
        """One line: `embedding 1,200 of 10,000 entries (12%), about 40 min left`."""
        share = self.done / self.total if self.total else 1.0
        line = f"embedding {self.done:,} of {self.total:,} entries ({share:.0%})"
        elapsed = self.updated - self.started
        if self.embedded and elapsed > 0 and self.done < self.total:
            rate = self.done / elapsed
            line += f", about {_duration((self.total - self.done) / rate)} left"
        return line


def _duration(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def read_progress(directory: Path) -> Progress | None:
    """The progress written beside a generation, if an embedder has written any."""
    try:
        raw = json.loads((directory / PROGRESS_FILE).read_text(encoding="utf-8"))
        return Progress(**raw)
    except (OSError, ValueError, TypeError):
        return None


def _write_progress(directory: Path, progress: Progress) -> None:
    temporary = directory / f".{PROGRESS_FILE}.{os.getpid()}"
    try:
        temporary.write_text(json.dumps(asdict(progress)), encoding="utf-8")
        os.replace(temporary, directory / PROGRESS_FILE)
    except OSError:  # progress is for people; a full disk must not stop the embedding
        pass


@dataclass(frozen=True)
class EntryText:
    """One entry in index order: its id, language and the cache keys of its texts (None: no vectors)."""

    id: str
    lang: str
    key: str | None  # its question and answer's
    question_key: str | None  # its question's, read as a query
    companion_key: str | None = None  # its question and answer's, by the companion model


def entry_texts(target: Generation, model: str, companion: str | None = None
                ) -> Iterator[list[tuple[EntryText, str | None, str | None]]]:
    """The generation's entries in index order, a chunk at a time, each with the texts its vectors hold
    (question and answer, also by the `companion` model if named; question alone)."""
    engine = in_schema(create_engine(target.database_url, poolclass=NullPool), target.schema)
    try:
        with engine.connect() as connection:
            rows = connection.execution_options(yield_per=CHUNK).execute(
                select(Entry.id, Entry.lang, Entry.title, Entry.body_text).order_by(*INDEX_ORDER))  # type: ignore[call-overload]
            for part in rows.partitions(CHUNK):
                chunk: list[tuple[EntryText, str | None, str | None]] = []
                for id_, lang, title, body in part:
                    passage = passage_text(title, body or "")
                    if passage is None:
                        chunk.append((EntryText(id_, lang, None, None), None, None))
                        continue
                    question = clean(title)
                    companion_key = vector_key(companion, COMPANION_RECIPE, passage) if companion else None
                    chunk.append((EntryText(id_, lang, vector_key(model, PASSAGE_RECIPE, passage),
                                            vector_key(model, QUESTION_RECIPE, question), companion_key),
                                  passage, question))
                yield chunk
    finally:
        engine.dispose()


def _count(target: Generation) -> int:
    engine = in_schema(create_engine(target.database_url, poolclass=NullPool), target.schema)
    try:
        with engine.connect() as connection:
            return int(connection.execute(select(func.count()).select_from(Entry)).scalar_one())
    finally:
        engine.dispose()


def build_vectors(settings: Settings, name: str, embedder: Embedder, threads: int = 1,
                  should_stop: Callable[[], bool] = lambda: False,
                  on_progress: Callable[[Progress], None] = lambda _: None) -> VectorManifest | None:
    """Embed what the cache lacks of generation `name`, then write its vector file; None if stopped first."""
    target = generation(settings, name)
    cache = VectorCache(settings, embedder.dimensions)
    companion = embedder.companion
    companion_cache = VectorCache(settings, companion.dimensions) if companion is not None else None
    progress = Progress(generation=name, total=_count(target), started=time.time())
    entries: list[EntryText] = []
    try:
        with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="embed") as pool:
            for chunk in entry_texts(target, embedder.name, companion.name if companion is not None else None):
                wanted = {key: (text, as_query) for entry, passage, question in chunk
                          for key, text, as_query in ((entry.key, passage, False), (entry.question_key, question, True))
                          if key is not None and text is not None}
                held = cache.held(list(wanted))
                missing = [(key, text, as_query) for key, (text, as_query) in wanted.items() if key not in held]
                batches = [missing[i:i + BATCH] for i in range(0, len(missing), BATCH)]
                # A round is one batch per thread: between rounds (seconds), a stop is heard.
                for start in range(0, len(batches), max(1, threads)):
                    if should_stop():
                        return None
                    round_ = batches[start:start + max(1, threads)]
                    for batch, vectors in zip(round_, pool.map(lambda batch: _embed(embedder, batch), round_),
                                              strict=True):
                        cache.put(zip([key for key, _, _ in batch], vectors, strict=True))
                fresh = {key for key, _, _ in missing}
                if companion is not None and companion_cache is not None:
                    fresh |= _embed_companion(companion, companion_cache, chunk)
                entries.extend(entry for entry, _, _ in chunk)
                progress.done = len(entries)
                progress.embedded += sum(1 for entry, _, _ in chunk
                                         if {entry.key, entry.question_key, entry.companion_key} & fresh)
                progress.updated = time.time()
                _write_progress(target.directory, progress)
                on_progress(progress)
        manifest = _assemble(target, entries, cache, embedder, companion_cache)
    finally:
        cache.close()
        if companion_cache is not None:
            companion_cache.close()
    (target.directory / PROGRESS_FILE).unlink(missing_ok=True)
    return manifest


def _embed(embedder: Embedder, batch: Sequence[tuple[str, str, bool]]) -> Vectors:
    """The vectors of one batch of (key, text, read as a query) in order: passages and questions apart."""
    vectors = np.zeros((len(batch), embedder.dimensions), dtype=np.float32)
    for as_query in (False, True):
        rows = [row for row, (_, _, query) in enumerate(batch) if query is as_query]
        if rows:
            texts = [batch[row][1] for row in rows]
            vectors[rows] = embedder.embed_queries(texts) if as_query else embedder.embed_passages(texts)
    return vectors


def _embed_companion(companion: Companion, cache: VectorCache,
                     chunk: Sequence[tuple[EntryText, str | None, str | None]]) -> set[str]:
    """Embed by the companion model what the cache lacks of a chunk's passages; the keys embedded."""
    wanted = {entry.companion_key: passage for entry, passage, _ in chunk
              if entry.companion_key is not None and passage is not None}
    held = cache.held(list(wanted))
    missing = [key for key in wanted if key not in held]
    for start in range(0, len(missing), COMPANION_BATCH):
        keys = missing[start:start + COMPANION_BATCH]
        cache.put(zip(keys, companion.embed([wanted[key] for key in keys]), strict=True))
    return set(missing)


def _assemble(target: Generation, entries: Sequence[EntryText], cache: VectorCache,
              embedder: Embedder, companion_cache: VectorCache | None = None) -> VectorManifest:
    """The generation's vector file, in index order, from the caches."""
    passages = _matrix(entries, [entry.key for entry in entries], cache)
    questions = _matrix(entries, [entry.question_key for entry in entries], cache)
    companion = _matrix(entries, [entry.companion_key for entry in entries], companion_cache) \
        if companion_cache is not None else None
    return write_vectors(target.directory, *passages, [entry.lang for entry in entries],
                         [entry.id for entry in entries], embedder.name, vectors_recipe(embedder), questions,
                         companion, embedder.companion.name if embedder.companion is not None else "")


def _matrix(entries: Sequence[EntryText], keys: Sequence[str | None], cache: VectorCache) -> Quantised:
    """One quantised vector per entry from the cache (zeros where its key is None)."""
    codes = np.zeros((len(entries), cache.dimensions), dtype=np.int8)
    scales = np.zeros(len(entries), dtype=np.float32)
    for start in range(0, len(entries), CHUNK):
        part = keys[start:start + CHUNK]
        found = cache.get([key for key in part if key is not None])
        rows = np.zeros((len(part), cache.dimensions), dtype=np.float32)
        for row, key in enumerate(part):
            if key is not None:
                if key not in found:
                    raise VectorsDamaged(f"the vector cache lost entry {entries[start + row].id}'s vector "
                                         "while assembling")
                rows[row] = found[key]
        codes[start:start + len(part)], scales[start:start + len(part)] = quantise(rows)
    return codes, scales


@contextmanager
def embedding_turn(settings: Settings) -> Iterator[bool]:
    """Whether this process may embed now: one embedder per data folder (SQLite) or per database."""
    with exclusive_turn(settings, LOCK_FILE, EMBED_LOCK) as turn:
        yield turn.mine


def vectors_ready(directory: Path, embedder: Embedder) -> bool:
    """Whether a generation folder holds a vector file made by this model with this recipe."""
    try:
        manifest = read_manifest(directory)
    except VectorsDamaged:
        return False
    return manifest is not None and (manifest.model, manifest.recipe) == (embedder.name, vectors_recipe(embedder))


class VectorWorker:
    """Keeps the current generation's vectors made, in a background thread of the server."""

    def __init__(self, settings: Settings, embedder: Callable[[], Embedder | None],
                 on_ready: Callable[[str], None]) -> None:
        self.settings = settings
        self._embedder = embedder
        self._on_ready = on_ready
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.failure: str | None = None  # the last build's error, for /readyz

    def start(self) -> None:
        """Begin watching the current generation."""
        self._thread = threading.Thread(target=self._run, name="faq-vectors", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop after the batch being embedded (the cache keeps what was made); a server stopping waits a moment
        at most: the thread is a daemon, and a batch in the model cannot be interrupted."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=STOP_WAIT_SECONDS)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            except Exception as exc:  # noqa: BLE001 - the server goes on lexically; the next poll retries
                self.failure = f"{type(exc).__name__}: {exc}"
                log.error("making the vectors failed (%s); search stays lexical and it is retried", self.failure)
                self._stop.wait(30)
            self._stop.wait(POLL_SECONDS)

    def step(self) -> None:
        """Make the current generation's vectors if they are missing and this process may; announce ready ones."""
        name = current_name(self.settings)
        embedder = self._embedder()
        if name is None or embedder is None:
            return
        directory = generation(self.settings, name).directory
        if not vectors_ready(directory, embedder):
            with embedding_turn(self.settings) as mine:
                if not mine or vectors_ready(directory, embedder):
                    return self._announce(name, directory, embedder)
                started = time.perf_counter()
                log.info("making the vectors of generation %s in the background; search is lexical until then", name)
                manifest = build_vectors(self.settings, name, embedder, self.settings.embed_threads,
                                         should_stop=lambda: self._stop.is_set() or current_name(self.settings) != name)
                if embedder.companion is not None:
                    embedder.companion.forget_pages()
                if manifest is None:
                    return None
                self.failure = None
                log.info("vectors of generation %s ready in %.0f s: %s", name, time.perf_counter() - started,
                         manifest.describe())
        return self._announce(name, directory, embedder)

    def _announce(self, name: str, directory: Path, embedder: Embedder) -> None:
        if vectors_ready(directory, embedder):
            self._on_ready(name)

