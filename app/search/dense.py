"""A generation's vectors of meaning: two per entry (its question and answer; its question read as a query),
in the index's entry order, kept as int8; and the companion model's, read from the file as a search needs them.

The file is derived data, like the index: built from the vector cache once every entry of the
generation has its vectors, written under a temporary name and renamed, and checked when loaded
(model, entry count, checksum, a sample of entry ids against the index). 100k entries take
38 MB per kind of vector in memory instead of 154 MB as float32; scores differ by about 0.002 of a cosine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import operator
import os
import shutil
import struct
import weakref
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import reduce
from pathlib import Path

import numpy as np
import numpy.typing as npt

from app.search.embedding import Vectors

log = logging.getLogger(__name__)

VECTORS_DIR = "vectors"
MATRIX_FILE = "vectors.npz"
MANIFEST_FILE = "manifest.json"
FORMAT = 1
SCORE_CHUNK = 8192  # rows widened to float32 at a time while scoring (12 MB)
SAMPLES = 16  # entry ids checked against the index when the file is loaded
LANGUAGES = ("en", "zh")
NO_SCORE = -2.0  # below any cosine: an entry with no vector, or outside the filter
MIN_LENGTH = 1e-3  # a vector's length without the language axis is never taken as smaller
Floats = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]


Quantised = tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]  # int8 rows and a scale per row (0: no vector)


class VectorsDamaged(ValueError):
    """A generation's vector file is missing a part, or does not match its generation; the message says how."""


@dataclass(frozen=True)
class VectorManifest:
    """What a generation's vector file holds and how to check it."""

    model: str
    recipe: str
    count: int  # entries, with or without a vector
    present: int  # entries with a vector
    checksum: str  # sha256 of the matrix file
    samples: dict[int, str]  # entry number → entry id
    companion: str = ""  # the companion model whose vectors the file holds too, if any

    def describe(self) -> str:
        """One line for logs and `faq check`."""
        return f"{self.present} of {self.count} entries, {self.model}" + \
            (f" with {self.companion}" if self.companion else "")


class DenseIndex:
    """Every entry's vectors (int8 with a scale per entry) and language, ready to score a query: the vector of
    its question and answer (`cosines`) and, where made, that of its question read as a query
    (`question_cosines`)."""

    def __init__(self, codes: npt.NDArray[np.int8], scales: Floats, languages: npt.NDArray[np.int8],
                 manifest: VectorManifest, language_axis: Vectors | None = None,
                 questions: Quantised | None = None, companion: CompanionRows | None = None) -> None:
        self.languages = languages  # index into LANGUAGES; -1 for any other
        self.present: Mask = scales > 0
        self.manifest = manifest
        self.axis = language_axis
        self.passages = _Matrix(codes, scales, language_axis)
        self.questions = _Matrix(*questions, language_axis) if questions is not None else None
        # The companion model's vectors of the same texts (app/search/companion.py), in its own space. Only a
        # search's first entries are scored with them, against the moments of their language's rows.
        self.companion = companion
        self.companion_moments: dict[int, Moments] = {}  # by language code, as `languages`
        self.companion_everyone: Moments | None = None  # all languages' together
        self.companion_problem: str | None = None  # why its rows cannot be read any more, once they cannot
        if companion is not None:
            self.companion_moments = moments_by_language(companion, languages, self.present)
            self.companion_everyone = reduce(operator.add, self.companion_moments.values())

    @property
    def size(self) -> int:
        """How many entries (rows) it covers."""
        return len(self.present)

    @property
    def hubness(self) -> Floats:
        """Each entry's cosine with the mean of all entries' vectors: how close it sits to everything."""
        return self.passages.hubness

    def cosines(self, query: Vectors) -> Floats:
        """Each entry's cosine with a query vector, both without the language axis; NO_SCORE for entries
        without a vector."""
        scores = self.passages.cosines(self._meaning(query))
        scores[~self.present] = NO_SCORE
        return scores

    def question_cosines(self, query: Vectors) -> Floats | None:
        """Each entry's question's cosine with a query vector, as `cosines`; None when the file has none."""
        if self.questions is None:
            return None
        scores = self.questions.cosines(self._meaning(query))
        scores[~self.present] = NO_SCORE
        return scores

    def companion_cosines(self, query: Vectors, docnums: Sequence[int]) -> Floats | None:
        """Entries `docnums`' cosines with a query vector of the companion model (whose vectors it must hold);
        None once its file cannot be read (damaged since it was checked: the log says so once)."""
        assert self.companion is not None, "no companion vectors"
        if self.companion_problem is not None:
            return None
        rows = np.asarray(docnums, dtype=np.intp)
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        try:
            codes = self.companion.rows(rows)
        except (OSError, VectorsDamaged) as exc:
            self.companion_problem = str(exc)
            log.warning("searching without the second model: its vectors cannot be read (%s); `faq reindex` "
                        "rebuilds them", exc)
            return None
        scores: Floats = (codes.astype(np.float32) @ vector) * self.companion.scales[rows]
        return scores

    def _meaning(self, query: Vectors) -> Floats:
        """The query vector without its component along the language axis, as a unit vector."""
        vector: Floats = np.asarray(query, dtype=np.float32).reshape(-1)
        if self.axis is not None:
            vector = vector - float(vector @ self.axis) * self.axis
            vector = vector / max(float(np.linalg.norm(vector)), MIN_LENGTH)
        return vector

    def vector(self, docnum: int) -> Floats:
        """Entry `docnum`'s question-and-answer vector (as stored: int8 times its scale)."""
        return self.passages.vector(docnum)

    def language_mask(self, lang: str) -> Mask:
        """The entries in `lang`."""
        code = LANGUAGES.index(lang) if lang in LANGUAGES else -1
        mask: Mask = self.languages == code
        return mask


