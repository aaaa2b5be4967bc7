"""Damage while serving: the current generation's index truncated under a running server.

`python -m measure.live_damage [REQUESTS] [--workers N]` ingests `content/` twice into a scratch folder
(two generations), starts `faq serve --workers N` (default 1), searches a little, truncates every segment
file of the current generation's index, then sends REQUESTS searches (default 500; as many as the seeds
have distinct words), each for a word not searched before so its postings must be read from the damaged
files, and prints the statuses before and after the first failed request (0: the server dropped the
connection) and what `/readyz` says before and after. With several workers each search is a new
connection, so that every worker meets the damage.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

import httpx

from app.config import Settings
from app.generations import current_name, generation
from app.ingest.pipeline import run_ingest
from measure.localserver import ROOT, running_server


def words_of_content(count: int) -> list[str]:
    """Up to `count` distinct words of the seeds, for searches whose postings are not read yet."""
    paths = sorted((ROOT / "content").rglob("*.md"))
    text = " ".join(path.read_text(encoding="utf-8", errors="ignore") for path in paths)
    return list(dict.fromkeys(word.lower() for word in re.findall(r"[A-Za-z]{4,}", text)))[:count]


def status_of(client: httpx.Client, word: str) -> int:
    """The HTTP status of a search for `word`; 0 when the server dropped the connection instead."""
    try:
        return client.get("/api/v1/search", params={"q": word}).status_code
    except httpx.TransportError:
        return 0


def truncate_segments(index_dir: Path) -> int:
    """Cut every segment file of the index to 100 bytes; how many were cut."""
    segments = sorted(index_dir.glob("*.seg"))
    for segment in segments:
        segment.write_bytes(segment.read_bytes()[:100])
    return len(segments)


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(prog="python -m measure.live_damage", description=__doc__.splitlines()[0])
    parser.add_argument("requests", nargs="?", type=int, default=500, help="searches after the damage (default 500)")
    parser.add_argument("--workers", type=int, default=1, help="faq serve --workers (default 1)")
    args = parser.parse_args()
    requests = args.requests
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(content_dir=ROOT / "content", data_dir=Path(data), database_url="")
        run_ingest(settings, progress=False)
        run_ingest(settings, progress=False)
        served = current_name(settings)
        assert served is not None
        words = words_of_content(requests + 5)
        with running_server({"FAQ_DATA_DIR": data, "FAQ_SEARCH_CACHE_SIZE": "0"}, ready_path="/readyz",
                            workers=args.workers) as server, \
                httpx.Client(base_url=server.base, timeout=30,
                             headers={"Connection": "close"} if args.workers > 1 else None) as client:
            before = [status_of(client, word) for word in words[:5]]
            ready_before = client.get("/readyz").json()
            cut = truncate_segments(generation(settings, served).index_dir)
            statuses = [status_of(client, word) for word in words[5:]]
            ready_after = client.get("/readyz")
    first_failure = next((n for n, status in enumerate(statuses) if status >= 500 or status == 0), None)
    after_first = Counter(statuses[first_failure + 1:] if first_failure is not None else statuses)
    print(f"faq serve --workers {args.workers}")
    print(f"searches before the damage: {dict(Counter(before))}; /readyz {ready_before['status']} "
          f"(generation {ready_before['generation']})")
    print(f"damage: {cut} segment file(s) of generation {served} truncated to 100 bytes while serving")
    print(f"{len(statuses)} searches after it, each for a word not searched before:")
    failed = "none" if first_failure is None else f"#{first_failure + 1}, HTTP {statuses[first_failure]}"
    print(f"  first failed request: {failed}")
    print(f"  statuses of the requests after it: {dict(sorted(after_first.items()))}")
    print(f"  5xx or dropped (0) after the first failed request: "
          f"{sum(n for status, n in after_first.items() if status >= 500 or status == 0)}")
    body = ready_after.json()
    print(f"/readyz after: HTTP {ready_after.status_code} {body.get('status')} (generation {body.get('generation')}); "
          f"note: {body.get('note') or body.get('detail')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
