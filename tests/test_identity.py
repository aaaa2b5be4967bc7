"""Stable entry ids across ingests, and old ids that answer 301 or 410 (never 404), on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sqlalchemy import text

from app.config import Settings
from app.generations import KEEP_GENERATIONS
from app.ingest.pipeline import run_ingest
from app.lineage import Lineage
from app.main import create_app
from app.models import SearchHit
from app.queries import Reader
from app.web.inprocess import InProcessClient
from tests.conftest import git, ids_by_question, settings_for

INSTALL = ("How do I install the portal?", "Run `make install` in a clean clone; it creates `.venv` with the pinned "
           "dependencies and installs the project in editable mode.")
LOGS = ("Where are the server logs?", "Access logs go to standard error as JSON lines; redirect them with your "
        "process manager, for example `journalctl -u faq`.")
PORT = ("How do I change the port?", "Set `PORT=8080 make run`, or pass `--port 8080` to `faq serve`; the address "
        "it listens on is printed when it starts.")
TOKEN = ("What is the admin token for?", "`FAQ_ADMIN_TOKEN` guards the admin routes such as "
         "`POST /api/v1/admin/reindex`; while it is empty those routes do not exist.")


@pytest.fixture
def settings(empty_content: Settings) -> Settings:
    """An empty content folder on SQLite and on a fresh PostgreSQL database."""
    return empty_content

def write(settings: Settings, name: str, sections: dict[str, list[tuple[str, str]]]) -> None:
    """Write an FAQ file: `## section` headings holding `### question` entries."""
    text = "# Portal FAQ\n\n" + "".join(
        f"## {section}\n\n" + "".join(f"### {question}\n\n{answer}\n\n" for question, answer in entries)
        for section, entries in sections.items())
    (settings.content_dir / name).write_text(text, encoding="utf-8")


def test_reworded_moved_and_renamed_entries_keep_their_ids(settings: Settings) -> None:
    write(settings, "faq.md", {"Setup": [INSTALL, PORT], "Operations": [LOGS, TOKEN]})
    first = ids_by_question(settings)
    reworded = ("How can I install this portal?", INSTALL[1])
    write(settings, "faq.md", {"Setup": [reworded, PORT], "Operations": [LOGS, TOKEN]})
    second = ids_by_question(settings)
    assert second[reworded[0]] == first[INSTALL[0]]
    assert second[PORT[0]] == first[PORT[0]]
    # The port question moves to another section (its fresh id would change) and the file is renamed.
    (settings.content_dir / "faq.md").unlink()
    write(settings, "portal-questions.md", {"Setup": [reworded], "Operations": [LOGS, TOKEN, PORT]})
    third = ids_by_question(settings)
    assert third == {reworded[0]: first[INSTALL[0]], PORT[0]: first[PORT[0]], LOGS[0]: first[LOGS[0]],
                     TOKEN[0]: first[TOKEN[0]]}


def test_an_inherited_id_never_collides_with_a_new_entry(settings: Settings) -> None:
    write(settings, "faq.md", {"Setup": [INSTALL, PORT]})
    first = ids_by_question(settings)
    reworded = ("How can I install this portal?", INSTALL[1])
    write(settings, "faq.md", {"Setup": [reworded, PORT]})
    ids_by_question(settings)
    # The old question comes back as a new entry beside the reworded one: its fresh id is the one the
    # reworded entry carries. The reworded entry keeps it; the newcomer gets another.
    back = (INSTALL[0], "A different answer: download the release archive and unpack it anywhere.")
    write(settings, "faq.md", {"Setup": [reworded, back, PORT]})
    third = ids_by_question(settings)
    assert third[reworded[0]] == first[INSTALL[0]]
    assert third[back[0]] != first[INSTALL[0]]
    assert len(set(third.values())) == 3


def test_a_question_rewritten_over_an_answer_kept_word_for_word_keeps_its_id(settings: Settings) -> None:
    see_above = "The same steps as the question above; nothing else changes."
    twins = [("Does it run on macOS?", see_above), ("Does it run on FreeBSD?", see_above)]
    write(settings, "faq.md", {"Setup": [INSTALL, PORT, *twins], "Operations": [LOGS, TOKEN]})
    first = ids_by_question(settings)
    # The question is wholly rewritten (nothing of it left to compare) and the entry moved to the file's end, its
    # answer kept word for word (hexo renamed "Git Deployment Problems" to "RPC failed" so): the same entry.
    renamed = ("Which command sets up a development copy?", INSTALL[1])
    twins_renamed = [("Is macOS supported?", see_above), ("Is FreeBSD supported?", see_above)]
    write(settings, "faq.md", {"Setup": [PORT, *twins_renamed], "Operations": [LOGS, TOKEN, renamed]})
    second = ids_by_question(settings)
    assert second[renamed[0]] == first[INSTALL[0]]
    # An answer two entries share tells neither apart: they are new entries (their old ids answer 410).
    assert {second[question] for question, _ in twins_renamed}.isdisjoint(first.values())


def test_a_short_answer_kept_word_for_word_does_not_carry_a_rewritten_question(settings: Settings) -> None:
    write(settings, "faq.md", {"Setup": [INSTALL, PORT, ("Does it run on macOS?", "Yes.")]})
    first = ids_by_question(settings)
    # "Yes." answers one question before and another after: it says nothing about which entry this is.
    write(settings, "faq.md", {"Setup": [INSTALL, PORT, ("Is there a web interface?", "Yes.")]})
    assert ids_by_question(settings)["Is there a web interface?"] not in first.values()


def test_old_ids_answer_301_or_410_over_http_never_404(settings: Settings) -> None:
    write(settings, "faq.md", {"Setup": [INSTALL, PORT], "Operations": [LOGS, TOKEN]})
    first = ids_by_question(settings)
    # The logs entry is removed and the port entry merged into the install entry.
    merged = (INSTALL[0], INSTALL[1] + "\n\n" + PORT[1])
    write(settings, "faq.md", {"Setup": [merged], "Operations": [TOKEN]})
    second = ids_by_question(settings)
    assert second[INSTALL[0]] == first[INSTALL[0]]
    with InProcessClient(create_app(settings)) as client:
        page = client.get(f"/entries/{first[PORT[0]]}?ui=en")
        assert page.status_code == 301
        assert page.headers["location"] == f"/entries/{first[INSTALL[0]]}?ui=en"
        api = client.get(f"/api/v1/entries/{first[PORT[0]]}")
        assert api.status_code == 301
        assert api.headers["location"] == f"/api/v1/entries/{first[INSTALL[0]]}"
        assert api.json()["moved_to"] == first[INSTALL[0]]
        assert client.get(api.headers["location"]).json()["title"] == INSTALL[0]

        gone = client.get(f"/entries/{first[LOGS[0]]}", headers={"Accept-Language": "en"})
        assert gone.status_code == 410
        assert "This entry was removed" in gone.text
        assert LOGS[0] in gone.text
        gone_api = client.get(f"/api/v1/entries/{first[LOGS[0]]}")
        assert gone_api.status_code == 410
        assert gone_api.headers["content-type"].startswith("application/problem+json")
        body = gone_api.json()
        assert body["status"] == 410 and body["question"] == LOGS[0]
        assert all(set(ref) >= {"id", "title", "url"} for ref in body["closest"])

        assert client.get("/entries/never-was-an-entry-123456").status_code == 404
        assert client.get("/api/v1/entries/never-was-an-entry-123456").status_code == 404


def test_a_removed_entry_page_shows_the_closest_current_entries(settings: Settings) -> None:
    near = ("How do I install the portal offline?", "Copy the wheels with `pip download`, then run `make install` "
            "with `PIP_NO_INDEX=1`; the portal never downloads anything at run time.")
    write(settings, "faq.md", {"Setup": [INSTALL, near, PORT]})
    first = ids_by_question(settings)
    write(settings, "faq.md", {"Setup": [near, PORT]})
    ids_by_question(settings)
    with InProcessClient(create_app(settings)) as client:
        gone = client.get(f"/entries/{first[INSTALL[0]]}", headers={"Accept-Language": "en"})
        assert gone.status_code == 410
        assert f'href="/entries/{first[near[0]]}"' in gone.text
        body = client.get(f"/api/v1/entries/{first[INSTALL[0]]}").json()
        assert body["closest"][0]["id"] == first[near[0]]


def test_a_removed_entry_whose_words_find_nothing_shows_the_entries_closest_in_meaning(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    odd = ("Why does XkcdQuux_7781 raise ZorbFault_0x91?", "Upgrade `xkcd-quux` to 7.8.")
    write(settings, "faq.md", {"Setup": [odd, PORT]})
    first = ids_by_question(settings)
    write(settings, "faq.md", {"Setup": [PORT]})
    ids_by_question(settings)
    asked: list[str] = []

    def by_meaning(reader: Reader, query: str, lang: str | None, prefer: str | None, count: int) -> list[SearchHit]:
        asked.append(query)
        return reader._search("port", None, count, 0, None, prefer, False, "lexical").results

    monkeypatch.setattr(Reader, "closest", by_meaning)
    with InProcessClient(create_app(settings)) as client:
        body = client.get(f"/api/v1/entries/{first[odd[0]]}").json()
    assert asked == [odd[0]]  # its words found nothing current
    assert [entry["id"] for entry in body["closest"]] == [first[PORT[0]]]


def test_the_map_of_old_ids_outlives_the_generations_kept(settings: Settings) -> None:
    write(settings, "faq.md", {"Setup": [INSTALL, PORT], "Operations": [LOGS]})
    first = ids_by_question(settings)
    write(settings, "faq.md", {"Setup": [(INSTALL[0], INSTALL[1] + "\n\n" + PORT[1])], "Operations": [LOGS]})
    ids_by_question(settings)
    # More ingests than generations are kept, each changing something.
    for round_ in range(KEEP_GENERATIONS + 1):
        write(settings, "faq.md", {"Setup": [(INSTALL[0], INSTALL[1] + "\n\n" + PORT[1] + f" (revision {round_})")],
                                   "Operations": [LOGS]})
        ids_by_question(settings)
    write(settings, "faq.md", {"Setup": [(INSTALL[0], INSTALL[1] + "\n\n" + PORT[1])]})
    ids_by_question(settings)
    with InProcessClient(create_app(settings)) as client:
        assert client.get(f"/entries/{first[PORT[0]]}").status_code == 301
        assert client.get(f"/entries/{first[LOGS[0]]}").status_code == 410
        assert client.get(f"/entries/{first[INSTALL[0]]}").status_code == 200


def test_a_map_written_by_an_older_version_gains_the_tables_added_since(settings: Settings) -> None:
    write(settings, "faq.md", {"Setup": [INSTALL, PORT]})
    first = ids_by_question(settings)
    older = Lineage(settings)
    with older.engine.begin() as connection:  # the map as the version before issue 27's histories wrote it
        connection.execute(text("DROP TABLE entry_changes"))
    older.engine.dispose()
    # Every ingest failed on it ("no such table: entry_changes"), the old data served for good.
    write(settings, "faq.md", {"Setup": [INSTALL, (PORT[0], PORT[1] + " Restart after changing it.")]})
    assert ids_by_question(settings) == first


def test_a_removed_entry_that_comes_back_is_served_again(settings: Settings) -> None:
    write(settings, "faq.md", {"Setup": [INSTALL, PORT]})
    first = ids_by_question(settings)
    write(settings, "faq.md", {"Setup": [INSTALL]})
    ids_by_question(settings)
    write(settings, "faq.md", {"Setup": [INSTALL, PORT]})
    third = ids_by_question(settings)
    assert third[PORT[0]] == first[PORT[0]]
    with InProcessClient(create_app(settings)) as client:
        assert client.get(f"/api/v1/entries/{first[PORT[0]]}").status_code == 200


def test_faq_ingest_says_how_many_old_urls_redirect_or_are_gone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import EXIT_OK, main

    settings = settings_for(tmp_path, tmp_path / "content")
    settings.content_dir.mkdir()
    monkeypatch.setenv("FAQ_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("FAQ_CONTENT_DIR", str(settings.content_dir))
    monkeypatch.setenv("FAQ_SEMANTIC", "false")
    monkeypatch.delenv("FAQ_DATABASE_URL", raising=False)
    monkeypatch.setattr("app.cli.get_settings", Settings)  # read this test's environment, not the cached settings
    write(settings, "faq.md", {"Setup": [INSTALL, PORT], "Operations": [LOGS]})
    assert main(["ingest", "--quiet"]) == EXIT_OK
    assert "old entry URLs" not in capsys.readouterr().out
    write(settings, "faq.md", {"Setup": [(INSTALL[0], INSTALL[1] + "\n\n" + PORT[1])]})
    assert main(["ingest", "--quiet"]) == EXIT_OK
    assert ("old entry URLs:     1 now redirect (301) to the entry that took their place, 1 answer 410 (removed)"
            in capsys.readouterr().out)


def test_a_loop_of_forwards_ends_as_removed_never_as_a_redirect_loop(tmp_path: Path) -> None:
    from app.lineage import Gone, Lineage, Published

    lineage = Lineage(settings_for(tmp_path))
    try:
        lineage.record({"a": Gone("a", "b", "Question A?", "en", "2026-11-20T00:00:00+00:00")}, [], "2026-11-20")
        lineage.record({"b": Gone("b", "a", "Question B?", "en", "2026-11-21T00:00:00+00:00")}, [], "2026-11-21")
        # Recording b → a rewrote the forward a → b to lead straight on: a now points at itself.
        for start in ("a", "b"):
            gone = lineage.find(start, exists=lambda _id: False)
            assert gone is not None and gone.moved_to is None and gone.id == start
        assert lineage.find("c", exists=lambda _id: True) is None
        lineage.record({}, [Published("a", "Question A?", "")], "2026-11-22")  # served again: no longer forwarded
        assert lineage.find("a", exists=lambda _id: False) is None
    finally:
        lineage.close()


def test_a_served_generation_that_cannot_be_read_gives_fresh_ids_and_a_warning(tmp_path: Path) -> None:
    from app.generations import current_name, generation

    settings = settings_for(tmp_path, tmp_path / "content")
    settings.content_dir.mkdir()
    write(settings, "faq.md", {"Setup": [INSTALL, PORT]})
    run_ingest(settings, progress=False)
    served = current_name(settings)
    assert served is not None
    generation(settings, served).database_file.write_bytes(b"not a database" * 100)
    report = run_ingest(settings, progress=False)
    assert report.entries == 2
    assert any("the served generation cannot be read" in message for _, message in report.warnings)


def test_an_entry_shows_when_it_appeared_when_it_changed_and_its_earlier_questions(settings: Settings) -> None:
    write(settings, "faq.md", {"Setup": [INSTALL, PORT]})
    first = ids_by_question(settings)
    time.sleep(1.1)  # times are kept to the second
    reworded = ("How can I install this portal?", INSTALL[1])
    write(settings, "faq.md", {"Setup": [reworded, PORT]})
    ids_by_question(settings)
    with InProcessClient(create_app(settings)) as client:
        installed = client.get(f"/api/v1/entries/{first[INSTALL[0]]}").json()["history"]
        port = client.get(f"/api/v1/entries/{first[PORT[0]]}").json()["history"]
        assert installed["earlier_questions"] == [INSTALL[0]]
        assert installed["first_seen"] == port["first_seen"] < installed["changed"]
        assert port["changed"] == port["first_seen"] and port["earlier_questions"] == []
        page = client.get(f"/entries/{first[INSTALL[0]]}", headers={"Accept-Language": "en"}).text
        assert f"question or answer last changed {installed['changed'][:10]}" in page
        assert f"Earlier asked as: <q lang=\"en\">{INSTALL[0]}</q>" in page


def _histories(settings: Settings) -> dict[str, tuple[str, str]]:
    """Ingest; each entry's (first seen, changed) days by question."""
    ids = ids_by_question(settings)
    with InProcessClient(create_app(settings)) as client:
        return {question: (history["first_seen"][:10], history["changed"][:10]) for question, entry_id in ids.items()
                if (history := client.get(f"/api/v1/entries/{entry_id}").json()["history"])}