class _Matrix:
    """One vector per entry, int8 with a scale per row, compared without the language axis."""

    def __init__(self, codes: npt.NDArray[np.int8], scales: Floats, language_axis: Vectors | None) -> None:
        self.codes = codes
        self.scales = scales
        present = scales > 0
        # Vectors are compared with the language axis left out: what is left is meaning. Each row's length
        # without it (its length along it is `along`) rescales the cosine.
        self.lengths = np.ones(len(scales), dtype=np.float32)
        if language_axis is not None:
            along = self._products(language_axis)
            self.lengths = np.sqrt(np.clip(1 - along * along, MIN_LENGTH ** 2, None)).astype(np.float32)
        mean = (codes[present].astype(np.float32) * scales[present, None]).mean(axis=0) \
            if present.any() else np.zeros(codes.shape[1], dtype=np.float32)
        if language_axis is not None:
            mean = mean - float(mean @ language_axis) * language_axis
        self.hubness = self.cosines(mean / max(float(np.linalg.norm(mean)), MIN_LENGTH))

    def cosines(self, vector: Floats) -> Floats:
        """Each row's cosine with a unit vector that has no component along the language axis."""
        return self._products(vector) / self.lengths

    def _products(self, vector: Vectors) -> Floats:
        """Each row's dot product with `vector`."""
        scores = np.empty(len(self.scales), dtype=np.float32)
        for start in range(0, len(self.scales), SCORE_CHUNK):
            stop = start + SCORE_CHUNK
            scores[start:stop] = self.codes[start:stop].astype(np.float32) @ vector
        scores *= self.scales
        return scores

    def vector(self, docnum: int) -> Floats:
        """Row `docnum` (as stored: int8 times its scale)."""
        vector: Floats = self.codes[docnum].astype(np.float32) * self.scales[docnum]
        return vector


@dataclass(frozen=True)
class Moments:
    """How many rows, their sum and the sum of their outer products: every query's mean cosine with the rows
    and its spread follow without scoring each row."""

    count: int
    total: npt.NDArray[np.float64]
    products: npt.NDArray[np.float64]

    def __add__(self, other: Moments) -> Moments:
        return Moments(self.count + other.count, self.total + other.total, self.products + other.products)

    def mean_and_spread(self, query: Floats) -> tuple[float, float]:
        """The mean and standard deviation of the rows' dot products with `query`."""
        vector = np.asarray(query, dtype=np.float64)
        mean = float(vector @ self.total) / max(self.count, 1)
        second = float(vector @ self.products @ vector) / max(self.count, 1)
        return mean, max(second - mean * mean, 0.0) ** 0.5


