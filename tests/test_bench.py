"""`make bench`'s scale rows, run small: every figure the issue asks for is printed and plausible."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.ingest.pipeline import run_ingest
from measure.bench import _pool, bench_large
from measure.localserver import ROOT


def test_scale_bench_reports_sizes_server_memory_cold_start_and_both_engines(tmp_path: Path) -> None:
    run_ingest(Settings(content_dir=ROOT / "content", data_dir=tmp_path, database_url=""), progress=False)
    rows = {name: (figure, detail) for name, figure, detail in bench_large(_pool(tmp_path), 2000, 10, readiness=40)}

    database, index = (float(part) for part in rows["data 2k: database / index (MB)"][0].split(" / "))
    assert database > 1 and index > 1  # 2,000 entries take megabytes, not nothing
    assert 20 < float(rows["server 2k: resident memory after the searches (MB)"][0]) < 2000
    assert 0 < float(rows["server 2k: cold start to the first search answered (s)"][0]) < 60
    assert "success@10" in rows["search 2k selective, Whoosh over HTTP (ms)"][1]
    assert "search 2k vague, FTS5 trigram in-process (ms)" in rows
    assert float(rows["search 2k selective, Whoosh in-process (ms)"][0].removeprefix("p50 ")) > 0

    # Search by meaning: the model's cost, the time to hybrid search, what a re-ingest embeds, both rankings.
    assert float(rows["embedding, 1 thread (entries/s)"][0]) > 0
    assert 0 < float(rows["semantic readiness 40 entries: publish to hybrid search (s)"][0]) < 300
    assert rows["re-ingest after editing 1% of 40 entries: entries embedded again"][0] == "1"
    assert rows["vectors 2k"][0] == "stand-ins"
    lexical, hybrid = (float(part) for part in rows["server 2k selective: resident memory, lexical / hybrid (MB)"][0]
                       .split(" / "))
    assert hybrid > lexical  # the model and the vectors are in memory
    assert float(rows["search 2k selective, hybrid over HTTP (ms)"][0].removeprefix("p50 ")) > 0
    assert float(rows["semantic readiness 2k: publish to hybrid search (s)"][0].removeprefix("~")) > 0
    # Every 2k entry's vector is in the cache: a 1% edit embeds the 20 edited entries, not 2,000.
    assert rows["re-ingest after editing 1% of 2,000 entries: entries embedded again"][0] == "20"
