""""Was this helpful?" (issue 26): counted once per reader, entry and day, rate-limited, bounded, shown to editors."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from app.feedback import MAX_COMMENT, VOTES_PER_MINUTE
from app.main import create_app
from app.web.inprocess import InProcessClient

TOKEN = {"Authorization": "Bearer t"}


@pytest.fixture
def portal(seeded: Settings, tmp_path: Path) -> Iterator[tuple[InProcessClient, Path]]:
    """The seeded data with a statistics database of this test's own (copied, so votes stay here)."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(seeded.data_dir, data, symlinks=True, ignore=shutil.ignore_patterns("queries.db"))
    settings = seeded.model_copy(update={"data_dir": data, "admin_token": "t", "semantic": False})
    with InProcessClient(create_app(settings)) as client:
        yield client, data / "queries.db"


def _entry(client: InProcessClient) -> str:
    return str(client.get("/api/v1/search", params={"q": "fused_adam"}).json()["results"][0]["id"])


def test_a_vote_is_counted_once_per_reader_and_thanked(portal: tuple[InProcessClient, Path]) -> None:
    client, database = portal
    entry = _entry(client)
    answer = client.post(f"/entries/{entry}/feedback", data={"helpful": "no", "comment": "Step 2 fails on Windows"})
    assert answer.status_code == 303 and answer.headers["location"].endswith("?thanks=true#feedback")
    assert "Thank you" in client.get(answer.headers["location"]).text
    for _ in range(3):  # the same reader again, either way: still one vote
        client.post(f"/entries/{entry}/feedback", data={"helpful": "yes"})
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT helpful, unhelpful FROM feedback_day").fetchall() == [(0, 1)]
        assert db.execute("SELECT comment FROM feedback_comment").fetchall() == [("Step 2 fails on Windows",)]
        columns = {row[1] for table in ("feedback_day", "feedback_comment")
                   for row in db.execute(f"PRAGMA table_info({table})")}
    assert columns == {"day", "entry_id", "helpful", "unhelpful", "comment"}  # no address, no time of day


def test_a_flood_from_one_client_is_refused(portal: tuple[InProcessClient, Path]) -> None:
    client, _ = portal
    entry = _entry(client)
    codes = [client.post(f"/entries/{entry}/feedback", data={"helpful": "yes"}).status_code
             for _ in range(VOTES_PER_MINUTE + 5)]
    assert codes[:VOTES_PER_MINUTE] == [303] * VOTES_PER_MINUTE and set(codes[VOTES_PER_MINUTE:]) == {429}


def test_a_long_comment_with_markup_is_cut_and_escaped_for_editors(portal: tuple[InProcessClient, Path]) -> None:
    client, database = portal
    entry = _entry(client)
    comment = "<script>window.__xss=1</script>" + "很长的说明" * 2000  # 10,000+ characters
    assert client.post(f"/entries/{entry}/feedback", data={"helpful": "no", "comment": comment}).status_code == 303
    with sqlite3.connect(database) as db:
        (kept,) = db.execute("SELECT comment FROM feedback_comment").fetchone()
    assert len(kept) == MAX_COMMENT and kept.startswith("<script>")  # bounded; stored as written, as text
    editors = client.get(f"/admin/entries/{entry}", headers=TOKEN).text
    assert "<script>window.__xss=1</script>" not in editors and "&lt;script&gt;window.__xss=1" in editors
    stats = client.get("/api/v1/admin/queries", headers=TOKEN).json()["feedback"]
    assert stats[0]["entry_id"] == entry and stats[0]["unhelpful"] == 1
    assert "&lt;script&gt;" in client.get("/admin/queries", headers=TOKEN).text


@pytest.mark.parametrize("form", [{"helpful": "maybe"}, {}, {"helpful": "yes", "comment": "x" * 200_000}])
def test_bad_feedback_is_refused_without_a_server_error(portal: tuple[InProcessClient, Path],
                                                        form: dict[str, str]) -> None:
    client, _ = portal
    answer = client.post(f"/entries/{_entry(client)}/feedback", data=form)
    assert 400 <= answer.status_code < 500


def test_feedback_from_another_site_or_on_no_entry_counts_nothing(portal: tuple[InProcessClient, Path]) -> None:
    client, database = portal
    entry = _entry(client)
    assert client.post(f"/entries/{entry}/feedback", data={"helpful": "yes"},
                       headers={"Origin": "https://elsewhere.example"}).status_code == 403
    assert client.post("/entries/no-such-entry/feedback", data={"helpful": "yes"}).status_code == 404
    assert not database.exists() or sqlite3.connect(database).execute(
        "SELECT name FROM sqlite_master WHERE name = 'feedback_day'").fetchall() == []
