"""The model's language axis: the direction in which a Chinese text's vector and its English translation's differ.

    python -m measure.language_axis OUT.npy DATA_DIR [DATA_DIR …]

Each DATA_DIR is a portal data folder whose current generation has its vectors made (`faq embed`). The axis
is the mean of (Chinese − English) over every translation pair the ingest found, made a unit vector; the
agreement between the folders' own axes (their cosines) is printed, as a check that it is the model's
property and not a corpus's. Search removes it from every vector before comparing (`app/search/dense.py`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sqlmodel import select

from app.config import Settings
from app.db import DataStore
from app.models import Entry, EntryLink
from app.search.dense import MATRIX_FILE, vectors_dir
from app.search.embedding import Vectors


def pair_differences(data_dir: Path) -> Vectors:
    """(Chinese − English) for each translation pair of the folder's current generation."""
    store = DataStore(Settings(data_dir=data_dir, database_url="", _env_file=None))
    try:
        snapshot = store.current()
        with np.load(vectors_dir(snapshot.generation.directory) / MATRIX_FILE) as arrays:
            vectors = arrays["codes"].astype(np.float32) * arrays["scales"][:, None]
        row = {snapshot.search.entry_id(docnum): docnum for docnum in range(snapshot.search.doc_count)}
        with store.session() as session:
            language = dict(session.exec(select(Entry.id, Entry.lang)).all())
            pairs = session.exec(select(EntryLink.source_id, EntryLink.target_id)
                                 .where(EntryLink.kind == "translation")).all()
    finally:
        store.close()
    differences = [vectors[row[zh]] - vectors[row[en]] for zh, en in pairs
                   if language.get(zh) == "zh" and language.get(en) == "en"
                   and vectors[row[zh]].any() and vectors[row[en]].any()]
    return np.array(differences, dtype=np.float32).reshape(-1, vectors.shape[1])


def unit(vector: Vectors) -> Vectors:
    """`vector` scaled to length 1."""
    scaled: Vectors = (vector / np.linalg.norm(vector)).astype(np.float32)
    return scaled


def main(argv: Sequence[str] | None = None) -> int:
    """Write the axis and print how the folders agree."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out, folders = Path(args[0]), [Path(folder) for folder in args[1:]]
    differences = {folder: pair_differences(folder) for folder in folders}
    axis = unit(np.concatenate(list(differences.values())).mean(axis=0))
    for folder, rows in differences.items():
        own = unit(rows.mean(axis=0))
        print(f"{folder}: {len(rows)} pairs, mean length {np.linalg.norm(rows.mean(axis=0)):.3f}, "
              f"cosine with the axis {float(own @ axis):.3f}")
    np.save(out, axis)
    print(f"wrote {out}: {len(axis)} dimensions from {sum(len(rows) for rows in differences.values())} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
