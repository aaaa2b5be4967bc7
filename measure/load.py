"""Mixed traffic against a real server: requests/s, p50/p99 and errors at several connection counts.

`make load` (or `python -m measure.load [SECONDS]`) ingests `content/` into a scratch folder,
starts `faq serve` on 127.0.0.1 and, at 16, 64 and 128 concurrent connections, rotates entry
pages, API entries, documents, searches and the home page while one more client polls
`/healthz`; then they search only (the development queries, results not kept); then the
same connections fetch one static file, the ceiling for this server.
The client runs on the same machine, so compare the rows with each other, not across machines.
With `wrk` installed (`apt-get install wrk`) it drives the connections: a load generator in C
leaves the server the CPU a Python client would take. Without it, an httpx client does. The
`/healthz` poller runs in a process of its own either way: in the load's own event loop its
times were the client's queue, not the server's.
Last, the worst single searches (4,000 characters of `a `, random words, repeated and common
quoted phrases, a Java log; 1,000 nested parentheses in raw syntax) are timed alone, then sent one after
another beside mixed traffic at 16 connections, whose p99 is printed with and without them.
"""

from __future__ import annotations

import itertools
import multiprocessing
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
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
QUERY_FILES = (ROOT / "eval" / "queries-project.tsv",)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def _mixed_urls(base: str) -> list[str]:
    with httpx.Client(base_url=base, timeout=30) as client:
        entry = client.get("/api/v1/search", params={"q": "FSDP"}).json()["results"][0]["id"]
        document = client.get("/api/v1/documents").json()[0]["id"]
    return [
        f"/entries/{entry}", f"/api/v1/entries/{entry}", f"/documents/{document}", "/",
        "/api/v1/search?q=CUDA+out+of+memory", "/search?" + urlencode({"q": "显存"}),
        "/api/v1/search?q=deepspeed+zero3", "/api/v1/documents",
    ]


def _search_urls() -> list[str]:
    """The development queries over the API, one after another (the server keeps no results)."""
    queries = [q.query for path in QUERY_FILES if path.exists() for q in read_queries(path)]
    return ["/api/v1/search?" + urlencode({"q": q}) for q in queries]


def _poll(base: str, paths: Sequence[str], seconds: float, pause: float, results: Connection,
          answers: tuple[int, ...] = (200,)) -> None:
    """In a process of its own: GET `paths` in turn, one every `pause` seconds, for `seconds`; send back the
    times (ms) and the failures (any status not among `answers`)."""
    times: list[float] = []
    failures = 0
    with httpx.Client(base_url=base, timeout=30) as client:
        # From when the client is open: on a loaded machine opening it (its TLS context) can outlast a short run.
        deadline = time.perf_counter() + seconds
        for path in itertools.cycle(paths):
            if time.perf_counter() >= deadline:
                break
            started = time.perf_counter()
            try:
                failures += client.get(path).status_code not in answers
            except httpx.HTTPError:
                failures += 1
            times.append((time.perf_counter() - started) * 1000)
            time.sleep(pause)
    results.send((times, failures))


# Seventeen common words: their sixteen pairs, quoted, are phrases whose words most entries hold.
COMMON = "cuda out of memory error when training the model with gpu batch size in the config file".split()


def hostile_queries() -> dict[str, str]:
    """The worst single searches issue 11 probed with, each as long as a query may be (4,000 characters)."""
    words = random.Random(7).choices(
        [w for w in re.findall(r"[a-z]{3,}", (ROOT / "README.md").read_text().lower())], k=500)
    frames = "".join(f"\tat org.apache.hive.service.cli.thrift.ThriftCLIService.call{i}(ThriftCLIService.java:{i})\n"
                     for i in range(100))
    log = ("org.apache.thrift.TApplicationException: Required field 'client_protocol' is unset!\n" + frames)[:4000]
    queries = {"'a ' x 900": "a " * 900, "500 random words": " ".join(words)[:4000],
               "400 quoted phrases": ('"cuda memory" ' * 200 + '"x y" ' * 200).strip(),
               "16 common phrases": " ".join(f'"{a} {b}"' for a, b in itertools.pairwise(COMMON)),
               "4,000-character Java log": log}
    paths = {name: "/api/v1/search?" + urlencode({"q": q}) for name, q in queries.items()}
    paths["1,000 nested parentheses, raw syntax"] = "/api/v1/search?" + urlencode(
        {"q": "(" * 1000 + "cuda" + ")" * 1000, "syntax": "raw"})
    return paths


def _python_load(base: str, urls: Sequence[str], connections: int, seconds: float) -> tuple[list[float], int]:
    """Drive `connections` httpx clients over `urls` for `seconds`: each request's time (ms) and the failures."""
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds
    cycle = itertools.cycle(urls)

    async def drive(next_url: Callable[[], str]) -> None:
        """Request URLs one after another until the deadline, timing each; count failures."""
        nonlocal errors
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                try:
                    errors += (await http.get(next_url())).status_code >= 400
                except httpx.HTTPError:
                    errors += 1
                latencies.append((time.perf_counter() - started) * 1000)

    async def scenario() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(connections):
                group.start_soon(drive, lambda: next(cycle))

    anyio.run(scenario)
    return latencies, errors


WRK_SCRIPT = """local paths = {%s}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i %% #paths) + 1])
end
"""
WRK_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _wrk_figure(pattern: str, report: str) -> re.Match[str]:
    match = re.search(pattern, report, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"wrk's report has no {pattern!r}:\n{report}")
    return match


