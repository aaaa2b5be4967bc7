"""measure/beside.py and its server: several workers, and a ratio for each phase with the load it was taken under."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import httpx
import pytest

from app.ingest.pipeline import run_ingest
from measure import beside
from measure.localserver import running_server
from tests.conftest import settings_for


def _workers(pid: int) -> list[str]:
    """The processes uvicorn's supervisor `pid` spawned to serve (not multiprocessing's resource tracker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [child for child in children if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the server's processes from Linux's /proc")
def test_the_server_runs_the_workers_asked_for(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    run_ingest(settings, progress=False)
    with running_server({"FAQ_DATA_DIR": str(settings.data_dir)}, ready_path="/readyz", workers=2) as server:
        workers = _workers(server.pid)
        assert len(workers) == 2
        with httpx.Client(base_url=server.base, headers={"Connection": "close"}) as client:
            answered = {client.get("/readyz").json()["worker"] for _ in range(40)}
    assert answered <= {int(worker) for worker in workers}  # /readyz names the worker that answered


def test_the_table_gives_each_phase_its_ratio_and_the_load(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["beside", "2", "--workers", "2", "--phases", "2"])
    mine = os.sched_getaffinity(0)
    assert beside.main() == 0
    assert os.sched_getaffinity(0) == mine  # the clients' cores were this process's for the run only
    out = capsys.readouterr().out
    placement = r"server on cores \[[\d, ]+\], clients on \[[\d, ]+\]|server and clients share the only core"
    assert re.search(rf"^faq serve --workers 2; (?:{placement}); load average [\d.]+ -> [\d.]+$", out, re.MULTILINE)
    assert "'CUDA out of memory' (4 times each way)" in out
    rows = re.findall(r"^('a' x 4000|itself \(control\)) .* [\d.]+x  [\d.]+ [\d.]+$", out, re.MULTILINE)
    assert rows == ["'a' x 4000", "itself (control)"]  # the ratio over all, then one a phase


def test_the_server_runs_on_the_cores_given_and_the_probe_gives_its_own_back(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    run_ingest(settings, progress=False)
    mine = os.sched_getaffinity(0)
    core = max(mine)
    with running_server({"FAQ_DATA_DIR": str(settings.data_dir)}, ready_path="/readyz", cpus={core}) as server:
        assert os.sched_getaffinity(server.pid) == {core}
    assert os.sched_getaffinity(0) == mine
    server_cpus, placement = beside._apart()  # moves this process to the lower half of its cores
    try:
        if len(mine) > 1:
            assert server_cpus and not server_cpus & os.sched_getaffinity(0)
            assert placement.startswith("server on cores")
    finally:
        os.sched_setaffinity(0, mine)
