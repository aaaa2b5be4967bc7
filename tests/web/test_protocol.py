"""Protocol details under hostile requests: 405 with Allow, over-long ids and request targets."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from app.config import Settings
from app.limits import MAX_QUERY_LENGTH, MAX_REQUEST_HEAD, MAX_REQUEST_TARGET
from app.web.inprocess import InProcessClient
from measure.localserver import running_server
from measure.protocol import raw_get

UNDECLARED = ("POST", "PUT", "DELETE", "PATCH")


def test_every_operation_answers_an_undeclared_method_with_405_and_allow(client: InProcessClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert len(paths) >= 6
    for template, operations in paths.items():
        path = template.replace("{entry_id}", "x").replace("{document_id}", "x")
        declared = {method.upper() for method in operations}
        method = next(m for m in UNDECLARED if m not in declared)
        response = client.request(method, path)
        assert response.status_code == 405, (method, path)
        allowed = {m.strip() for m in response.headers.get("allow", "").split(",")}
        assert declared <= allowed, (method, path, response.headers.get("allow"))
        if path.startswith("/api/"):
            assert response.headers["content-type"] == "application/problem+json"


def test_a_page_answers_an_undeclared_method_with_405_and_allow(client: InProcessClient) -> None:
    response = client.request("PUT", "/search?q=cuda")  # the page takes GET, and POST for a long paste
    assert response.status_code == 405 and response.headers["allow"] == "GET, POST"
    assert response.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("path", ["/entries/", "/api/v1/entries/", "/documents/", "/api/v1/documents/", "/"])
def test_an_absurdly_long_id_gets_a_short_404(client: InProcessClient, path: str) -> None:
    response = client.get(path + "x" * 40_000)
    assert response.status_code == 404
    assert len(response.content) < 4_000  # was the whole id, twice: 80 KB
    assert "x" * 81 not in response.text and "xxx…" in response.text


def test_a_request_target_longer_than_any_answer_needs_is_414_with_a_short_page(client: InProcessClient) -> None:
    for target in ("/search?q=" + "a" * MAX_REQUEST_TARGET, "/" + "x" * MAX_REQUEST_TARGET,
                   "/api/v1/search?q=" + "a" * MAX_REQUEST_TARGET):
        response = client.get(target)
        assert response.status_code == 414, target[:20]
        assert len(response.content) < 4_000 and "a" * 100 not in response.text
        assert f"{MAX_QUERY_LENGTH:,} characters" in response.text


def test_the_longest_query_a_reader_may_send_still_fits(client: InProcessClient) -> None:
    longest = quote("\U00020000" * MAX_QUERY_LENGTH)  # four UTF-8 bytes each, every one percent-encoded
    assert client.get("/api/v1/search?q=" + longest).status_code == 200
    assert client.get("/search?q=" + longest).status_code == 200


def test_faq_serve_reads_the_longest_query_when_it_arrives_in_pieces(seeded: Settings) -> None:
    longest = "/api/v1/search?q=" + quote("\U00020000" * MAX_QUERY_LENGTH)
    with running_server({"FAQ_DATA_DIR": str(seeded.data_dir)}) as server:
        # Its first 20 KB read alone: h11 refused a head that long before it was whole (400, or the connection cut).
        assert raw_get(server.base, longest, pause_after=20_000)[0] == 200
        assert raw_get(server.base, "/" + "x" * (MAX_REQUEST_HEAD + 1), pause_after=MAX_REQUEST_HEAD + 1)[0] in (0, 400)


@pytest.mark.parametrize("body", [b"\x8e\x1c\xc4\x935\xfa\xff\x17y\x12", b"[" * 100_000])
def test_a_body_that_cannot_be_decoded_is_the_documented_422(client: InProcessClient, body: bytes) -> None:
    # Bytes that are not UTF-8 (found by schemathesis), and JSON nested deeper than Python's recursion: FastAPI says
    # 400, which the schema does not list for the operation.
    documented = client.get("/openapi.json").json()["paths"]["/api/v1/search"]["post"]["responses"]
    response = client.post("/api/v1/search", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422 and "422" in documented
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["detail"].startswith("body: cannot be read as JSON")
