"""Queries against the index of the seeds, and the dev query set."""

from __future__ import annotations

import functools
import time
from pathlib import Path

import pytest

from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.search.highlight import make_snippet
from app.search.spelling import Vocabulary, count_words
from app.web.inprocess import InProcessClient
from measure.evaluation import evaluate, portal_ranker, read_queries
from tests.conftest import REPO, require, settings_for


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
    from app.search.clauses import CODE_LIKE

    for query in ("PYTORCH_CUDA_ALLOC_CONF", "pad_token_id", "torch.compile", "`ds_report`", "peft==0.3.0"):
        assert CODE_LIKE.search(query), query
    for query in ("内存碎片 OOM", "how to fine-tune llama", "deepspeed 版本 不稳定"):
        assert not CODE_LIKE.search(query), query


def test_code_text_collects_fenced_blocks_and_inline_spans() -> None:
    from app.search.index import code_text

    markdown = "Run `ds_report` first.\n\n```bash\nexport CUDA_HOME=/usr/local/cuda\n```\n\nThen train."
    assert code_text(markdown).split() == ["export", "CUDA_HOME=/usr/local/cuda", "ds_report"]


def _ingested(tmp_path: Path, files: dict[str, str]) -> Settings:
    """Settings over `files` (path under content/ → markdown), ingested."""
    content = tmp_path / "content"
    for name, markdown in files.items():
        (content / name).parent.mkdir(parents=True, exist_ok=True)
        (content / name).write_text(markdown, encoding="utf-8")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    return settings


def _failures(tmp_path: Path, faq: str, query: str, fingerprint: str) -> list[object]:
    """Ingest one FAQ of some size (a word in every entry is no clue) and run one query against it."""
    filler = "".join(f"## Why does step {i} fail?\n\nRetry step {i}.\n\n" for i in range(40))
    settings = _ingested(tmp_path, {"faq.md": "# FAQ\n\n" + faq + filler})
    queries = tmp_path / "queries.tsv"
    queries.write_text(f"q1\t1\t{query}\t{fingerprint}\n", encoding="utf-8")
    return list(evaluate(settings, read_queries(queries)).failures)


def test_an_unknown_compound_word_finds_entries_that_write_its_parts_apart(tmp_path: Path) -> None:
    faq = ("## How do I enable authentication for etcd?\n\nSet `etcd.user` and `etcd.password`.\n\n"
           "## Why is the list empty?\n\nThe filter hides everyone.\n\n"
           "## How do I add a user?\n\nRun `adduser` for each new user.\n\n")
    assert _failures(tmp_path, faq, "etcdserver: user name is empty", "enable authentication") == []


def test_an_unknown_camel_case_identifier_finds_the_entry_that_writes_its_words(tmp_path: Path) -> None:
    faq = ("## The job fails with Public Key Retrieval is not allowed\n\nAdd the option to the URL.\n\n"
           "## How do I allow a key?\n\nList it in the config.\n\n")
    assert _failures(tmp_path, faq, "无法指定链接参数 AllowPublicKeyRetrieval=True", "Public Key Retrieval") == []


def test_an_unknown_camel_case_name_with_one_long_word_finds_that_word(tmp_path: Path) -> None:
    faq = ("## Why does a Select lose focus?\n\nRender it in the popup container.\n\n"
           "## How do I stop a query?\n\nKill it.\n\n## How do I close the connection?\n\nCall close.\n\n")
    assert _failures(tmp_path, faq, "onSelect", "popup container") == []


def test_a_pasted_java_cause_finds_the_entry_that_names_its_exception_in_words(tmp_path: Path) -> None:
    faq = ("## A Socket Timeout exception interrupts the import\n\nRaise the retry interval.\n\n"
           "## Why does Java read the wrong net mask?\n\nSet it in the config.\n\n"
           "## How do I read the processing log?\n\nOpen `logs/processing.log`.\n\n")
    trace = ("Caused by: javax.ws.rs.ProcessingException: java.net.SocketTimeoutException: Read timed out\n"
             "at org.glassfish.jersey.client.ClientRuntime.invoke(ClientRuntime.java:278)")
    assert _failures(tmp_path, faq, trace.replace("\n", "\\n"), "Raise the retry") == []


def test_a_query_naming_a_folder_prefers_that_folders_entries(tmp_path: Path) -> None:
    faq = ("# FAQ\n\n## Why does the import time out?\n\nRaise the timeout.\n\n"
           + "".join(f"## Why does step {i} fail?\n\nRetry step {i}.\n\n" for i in range(10)))
    settings = _ingested(tmp_path, {f"{project}/faq.md": faq for project in ("alphadb", "betadb")})
    with InProcessClient(create_app(settings)) as client:
        for project in ("alphadb", "betadb"):
            hits = client.get("/api/v1/search", params={"q": f"{project} import time out"}).json()["results"]
            assert hits[0]["document"]["id"] == f"{project}-faq"


def test_a_word_common_in_answers_weighs_little_though_titles_rarely_say_it(tmp_path: Path) -> None:
    # `remote` and `API` are in every answer but one title: as title words they would outweigh "error".
    faq = ("# FAQ\n\n## How do I call the remote API?\n\nSee the reference.\n\n"
           "## Why is there a connection error?\n\nThe server is down.\n\n"
           + "".join(f"## Why does step {i} fail?\n\nThe remote API returns {i}.\n\n" for i in range(30)))
    settings = _ingested(tmp_path, {"faq.md": faq})
    with portal_ranker(settings) as rank:
        assert rank("Error when calling remote API: Connection error")[0].startswith("why-is-there-a-connection")


