"""HTTP basics: HEAD, gzip, fingerprinted static files, ETags."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest
from fastapi.routing import APIRoute

from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web import pages
from app.web.http import IMMUTABLE, SHORT
from app.web.inprocess import InProcessClient
from tests.conftest import CONTENT, REPO, settings_for

STATIC = REPO / "static"


def _entry_id(client: InProcessClient, query: str, lang: str = "any") -> str:
    return str(client.get("/api/v1/search", params={"q": query, "lang": lang}).json()["results"][0]["id"])


def _get_paths(client: InProcessClient) -> list[str]:
    """One real URL for every GET route: those in the API schema, the pages, /docs and a static file."""
    samples = {"{entry_id}": _entry_id(client, "FSDP"), "{document_id}": "llama-recipes-faq-en"}
    queries = {"/api/v1/search": "?q=fsdp", "/search": "?q=fsdp"}
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
    assert {"/", "/docs", "/openapi.json", "/api/v1/documents", "/opensearch.xml"} <= set(paths)
    for path in paths:
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
                 "/opensearch.xml"):
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
    from app.search import query

    monkeypatch.setattr(query, "SEARCH_BUDGET", 0.0)
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