def _wrk_load(wrk: str, base: str, urls: Sequence[str], connections: int, seconds: float) -> dict[str, float]:
    """Drive `connections` connections with wrk: requests/s, p50/p99 (ms) and failures (non-2xx/3xx, socket)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", encoding="utf-8") as script:
        script.write(WRK_SCRIPT % ", ".join(_lua_string(url) for url in urls))
        script.flush()
        report = subprocess.run([wrk, "-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "30s",
                                 "--latency", "-s", script.name, base],
                                capture_output=True, text=True, check=True).stdout

    def latency(share: str) -> float:
        value, unit = _wrk_figure(rf"^\s*{share}%\s+([\d.]+)(us|ms|s)\s*$", report).groups()
        return float(value) * WRK_UNITS[unit]

    requests = int(_wrk_figure(r"(\d+) requests in", report).group(1))
    failed = sum(int(n) for n in re.findall(r"(?:Non-2xx or 3xx responses|connect|read|write|timeout):? (\d+)",
                                            report))
    return {"rps": requests / seconds, "p50": latency("50"), "p99": latency("99"), "errors": failed}


def run(base: str, urls: Sequence[str], connections: int, seconds: float,
        beside: Sequence[str] = ()) -> dict[str, float]:
    """Drive `connections` clients for `seconds` while another process polls /healthz (and one more sends
    the `beside` requests one after another, when given); figures for all."""
    health_poll = _polling(base, ["/healthz"], seconds, 0.05)
    # A query past the limits is refused with a 422 that says so: an answer, not a failure.
    beside_poll = _polling(base, beside, seconds, 0.0, (200, 422)) if beside else None
    if wrk := shutil.which("wrk"):
        row = _wrk_load(wrk, base, urls, connections, seconds)
    else:
        latencies, errors = _python_load(base, urls, connections, seconds)
        row = {"rps": len(latencies) / seconds, "p50": statistics.median(latencies) if latencies else 0.0,
               "p99": _percentile(latencies, 0.99), "errors": errors}
    health, health_failures = health_poll()
    row = {**row, "errors": row["errors"] + health_failures, "health_p99": _percentile(health, 0.99)}
    if beside_poll is not None:
        times, failures = beside_poll()
        row.update(beside_count=len(times), beside_max=max(times, default=0.0), errors=row["errors"] + failures)
    return row


def _polling(base: str, paths: Sequence[str], seconds: float, pause: float,
             answers: tuple[int, ...] = (200,)) -> Callable[[], tuple[list[float], int]]:
    """Start `_poll` in a process of its own; the function returned waits for its times and failures."""
    spawn = multiprocessing.get_context("spawn")
    receiving, sending = spawn.Pipe(duplex=False)
    process = spawn.Process(target=_poll, args=(base, paths, seconds, pause, sending, answers))
    process.start()

    def finished() -> tuple[list[float], int]:
        times, failures = receiving.recv()
        process.join()
        return times, failures

    return finished


def one_at_a_time(base: str, paths: dict[str, str], rounds: int = 3) -> dict[str, tuple[float, int]]:
    """Each path alone on an idle server: its slowest time over HTTP (ms) and its status."""
    found = {}
    with httpx.Client(base_url=base, timeout=60) as client:
        for name, path in paths.items():
            times, status = [], 0
            for _ in range(rounds):
                started = time.perf_counter()
                status = client.get(path).status_code
                times.append((time.perf_counter() - started) * 1000)
            found[name] = (max(times), status)
    return found


def main() -> int:
    """Ingest the seeds, start a server, print one row per connection count and traffic kind."""
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    with tempfile.TemporaryDirectory() as data:
        run_ingest(Settings(content_dir=ROOT / "content", data_dir=Path(data), database_url=""), progress=False)
        with running_server({"FAQ_DATA_DIR": data, "FAQ_SEARCH_CACHE_SIZE": "0"}) as (base, _, _):
            mixed = _mixed_urls(base)
            print(f"client: {shutil.which('wrk') or 'httpx (install wrk for a client that leaves the server its CPU)'}")
            print(f"{'traffic':<8} {'conns':>5} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} "
                  f"{'/healthz p99 ms':>16}")
            searches = _search_urls()
            for connections in CONNECTIONS:
                for name, urls in (("mixed", mixed), ("search", searches), ("static", [STATIC])):
                    row = run(base, urls, connections, seconds)
                    print(f"{name:<8} {connections:>5} {row['rps']:>8.0f} {row['p50']:>8.1f} {row['p99']:>8.1f} "
                          f"{row['errors']:>7.0f} {row['health_p99']:>16.1f}")
            _print_worst_searches(base, mixed, seconds)
    return 0


def _print_worst_searches(base: str, mixed: Sequence[str], seconds: float) -> None:
    """Each worst search alone, then mixed traffic with and without them sent one after another beside it."""
    hostile = hostile_queries()
    print("\nthe worst single searches, each alone (slowest of 3 over HTTP):")
    for name, (ms, status) in one_at_a_time(base, hostile).items():
        print(f"  {name:<38} {ms:8.1f} ms  HTTP {status}")
    calm = run(base, mixed, 16, seconds)
    rough = run(base, mixed, 16, seconds, beside=list(hostile.values()))
    print(f"mixed traffic, 16 connections: p99 {calm['p99']:.1f} ms alone, {rough['p99']:.1f} ms with the worst "
          f"searches beside it ({rough['p99'] / calm['p99']:.2f}x; {rough['beside_count']:.0f} sent, slowest "
          f"{rough['beside_max']:.0f} ms); errors {calm['errors']:.0f} / {rough['errors']:.0f}")


if __name__ == "__main__":
    sys.exit(main())