def test_a_pasted_error_prefers_the_entry_quoting_its_message_as_written(tmp_path: Path) -> None:
    faq = ("## Is a type required for the key, and which type?\n\nA key type is required; the required type "
           "is listed in the key reference.\n\n"
           "## How to solve the `Type is required` error?\n\nSet `type` in the configuration file.\n\n")
    trace = ('Exception in thread "main" java.lang.IllegalArgumentException: Type is required.\\n'
             "  at com.google.common.base.Preconditions.checkArgument(Preconditions.java:122)")
    assert _failures(tmp_path, faq, trace, "configuration file") == []


def test_an_entry_quoting_a_distinctive_message_names_the_error_without_its_type(tmp_path: Path) -> None:
    # The other entry names the exception type, the heaviest word of the signature, but not the message.
    faq = ("## Why does the loader throw java.lang.IllegalArgumentException?\n\nThe loader rejects a bad "
           "mapping with java.lang.IllegalArgumentException; fix the mapping.\n\n"
           "## How to solve the `Type is required` error?\n\nSet `type` in the configuration file.\n\n")
    trace = 'Exception in thread "main" java.lang.IllegalArgumentException: Type is required.'
    assert _failures(tmp_path, faq, trace, "configuration file") == []


def test_a_pasted_error_prefers_the_entry_holding_its_words_side_by_side(tmp_path: Path) -> None:
    # Both entries hold every word of the message; one holds them in the message's order.
    faq = ("## Why do the calls fail?\n\nWhen calling the API too often, the remote end drops the "
           "connection with an error.\n\n"
           "## Why does the evaluation stop?\n\nThe log shows a connection error: calling remote API "
           "endpoints fails when they are unreachable.\n\n")
    log = "2024-05-01 10:00:00,123 - evalscope - ERROR - Connection error when calling remote API"
    assert _failures(tmp_path, faq, log, "are unreachable") == []


def test_a_pasted_info_log_line_is_searched_by_its_message(tmp_path: Path) -> None:
    faq = ("## What status does a commit report once committed?\n\nA commit reports its status to the "
           "coordinator.\n\n"
           "## Did the transaction not roll back?\n\nIf the log says `commit status: Committed`, the "
           "exception was caught before it reached the coordinator.\n\n")
    log = ("2020-09-08 18:46:14.920  INFO  703e7547402da3cb grpc-default-executor-0 "
           "io.seata.tm.api.DefaultGlobalTransaction [172.18.0.2:8091:4666907] commit status: Committed")
    assert _failures(tmp_path, faq, log, "exception was caught") == []


def test_answer_text_keeps_code_as_written_and_parts_blocks() -> None:
    from app.ingest.pipeline import html_to_text

    highlighted = ('<p>Run <code>ds_report</code>.</p><pre><code><span class="n">--num_gpus</span>'
                   '<span class="o">=</span><span class="mi">8</span>\ntorch<span class="o">==</span>2.0</code></pre>'
                   "<ul><li>one</li><li>two</li></ul>")
    assert html_to_text(highlighted) == "Run ds_report. --num_gpus=8 torch==2.0 one two"


def test_titles_mark_the_query_words_and_stay_escaped() -> None:
    from app.search.highlight import mark_terms

    marked = mark_terms("Why does <b>CUDA</b> run out?", ["cuda"])
    assert marked == "Why does &lt;b&gt;<mark>CUDA</mark>&lt;/b&gt; run out?"
    assert mark_terms("显存不足怎么办", ["显存", "存不", "不足"]) == "<mark>显存不足</mark>怎么办"


def test_spelling_prefers_the_nearest_word_then_the_most_frequent(tmp_path: Path) -> None:
    vocabulary = Vocabulary(count_words(["result " * 5 + "results", "gradient gradients gradients"]))
    assert vocabulary.closest("rrsults", maxdist=2, prefix=1) == "results"  # one edit, though rarer
    assert vocabulary.closest("gradienx", maxdist=2, prefix=1) == "gradient"
    assert vocabulary.closest("xradient", maxdist=2, prefix=1) is None  # the first letter stays
    vocabulary.save(tmp_path)
    assert Vocabulary.load(tmp_path).counts == vocabulary.counts
    assert Vocabulary.load(tmp_path / "older-index").closest("rrsults", 2, 1) is None  # no list: no correction
    (tmp_path / "VOCABULARY").write_bytes(b"results\t1\nbroken line\ngradient\tx\n\xff\xfe")
    assert Vocabulary.load(tmp_path).counts == {}  # not UTF-8: no corrections, and no error
    (tmp_path / "VOCABULARY").write_text("results\t1\nbroken line\ngradient\tx\n", encoding="utf-8")
    assert Vocabulary.load(tmp_path).counts == {"results": 1}  # damaged lines left out


def test_a_ready_server_corrects_its_first_chinese_typo_however_slow_the_typo_tables_load(
        seeded: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.search import hanzi
    from app.search.ranking import SEARCH_BUDGET

    load_tables = hanzi._by_sound.__wrapped__

    @functools.lru_cache(maxsize=1)
    def slow_tables() -> dict[str, frozenset[str]]:  # a busy machine: the tables take longer than a search may
        time.sleep(SEARCH_BUDGET + 0.3)
        return load_tables()

    monkeypatch.setattr(hanzi, "_by_sound", slow_tables)
    with InProcessClient(create_app(seeded.model_copy(update={"semantic": False}))) as client:  # once ready
        first = client.get("/api/v1/search", params={"q": "显纯不足"}).json()
    assert first["corrected"] and first["suggestion"] == "显存不足" and first["total"] > 0
