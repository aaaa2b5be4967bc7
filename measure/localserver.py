"""Run `faq serve` as a real process on a free loopback port (benchmarks and tests)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalServer(NamedTuple):
    """A running `faq serve`: where it answers, how long it took to, and its process id."""

    base: str
    cold: float  # seconds from process start until the ready path answered 2xx
    pid: int  # with several workers, their supervisor's

    def resident_megabytes(self) -> float:
        """The server's resident memory now (Linux: /proc), in MB."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        kilobytes = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(kilobytes) / 1024


def _poll(client: httpx.Client, url: str, process: subprocess.Popen[bytes], started: float, timeout: float,
          enough: Callable[[httpx.Response], bool]) -> None:
    """Get `url` until a 2xx answer is `enough`; 503 means still starting (loading its index and model)."""
    while True:
        try:
            answer = client.get(url)
            if answer.status_code != 503:
                answer.raise_for_status()
                if enough(answer):
                    return
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"faq serve was not ready within {timeout:.0f} s: {answer.text}")
        except httpx.TransportError:
            if process.poll() is not None:
                raise RuntimeError(f"faq serve exited with code {process.returncode}") from None
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"faq serve did not answer within {timeout:.0f} s") from None
        time.sleep(0.02)


@contextmanager
def running_server(env: Mapping[str, str], ready_path: str = "/healthz",
                   timeout: float = 60.0, workers: int = 1, cpus: set[int] | None = None) -> Iterator[LocalServer]:
    """Yield the server once `ready_path` answers 2xx.

    It searches by words only unless `env` says FAQ_SEMANTIC=true (then its data's vectors should be made
    first: a server making them in the background would measure the model, not the search). With several
    `workers`, each poll is a new connection (the kernel hands it to any worker), and it waits until /readyz has
    answered 200 from every worker by its process id: a warm worker may take every connection while another is
    still loading, so answers in a row prove nothing. With `cpus`, the server and its workers run on those cores
    only (Linux), so that clients measuring it on the same machine can be kept off them.
    """
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port),
                                "--workers", str(workers)],
                               cwd=ROOT, env={**os.environ, "FAQ_SEMANTIC": "false", **env},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=None if cpus is None else lambda: os.sched_setaffinity(0, cpus))
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=5, headers={"Connection": "close"} if workers > 1 else None) as client:
            if workers > 1:
                ready_workers: set[int] = set()

                def every_worker_ready(answer: httpx.Response) -> bool:
                    ready_workers.add(answer.json()["worker"])
                    return len(ready_workers) == workers

                _poll(client, base + "/readyz", process, started, timeout, every_worker_ready)
            _poll(client, base + ready_path, process, started, timeout, lambda answer: True)
        yield LocalServer(base, time.perf_counter() - started, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def seeded_server() -> Iterator[str]:
    """A `faq serve` over a fresh ingest of the project's content/ in a scratch folder; yields its base URL."""
    import tempfile

    from app.config import Settings
    from app.ingest.pipeline import run_ingest

    with tempfile.TemporaryDirectory() as data:
        run_ingest(Settings(content_dir=ROOT / "content", data_dir=Path(data), database_url=""), progress=False)
        with running_server({"FAQ_DATA_DIR": data}) as (base, _, _):
            yield base


@contextmanager
def scratch_postgres_database(server: str, prefix: str = "faq_scratch") -> Iterator[str]:
    """The URL of a new empty database on the PostgreSQL `server` (the role needs CREATEDB), dropped at the end."""
    import uuid

    from sqlalchemy import create_engine, make_url, text
    from sqlalchemy.pool import NullPool

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
