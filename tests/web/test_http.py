"""HTTP basics and browser integration: HEAD, gzip, fingerprinted static files, ETags, suggestions, sitemap."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import re
import shutil
import socket
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from fastapi.routing import APIRoute
from starlette.types import Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web import pages
from app.web.http import IMMUTABLE, SHORT, NoDelayProtocol
from app.web.inprocess import InProcessClient
from app.web.suggest import Title, TitleIndex
from tests.conftest import CONTENT, REPO, settings_for

STATIC = REPO / "static"
EMPTY = ["", [], [], []]
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"


def _entry_id(client: InProcessClient, query: str, lang: str = "any") -> str:
    return str(client.get("/api/v1/search", params={"q": query, "lang": lang}).json()["results"][0]["id"])


def _get_paths(client: InProcessClient) -> list[str]:
    """One real URL for every GET route: those in the API schema, the pages, /docs and a static file."""
    samples = {"{entry_id}": _entry_id(client, "FSDP"), "{document_id}": "llama-recipes-faq-en"}
    queries = {"/api/v1/search": "?q=fsdp", "/search": "?q=fsdp", "/api/v1/suggest": "?q=fsdp"}
    schema = client.get("/openapi.json").json()
    documented = [path for path, operations in schema["paths"].items() if "get" in operations]
    routes = [*documented, *(r.path for r in pages.router.routes if isinstance(r, APIRoute) and "GET" in r.methods)]
    paths = []
    for route in routes:
        path = route
        for name, value in samples.items():
            path = path.replace(name, value)
        paths.append(path + queries.get(route, ""))
    return [*paths, "/docs", "/openapi.json", "/static/css/portal.css"]


# ------------------------------------------------------------------ HEAD


def test_head_answers_like_get_on_every_get_route(client: InProcessClient) -> None:
    paths = _get_paths(client)
    assert {"/", "/docs", "/openapi.json", "/api/v1/documents", "/sitemap.xml", "/favicon.ico"} <= set(paths)
    for path in paths:
        if path == "/metrics":  # counts the requests themselves: GET and HEAD differ by the one between
            continue
        get, head = client.get(path), client.request("HEAD", path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b"", path
        assert head.headers["content-type"] == get.headers["content-type"], path
        assert head.headers.get("content-length") == get.headers.get("content-length"), path


def test_head_on_an_unknown_page_is_404_like_get(client: InProcessClient) -> None:
    head = client.request("HEAD", "/api/v1/entries/no-such-entry")
    assert head.status_code == 404 and head.content == b""
    assert head.headers["content-type"].startswith("application/problem+json")


# ------------------------------------------------------------------ gzip


@pytest.mark.parametrize(("path", "media_type"), [
    ("/search?q=fsdp", "text/html"),
    ("/api/v1/search?q=fsdp", "application/json"),
    ("/static/css/portal.css", "text/css"),
    ("/static/vendor/swagger-ui/swagger-ui-bundle.js", "text/javascript"),
    ("/openapi.json", "application/json"),
])
def test_gzip_compresses_html_json_css_and_js(client: InProcessClient, path: str, media_type: str) -> None:
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    packed = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-type"].startswith(media_type)
    assert "content-encoding" not in plain.headers and packed.headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["vary"]
    assert packed.content == plain.content  # httpx decodes: the same bytes arrive
    assert packed.num_bytes_downloaded < plain.num_bytes_downloaded / 2


def test_gzip_leaves_small_responses_alone(client: InProcessClient) -> None:
    response = client.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert response.json()["status"] == "ok" and "content-encoding" not in response.headers


# ------------------------------------------------------------------ static files


def test_static_urls_in_pages_carry_their_content_hash(client: InProcessClient) -> None:
    found = set()
    for page in ("/", "/search?q=fsdp", "/docs", "/no-such-page"):
        found |= set(re.findall(r'(?:href|src)="/static/([^"?]+)\?v=([0-9a-f]+)"', client.get(page).text))
    assert {path for path, _ in found} >= {"css/portal.css", "favicon.svg", "swagger-init.js",
                                           "vendor/swagger-ui/swagger-ui-bundle.js", "vendor/swagger-ui/swagger-ui.css"}
    for path, version in found:
        assert version == hashlib.sha256((STATIC / path).read_bytes()).hexdigest()[:10], path
    assert not re.search(r'(?:href|src)="/static/[^"?]+"', client.get("/").text)  # none left unversioned


def test_only_versioned_static_urls_are_cached_for_a_year(client: InProcessClient) -> None:
    versioned = re.search(r'href="(/static/css/portal.css\?v=[0-9a-f]+)"', client.get("/").text)
    assert versioned is not None
    assert client.get(versioned.group(1)).headers["cache-control"] == IMMUTABLE
    assert client.get("/static/css/portal.css").headers["cache-control"] == SHORT
    assert client.get("/static/css/portal.css?v=0000000000").headers["cache-control"] == SHORT  # stale link
    assert "immutable" not in client.get("/").headers.get("cache-control", "")


# ------------------------------------------------------------------ ETag / 304


def test_a_repeated_get_with_its_etag_is_304_with_the_same_headers(client: InProcessClient) -> None:
    for path in ("/api/v1/documents", f"/entries/{_entry_id(client, 'fused_adam')}", "/search?q=fsdp",
                 "/sitemap.xml", "/api/v1/suggest?q=fsdp"):
        first = client.get(path)
        etag = first.headers["etag"]
        assert etag.startswith('W/"') and first.headers["cache-control"] == "no-cache", path
        again = client.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b"", path
        assert again.headers["etag"] == etag and "frame-ancestors 'none'" in again.headers["content-security-policy"]
        assert client.request("HEAD", path, headers={"If-None-Match": f'"other", {etag}'}).status_code == 304
        assert client.get(path, headers={"If-None-Match": 'W/"something-else"'}).status_code == 200


def test_etag_differs_by_query_and_by_the_readers_language_on_pages(client: InProcessClient) -> None:
    english = client.get("/", headers={"Accept-Language": "en"})
    chinese = client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert english.headers["etag"] != chinese.headers["etag"]
    assert "Accept-Language" in english.headers["vary"]
    assert client.get("/", headers={"Accept-Language": "zh-CN", "If-None-Match": english.headers["etag"]}
                      ).status_code == 200
    fsdp, cuda = client.get("/api/v1/search?q=fsdp"), client.get("/api/v1/search?q=cuda")
    assert fsdp.headers["etag"] != cuda.headers["etag"]


def test_errors_and_probes_carry_no_etag(client: InProcessClient) -> None:
    assert "etag" not in client.get("/api/v1/entries/no-such-entry").headers
    assert "etag" not in client.get("/healthz").headers
    assert "etag" not in client.get("/readyz").headers


def test_a_search_cut_short_by_its_budget_is_never_tagged(seeded: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.search import ranking

    monkeypatch.setattr(ranking, "SEARCH_BUDGET", 0.0)
    with InProcessClient(create_app(seeded)) as http:
        for path in ("/api/v1/search?q=CUDA+out+of+memory", "/search?q=CUDA+out+of+memory"):
            response = http.get(path)
            assert response.status_code == 200 and "etag" not in response.headers, path
            assert response.headers["cache-control"] == "no-store"


def test_a_new_generation_changes_every_etag(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    shutil.copy(CONTENT / "llama-recipes-faq.en.md", content)
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as http:
        before = http.get("/api/v1/documents").headers["etag"]
        assert http.get("/api/v1/documents", headers={"If-None-Match": before}).status_code == 304
        run_ingest(settings, progress=False)  # same content, new generation
        after = http.get("/api/v1/documents", headers={"If-None-Match": before})
    assert after.status_code == 200 and after.headers["etag"] != before


# ------------------------------------------------------------------ suggestions


def _suggest(client: InProcessClient, q: str, **headers: str) -> Any:
    response = client.get("/api/v1/suggest", params={"q": q}, headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-suggestions+json"
    body = response.json()
    assert len(body) == 4 and len(body[1]) == len(body[2]) == len(body[3])
    return body


def test_suggest_completes_a_title_prefix_in_the_opensearch_format(client: InProcessClient) -> None:
    query, titles, descriptions, urls = _suggest(client, "how do peft")
    assert query == "how do peft"
    assert titles[0] == "How do PEFT methods work with FSDP in terms of grad requirements/layer freezing?"
    assert descriptions[0] == "FAQ"
    entry = client.get(urls[0].replace("/entries/", "/api/v1/entries/")).json()
    assert entry["title"] == titles[0]


def test_suggest_matches_words_inside_titles_in_both_languages(client: InProcessClient) -> None:
    _, titles, _, _ = _suggest(client, "fsdp")
    assert titles[0].startswith("FSDP 如何")  # a title that starts with it comes before one with it inside
    assert "How does FSDP handles mixed grad requirements?" in titles
    _, titles, _, _ = _suggest(client, "mixed grad")
    assert titles == ["How does FSDP handles mixed grad requirements?"]
    _, titles, _, _ = _suggest(client, "memory cuda")  # every word, in any order
    assert "How to handle CUDA memory fragmentations during fine-tuning that may lead into an OOM?" in titles


def test_suggest_completes_chinese_from_the_middle_and_from_traditional(client: InProcessClient) -> None:
    fragment = "在微调期间如何处理可能导致 OOM 的 CUDA 内存碎片化？"
    assert _suggest(client, "内存碎片")[1][0] == fragment
    assert _suggest(client, "內存碎片")[1][0] == fragment  # Traditional 內 finds Simplified 内
    assert _suggest(client, "保存")[1][:2] == ["保存出错", "保存时发生OOM"]  # shortest first


def test_suggest_matches_only_at_word_starts(client: InProcessClient) -> None:
    assert _suggest(client, "emory")[1] == []  # inside "memory": not a word someone types


@pytest.mark.parametrize("query", ["", "   ", "x" * 201, "中" * 300])
def test_suggest_empty_or_over_long_gets_empty_lists(client: InProcessClient, query: str) -> None:
    assert _suggest(client, query) == EMPTY


@pytest.mark.parametrize("query", ["(((", "\\", ".*", "[", "a" * 200, "\x00", "<script>", "?", "🚀"])
def test_suggest_awkward_queries_never_fail(client: InProcessClient, query: str) -> None:
    assert _suggest(client, query)[0] == query


def test_suggest_without_q_gets_empty_lists(client: InProcessClient) -> None:
    assert client.get("/api/v1/suggest").json() == EMPTY


def test_suggest_links_are_absolute_from_configuration_only(seeded: Settings) -> None:
    configured = seeded.model_copy(update={"public_url": "https://faq.intranet/"})
    with InProcessClient(create_app(configured)) as http:
        urls = http.get("/api/v1/suggest", params={"q": "fsdp"}, headers={"Host": "evil.example"}).json()[3]
    assert urls and all(u.startswith("https://faq.intranet/entries/") for u in urls)


def test_title_index_ranks_prefix_then_word_then_all_words_and_drops_duplicates() -> None:
    titles = [Title("a", "en", "Why is the cache slow?", "d"), Title("b", "en", "Cache misses", "d"),
              Title("c", "en", "Slow cache after restart", "d"), Title("d", "zh", "Cache misses", "d2"),
              Title("e", "en", "Precache the index", "d")]
    index = TitleIndex(titles)
    assert [t.id for t in index.complete("cache")] == ["b", "a", "c"]  # prefix, then shorter first
    assert [t.id for t in index.complete("cache slow")] == ["a", "c"]
    chinese_first = TitleIndex([Title("e", "en", "内存 memory", "d"), Title("z", "zh", "内存不足", "d")])
    assert [t.id for t in chinese_first.complete("内存")] == ["z", "e"]  # the query's script first
    assert [t.id for t in chinese_first.complete("memory")] == ["e"]
    assert [t.id for t in index.complete("cache", limit=1)] == ["b"]
    assert index.complete("") == [] and index.complete("precache")[0].id == "e"


def test_title_index_narrows_by_word_to_the_completions_a_full_scan_finds() -> None:
    words = ["pipeline parallel", "parallel zero", "zero-3 offload", "显存不足", "训练时报错", "torch.compile"]
    titles = [Title(f"{n}", "zh" if "显" in w or "训" in w else "en", f"{product} {w} {n % 7}", "d")
              for n, (product, w) in enumerate(itertools.product(["bloomz", "llama", "peft"], words * 5))]
    index = TitleIndex(titles)
    narrowed_bloomz = index.shelves["en"].candidates(["bloomz", "pa"])
    assert narrowed_bloomz is not None and len(narrowed_bloomz) == 10  # bloomz with parallel, not with zero-3
    for typed in ("bloomz pa", "llama zero-3 off", "peft torch.", "训练", "显", "bloomz 训练时", "pe", "3", "xyz q",
                  "(("):
        narrowed = [t.id for t in index.complete(typed)]
        with patch("app.web.suggest.MAX_CANDIDATES", -1):  # every keystroke scans every title
            assert narrowed == [t.id for t in index.complete(typed)], typed


# ------------------------------------------------------------------ OpenSearch, sitemap, robots, favicon


def test_opensearch_offers_suggestions_at_the_configured_address(client: InProcessClient, seeded: Settings) -> None:
    body = client.get("/opensearch.xml").text
    assert '<Url type="application/x-suggestions+json" method="get" template="/api/v1/suggest?q={searchTerms}"/>' \
        in body
    configured = seeded.model_copy(update={"public_url": "https://faq.intranet"})
    with InProcessClient(create_app(configured)) as http:
        body = http.get("/opensearch.xml", headers={"Host": "evil.example"}).text
    assert 'template="https://faq.intranet/api/v1/suggest?q={searchTerms}"' in body and "evil.example" not in body
    assert ">https://faq.intranet/favicon.ico</Image>" in body


def _sitemap(http: InProcessClient) -> dict[str, dict[str, str]]:
    """Each <loc> with its alternates, hreflang → href."""
    response = http.get("/sitemap.xml", headers={"Host": "evil.example"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/xml")
    root = ET.fromstring(response.content)
    return {url.findtext(f"{SITEMAP}loc") or "": {link.get("hreflang") or "": link.get("href") or ""
                                                  for link in url.findall(f"{XHTML}link")}
            for url in root.findall(f"{SITEMAP}url")}


def test_sitemap_lists_home_documents_and_entries_with_language_alternates(client: InProcessClient,
                                                                         seeded: Settings) -> None:
    configured = seeded.model_copy(update={"public_url": "https://faq.intranet/"})
    with InProcessClient(create_app(configured)) as http:
        urls = _sitemap(http)
    base = "https://faq.intranet"
    documents = client.get("/api/v1/documents").json()
    entries = [e for d in documents for e in client.get(f"/api/v1/documents/{d['id']}").json()["entries"]]
    assert set(urls) == {f"{base}/"} | {f"{base}/documents/{d['id']}" for d in documents} | {
        f"{base}{e['url']}" for e in entries}
    english = client.get(f"/api/v1/entries/{_entry_id(client, 'PYTORCH_CUDA_ALLOC_CONF', 'en')}").json()
    (chinese,) = english["translations"]
    assert urls[f"{base}{english['url']}"] == {"en": f"{base}{english['url']}", "zh-Hans": f"{base}{chinese['url']}"}
    assert urls[f"{base}{chinese['url']}"] == urls[f"{base}{english['url']}"]
    assert urls[f"{base}/documents/llama-recipes-faq-en"]["zh-Hans"] == f"{base}/documents/llama-recipes-faq-zh"
    alone = client.get("/api/v1/documents/training-env-troubleshooting-zh").json()
    assert urls[f"{base}/documents/{alone['id']}"] == {}


def test_robots_allows_everything_and_points_at_the_sitemap(client: InProcessClient, seeded: Settings) -> None:
    body = client.get("/robots.txt").text
    assert body.startswith("User-agent: *\nAllow: /\n") and "Sitemap: /sitemap.xml" in body
    configured = seeded.model_copy(update={"public_url": "https://faq.intranet"})
    with InProcessClient(create_app(configured)) as http:
        body = http.get("/robots.txt", headers={"Host": "evil.example"}).text
    assert "Sitemap: https://faq.intranet/sitemap.xml\n" in body and "evil.example" not in body


def test_favicon_ico_is_a_real_icon(client: InProcessClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00" and response.content == (STATIC / "favicon.ico").read_bytes()
    assert "max-age" in response.headers["cache-control"]


def test_openapi_documents_the_new_routes_with_their_media_types(client: InProcessClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    media = {path: set(paths[path]["get"]["responses"]["200"]["content"])
             for path in ("/api/v1/suggest", "/sitemap.xml", "/robots.txt", "/favicon.ico")}
    assert media == {"/api/v1/suggest": {"application/x-suggestions+json"}, "/sitemap.xml": {"application/xml"},
                     "/robots.txt": {"text/plain"}, "/favicon.ico": {"image/x-icon"}}
    (q,) = paths["/api/v1/suggest"]["get"]["parameters"]
    assert q["name"] == "q" and q["required"] is False
    assert "application/problem+json" in paths["/sitemap.xml"]["get"]["responses"]["503"]["content"]


def test_docs_page_serves_the_vendored_swagger_ui_5(client: InProcessClient) -> None:
    page = client.get("/docs").text
    assert '<html lang="en">' in page and "/static/swagger/" not in page
    bundle = client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").text
    assert "SwaggerUIBundle" in bundle and '"5.' in bundle
    assert client.get("/openapi.json").json()["openapi"].startswith("3.1")


def test_suggest_offers_searches_readers_often_made_after_the_titles(tmp_path: Path) -> None:
    from app.ingest.pipeline import run_ingest
    from app.main import create_app
    from app.querylog import QueryLog

    settings = settings_for(tmp_path)
    run_ingest(settings, progress=False)
    log = QueryLog(settings)
    for query, times in (("zero3 offload nvme tips", 3), ("zero3 private detail", 1), ("zero3 nothing", 5)):
        for _ in range(times):
            log.record(query, 0 if "nothing" in query else 4)
    log.close()
    with InProcessClient(create_app(settings)) as http:
        typed, completions, descriptions, urls = http.get("/api/v1/suggest", params={"q": "Zero3 "}).json()
    assert typed == "Zero3 "
    assert "zero3 offload nvme tips" in completions  # searched often, and it found something
    assert "zero3 private detail" not in completions  # searched once: one reader's business
    assert "zero3 nothing" not in completions  # found nothing: no use suggesting it
    i = completions.index("zero3 offload nvme tips")
    assert descriptions[i] == "search" and urls[i] == "/search?q=zero3+offload+nvme+tips"


async def _nodelay_of_an_accepted_connection(protocol: type[H11Protocol]) -> int:
    """TCP_NODELAY of a connection `protocol` took on a socket bound as `faq serve --workers N` binds it."""
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise AssertionError("no request is sent")

    config = Config(app, host="127.0.0.1", port=0, http=protocol)
    config.load()
    state = ServerState()
    server = await asyncio.get_running_loop().create_server(
        lambda: protocol(config=config, server_state=state, app_state={}), sock=config.bind_socket())
    _, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    try:
        while not state.connections:
            await asyncio.sleep(0.01)
        (taken,) = state.connections
        return int(taken.transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
    finally:
        writer.close()
        server.close()


def test_every_connection_has_nagle_off_on_the_socket_uvicorn_binds_for_several_workers() -> None:
    # uvicorn's own protocol leaves it on there (its issue 3149): each answer then waited 40 ms for a delayed ACK.
    # When this first line fails, uvicorn sets it itself and NoDelayProtocol can go.
    assert asyncio.run(_nodelay_of_an_accepted_connection(H11Protocol)) == 0
    assert asyncio.run(_nodelay_of_an_accepted_connection(NoDelayProtocol)) == 1