class CompanionRows:
    """The companion model's int8 vectors, left in the generation's vector file and read a few rows at a time.

    A search scores only its first 50 entries with them, so the rows stay in the kernel's file cache (shared
    by the processes of a machine, and given back under pressure) rather than in each server's memory: 51 MB
    at 100k entries. Their scales (4 bytes an entry) are held. The file was checked whole when it was loaded.
    """

    def __init__(self, matrix: Path, member: str, scales: Floats) -> None:
        self.path = matrix
        self.scales = scales
        self._offset, shape = _stored_array(matrix, member)
        self.count, self.dimensions = shape
        self._descriptor = os.open(matrix, os.O_RDONLY)  # kept: an ingest may delete the file while it is read
        weakref.finalize(self, os.close, self._descriptor)

    def rows(self, docnums: npt.NDArray[np.intp]) -> npt.NDArray[np.int8]:
        """The int8 rows `docnums`, in that order."""
        return np.concatenate([self._read(int(row), 1) for row in docnums]) if len(docnums) else \
            np.zeros((0, self.dimensions), dtype=np.int8)

    def chunks(self) -> Iterator[tuple[int, npt.NDArray[np.int8]]]:
        """Every row, SCORE_CHUNK at a time, each chunk with its first row's number."""
        for start in range(0, self.count, SCORE_CHUNK):
            yield start, self._read(start, min(SCORE_CHUNK, self.count - start))

    def _read(self, start: int, count: int) -> npt.NDArray[np.int8]:
        width = self.dimensions
        data = os.pread(self._descriptor, width * count, self._offset + start * width)
        if len(data) != width * count:
            raise VectorsDamaged(f"{self.path} was cut short after it was checked")
        return np.frombuffer(data, dtype=np.int8).reshape(count, width)


def _stored_array(matrix: Path, member: str) -> tuple[int, tuple[int, int]]:
    """Where the data of the 2-d int8 array `member` of an uncompressed .npz starts, and its shape."""
    with zipfile.ZipFile(matrix) as archive:
        info = archive.getinfo(f"{member}.npy")
    if info.compress_type != zipfile.ZIP_STORED:
        raise VectorsDamaged(f"{matrix}: {member} is compressed")
    with matrix.open("rb") as raw:
        raw.seek(info.header_offset)
        header = raw.read(30)  # a zip local file header; its name and extra field follow
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise VectorsDamaged(f"{matrix}: {member} has no local header")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        raw.seek(info.header_offset + 30 + name_length + extra_length)
        version = np.lib.format.read_magic(raw)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
            np.lib.format.read_array_header_2_0
        shape, fortran_order, dtype = read_header(raw)
        if dtype != np.int8 or fortran_order or len(shape) != 2:
            raise VectorsDamaged(f"{matrix}: {member} is not a matrix of int8 rows")
        return raw.tell(), (int(shape[0]), int(shape[1]))


def moments_by_language(rows: CompanionRows, languages: npt.NDArray[np.int8], present: Mask) -> dict[int, Moments]:
    """The moments of each language's rows that have a vector (by code, as `languages`), read a chunk at a
    time: a float32 copy of every row would be 200 MB at 100k entries."""
    dimensions = rows.dimensions
    found = {code: Moments(0, np.zeros(dimensions), np.zeros((dimensions, dimensions)))
             for code in (*range(len(LANGUAGES)), -1)}
    for start, chunk in rows.chunks():
        stop = start + len(chunk)
        vectors = chunk.astype(np.float32) * rows.scales[start:stop, None]
        for code in found:
            part = vectors[(languages[start:stop] == code) & present[start:stop]]
            found[code] += Moments(len(part), part.sum(axis=0, dtype=np.float64), (part.T @ part).astype(np.float64))
    return found


def quantise(vectors: Vectors) -> Quantised:
    """int8 codes and one scale per row (0 for a row of zeros: no vector)."""
    peaks = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, dtype=np.float32)
    scales = (peaks / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0)[:, None]
    codes = np.clip(np.rint(vectors / safe), -127, 127).astype(np.int8)
    return codes, scales


def language_codes(languages: Sequence[str]) -> npt.NDArray[np.int8]:
    """Languages as small codes (LANGUAGES' index, -1 for any other)."""
    return np.array([LANGUAGES.index(lang) if lang in LANGUAGES else -1 for lang in languages], dtype=np.int8)


def vectors_dir(generation_dir: Path) -> Path:
    """Where a generation's vector file lives."""
    return generation_dir / VECTORS_DIR


