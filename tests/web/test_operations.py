"""Operations: metrics, JSON access logs, the admin re-ingest behind a token, and --watch."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from app.config import Settings
from app.generations import current_name
from app.ingest.pipeline import run_ingest
from app.live import Reingester, watch_content
from app.main import create_app
from app.querylog import QueryLog, top_queries
from app.web.inprocess import InProcessClient
from tests.conftest import CONTENT, settings_for

TOKEN = "s3cret-token-for-tests"


@pytest.fixture
def portal(tmp_path: Path) -> Settings:
    """A portal of its own (the tests publish new generations) with an admin token."""
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    settings = settings_for(tmp_path, content).model_copy(update={"admin_token": TOKEN})
    run_ingest(settings, progress=False)
    return settings


def _sample(text: str, series: str) -> float:
    """The value of one series in Prometheus text (0 when absent)."""
    return next((float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(series + " ")), 0.0)


def test_metrics_count_requests_by_route_and_searches_that_found_nothing(portal: Settings) -> None:
    searched = 'faq_http_requests_total{method="GET",route="/api/v1/search",status="200"}'
    with InProcessClient(create_app(portal)) as client:
        before = client.get("/metrics").text  # the counters belong to the process: compare
        client.get("/api/v1/search", params={"q": "FSDP"})
        client.get("/api/v1/search", params={"q": "zzqxv"})
        client.get("/entries/no-such-entry")
        after = client.get("/metrics").text
    assert _sample(after, searched) - _sample(before, searched) == 2
    assert _sample(after, "faq_zero_result_searches_total") - _sample(before, "faq_zero_result_searches_total") == 1
    assert 'route="/entries/{entry_id}",status="404"' in after  # the route's template: never an id or a query
    assert "zzqxv" not in after and "no-such-entry" not in after
    assert f'faq_generation_info{{generation="{current_name(portal)}"}} 1.0' in after


def test_access_log_is_one_line_per_request_without_the_query(portal: Settings,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    from app.logs import JsonFormatter, PlainFormatter

    with caplog.at_level(logging.INFO, logger="faq.access"), InProcessClient(create_app(portal)) as client:
        client.get("/api/v1/search", params={"q": "private words"})
    record = caplog.records[-1]
    line = json.loads(JsonFormatter().format(record))
    assert line["route"] == "/api/v1/search" and line["status"] == 200 and line["ms"] >= 0
    assert line["time"][:4].isdigit() and line["time"][10] == "T" and line["level"] == "info"  # ISO 8601
    plain = PlainFormatter().format(record)
    assert plain.endswith(f"INFO    GET /api/v1/search 200 {line['ms']:.1f} ms")
    assert "private" not in plain and "private" not in json.dumps(line)


def test_admin_reindex_needs_the_token_and_publishes_while_readers_keep_reading(portal: Settings) -> None:
    before = current_name(portal)
    with InProcessClient(create_app(portal)) as client:
        assert client.request("POST", "/api/v1/admin/reindex").status_code == 401
        wrong = client.request("POST", "/api/v1/admin/reindex", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
        started = client.request("POST", "/api/v1/admin/reindex", headers={"Authorization": f"Bearer {TOKEN}"})
        assert started.status_code == 202 and started.json()["started"] is True
        answered = []
        deadline = time.monotonic() + 60
        while client.get("/api/v1/admin/reindex", headers={"Authorization": f"Bearer {TOKEN}"}).json()[
                "state"] == "running" and time.monotonic() < deadline:
            answered.append(client.get("/api/v1/search", params={"q": "FSDP"}).status_code)
        status = client.get("/api/v1/admin/reindex", headers={"Authorization": f"Bearer {TOKEN}"}).json()
        assert status["state"] == "done" and status["generation"] != before
        assert set(answered) <= {200}
        assert client.get("/readyz").json()["generation"] == status["generation"]


def test_admin_routes_do_not_exist_without_a_token(seeded: Settings) -> None:
    with InProcessClient(create_app(seeded)) as client:
        assert client.request("POST", "/api/v1/admin/reindex").status_code in (404, 405)
        assert "/api/v1/admin/reindex" not in client.get("/openapi.json").json()["paths"]


def test_a_failed_reingest_is_reported_and_the_data_keeps_serving(portal: Settings) -> None:
    def failing(_settings: Settings) -> object:
        raise RuntimeError("disk full")

    reingester = Reingester(portal, failing)  # type: ignore[arg-type]
    status = reingester.run()
    assert status.state == "failed" and "disk full" in (status.error or "")


def test_watch_reingests_when_content_changes(portal: Settings) -> None:
    before = current_name(portal)
    stop = threading.Event()
    watcher = threading.Thread(target=watch_content, args=(portal, stop), daemon=True)
    watcher.start()
    try:
        time.sleep(0.5)  # the watcher is listening
        (portal.content_dir / "new.en.md").write_text("# New\n\n## Does watching work?\n\nYes.\n", encoding="utf-8")
        deadline = time.monotonic() + 60
        while current_name(portal) == before and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        stop.set()
        watcher.join(10)
    assert current_name(portal) != before
    with InProcessClient(create_app(portal)) as client:
        titles = [hit["title"] for hit in client.get("/api/v1/search", params={"q": "watching"}).json()["results"]]
    assert "Does watching work?" in titles


def test_searches_are_counted_for_editors_without_personal_data(portal: Settings) -> None:
    with InProcessClient(create_app(portal)) as client:
        for query in ("FSDP", "fsdp ", "zzqxv qqzzv", "FSDP"):
            client.get("/api/v1/search", params={"q": query})
        client.get("/search", params={"q": "fsdp", "offset": 10})  # paging on: not another search
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        stats = client.get("/api/v1/admin/queries", params={"days": 7}, headers=bearer).json()
        assert client.get("/api/v1/admin/queries").status_code == 401
        page = client.get("/admin/queries", auth=("editor", TOKEN))
        refused = client.get("/admin/queries", auth=("editor", "wrong"))
    assert {"query": "fsdp", "searches": 3, "zero": 0} in stats["top"]
    assert stats["zero_results"] == [{"query": "zzqxv qqzzv", "searches": 1, "zero": 1}]
    assert page.status_code == 200 and "zzqxv qqzzv" in page.text
    assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Basic")
    stored = sqlite3.connect(portal.data_dir / "queries.db").execute("SELECT * FROM query_day").fetchall()
    assert {len(row) for row in stored} == {4}  # day, query, searches, zero: nothing about the reader


def test_query_log_keeps_only_its_retention_and_can_record_nothing(portal: Settings) -> None:
    log = QueryLog(portal)
    log.record("Old question", 0)
    log.flush()
    with sqlite3.connect(portal.data_dir / "queries.db") as db:
        db.execute("UPDATE query_day SET day = '2000-01-01'")
    log.record("new question", 2)
    log.flush()
    assert [c.query for c in top_queries(portal, 36500, 10)] == ["new question"]
    silent = QueryLog(portal.model_copy(update={"query_log_days": 0}))
    silent.record("secret", 1)
    silent.close()
    assert top_queries(portal, 36500, 10) == []  # 0 days: nothing kept, the old rows deleted too


def test_faq_stats_lists_what_found_nothing_first(portal: Settings, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import EXIT_OK, _stats

    log = QueryLog(portal)
    for query, total in (("cuda oom", 3), ("cuda oom", 3), ("hccl timeout", 0)):
        log.record(query, total)
    log.close()
    import argparse

    assert _stats(argparse.Namespace(days=30, limit=20), portal) == EXIT_OK
    out = capsys.readouterr().out
    assert out.index("hccl timeout") < out.index("most frequent") < out.index("cuda oom")


def test_a_search_out_of_time_before_scoring_anything_says_so_and_is_not_counted_as_finding_nothing(
        portal: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.search import ranking

    monkeypatch.setattr(ranking, "SEARCH_BUDGET", -1.0)  # spent before the first term is scored
    with InProcessClient(create_app(portal)) as client:
        answer = client.get("/api/v1/search", params={"q": "FSDP"}).json()
        page = client.get("/search", params={"q": "FSDP"}).text
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        stats = client.get("/api/v1/admin/queries", params={"days": 7}, headers=bearer).json()
    assert answer["partial"] is True and answer["total"] == 0
    assert "ran out of time" in page and "No entry matches" not in page
    assert stats["zero_results"] == [] and stats["top"] == []


def test_log_records_go_to_standard_error_as_it_is_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """A standard error replaced (and the old one closed) since logging was set up still gets the records: no
    '--- Logging error ---' where a command's one line should be."""
    import io
    import logging.config
    import sys

    from app.logs import logging_config

    before = logging.getLogger().handlers[:]
    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    logging.config.dictConfig(logging_config("plain"))
    try:
        first.close()
        now = io.StringIO()
        monkeypatch.setattr(sys, "stderr", now)
        logging.getLogger("app.db").info("serving generation %s", "g1")
        assert now.getvalue().rstrip().endswith("serving generation g1")
        assert "Logging error" not in now.getvalue()
    finally:
        root = logging.getLogger()
        root.handlers[:] = before