def test_in_a_git_repository_a_new_entry_s_history_starts_when_its_lines_were_committed(settings: Settings) -> None:
    content = settings.content_dir
    git(content, "init", "-q")
    write(settings, "faq.md", {"Setup": [INSTALL, PORT]})
    git(content, "add", "faq.md")
    git(content, "commit", "-qm", "FAQ", day="2024-01-10")
    write(settings, "faq.md", {"Setup": [INSTALL, (PORT[0], PORT[1] + " Ports below 1024 need root.")]})
    git(content, "commit", "-qam", "ports", day="2024-03-05")
    git(content, "checkout", "-q", "--detach")  # a detached HEAD reads the same
    write(settings, "notes.md", {"Ops": [LOGS]})  # never committed: its history starts with the ingest
    today = Lineage.now()[:10]
    histories = _histories(settings)
    assert histories[INSTALL[0]] == ("2024-01-10", "2024-01-10")
    assert histories[PORT[0]] == ("2024-01-10", "2024-03-05")
    assert histories[LOGS[0]] == (today, today)
    # Later changes are the ingests' own: an entry already served keeps its start.
    write(settings, "faq.md", {"Setup": [(INSTALL[0], INSTALL[1] + " Python 3.11 or later."), PORT]})
    assert _histories(settings)[INSTALL[0]] == ("2024-01-10", today)


