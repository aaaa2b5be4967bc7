"""Mixed traffic against a real server process: no errors, no stall, health answered throughout."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import anyio
import httpx

from app.config import Settings
from measure.load import run
from measure.localserver import running_server
from tests.conftest import require

CLIENTS = 128  # past the 32 request threads: a bounded connection pool stalled here
REQUESTS_EACH = 8


def test_mixed_traffic_at_128_connections_answers_everything(seeded: Settings) -> None:
    with running_server({"FAQ_DATA_DIR": str(seeded.data_dir), "FAQ_CONTENT_DIR": str(seeded.content_dir)}) as (
            base, _, _):
        with httpx.Client(base_url=base) as client:
            entry = client.get("/api/v1/search", params={"q": "FSDP"}).json()["results"][0]["id"]
            document = client.get("/api/v1/documents").json()[0]["id"]
        urls = itertools.cycle([
            f"/entries/{entry}", f"/api/v1/entries/{entry}", f"/documents/{document}", "/", "/healthz",
            "/api/v1/search?q=CUDA+out+of+memory", "/search?q=显存", "/api/v1/documents",
        ])
        statuses: list[int] = []
        failures: list[str] = []

        async def client_loop() -> None:
            # A stall (requests waiting minutes) would hit this timeout; a busy machine does not.
            async with httpx.AsyncClient(base_url=base, timeout=30) as http:
                for _ in range(REQUESTS_EACH):
                    url = next(urls)
                    try:
                        statuses.append((await http.get(url)).status_code)
                    except httpx.HTTPError as exc:
                        failures.append(f"{url}: {type(exc).__name__}")

        async def scenario() -> None:
            async with anyio.create_task_group() as group:
                for _ in range(CLIENTS):
                    group.start_soon(client_loop)

        anyio.run(scenario)
        assert failures == []
        assert len(statuses) == CLIENTS * REQUESTS_EACH and set(statuses) == {200}
        with httpx.Client(base_url=base, timeout=5) as client:
            assert client.get("/healthz").status_code == 200  # and right after the load


def test_make_load_counts_requests_failures_and_health_with_wrk(seeded: Settings) -> None:
    wrk = require(Path(shutil.which("wrk") or "/usr/bin/wrk"), "wrk (make load's client)")
    assert wrk.exists()
    with running_server({"FAQ_DATA_DIR": str(seeded.data_dir), "FAQ_CONTENT_DIR": str(seeded.content_dir)}) as (
            base, _, _):
        answered = run(base, ["/healthz", "/api/v1/search?q=FSDP"], 4, 1.0)
        missing = run(base, ["/entries/no-such-entry"], 4, 1.0)
    assert answered["rps"] > 10 and answered["errors"] == 0
    assert 0 < answered["p50"] <= answered["p99"] and answered["health_p99"] > 0
    assert missing["rps"] > 10 and missing["errors"] >= missing["rps"]  # every 404 counted as a failure
