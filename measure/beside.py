"""One slow search must not make the others wait: an ordinary search's time alone and beside a hostile one.

`python -m measure.beside [ROUNDS]` ingests `content/` into a scratch folder, starts `faq serve`
(result cache off, lexical) and times an ordinary search ROUNDS times alone, then ROUNDS times while
another process sends the hostile search (`'a' × 4000`, one word as long as a query may be) back to
back, three times each by turns. It prints the medians and p90s and the ratio (issue 28 asks for at
most 1.5×), then the same beside the ordinary search itself: what any busy neighbour costs.
"""

from __future__ import annotations

import multiprocessing
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


def beside(base: str, rounds: int, neighbour: str, phases: int = 3) -> tuple[list[float], list[float]]:
    """The ordinary search's times (ms) alone and beside `neighbour` sent back to back by another client.

    Alone and beside take turns `phases` times, so a neighbour's load on this shared machine weighs on both.
    """
    alone: list[float] = []
    near: list[float] = []
    with httpx.Client(base_url=base, timeout=60) as client:
        timed(client, ORDINARY, 3)  # warm: the terms' postings are read once per generation
        for _ in range(phases):
            alone += timed(client, ORDINARY, rounds)
            stop = multiprocessing.Event()
            # A process of its own: a client thread beside this one would share its interpreter and slow it.
            process = multiprocessing.Process(target=_hammer, args=(base, neighbour, stop))
            process.start()
            try:
                time.sleep(0.2)
                near += timed(client, ORDINARY, rounds)
            finally:
                stop.set()
                process.join()
    return alone, near


def _hammer(base: str, path: str, stop: Event) -> None:
    """GET `path` back to back until `stop` is set."""
    with httpx.Client(base_url=base, timeout=60) as client:
        while not stop.is_set():
            client.get(path)


def main() -> int:
    """Print the table."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    with tempfile.TemporaryDirectory() as data:
        run_ingest(Settings(content_dir=ROOT / "content", data_dir=Path(data), database_url=""), progress=False)
        with running_server({"FAQ_DATA_DIR": data, "FAQ_SEARCH_CACHE_SIZE": "0"}) as server:
            with httpx.Client(base_url=server.base, timeout=60) as client:
                hostile = statistics.median(timed(client, HOSTILE, 5))
            rows = {name: beside(server.base, rounds, path) for name, path in
                    (("'a' x 4000", HOSTILE), ("itself (control)", ORDINARY))}
    print(f"'a' x 4000 alone: median of 5 {hostile:.1f} ms")
    print(f"'CUDA out of memory' ({rounds * 3} times each way), ms:")
    print(f"{'beside, sent back to back':<28} {'alone p50/p90':>15} {'beside p50/p90':>16} {'ratio p50':>10}")
    for name, (alone, near) in rows.items():
        ratio = statistics.median(near) / statistics.median(alone)
        print(f"{name:<28} {_p50_p90(alone):>15} {_p50_p90(near):>16} {ratio:>9.2f}x")
    print("goal (issue 28): beside 'a' x 4000 at most 1.5x alone; the control row is what any busy neighbour costs "
          "(one server process, its interpreter shared)")
    return 0


def _p50_p90(times: list[float]) -> str:
    return f"{statistics.median(times):.1f} / {statistics.quantiles(times, n=10)[-1]:.1f}"


if __name__ == "__main__":
    sys.exit(main())
