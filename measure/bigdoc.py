"""A 100,000-line document's page: how long the server takes to show it, cold and kept, and how big a page is.

`python -m measure.bigdoc [LINES]` writes one generated FAQ of LINES lines (default 100,000: a question,
an answer, a code block and a list of steps, again and again) into a scratch content folder, ingests it,
serves it on loopback and times `GET /documents/big` (the first part: parsed and kept) and then its other
parts over HTTP. A measurement, not a test: the machine is shared.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from measure.localserver import running_server

ROOT = Path(__file__).resolve().parents[1]


def big_document(lines: int) -> str:
    """A generated FAQ of about `lines` lines."""
    out = ["# Big FAQ", ""]
    k = 0
    while len(out) < lines:
        out += [f"## How do I fix problem number {k}?", "", f"Answer {k}: run `tool --fix {k}` and read the log.",
                "", "```", f"tool --fix {k}", "```", ""] + [f"- step {j} for problem {k}" for j in range(8)] + [""]
        k += 1
    return "\n".join(out[:lines]) + "\n"


def main(lines: int = 100_000) -> None:
    """Ingest, serve and time the document page."""
    with tempfile.TemporaryDirectory() as scratch:
        content, data = Path(scratch) / "content", Path(scratch) / "data"
        content.mkdir()
        (content / "big.md").write_text(big_document(lines), encoding="utf-8")
        env = {"FAQ_CONTENT_DIR": str(content), "FAQ_DATA_DIR": str(data), "FAQ_SEMANTIC": "false"}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "app.cli", "ingest", "--quiet"], cwd=ROOT, check=True,
                       env={**os.environ, **env}, stdout=subprocess.DEVNULL)
        print(f"{lines:,} lines ({(content / 'big.md').stat().st_size / 1e6:.1f} MB): ingest "
              f"{time.perf_counter() - started:.1f} s")
        with running_server(env) as (base, _, _), httpx.Client(base_url=base, timeout=120) as http:
            started = time.perf_counter()
            first = http.get("/documents/big", headers={"Accept-Encoding": "identity"})
            cold = time.perf_counter() - started
            parts = int(m.group(1)) if (m := re.search(r"part 1 of (\d+)", first.text)) else 1
            kept = []
            sizes = [len(first.content)]
            for part in range(1, parts + 1):
                started = time.perf_counter()
                page = http.get(f"/documents/big?part={part}", headers={"Accept-Encoding": "identity"})
                kept.append(time.perf_counter() - started)
                sizes.append(len(page.content))
            gzipped = http.get("/documents/big", headers={"Accept-Encoding": "gzip"}).num_bytes_downloaded
        print(f"first view {cold:.2f} s (read, parsed and kept); each of its {parts} parts then "
              f"{statistics.median(kept) * 1000:.0f} ms median, {max(kept) * 1000:.0f} ms max; "
              f"a part's page {statistics.median(sizes) / 1000:.0f} KB ({gzipped / 1000:.0f} KB sent gzipped)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
