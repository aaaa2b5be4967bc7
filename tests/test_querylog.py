"""The search statistics writer survives failures: it keeps the counts, says once, retries, and bounds memory."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from app import querylog
from app.querylog import QueryLog, top_queries
from tests.conftest import settings_for


def _until(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the writer never got there"
        time.sleep(0.01)


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(querylog, "FLUSH_SECONDS", 0.01)
    monkeypatch.setattr(querylog, "RETRY_MAX_SECONDS", 0.05)


def _messages(caplog: pytest.LogCaptureFixture, word: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "app.querylog" and word in r.getMessage()]


@pytest.mark.usefixtures("quick")
def test_the_writer_pauses_keeps_the_counts_and_resumes(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="app.querylog")
    settings = settings_for(tmp_path, tmp_path)
    blocked = settings.data_dir / "queries.db"
    blocked.mkdir(parents=True)  # not a database file: every write fails, as on a full or read-only disk
    log = QueryLog(settings)
    try:
        log.record("cuda out of memory", 3)
        _until(lambda: bool(_messages(caplog, "paused")))
        for _ in range(4):
            log.record("cuda out of memory", 3)
        log.record("nothing like it", 0)
        time.sleep(0.2)  # several more attempts fail meanwhile
        assert log._thread is not None and log._thread.is_alive()  # it died at the first failure
        assert len(_messages(caplog, "paused")) == 1 and "queries.db" in _messages(caplog, "paused")[0]
        shutil.rmtree(blocked)  # space is back
        _until(lambda: bool(_messages(caplog, "resumed")))
        counts = {row.query: (row.searches, row.zero) for row in top_queries(settings, 1, 10)}
        assert counts == {"cuda out of memory": (5, 0), "nothing like it": (1, 1)}  # nothing counted was lost
        assert len(_messages(caplog, "resumed")) == 1 and "could not be kept" not in _messages(caplog, "resumed")[0]
    finally:
        log.close()


@pytest.mark.usefixtures("quick")
def test_while_paused_the_counts_kept_are_bounded(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.WARNING, logger="app.querylog")
    monkeypatch.setattr(querylog, "MAX_PENDING", 3)
    settings = settings_for(tmp_path, tmp_path)
    blocked = settings.data_dir / "queries.db"
    blocked.mkdir(parents=True)
    log = QueryLog(settings)
    try:
        for n in range(6):
            log.record(f"query {n}", 1)
            log.record("query 0", 1)  # a query already waiting is still counted
        _until(lambda: bool(_messages(caplog, "paused")))
        assert len(log._pending) == 3
        shutil.rmtree(blocked)
        _until(lambda: bool(_messages(caplog, "resumed")))
        assert "3 searches could not be kept" in _messages(caplog, "resumed")[0]
        counts = {row.query: row.searches for row in top_queries(settings, 1, 10)}
        assert counts == {"query 0": 7, "query 1": 1, "query 2": 1}
    finally:
        log.close()


def test_closing_while_the_disk_fails_says_so_in_one_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="app.querylog")
    settings = settings_for(tmp_path, tmp_path)
    (settings.data_dir / "queries.db").mkdir(parents=True)
    log = QueryLog(settings)
    log.record("cuda", 1)
    log.close()  # raised sqlite3.OperationalError into the server's shut-down
    assert len(_messages(caplog, "paused")) == 1 and len(_messages(caplog, "not written at shut-down")) == 1
    assert not any(record.exc_info for record in caplog.records)
