"""Queries against the index of the seeds, and the dev query set."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.search.query import make_snippet
from measure.evaluation import evaluate, read_queries
from tests.conftest import REPO, require


def test_make_snippet_escapes_text_and_marks_merged_matches() -> None:
    snippet = make_snippet("<b>CUDA</b> 内存碎片化 happens", ["内存", "存碎", "碎片", "cuda"])
    assert "<b>" not in snippet and "&lt;b&gt;" in snippet
    assert "<mark>内存碎片</mark>" in snippet
    assert "<mark>CUDA</mark>" in snippet


def test_make_snippet_centres_on_matches_in_long_text() -> None:
    text = "filler " * 100 + "the expandable_segments setting" + " tail" * 100
    snippet = make_snippet(text, ["expandable_segments"])
    assert "<mark>expandable_segments</mark>" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")


def test_dev_queries_reach_the_search_target(seeded: Settings, shared: Path) -> None:
    queries = read_queries(require(shared / "eval" / "queries-dev.tsv", "dev queries"))
    result = evaluate(seeded, queries)
    assert result.total == len(queries) > 20
    failures = [(q.id, rank) for q, rank in result.failures]
    assert result.success >= 0.95, failures
    assert result.mrr >= 0.85


def test_project_queries_cover_each_failure_kind(seeded: Settings) -> None:
    queries = read_queries(REPO / "eval" / "queries-project.tsv")
    result = evaluate(seeded, queries)
    assert result.total >= 12
    assert result.failures == [], [(q.id, rank) for q, rank in result.failures]


def test_code_like_queries_are_recognised() -> None:
    from app.search.query import CODE_LIKE

    for query in ("PYTORCH_CUDA_ALLOC_CONF", "pad_token_id", "torch.compile", "`ds_report`", "peft==0.3.0"):
        assert CODE_LIKE.search(query), query
    for query in ("内存碎片 OOM", "how to fine-tune llama", "deepspeed 版本 不稳定"):
        assert not CODE_LIKE.search(query), query


def test_code_text_collects_fenced_blocks_and_inline_spans() -> None:
    from app.search.index import code_text

    markdown = "Run `ds_report` first.\n\n```bash\nexport CUDA_HOME=/usr/local/cuda\n```\n\nThen train."
    assert code_text(markdown).split() == ["export", "CUDA_HOME=/usr/local/cuda", "ds_report"]