def write_vectors(generation_dir: Path, codes: npt.NDArray[np.int8], scales: Floats, languages: Sequence[str],
                  ids: Sequence[str], model: str, recipe: str, questions: Quantised,
                  companion: Quantised | None = None, companion_model: str = "") -> VectorManifest:
    """Write a generation's quantised vectors (scale 0: no vector), its questions' and its companion model's
    atomically, with their manifest."""
    final = vectors_dir(generation_dir)
    work = generation_dir / f".{VECTORS_DIR}-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        matrix = work / MATRIX_FILE
        none = np.zeros((0, 0), dtype=np.int8), np.zeros(0, dtype=np.float32)
        companion_codes, companion_scales = companion if companion is not None else none
        np.savez(matrix, codes=codes, scales=scales, languages=language_codes(languages),
                 question_codes=questions[0], question_scales=questions[1], companion_codes=companion_codes,
                 companion_scales=companion_scales)
        step = max(1, len(ids) // SAMPLES)
        manifest = VectorManifest(model=model, recipe=recipe, count=len(ids), present=int((scales > 0).sum()),
                                  checksum=_checksum(matrix), samples={n: ids[n] for n in range(0, len(ids), step)},
                                  companion=companion_model if companion is not None else "")
        (work / MANIFEST_FILE).write_text(json.dumps(manifest.__dict__, ensure_ascii=False), encoding="utf-8")
        shutil.rmtree(final, ignore_errors=True)
        os.rename(work, final)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return manifest


def read_manifest(generation_dir: Path) -> VectorManifest | None:
    """The manifest of a generation's vector file; None when there is none yet."""
    path = vectors_dir(generation_dir) / MANIFEST_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise VectorsDamaged(f"{path} cannot be read ({exc})") from None
    try:
        return VectorManifest(model=str(raw["model"]), recipe=str(raw["recipe"]), count=int(raw["count"]),
                              present=int(raw["present"]), checksum=str(raw["checksum"]),
                              samples={int(k): str(v) for k, v in raw["samples"].items()},
                              companion=str(raw.get("companion", "")))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise VectorsDamaged(f"{path} is not a vector manifest ({exc!r})") from None


def load_vectors(generation_dir: Path, model: str, recipes: tuple[str, ...], entry_id: Callable[[int], str],
                 count: int, language_axis: Vectors | None = None) -> DenseIndex:
    """A generation's vectors (every kind), checked against its manifest, the running model and the index; else
    VectorsDamaged."""
    manifest = read_manifest(generation_dir)
    if manifest is None:
        raise VectorsDamaged(f"{vectors_dir(generation_dir)} holds no vectors")
    if manifest.model != model or manifest.recipe not in recipes:
        raise VectorsDamaged(f"the vectors were made by {manifest.model} ({manifest.recipe}), "
                             f"not {model} ({recipes[0]})")
    matrix = vectors_dir(generation_dir) / MATRIX_FILE
    try:
        if _checksum(matrix) != manifest.checksum:
            raise VectorsDamaged(f"{matrix} does not match its checksum")
        with np.load(matrix) as arrays:
            codes, scales, languages = arrays["codes"], arrays["scales"], arrays["languages"]
            questions = arrays["question_codes"], arrays["question_scales"]
            # Files made before the companion model, or without it, hold none. Its rows stay in the file.
            companion_scales = arrays["companion_scales"] if "companion_scales" in arrays.files else None
        companion = CompanionRows(matrix, "companion_codes", companion_scales) \
            if companion_scales is not None and len(companion_scales) else None
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise VectorsDamaged(f"{matrix} cannot be read ({exc})") from None
    if not (len(codes) == len(scales) == len(languages) == manifest.count == count):
        raise VectorsDamaged(f"{matrix} holds {len(codes)} vectors for {count} entries")
    if not len(questions[0]) == len(questions[1]) == count:
        raise VectorsDamaged(f"{matrix} holds {len(questions[0])} question vectors for {count} entries")
    if companion is not None and not companion.count == len(companion.scales) == count:
        raise VectorsDamaged(f"{matrix} holds {companion.count} companion vectors for {count} entries")
    for docnum, expected in manifest.samples.items():
        if docnum >= count or entry_id(docnum) != expected:
            raise VectorsDamaged(f"{matrix} is not in the index's entry order (entry {docnum})")
    return DenseIndex(codes, scales, languages, manifest, language_axis, questions, companion)


def _checksum(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
