"""Ingest time with and without a previous generation: a first ingest of N generated entries, then the
re-ingest after editing about 1% of them (questions reworded, answers edited, entries deleted and moved, one
file renamed), which is where entries are matched to the previous generation's.

    python -m measure.reingest [ENTRIES] [ROUNDS]

Prints the seconds of each ingest (wall clock, and the process's CPU time, which other users of a shared
machine disturb less) and the medians. Compare runs made side by side on the same machine (it is
shared and noisy): run it once on each version of the code, alternating.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from app.config import Settings
from app.ingest.pipeline import run_ingest
from measure.bench import _pool
from measure.corpus import generate, write_corpus
from measure.localserver import ROOT

EDITED_SHARE = 0.01


def edit_corpus(folder: Path, share: float = EDITED_SHARE, seed: int = 5) -> int:
    """Edit about `share` of the generated entries in place the way editors do; returns how many were edited.

    Each edited entry is one of: question reworded, answer extended, entry deleted, entry moved to the end of
    its file. The first file is also renamed.
    """
    rng = random.Random(seed)
    files = sorted(folder.glob("faq-*.md"))
    edited = 0
    for path in files:
        blocks = path.read_text(encoding="utf-8").split("\n## ")
        head, entries = blocks[0], blocks[1:]
        kept: list[str] = []
        moved: list[str] = []
        for block in entries:
            if rng.random() >= share:
                kept.append(block)
                continue
            edited += 1
            kind = rng.randrange(4)
            question, _, answer = block.partition("\n")
            if kind == 0:
                kept.append(f"{question.rstrip('?')}, again?\n{answer}")
            elif kind == 1:
                kept.append(f"{question}\n{answer.rstrip()}\n\nSee also the release notes.\n")
            elif kind == 3:
                moved.append(block)
        path.write_text("\n## ".join([head, *kept, *moved]), encoding="utf-8")
    if files:
        files[0].rename(files[0].with_name("renamed-" + files[0].name))
    return edited


def measure(entries: int, rounds: int) -> None:
    """Print the first ingest and the re-ingest after edits, `rounds` times."""
    firsts, seconds, first_cpu, second_cpu = [], [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        pool_settings = Settings(content_dir=ROOT / "content", data_dir=root / "pool", database_url="",
                                 semantic=False)
        run_ingest(pool_settings, progress=False)
        generated = generate(_pool(root / "pool"), entries)
        for round_ in range(rounds):
            content, data = root / f"content-{round_}", root / f"data-{round_}"
            write_corpus(generated, content)
            # Without the model: its loading and the few questions it embeds at ingest are not what is compared.
            settings = Settings(content_dir=content, data_dir=data, database_url="", semantic=False)
            started, cpu = time.perf_counter(), time.process_time()
            run_ingest(settings, progress=False)
            firsts.append(time.perf_counter() - started)
            first_cpu.append(time.process_time() - cpu)
            edited = edit_corpus(content)
            started, cpu = time.perf_counter(), time.process_time()
            run_ingest(settings, progress=False)
            seconds.append(time.perf_counter() - started)
            second_cpu.append(time.process_time() - cpu)
            print(f"round {round_ + 1}: first ingest {firsts[-1]:.2f} s ({first_cpu[-1]:.2f} s CPU), re-ingest after "
                  f"editing {edited} entries {seconds[-1]:.2f} s ({second_cpu[-1]:.2f} s CPU)", flush=True)
    print(f"{entries} entries: first ingest median {statistics.median(firsts):.2f} s "
          f"({statistics.median(first_cpu):.2f} s CPU), re-ingest median {statistics.median(seconds):.2f} s "
          f"({statistics.median(second_cpu):.2f} s CPU)")


if __name__ == "__main__":
    measure(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, int(sys.argv[2]) if len(sys.argv) > 2 else 3)
