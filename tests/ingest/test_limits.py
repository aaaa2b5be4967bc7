"""What keeps an ingest bounded: a document too large to read whole is skipped with a line saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import cli
from app.generations import current_name
from app.ingest.pipeline import MAX_DOCUMENT_BYTES
from tests.conftest import settings_for


def test_a_document_over_the_size_limit_is_skipped_with_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "faq.md").write_text("# FAQ\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    with (content / "dump.md").open("w", encoding="utf-8") as huge:  # 52 MB took 22 minutes and 2.2 GB
        line = "## Why again?\n\nBecause, once more, and at length.\n\n"
        huge.write(line * (MAX_DOCUMENT_BYTES // len(line) + 1))
    settings = settings_for(tmp_path, content)
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    assert cli.main(["ingest", "--quiet"]) == 3  # published, with a file skipped
    out = capsys.readouterr().out
    assert "skipped  dump.md: 16.0 MB, over the 16 MB a document may have" in out and "split it" in out
    assert "documents:          1" in out and current_name(settings) is not None

