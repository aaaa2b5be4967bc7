"""`make bench`: ingest time, cold start and search latency over HTTP, printed as a table.

Figures are measured side by side in one run; compare ratios across runs, not absolute
times (the machines are shared and noisy).
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from app.config import Settings
from app.evaluation import read_queries
from app.ingest.pipeline import run_ingest

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_QUERIES = ROOT.parent / "shared" / "eval" / "queries-dev.tsv"
FALLBACK_QUERIES = ["FSDP", "显存", "PYTORCH_CUDA_ALLOC_CONF", "内存碎片", "deepspeed 版本", "fused_adam"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def bench_ingest(content: Path, rounds: int = 3) -> list[float]:
    """Seconds per full ingest of `content`, each into a fresh data directory."""
    times = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as data:
            settings = Settings(content_dir=content, data_dir=Path(data), database_url="")
            started = time.perf_counter()
            run_ingest(settings, progress=False)
            times.append(time.perf_counter() - started)
    return times


def bench_server(data: Path, queries: list[str], rounds: int, cache: bool) -> tuple[float, list[float]]:
    """Cold start (process start → first search answered) and per-request latencies."""
    port = _free_port()
    env = {**os.environ, "FAQ_DATA_DIR": str(data), "FAQ_SEARCH_CACHE_SIZE": "512" if cache else "0"}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/api/v1/search"
    try:
        with httpx.Client(timeout=10) as client:
            while True:
                try:
                    client.get(url, params={"q": queries[0]}).raise_for_status()
                    break
                except httpx.TransportError:
                    if process.poll() is not None or time.perf_counter() - started > 60:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.02)
            cold = time.perf_counter() - started
            latencies = []
            for _ in range(rounds):
                for query in queries:
                    t0 = time.perf_counter()
                    client.get(url, params={"q": query, "limit": 10}).raise_for_status()
                    latencies.append((time.perf_counter() - t0) * 1000)
        return cold, latencies
    finally:
        process.terminate()
        process.wait(timeout=10)


def main() -> int:
    """Run every benchmark and print the table."""
    content = ROOT / "content"
    query_file = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_QUERIES
    queries = [q.query for q in read_queries(query_file)] if query_file.exists() else FALLBACK_QUERIES
    ingest = bench_ingest(content)
    rows = [("ingest content/ (s)", f"median {statistics.median(ingest):.2f}", f"min {min(ingest):.2f}")]
    with tempfile.TemporaryDirectory() as data:
        run_ingest(Settings(content_dir=content, data_dir=Path(data), database_url=""), progress=False)
        for cache in (False, True):
            cold, latencies = bench_server(Path(data), queries, rounds=10, cache=cache)
            label = "cached" if cache else "uncached"
            rows.append((f"cold start, {label} (s)", f"{cold:.2f}", ""))
            rows.append((f"search over HTTP, {label} (ms)", f"p50 {_percentile(latencies, 0.5):.1f}",
                         f"p95 {_percentile(latencies, 0.95):.1f}  n={len(latencies)}"))
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'figure':<14}  detail")
    for name, figure, detail in rows:
        print(f"{name:<{width}}  {figure:<14}  {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
