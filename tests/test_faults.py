"""Ingests killed with SIGKILL at random points while a client reads: readers never notice."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from app.config import Settings
from app.generations import KEEP_GENERATIONS, complete_generations, current_name
from app.ingest.pipeline import run_ingest
from measure.localserver import running_server
from tests.conftest import CONTENT, REPO, pg_settings_for

KILLS = 6


def _read_until(stop: threading.Event, base: str, paths: list[str], failures: list[str], counter: list[int]) -> None:
    with httpx.Client(timeout=10) as client:
        while not stop.is_set():
            for path in paths:
                try:
                    response = client.get(base + path)
                    if response.status_code != 200:
                        failures.append(f"{path}: {response.status_code}")
                except httpx.HTTPError as error:
                    failures.append(f"{path}: {error!r}")
                counter[0] += 1


def _kill_ingests_while_reading(settings: Settings) -> tuple[list[str], int, str]:
    """SIGKILL `faq ingest` at random points while a client reads, then ingest once to the end.

    Returns the failed reads, the reads made, and the generation the server finally served.
    """
    env = {"FAQ_DATA_DIR": str(settings.data_dir), "FAQ_CONTENT_DIR": str(settings.content_dir),
           "FAQ_DATABASE_URL": settings.database_url}
    rng = random.Random(20261122)  # the kill points are random but repeatable
    failures: list[str] = []
    requests = [0]
    with running_server(env) as (base, _, _):
        entry = httpx.get(base + "/api/v1/search", params={"q": "FSDP"}).json()["results"][0]["url"]
        paths = ["/healthz", "/api/v1/search?q=CUDA+out+of+memory", "/search?q=显存", entry, "/"]
        stop = threading.Event()
        reader = threading.Thread(target=_read_until, args=(stop, base, paths, failures, requests))
        reader.start()
        try:
            for _ in range(KILLS):
                ingest = subprocess.Popen([sys.executable, "-m", "app.cli", "ingest", "--quiet"], cwd=REPO,
                                          env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL)
                time.sleep(rng.uniform(0.2, 2.5))  # startup, reading, indexing or publishing
                ingest.send_signal(signal.SIGKILL)
                ingest.wait()
            final = subprocess.run([sys.executable, "-m", "app.cli", "ingest", "--quiet"], cwd=REPO,
                                   env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
            assert final.returncode == 0, final.stderr
            time.sleep(2.5)  # more reads; a replica on a server database follows within a poll or two
            served = str(httpx.get(base + "/readyz").json()["generation"])
        finally:
            stop.set()
            reader.join()
    return failures, requests[0], served


def test_sigkilled_ingests_never_disturb_readers_and_leave_no_debris(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    settings = Settings(content_dir=content, data_dir=tmp_path / "data", database_url="",
                        _env_file=None)  # type: ignore[call-arg]
    run_ingest(settings, progress=False)
    first = complete_generations(settings)
    failures, requests, served = _kill_ingests_while_reading(settings)
    assert failures == [] and requests > 50, (failures[:5], requests)
    kept = complete_generations(settings)
    assert kept[0] != first[0] and kept[0] == current_name(settings) == served and len(kept) <= KEEP_GENERATIONS
    # Only complete generations and their pointer remain: killed builds were swept.
    leftovers = [p.name for p in (settings.data_dir / "generations").iterdir() if p.name not in kept]
    assert leftovers == [], leftovers


def test_sigkilled_ingests_on_postgresql_never_disturb_readers(tmp_path: Path, postgres_url: str) -> None:
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    settings = pg_settings_for(tmp_path, postgres_url, content)
    run_ingest(settings, progress=False)
    first = current_name(settings)
    failures, requests, served = _kill_ingests_while_reading(settings)
    assert failures == [] and requests > 50, (failures[:5], requests)
    assert served == current_name(settings) != first  # the replica follows the pointer row to the last ingest
