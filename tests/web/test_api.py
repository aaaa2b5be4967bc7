"""The JSON API, per CONTRACT.md."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.web.inprocess import InProcessClient
from app.web.params import clean_query

ENTRY_KEYS = {"id", "title", "lang", "url", "document", "section", "body_markdown", "body_html",
              "translations", "related"}


def test_search_returns_contract_shape_with_marked_snippets(client: InProcessClient) -> None:
    response = client.get("/api/v1/search", params={"q": "expandable_segments", "limit": 5})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert {"query", "total", "limit", "offset", "suggestion", "results"} <= body.keys()
    assert body["query"] == "expandable_segments" and body["limit"] == 5 and body["offset"] == 0
    hit = body["results"][0]
    assert {"id", "title", "lang", "url", "document", "snippet", "score", "translations"} <= hit.keys()
    assert hit["url"] == f"/entries/{hit['id']}"
    assert "<mark>expandable_segments</mark>" in hit["snippet"]
    assert {"id", "title"} <= hit["document"].keys()


def test_search_finds_chinese_word_from_the_middle_of_a_sentence(client: InProcessClient) -> None:
    body = client.get("/api/v1/search", params={"q": "碎片"}).json()
    titles = [r["title"] for r in body["results"][:3]]
    assert any("内存碎片化" in t for t in titles), titles


def test_search_lang_filter_and_pagination(client: InProcessClient) -> None:
    everything = client.get("/api/v1/search", params={"q": "FSDP", "limit": 50}).json()
    chinese = client.get("/api/v1/search", params={"q": "FSDP", "lang": "zh", "limit": 50}).json()
    assert {r["lang"] for r in chinese["results"]} == {"zh"}
    assert 0 < chinese["total"] <= everything["total"]
    first = client.get("/api/v1/search", params={"q": "FSDP", "limit": 2}).json()
    second = client.get("/api/v1/search", params={"q": "FSDP", "limit": 2, "offset": 2}).json()
    ids = [r["id"] for r in everything["results"]]
    assert [r["id"] for r in first["results"] + second["results"]] == ids[:4]


def test_search_hits_list_their_translation(client: InProcessClient) -> None:
    body = client.get("/api/v1/search", params={"q": "PYTORCH_CUDA_ALLOC_CONF", "lang": "en"}).json()
    hit = body["results"][0]
    assert hit["lang"] == "en"
    assert [t["lang"] for t in hit["translations"]] == ["zh"]


def test_entry_detail_has_contract_fields_and_plain_title(client: InProcessClient) -> None:
    hit = client.get("/api/v1/search", params={"q": "fused_adam"}).json()["results"][0]
    entry = client.get(hit["url"].replace("/entries/", "/api/v1/entries/")).json()
    assert entry.keys() >= ENTRY_KEYS
    assert entry["title"] == "RuntimeError: Error building extension 'fused_adam'"
    assert entry["section"] == ["Others"]
    assert {"id", "title", "path", "lang"} <= entry["document"].keys()
    assert "libcudart.so" in entry["body_markdown"]


def test_entry_with_translation_links_both_ways(client: InProcessClient) -> None:
    hit = client.get("/api/v1/search", params={"q": "TORCH_DISTRIBUTED_DEBUG", "lang": "en"}).json()["results"][0]
    english = client.get(f"/api/v1/entries/{hit['id']}").json()
    (translation,) = english["translations"]
    chinese = client.get(f"/api/v1/entries/{translation['id']}").json()
    assert chinese["lang"] == "zh"
    assert [t["id"] for t in chinese["translations"]] == [english["id"]]


def test_documents_list_and_detail(client: InProcessClient) -> None:
    documents = client.get("/api/v1/documents").json()
    assert len(documents) == 5
    assert all({"id", "title", "lang", "path", "entry_count"} <= d.keys() for d in documents)
    english = next(d for d in documents if d["path"] == "llama-recipes-faq.en.md")
    detail = client.get(f"/api/v1/documents/{english['id']}").json()
    assert len(detail["entries"]) == detail["entry_count"] == 9
    assert detail["markdown"].startswith("# FAQ")
    assert [t["lang"] for t in detail["translations"]] == ["zh"]
    assert all({"id", "title", "lang", "url"} <= e.keys() for e in detail["entries"])


def test_healthz_counts(client: InProcessClient) -> None:
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and body["documents"] == 5 and body["entries"] >= 60


@pytest.mark.parametrize(("path", "status"), [
    ("/api/v1/entries/no-such-entry", 404),
    ("/api/v1/documents/no-such-document", 404),
    ("/api/v1/search", 422),
    ("/api/v1/search?q=", 422),
    ("/api/v1/search?q=%20%20", 422),
    ("/api/v1/search?q=x&limit=0", 422),
    ("/api/v1/search?q=x&limit=51", 422),
    ("/api/v1/search?q=x&offset=-1", 422),
    ("/api/v1/search?q=x&lang=fr", 422),
    ("/api/v1/search?q=x&limit=abc", 422),
    ("/api/v1/nothing-here", 404),
])
def test_bad_requests_get_problem_json(client: InProcessClient, path: str, status: int) -> None:
    response = client.get(path)
    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["status"] == status and problem["title"] and problem["detail"]


def test_over_long_query_is_a_clear_4xx(client: InProcessClient) -> None:
    response = client.get("/api/v1/search", params={"q": "a" * 4001})
    assert response.status_code == 422
    assert "4000" in response.json()["detail"]


@pytest.mark.parametrize("query", [
    '"unbalanced', "AND", "-", "*", "OR NOT", "???", "(((", "the", "\x00\x07 control",
    "emoji 🚀 混合 scripts", "x" * 4000, "a:b:c", "title:foo", "\\",
])
def test_awkward_queries_never_fail(client: InProcessClient, query: str) -> None:
    response = client.get("/api/v1/search", params={"q": query})
    assert response.status_code == 200, response.text
    assert isinstance(response.json()["results"], list)


def test_a_pasted_traceback_keeps_its_lines(client: InProcessClient) -> None:
    # The error signature reads a paste line by line: flattened, a stack frame would pass for the error.
    assert clean_query("Caused by: E: boom\r\n\tat a.B.c(B.java:1)\x07") == "Caused by: E: boom\n at a.B.c(B.java:1)"
    pasted = "Traceback (most recent call last):\n  File \"x.py\", line 1\nRuntimeError: Error building extension"
    assert client.get("/api/v1/search", params={"q": pasted}).json()["query"] == pasted


def test_openapi_and_docs_are_served_without_a_cdn(client: InProcessClient) -> None:
    assert client.get("/openapi.json").json()["paths"]["/api/v1/search"]
    docs = client.get("/docs").text
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js?v=" in docs and "cdn." not in docs
    assert client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200


def test_before_first_ingest_everything_says_to_ingest(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from app.main import create_app
    from tests.conftest import settings_for

    with InProcessClient(create_app(settings_for(tmp_path))) as empty:
        api = empty.get("/api/v1/search", params={"q": "x"})
        assert api.status_code == 503 and "faq ingest" in api.json()["detail"]
        assert empty.get("/healthz").status_code == 503
        page = empty.get("/")
        assert page.status_code == 503 and "faq ingest" in page.text


def test_repaired_document_is_served_repaired(client: InProcessClient) -> None:
    doc = client.get("/api/v1/documents/hf-transformers-deepspeed-notes-zh").json()
    assert "\ufffd" not in doc["markdown"] and "â€" not in doc["markdown"]
    assert "### GPU显存" in doc["markdown"]
    titles = [e["title"] for e in doc["entries"]]
    assert "训练时的显存占用" in titles
    entry = client.get(f"/api/v1/entries/{doc['entries'][1]['id']}").json()
    assert entry["repaired_characters"] > 0
    assert "需要加载的模型名称" in entry["body_markdown"]


def test_clean_entries_report_no_repairs(client: InProcessClient) -> None:
    hit = client.get("/api/v1/search", params={"q": "fused_adam"}).json()["results"][0]
    entry = client.get(f"/api/v1/entries/{hit['id']}").json()
    assert entry["repaired_characters"] == 0 and entry["uncertain_repairs"] == 0


def test_search_finds_text_that_was_mojibake(client: InProcessClient) -> None:
    body = client.get("/api/v1/search", params={"q": "显存占用"}).json()
    assert body["results"] and body["results"][0]["document"]["id"] == "hf-transformers-deepspeed-notes-zh"


def test_misspelled_query_gets_a_suggestion_and_results(client: InProcessClient) -> None:
    body = client.get("/api/v1/search", params={"q": "bitsandbites"}).json()
    assert body["suggestion"] == "bitsandbytes"
    assert body["results"] and "bitsandbytes" in body["results"][0]["title"]
    exact = client.get("/api/v1/search", params={"q": "bitsandbytes"}).json()
    assert exact["suggestion"] is None


def test_english_query_finds_chinese_entry_through_the_glossary(client: InProcessClient) -> None:
    body = client.get("/api/v1/search", params={"q": "GPU memory usage", "lang": "zh"}).json()
    assert body["results"] and body["results"][0]["title"].startswith("训练时的显存占用")
    assert "<mark>显存</mark>" in body["results"][0]["snippet"]


def test_pasted_traceback_finds_the_entry_for_its_error(client: InProcessClient) -> None:
    traceback = ("Traceback (most recent call last):\n"
                 '  File "/srv/app/train.py", line 3, in <module>\n'
                 "    from functools import cache\n" * 10 +
                 "ImportError: cannot import name 'cache' from 'functools' (/usr/lib/python3.9/functools.py)\n")
    body = client.get("/api/v1/search", params={"q": traceback}).json()
    assert body["results"][0]["title"] == "Functools Err"


@pytest.mark.parametrize(("phrase", "reversed_phrase"), [
    ('"device-side assert"', '"assert device-side"'),
    ('"内存碎片"', '"碎片内存"'),
])
def test_quoted_phrases_must_appear_in_order(client: InProcessClient, phrase: str, reversed_phrase: str) -> None:
    assert client.get("/api/v1/search", params={"q": phrase}).json()["total"] >= 1
    assert client.get("/api/v1/search", params={"q": reversed_phrase}).json()["total"] == 0


def test_document_filter_limits_results_to_one_document(client: InProcessClient) -> None:
    body = client.get("/api/v1/search", params={"q": "FSDP", "document": "llama-recipes-faq-en", "limit": 50}).json()
    assert body["total"] >= 4
    assert {r["document"]["id"] for r in body["results"]} == {"llama-recipes-faq-en"}


def test_translation_pairs_are_one_result_in_the_preferred_language(client: InProcessClient) -> None:
    for prefer in ("en", "zh"):
        body = client.get("/api/v1/search", params={"q": "FSDP", "prefer": prefer, "limit": 50}).json()
        ids = [r["id"] for r in body["results"]]
        partners = {t["id"] for r in body["results"] for t in r["translations"]}
        assert not partners & set(ids)  # never an entry and its translation side by side
        assert body["total"] == len(ids)
        paired = [r for r in body["results"] if r["translations"]]
        assert paired and all(r["lang"] == prefer for r in paired)


def test_raw_query_syntax_only_when_asked(client: InProcessClient) -> None:
    plain = client.get("/api/v1/search", params={"q": "title:fsdp AND body:freeze"}).json()
    raw = client.get("/api/v1/search", params={"q": "title:fsdp AND body:freeze", "syntax": "raw"}).json()
    assert raw["results"] and all("FSDP" in r["title"] for r in raw["results"])
    assert raw["total"] <= plain["total"]
    assert client.get("/api/v1/search", params={"q": "(((", "syntax": "raw"}).json()["results"] == []
    assert client.get("/api/v1/search", params={"q": "x", "syntax": "sql"}).status_code == 422


def test_a_slow_search_does_not_hold_up_other_requests(seeded: object, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    import anyio
    import httpx

    from app.main import create_app
    from app.queries import Reader

    search = Reader.search

    def slow_search(self: Reader, *args: object, **kwargs: object) -> object:
        time.sleep(1.0)  # stands for a heavy query: blocking work, as Whoosh scoring is
        return search(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Reader, "search", slow_search)
    finished: list[str] = []

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=create_app(seeded))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://portal") as http:
            async def get(name: str, url: str) -> None:
                assert (await http.get(url)).status_code == 200
                finished.append(name)

            async with anyio.create_task_group() as group:
                group.start_soon(get, "search", "/api/v1/search?q=OOM")
                await anyio.sleep(0.1)
                group.start_soon(get, "healthz", "/healthz")

    anyio.run(scenario)
    assert finished == ["healthz", "search"]


@pytest.mark.parametrize(("params", "message"), [
    ({"q": "(" * 1000 + "fsdp" + ")" * 1000, "syntax": "raw"}, "nested 1000 deep"),
    ({"q": "(" * 17 + "fsdp" + ")" * 17, "syntax": "raw"}, "at most 16 levels"),
    ({"q": " OR ".join(f"w{k}" for k in range(200)), "syntax": "raw"}, "at most 128"),
])
def test_raw_queries_too_complex_to_run_get_422_with_the_limit(client: InProcessClient, params: dict[str, str],
                                                                 message: str) -> None:
    response = client.get("/api/v1/search", params=params)
    assert response.status_code == 422 and message in response.json()["detail"]


def test_many_quoted_phrases_are_searched_without_error(client: InProcessClient) -> None:
    query = " ".join(f'"fsdp w{k}"' for k in range(100))
    response = client.get("/api/v1/search", params={"q": query})
    assert response.status_code == 200


def test_openapi_describes_what_the_server_sends(client: InProcessClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    problem = spec["components"]["schemas"]["Problem"]
    assert set(problem["required"]) >= {"title", "status", "detail", "instance"}
    without_data = {"/robots.txt", "/favicon.ico"}  # nothing ingested behind them: never 503
    for path, operations in spec["paths"].items():
        if path == "/metrics":  # answers without data too
            continue
        responses = operations["get"]["responses"]
        assert ("503" in responses) is (path not in without_data), path
        if path == "/api/v1/suggest":  # every q gets an answer (empty lists at worst)
            assert not [status for status in responses if status.startswith("4")]
        elif path.startswith("/api/"):
            for status in ("404", "422"):
                assert "application/problem+json" in responses[status]["content"], (path, status)
    search = spec["paths"]["/api/v1/search"]["get"]
    assert {p["name"]: p["required"] for p in search["parameters"]}["q"] is True
    missing = client.get("/api/v1/search")
    assert missing.status_code == 422 and missing.headers["content-type"].startswith("application/problem+json")
    assert missing.json()["detail"] == "q: give a search query, e.g. ?q=CUDA+out+of+memory"
    unknown = client.get("/api/v1/entries/no-such-entry")
    assert unknown.status_code == 404 and set(unknown.json()) >= set(problem["required"])


def test_a_search_past_its_time_budget_returns_what_it_has(seeded: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.main import create_app
    from app.search import ranking

    monkeypatch.setattr(ranking, "SEARCH_BUDGET", 0.0)
    with InProcessClient(create_app(seeded)) as http:  # type: ignore[arg-type]
        response = http.get("/api/v1/search", params={"q": "CUDA out of memory"})
        raw = http.get("/api/v1/search", params={"q": "cuda OR memory", "syntax": "raw"})
    assert response.status_code == 200 and response.json()["partial"] is True
    assert raw.status_code == 200 and raw.json()["partial"] is True


def test_a_search_within_its_budget_is_complete(client: InProcessClient) -> None:
    body = client.get("/api/v1/search", params={"q": "CUDA out of memory"}).json()
    assert body["partial"] is False and body["results"]


def test_healthz_answers_while_every_request_thread_is_busy(seeded: Settings) -> None:
    import anyio
    import httpx

    from app.main import create_app

    async def while_saturated(http: httpx.AsyncClient) -> httpx.Response:
        limiter = anyio.to_thread.current_default_thread_limiter()
        holders = [object() for _ in range(int(limiter.total_tokens))]
        for holder in holders:  # as if every request thread were busy with a slow search
            await limiter.acquire_on_behalf_of(holder)
        try:
            with anyio.fail_after(5):
                return await http.get("/healthz")
        finally:
            for holder in holders:
                limiter.release_on_behalf_of(holder)

    with InProcessClient(create_app(seeded)) as client:
        assert client.get("/healthz").status_code == 200  # the first answer counts the generation
        response = client.call(while_saturated)
    assert response.status_code == 200 and response.json()["entries"] > 0


def test_the_suite_runs_on_the_engine_it_was_asked_for(seeded: Settings, client: InProcessClient) -> None:
    from tests.conftest import ENGINE

    assert seeded.resolved_database_url.startswith("postgresql" if ENGINE == "postgresql" else "sqlite")
    assert client.get("/readyz").json()["status"] == "ok"


def test_post_search_reads_a_whole_log_and_names_its_error(client: InProcessClient) -> None:
    log = "\n".join(f"2024-05-01 12:00:{k:02d} INFO step {k} loss 0.{k}" for k in range(60)) * 3
    log += "\nImportError: cannot import name 'cache' from 'functools' (/usr/lib/python3.8/functools.py)"
    assert len(log) > 4000
    answer = client.post("/api/v1/search", json={"q": log, "limit": 3})
    assert answer.status_code == 200
    page = answer.json()
    assert page["error"] == "ImportError: cannot import name 'cache' from 'functools'"
    assert len(page["query"]) <= 4000 and "functools" in page["query"]
    assert client.get("/api/v1/search", params={"q": log}).status_code == 422  # a URL stays short
    assert client.post("/api/v1/search", json={"q": "x" * 65_537}).status_code == 422


@pytest.mark.parametrize("junk", ["\x00\x01\x7f" * 21_000, "😀" * 20_000, "x" * 65_536, "<b>" * 20_000])
def test_post_search_survives_64_kb_of_junk(client: InProcessClient, junk: str) -> None:
    answer = client.post("/api/v1/search", json={"q": junk[:65_536]})
    assert answer.status_code in (200, 422), answer.text[:200]
    page = client.post("/search", data={"q": junk[:65_536]})
    assert page.status_code in (200, 422) and "<b><b>" not in page.text


def test_corrections_are_flagged_and_can_be_refused(client: InProcessClient) -> None:
    corrected = client.get("/api/v1/search", params={"q": "deepsped"}).json()
    assert corrected["corrected"] and corrected["suggestion"] == "deepspeed" and corrected["total"] > 0
    as_typed = client.get("/api/v1/search", params={"q": "deepsped", "correct": "false"}).json()
    assert not as_typed["corrected"] and as_typed["suggestion"] == "deepspeed" and as_typed["total"] == 0
    assert client.get("/api/v1/search", params={"q": "显纯"}).json()["suggestion"] == "显存"
    assert client.get("/api/v1/search", params={"q": "kubernetes deepspeed"}).json()["unmatched"] == ["kubernetes"]


def test_a_correction_is_kept_when_the_model_is_too_busy_to_rank_by_meaning(
        client: InProcessClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from concurrent.futures import Future

    from app.search.engine import Semantics

    assert client.get("/readyz").json()["semantic"].startswith("ready")
    monkeypatch.setattr(Semantics, "query_vector", lambda _self, _text: Future())  # never computed
    answer = client.get("/api/v1/search", params={"q": "deepspede"}).json()
    assert answer["ranking"] == "lexical" and answer["total"] > 0
    assert answer["corrected"] and answer["suggestion"] == "deepspeed"


def test_a_search_ranked_by_words_because_the_model_was_late_is_not_kept(
        client: InProcessClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from concurrent.futures import Future

    from app.search.engine import Semantics

    assert client.get("/readyz").json()["semantic"].startswith("ready")
    query = {"q": "keep some layers from updating their weights while tuning"}
    on_time = Semantics.query_vector
    monkeypatch.setattr(Semantics, "query_vector", lambda _self, _text: Future())  # never computed
    assert client.get("/api/v1/search", params=query).json()["ranking"] == "lexical"
    monkeypatch.setattr(Semantics, "query_vector", on_time)
    # Kept, it would have answered by words alone until the next generation.
    assert client.get("/api/v1/search", params=query).json()["ranking"] == "hybrid"


def test_stop_words_are_never_named_as_unmatched(client: InProcessClient) -> None:
    assert client.get("/api/v1/search", params={"q": "CUDA out of memory"}).json()["unmatched"] == []
    assert client.get("/api/v1/search", params={"q": "how to use kubernetes with deepspeed"}).json()["unmatched"] == [
        "kubernetes"]
