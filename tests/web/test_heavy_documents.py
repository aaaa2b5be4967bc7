"""A very long document must not slow the pages that only list or link it."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, event

from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient
from app.web.outline import PART_CHARS
from tests.conftest import settings_for


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """Every SQL statement run while the test runs."""
    seen: list[str] = []

    def record(conn: object, cursor: object, statement: str, *args: object) -> None:
        seen.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    yield seen
    event.remove(Engine, "before_cursor_execute", record)


def test_listing_searching_and_entry_pages_never_load_document_text(tmp_path: Path, statements: list[str]) -> None:
    content = tmp_path / "content"
    content.mkdir()
    filler = "\n\n".join(f"Paragraph {k} about padding the document." for k in range(2000))
    (content / "big.md").write_text(f"# Big\n\n## Why is it big?\n\nBecause.\n\n{filler}\n", encoding="utf-8")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as client:
        entry = client.get("/api/v1/search", params={"q": "big"}).json()["results"][0]["id"]
        statements.clear()
        for url in ("/", "/api/v1/documents", "/api/v1/search?q=big", f"/entries/{entry}", f"/api/v1/entries/{entry}"):
            assert client.get(url).status_code == 200, url
    reading_text = [s for s in statements if "document.markdown" in s or "document.html" in s]
    assert reading_text == []


def test_a_long_document_is_shown_in_parts_that_reach_every_question(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    sections = "".join(f"## How do I fix problem {k}?\n\nRun `tool --fix {k}`.\n\n```\ntool --fix {k}\n```\n\n"
                       + "".join(f"- step {j} of problem {k}\n" for j in range(6)) + "\n" for k in range(1500))
    (content / "long.md").write_text(f"# Long\n\n{sections}", encoding="utf-8")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as client:
        first = client.get("/documents/long")
        assert first.status_code == 200
        parts = int(re.search(r"part 1 of (\d+)", first.text).group(1))  # type: ignore[union-attr]
        assert parts >= 3
        anchored: list[str] = []
        for part in range(1, parts + 1):
            page = client.get(f"/documents/long?part={part}").text
            assert len(page) < 2 * PART_CHARS  # each page holds a bounded share of the document
            assert len(gzip.compress(page.encode())) <= 20_000  # and weighs what any portal page may
            anchored += re.findall(r'<h2 id="([^"]+)" class="question"', page)
        assert client.get(f"/documents/long?part={parts + 1}").status_code == 404
    assert len(anchored) == len(set(anchored)) == 1500  # every question once, in one part
