"""Last-changed dates: a document's last commit in a git work tree, else (or when edited since) its mtime."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.ingest.dates import change_dates
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient
from tests.conftest import IN_CI, settings_for


def _git(folder: Path, *args: str, date: str = "2024-03-05T12:00:00") -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    subprocess.run(["git", "-C", str(folder), *args], check=True, env=env, capture_output=True)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    if shutil.which("git") is None:  # CI clones with git: there it must be found
        (pytest.fail if IN_CI else pytest.skip)("git is not installed")
    content = tmp_path / "repo" / "content"
    content.mkdir(parents=True)
    (content / "old.md").write_text("# Old\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    (content / "edited.md").write_text("# Edited\n\n## How?\n\nSo.\n", encoding="utf-8")
    _git(content.parent, "init", "-q")
    _git(content.parent, "add", ".")
    _git(content.parent, "commit", "-qm", "first", date="2024-03-05T12:00:00")
    (content / "edited.md").write_text("# Edited\n\n## How?\n\nSo, now.\n", encoding="utf-8")
    (content / "new.md").write_text("# New\n\n## What?\n\nThis.\n", encoding="utf-8")
    return content


def test_committed_files_take_their_commit_date_and_edited_ones_their_mtime(repository: Path) -> None:
    files = sorted(repository.glob("*.md"))
    os.utime(repository / "new.md", (1_700_000_000, 1_700_000_000))  # 2023-11-14
    dates = {path.name: day for path, day in change_dates(repository, files).items()}
    assert dates["old.md"] == "2024-03-05"
    assert dates["new.md"] == "2023-11-14"  # not committed: its file's date
    assert dates["edited.md"] != "2024-03-05"  # edited since the commit: its file's date


def test_an_entry_page_says_when_it_last_changed(repository: Path, tmp_path: Path) -> None:
    for k in range(5):  # enough documents for the start page to pick the recently changed ones
        (repository / f"more-{k}.md").write_text(f"# More {k}\n\n## Where {k}?\n\nHere.\n", encoding="utf-8")
    os.utime(repository / "new.md", (2_000_000_000, 2_000_000_000))  # 2033: the most recent
    settings = settings_for(tmp_path, repository)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as client:
        assert client.get("/api/v1/documents/old").json()["changed"] == "2024-03-05"
        hit = client.get("/api/v1/search", params={"q": "why"}).json()["results"][0]
        assert "Last changed 2024-03-05" in client.get(hit["url"]).text
        home = client.get("/").text
    recent = home.split("Recently changed", 1)[1].split("</ul>", 1)[0]
    assert recent.count("<li") == 5 and recent.index(">New<") < recent.index("2033") and "2024-03-05" not in recent
