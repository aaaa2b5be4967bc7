"""One slow search must not make the others wait: an ordinary search's time alone and beside a hostile one.

`python -m measure.beside [ROUNDS] [--workers N] [--phases P]` ingests `content/` into a scratch folder,
starts `faq serve --workers N` (default 1; result cache off, lexical) and times an ordinary search ROUNDS
times (default 40) alone, then ROUNDS times while another process sends the hostile search (`'a' × 4000`,
one word as long as a query may be) back to back, P times each by turns (default 3). It prints the
medians and p90s and the ratio (issue 28 asks for at most 1.5×), then the same beside the ordinary
search itself: what any busy neighbour costs; and the load average before and after (the machine may
be shared).

The server runs on half the cores and the probe's clients on the other half (`--shared-cores` lets them
mix, as before session 26): a deployment's readers are on other machines, and on this 2-core one the two
clients took turns on the server's own core, which measured the clients as much as the server (1.65×
shared, 1.45× apart, the control 1.79× and 1.77×).

Each client keeps one connection, and the kernel gives a new connection to whichever worker takes it
first: with several workers the hammer (a new process and connection each phase) and the timed searches
may or may not share one, so the ratio is printed for each phase as well.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from multiprocessing.synchronize import Event
from pathlib import Path
from urllib.parse import urlencode

import httpx

from app.config import Settings
from app.ingest.pipeline import run_ingest
from measure.localserver import ROOT, running_server

ORDINARY = "/api/v1/search?" + urlencode({"q": "CUDA out of memory"})
HOSTILE = "/api/v1/search?" + urlencode({"q": "a" * 4000})


def timed(client: httpx.Client, path: str, rounds: int) -> list[float]:
    """Milliseconds of `rounds` sequential GETs of `path` (each must answer 200)."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    return times


Phase = tuple[list[float], list[float]]  # the ordinary search's times (ms) alone, then beside the neighbour


def beside(base: str, rounds: int, neighbour: str, phases: int = 3) -> list[Phase]:
    """The ordinary search's times alone and beside `neighbour` sent back to back by another client, per phase.

    Alone and beside take turns `phases` times, so a neighbour's load on this shared machine weighs on both.
    """
    turns: list[Phase] = []
    with httpx.Client(base_url=base, timeout=60) as client:
        timed(client, ORDINARY, 3)  # warm: the terms' postings are read once per generation
        for _ in range(phases):
            alone = timed(client, ORDINARY, rounds)
            stop = multiprocessing.Event()
            # A process of its own: a client thread beside this one would share its interpreter and slow it.
            process = multiprocessing.Process(target=_hammer, args=(base, neighbour, stop))
            process.start()
            try:
                time.sleep(0.2)
                turns.append((alone, timed(client, ORDINARY, rounds)))
            finally:
                stop.set()
                process.join()
    return turns


def _hammer(base: str, path: str, stop: Event) -> None:
    """GET `path` back to back until `stop` is set."""
    with httpx.Client(base_url=base, timeout=60) as client:
        # Built once: parsing a 12 KB address cost this client 1.4 ms of CPU a request, on the server's cores.
        request = client.build_request("GET", path)
        while not stop.is_set():
            client.send(request)


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(prog="python -m measure.beside", description=__doc__.splitlines()[0])
    parser.add_argument("rounds", nargs="?", type=int, default=40, help="searches timed per phase (default 40)")
    parser.add_argument("--workers", type=int, default=1, help="faq serve --workers (default 1)")
    parser.add_argument("--phases", type=int, default=3, help="turns of alone and beside (default 3)")
    parser.add_argument("--shared-cores", action="store_true",
                        help="let the server and the probe's clients share every core")
    args = parser.parse_args()
    rounds = args.rounds
    mine = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    server_cpus, placement = (None, "server and clients share every core") if args.shared_cores else _apart()
    load = os.getloadavg()[0]
    try:
        with tempfile.TemporaryDirectory() as data:
            run_ingest(Settings(content_dir=ROOT / "content", data_dir=Path(data), database_url=""), progress=False)
            with running_server({"FAQ_DATA_DIR": data, "FAQ_SEARCH_CACHE_SIZE": "0"}, ready_path="/readyz",
                                workers=args.workers, cpus=server_cpus) as server:
                with httpx.Client(base_url=server.base, timeout=60) as client:
                    hostile = statistics.median(timed(client, HOSTILE, 5))
                rows = {name: beside(server.base, rounds, path, args.phases) for name, path in
                        (("'a' x 4000", HOSTILE), ("itself (control)", ORDINARY))}
    finally:
        if mine is not None:
            os.sched_setaffinity(0, mine)  # this process's cores as they were (a test calls main)
    print(f"faq serve --workers {args.workers}; {placement}; load average {load:.2f} -> {os.getloadavg()[0]:.2f}")
    print(f"'a' x 4000 alone: median of 5 {hostile:.1f} ms")
    print(f"'CUDA out of memory' ({rounds * args.phases} times each way), ms:")
    print(f"{'beside, sent back to back':<28} {'alone p50/p90':>15} {'beside p50/p90':>16} {'ratio p50':>10}  by phase")
    for name, turns in rows.items():
        alone, near = [ms for turn in turns for ms in turn[0]], [ms for turn in turns for ms in turn[1]]
        phases = " ".join(f"{_ratio(*turn):.2f}" for turn in turns)
        print(f"{name:<28} {_p50_p90(alone):>15} {_p50_p90(near):>16} {_ratio(alone, near):>9.2f}x  {phases}")
    shared = "one server process, its interpreter shared" if args.workers == 1 else f"{args.workers} server processes"
    print(f"goal (issue 28): beside 'a' x 4000 at most 1.5x alone; the control row is what any busy neighbour costs "
          f"({shared})")
    return 0


def _apart() -> tuple[set[int] | None, str]:
    """Cores for the server (the upper half of this process's), this process and its clients moved to the rest;
    none where there is one core, or where Linux's affinity calls are missing."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) < 2:
        return None, "server and clients share the only core"
    server, clients = set(cores[len(cores) // 2:]), set(cores[:len(cores) // 2])
    os.sched_setaffinity(0, clients)  # the hammer processes started later inherit it
    return server, f"server on cores {sorted(server)}, clients on {sorted(clients)}"


def _ratio(alone: list[float], near: list[float]) -> float:
    return statistics.median(near) / statistics.median(alone)


def _p50_p90(times: list[float]) -> str:
    return f"{statistics.median(times):.1f} / {statistics.quantiles(times, n=10)[-1]:.1f}"


if __name__ == "__main__":
    sys.exit(main())
