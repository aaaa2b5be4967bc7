"""One huge FAQ file: what ingesting it costs in time and peak memory.

`python -m measure.huge_file [MB …]` (default 52) writes, for each size, one markdown file of about
MB megabytes into an empty scratch content folder: the seeds' questions and answers again and again,
each question numbered so every entry is distinct. It runs `faq ingest --quiet` on it as a process of
its own and prints its exit code, seconds, peak resident memory (the process's maximum RSS) and the
last line it printed (issue 28: a 52 MB file took 1,337 s and 2.2 GB; goal at most 1 GB, or a
documented size above which the file is refused with a clear line).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.ingest.pipeline import IngestReport, read_documents
from measure.localserver import ROOT


def seed_entries() -> list[tuple[str, str]]:
    """Every (question, answer markdown) of the seeds."""
    return [(entry.question, entry.answer_markdown)
            for document in read_documents(ROOT / "content", IngestReport()) for entry in document.entries]


def write_huge(path: Path, megabytes: float, entries: list[tuple[str, str]]) -> int:
    """Write a FAQ of about `megabytes` MB to `path`; how many entries it holds."""
    limit = int(megabytes * 1024 * 1024)
    written = count = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("# A very long FAQ\n\n")
        while written < limit:
            question, answer = entries[count % len(entries)]
            block = f"## {question.rstrip('?？')} ({count + 1})?\n\n{answer}\n\n"
            out.write(block)
            written += len(block.encode("utf-8"))
            count += 1
    return count


def ingest_alone(content: Path, data: Path) -> tuple[int, float, float, str]:
    """Exit code, seconds, peak RSS (MB) and last output line of `faq ingest` on `content`, in its own process."""
    env = {**os.environ, "FAQ_CONTENT_DIR": str(content), "FAQ_DATA_DIR": str(data), "FAQ_SEMANTIC": "false"}
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", "import sys, resource\nfrom app.cli import main\ncode = main(["
                          "'ingest', '--quiet'])\nprint('peak-kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
                          "file=sys.stderr)\nsys.exit(code)"], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=False)
    seconds = time.perf_counter() - started
    peak = next((int(line.split()[1]) for line in run.stderr.splitlines() if line.startswith("peak-kb")),
                resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    said = [line for line in (run.stdout + run.stderr).splitlines() if line.strip() and not line.startswith("peak-kb")]
    return run.returncode, seconds, peak / 1024, (said[-1] if said else "")[:160]


def main() -> int:
    """Print one row per size."""
    sizes = [float(arg) for arg in sys.argv[1:]] or [52.0]
    entries = seed_entries()
    print(f"{'MB':>6} {'entries':>8} {'exit':>5} {'seconds':>8} {'peak RSS MB':>12}  last line")
    for megabytes in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            content = Path(scratch) / "content"
            content.mkdir()
            count = write_huge(content / "huge.md", megabytes, entries)
            code, seconds, peak, said = ingest_alone(content, Path(scratch) / "data")
            print(f"{megabytes:>6.1f} {count:>8} {code:>5} {seconds:>8.1f} {peak:>12.0f}  {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
