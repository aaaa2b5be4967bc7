"""A very long document must not slow the pages that only list or link it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, event

from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient
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