def test_a_shallow_clone_or_a_repository_without_commits_starts_histories_at_the_ingest(
        settings: Settings, tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q")
    (origin / "faq.md").write_text("# Portal FAQ\n\n## Setup\n\n### " + INSTALL[0] + "\n\n" + INSTALL[1] + "\n",
                                   encoding="utf-8")
    git(origin, "add", "faq.md")
    git(origin, "commit", "-qm", "FAQ", day="2024-01-10")
    (origin / "more.md").write_text("# More\n\n### " + PORT[0] + "\n\n" + PORT[1] + "\n", encoding="utf-8")
    git(origin, "add", "more.md")
    git(origin, "commit", "-qm", "more", day="2024-02-10")
    content = settings.content_dir
    content.rmdir()
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(content))  # every line: the boundary's
    today = Lineage.now()[:10]
    assert set(_histories(settings).values()) == {(today, today)}  # the commit that wrote them is not known

    empty = settings.model_copy(update={"content_dir": tmp_path / "empty", "data_dir": tmp_path / "data-empty"})
    empty.content_dir.mkdir()
    git(empty.content_dir, "init", "-q")  # a repository with no history yet
    write(empty, "faq.md", {"Setup": [PORT]})
    assert _histories(empty) == {PORT[0]: (today, today)}
