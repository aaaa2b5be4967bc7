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
from tests.conftest import CONTENT, REPO

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


def test_sigkilled_ingests_never_disturb_readers_and_leave_no_debris(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    settings = Settings(content_dir=content, data_dir=tmp_path / "data", database_url="",
                        _env_file=None)  # type: ignore[call-arg]
    run_ingest(settings, progress=False)
    first = complete_generations(settings)
    env = {"FAQ_DATA_DIR": str(settings.data_dir), "FAQ_CONTENT_DIR": str(content), "FAQ_DATABASE_URL": ""}
    rng = random.Random(20261122)  # the kill points are random but repeatable
    failures: list[str] = []
    requests = [0]
    with running_server(env) as (base, _):
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
            time.sleep(0.5)  # a few more reads on the new generation
        finally:
            stop.set()
            reader.join()
    assert failures == [] and requests[0] > 50, (failures[:5], requests[0])
    kept = complete_generations(settings)
    assert kept[0] != first[0] and kept[0] == current_name(settings) and len(kept) <= KEEP_GENERATIONS
    # Only complete generations and their pointer remain: killed builds were swept.
    leftovers = [p.name for p in (settings.data_dir / "generations").iterdir() if p.name not in kept]
    assert leftovers == [], leftovers
