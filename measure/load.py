"""Mixed traffic against a real server: requests/s, p50/p99 and errors at several connection counts.

`make load` (or `python -m measure.load [SECONDS]`) ingests `content/` into a scratch folder,
starts `faq serve` on 127.0.0.1 and, at 16, 64 and 128 concurrent connections, rotates entry
pages, API entries, documents, searches and the home page while one more client polls
`/healthz`; then they search only (the development queries, results not kept); then the
same connections fetch one static file, the ceiling for this server.
The client runs on the same machine, so compare the rows with each other, not across machines.
"""

from __future__ import annotations

import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlencode

import anyio
import httpx

from app.config import Settings
from app.ingest.pipeline import run_ingest
from measure.evaluation import read_queries
from measure.localserver import ROOT, running_server

CONNECTIONS = (16, 64, 128)
STATIC = "/static/swagger-init.js"
QUERY_FILES = (ROOT.parent / "shared" / "eval" / "queries-dev.tsv", ROOT / "eval" / "queries-project.tsv")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def _mixed_urls(base: str) -> Iterator[str]:
    with httpx.Client(base_url=base, timeout=30) as client:
        entry = client.get("/api/v1/search", params={"q": "FSDP"}).json()["results"][0]["id"]
        document = client.get("/api/v1/documents").json()[0]["id"]
    return itertools.cycle([
        f"/entries/{entry}", f"/api/v1/entries/{entry}", f"/documents/{document}", "/",
        "/api/v1/search?q=CUDA+out+of+memory", "/search?q=显存", "/api/v1/search?q=deepspeed+zero3",
        "/api/v1/documents",
    ])


def _search_urls() -> Iterator[str]:
    """The development queries over the API, one after another (the server keeps no results)."""
    queries = [q.query for path in QUERY_FILES if path.exists() for q in read_queries(path)]
    return itertools.cycle(["/api/v1/search?" + urlencode({"q": q}) for q in queries])


def run(base: str, urls: Iterator[str], connections: int, seconds: float) -> dict[str, float]:
    """Drive `connections` clients for `seconds`; figures for them and for a /healthz poller."""
    latencies: list[float] = []
    health: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds

    async def drive(next_url: Callable[[], str], times: list[float], pause: float = 0.0) -> None:
        """Request URLs one after another until the deadline, timing each; count failures."""
        nonlocal errors
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                try:
                    errors += (await http.get(next_url())).status_code >= 400
                except httpx.HTTPError:
                    errors += 1
                times.append((time.perf_counter() - started) * 1000)
                await anyio.sleep(pause)

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(connections):
                group.start_soon(drive, lambda: next(urls), latencies)
            group.start_soon(drive, lambda: "/healthz", health, 0.05)

    anyio.run(scenario)
    return {"rps": len(latencies) / seconds, "p50": statistics.median(latencies) if latencies else 0.0,
            "p99": _percentile(latencies, 0.99), "errors": errors, "health_p99": _percentile(health, 0.99)}


def main() -> int:
    """Ingest the seeds, start a server, print one row per connection count and traffic kind."""
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    with tempfile.TemporaryDirectory() as data:
        run_ingest(Settings(content_dir=ROOT / "content", data_dir=Path(data), database_url=""), progress=False)
        with running_server({"FAQ_DATA_DIR": data, "FAQ_SEARCH_CACHE_SIZE": "0"}) as (base, _):
            mixed = _mixed_urls(base)
            print(f"{'traffic':<8} {'conns':>5} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} "
                  f"{'/healthz p99 ms':>16}")
            searches = _search_urls()
            for connections in CONNECTIONS:
                for name, urls in (("mixed", mixed), ("search", searches), ("static", itertools.repeat(STATIC))):
                    row = run(base, urls, connections, seconds)
                    print(f"{name:<8} {connections:>5} {row['rps']:>8.0f} {row['p50']:>8.1f} {row['p99']:>8.1f} "
                          f"{row['errors']:>7.0f} {row['health_p99']:>16.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
