"""Ingest time of many small files whose names say nothing of their language, so only content pairs them.

`python -m measure.ingest_scale [COUNT …]` (default 1000 8000) writes COUNT small FAQ files into a
scratch folder, half English and half their Chinese translations (one entry each: a question
naming a product and a configuration key, a sentence of the seeds in its language, the key and a
number in code), under meaningless names (`3f9a1c2e.md`). It ingests each folder and prints the
files, entries, the whole ingest's seconds, the seconds spent pairing documents (`pair_documents`),
the document pairs found (of the COUNT / 2 written) and each count's time over the first one's
(issue 28: 8,000 within 9× of 1,000, and 20,000 in under two minutes). On a shared machine the wall clock
swings with the others' work (the same 8,000 files took 5.6× and 14.9× of 1,000): each row also gives the
ingest's CPU seconds (its process's, which that work changes far less) and their ratio, and the one-minute
load average as the ingest started and as it ended. Without the model (FAQ_SEMANTIC off), as the issue's
figures were taken: with it, the questions of weak entry pairs are embedded too.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from app.config import Settings
from app.ingest import align, pipeline
from app.ingest.align import Alignment
from app.ingest.pipeline import run_ingest
from measure.bench import _pool
from measure.corpus import PRODUCTS, _sentences
from measure.localserver import ROOT

ENTRIES_PER_FILE = 1
QUESTIONS = {"en": "How do I set {key} for {product}?", "zh": "如何为 {product} 设置 {key}？"}
SETTING = {"en": "Set `{key}` to {value}.", "zh": "将 `{key}` 设为 {value}。"}


def seed_sentences(data: Path) -> dict[str, list[str]]:
    """The seeds' answer sentences in each language."""
    run_ingest(Settings(content_dir=ROOT / "content", data_dir=data, database_url="", semantic=False), progress=False)
    return {lang: _sentences(bodies) for lang, (_, bodies) in _pool(data).items()}


def write_files(sentences: dict[str, list[str]], count: int, folder: Path, seed: int = 5) -> None:
    """`count` files: count / 2 English ones and their Chinese translations."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    for k in range(count // 2):
        entries = [(rng.choice(PRODUCTS), f"scale_opt_{k}_{j}", rng.randrange(10, 10_000), rng.random())
                   for j in range(ENTRIES_PER_FILE)]
        for lang in ("en", "zh"):
            lines = []
            for product, key, value, pick in entries:
                pool = sentences[lang]
                lines += [f"## {QUESTIONS[lang].format(key=key, product=product)}", "",
                          f"{pool[int(pick * len(pool))]} {SETTING[lang].format(key=key, value=value)}", "",
                          "```bash", f"export {key.upper()}={value}", "```", ""]
            (folder / f"{rng.getrandbits(32):08x}.md").write_text("\n".join(lines), encoding="utf-8")


@contextmanager
def timed_pairing() -> Iterator[list[float]]:
    """Within the block, the seconds of every call of the ingest's `pair_documents`."""
    seconds: list[float] = []

    def pair_documents(*args: Any, **kwargs: Any) -> Alignment:
        started = time.perf_counter()
        try:
            return align.pair_documents(*args, **kwargs)
        finally:
            seconds.append(time.perf_counter() - started)

    with mock.patch.object(pipeline, "pair_documents", pair_documents):
        yield seconds


def main() -> int:
    """Print one row per file count."""
    counts = [int(arg) for arg in sys.argv[1:]] or [1000, 8000]
    with tempfile.TemporaryDirectory() as scratch:
        sentences = seed_sentences(Path(scratch) / "seeds")
        print(f"{'files':>7} {'entries':>8} {'ingest s':>9} {'pairing s':>10} {'doc pairs':>10} {'x first':>8} "
              f"{'cpu s':>7} {'x first':>8}  load average")
        first = first_cpu = None
        for count in counts:
            content = Path(scratch) / f"content-{count}"
            write_files(sentences, count, content)
            load = os.getloadavg()[0]
            cpu = time.process_time()
            with timed_pairing() as pairing:
                report = run_ingest(Settings(content_dir=content, data_dir=Path(scratch) / f"data-{count}",
                                             database_url="", semantic=False), progress=False)
            cpu = time.process_time() - cpu
            first, first_cpu = first or report.seconds, first_cpu or cpu
            print(f"{count:>7} {report.entries:>8} {report.seconds:>9.1f} {sum(pairing):>10.1f} "
                  f"{report.document_pairs:>10} {report.seconds / first:>7.1f}x {cpu:>7.1f} {cpu / first_cpu:>7.1f}x  "
                  f"{load:.2f} → {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
