"""Re-ingests under load: clients keep searching two replicas while new generations are published.

    python -m measure.reindex_load [sqlite|postgresql] [CLIENTS] [REINGESTS]

Two `faq serve` replicas (on SQLite: one data folder shared; on PostgreSQL: one database,
each replica with its own data folder for its index) answer CLIENTS threads of searches
while `faq ingest` publishes REINGESTS new generations one after the other. Prints the
requests answered, the failed ones, and for each publication how long until each replica
served it (the lag). PostgreSQL comes from FAQ_BENCH_POSTGRES_URL or FAQ_TEST_POSTGRES_URL;
a scratch database is created in it and dropped afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

from app.config import Settings
from app.generations import current_name
from app.ingest.pipeline import run_ingest
from measure.localserver import ROOT, running_server, scratch_postgres_database

QUERIES = ["FSDP", "CUDA out of memory", "显存不足", "deepspeed 版本", "bitsandbytes undefined symbol", "梯度检查点"]


def _search(stop: threading.Event, bases: list[str], counts: dict[str, int], lock: threading.Lock) -> None:
    with httpx.Client(timeout=30) as client:
        turn = 0
        while not stop.is_set():
            turn += 1
            base, query = bases[turn % len(bases)], QUERIES[turn % len(QUERIES)]
            try:
                response = client.get(base + "/api/v1/search", params={"q": query})
                why = "" if response.status_code == 200 else f"{response.status_code} {response.text[:120]}"
            except httpx.HTTPError as error:
                why = type(error).__name__
            with lock:
                counts["requests"] += 1
                if why:
                    counts["failed"] += 1
                    counts[why] = counts.get(why, 0) + 1


def _generation(client: httpx.Client, base: str) -> str:
    try:
        return str(client.get(base + "/readyz").json().get("generation", ""))
    except (httpx.HTTPError, ValueError):
        return ""


def run(engine: str, clients: int, reingests: int) -> int:
    """Measure, print the figures; 1 when a request failed or a replica lagged past 5 s."""
    with ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        url = ""
        if engine == "postgresql":
            server = os.environ.get("FAQ_BENCH_POSTGRES_URL") or os.environ.get("FAQ_TEST_POSTGRES_URL", "")
            if not server:
                print("set FAQ_BENCH_POSTGRES_URL (or FAQ_TEST_POSTGRES_URL) to a PostgreSQL the role may create "
                      "databases on")
                return 2
            url = stack.enter_context(scratch_postgres_database(server, "faq_reindex"))
        shared = engine == "sqlite"
        folders = [root / "publisher", root / ("publisher" if shared else "replica-a"),
                   root / ("publisher" if shared else "replica-b")]
        settings = Settings(content_dir=ROOT / "content", data_dir=folders[0], database_url=url)
        run_ingest(settings, progress=False)
        bases = [stack.enter_context(running_server({"FAQ_DATA_DIR": str(folder), "FAQ_DATABASE_URL": url,
                                                     "FAQ_SEARCH_CACHE_SIZE": "0"}))[0] for folder in folders[1:]]
        env = {**os.environ, "FAQ_DATA_DIR": str(folders[0]), "FAQ_DATABASE_URL": url,
               "FAQ_CONTENT_DIR": str(ROOT / "content")}
        counts: dict[str, int] = {"requests": 0, "failed": 0}
        lock, stop = threading.Lock(), threading.Event()
        threads = [threading.Thread(target=_search, args=(stop, bases, counts, lock)) for _ in range(clients)]
        for thread in threads:
            thread.start()
        lags: list[list[float]] = []
        try:
            with httpx.Client(timeout=10) as probe:
                for _ in range(reingests):
                    subprocess.run([sys.executable, "-m", "app.cli", "ingest", "--quiet"], cwd=ROOT, env=env,
                                   check=True, stdout=subprocess.DEVNULL)
                    published = time.perf_counter()
                    name = current_name(Settings(data_dir=folders[0], database_url=url))
                    lag = [float("nan")] * len(bases)
                    while any(v != v for v in lag) and time.perf_counter() - published < 60:
                        for i, base in enumerate(bases):
                            if lag[i] != lag[i] and _generation(probe, base) == name:
                                lag[i] = time.perf_counter() - published
                        time.sleep(0.05)
                    lags.append(lag)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
    worst = max((v for lag in lags for v in lag), default=0.0)
    print(f"{engine}: {len(bases)} replicas, {clients} clients searching, {reingests} generations published")
    print(f"  requests {counts['requests']}, failed {counts['failed']}")
    for why, n in counts.items():
        if why not in ("requests", "failed"):
            print(f"    {n} × {why}")
    for n, lag in enumerate(lags, 1):
        print(f"  publication {n}: replicas serving it after " + ", ".join(f"{v:.2f} s" for v in lag))
    print(f"  worst lag {worst:.2f} s (target ≤ 5 s)")
    return 0 if counts["failed"] == 0 and worst <= 5 else 1


def main() -> int:
    """Parse the arguments and run."""
    engine = sys.argv[1] if len(sys.argv) > 1 else "sqlite"
    if engine not in ("sqlite", "postgresql"):
        print("usage: python -m measure.reindex_load [sqlite|postgresql] [CLIENTS] [REINGESTS]")
        return 2
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    reingests = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    return run(engine, clients, reingests)


if __name__ == "__main__":
    sys.exit(main())
