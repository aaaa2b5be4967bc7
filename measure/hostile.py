"""What hostile queries cost in-process: the engine's search and the whole result page, without HTTP.

`python -m measure.hostile [--profile]` ingests `content/` into a scratch folder and times each query
(an ordinary one, then queries as long as a query may be: one word of 4,000 letters, 2,000 short words,
4,000 Chinese characters, 2,000 `A.`) 20 times through the generation's lexical search and through
the reader's result page (snippets, translations), result cache off, and prints the medians. With
`--profile`, cProfile's 15 costliest functions of the page for `'a' × 4000` follow.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from sqlmodel import Session

from app.config import Settings
from app.db import DataStore, Snapshot
from app.ingest.pipeline import run_ingest
from app.queries import Reader
from measure.localserver import ROOT

QUERIES = {"CUDA out of memory": "CUDA out of memory", "'a' x 40": "a" * 40, "'a' x 4000": "a" * 4000,
           "'a ' x 2000": "a " * 1999 + "a", "'显' x 4000": "显" * 4000, "'A.' x 2000": "A." * 2000}


def median_ms(run: Callable[[], object], times: int = 20) -> float:
    """The median of `times` runs of `run`, in ms, after one to warm up."""
    run()
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        spent.append((time.perf_counter() - started) * 1000)
    return statistics.median(spent)


def page(snapshot: Snapshot, query: str) -> Callable[[], object]:
    """The first result page for `query`, as the API builds it."""
    return lambda: Reader(snapshot=snapshot, session=Session(snapshot.engine), cache_size=0).search(
        query, None, 10, 0, mode="lexical")


def main() -> int:
    """Print the table (and the profile)."""
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(content_dir=ROOT / "content", data_dir=Path(data), database_url="", semantic=False)
        run_ingest(settings, progress=False)
        store = DataStore(settings)
        try:
            snapshot = store.current()
            snapshot.search.warm()
            print(f"{'query':<20} {'engine ms':>10} {'page ms':>9}")
            for name, query in QUERIES.items():
                engine = median_ms(partial(snapshot.search.search, query, None, 100, mode="lexical"))
                print(f"{name:<20} {engine:>10.2f} {median_ms(page(snapshot, query)):>9.2f}")
            if "--profile" in sys.argv[1:]:
                profile = cProfile.Profile()
                profile.runcall(lambda: [page(snapshot, "a" * 4000)() for _ in range(10)])
                out = io.StringIO()
                pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(15)
                print(out.getvalue())
        finally:
            store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
