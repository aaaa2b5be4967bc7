"""Damaged data: the server falls back to the newest good generation and says so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.config import Settings
from app.generations import current_name
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient
from tests.conftest import settings_for

FAQ = "# FAQ\n\n## {question}\n\n{answer}\n"


def _two_generations(tmp_path: Path) -> tuple[Settings, str, str]:
    content = tmp_path / "content"
    content.mkdir()
    (content / "faq.md").write_text(FAQ.format(question="Why old?", answer="Old answer."), encoding="utf-8")
    settings = settings_for(tmp_path, content)
    old = run_ingest(settings, progress=False).generation
    (content / "faq.md").write_text(FAQ.format(question="Why new?", answer="New answer."), encoding="utf-8")
    new = run_ingest(settings, progress=False).generation
    return settings, old, new


def _damage_index(settings: Settings, name: str) -> None:
    for segment in (settings.data_dir / "generations" / name / "index").glob("*.seg"):
        segment.write_bytes(segment.read_bytes()[:100])  # truncated: was a Bus error with mmap


def test_a_truncated_index_falls_back_to_the_previous_generation(tmp_path: Path) -> None:
    settings, old, new = _two_generations(tmp_path)
    _damage_index(settings, new)
    with InProcessClient(create_app(settings)) as client:
        assert client.get("/healthz").status_code == 200
        hits = client.get("/api/v1/search", params={"q": "answer"}).json()["results"]
        assert [hit["title"] for hit in hits] == ["Why old?"]
        ready = client.get("/readyz").json()
    assert ready["status"] == "degraded" and ready["generation"] == old
    assert new in ready["note"] and "faq ingest" in ready["note"]
    assert current_name(settings) == new  # the pointer is left for an editor's ingest to move


def test_a_deleted_database_falls_back_and_nothing_left_gives_503(tmp_path: Path) -> None:
    settings, old, new = _two_generations(tmp_path)
    (settings.data_dir / "generations" / new / "faq.db").unlink()
    with InProcessClient(create_app(settings)) as client:
        assert client.get("/readyz").json()["generation"] == old
    _damage_index(settings, old)
    with InProcessClient(create_app(settings)) as client:
        response = client.get("/readyz")
        page = client.get("/")
    assert response.status_code == 503 and "faq ingest" in response.json()["detail"]
    assert page.status_code == 503


def test_healthy_data_is_ready(tmp_path: Path) -> None:
    settings, _, new = _two_generations(tmp_path)
    with InProcessClient(create_app(settings)) as client:
        assert client.get("/readyz").json() == {"status": "ok", "generation": new, "note": None,
                                                 "semantic": "off (FAQ_SEMANTIC=false): search is lexical",
                                                 "worker": os.getpid()}


def test_faq_reindex_rebuilds_a_damaged_index_from_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli

    settings, _, new = _two_generations(tmp_path)
    _damage_index(settings, new)
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    assert cli.main(["reindex"]) == 0
    assert "reindexed 1 entries into generation" in capsys.readouterr().out
    rebuilt = current_name(settings)
    assert rebuilt not in (None, new)
    with InProcessClient(create_app(settings)) as client:
        assert client.get("/readyz").json() == {"status": "ok", "generation": rebuilt, "note": None,
                                                 "semantic": "off (FAQ_SEMANTIC=false): search is lexical",
                                                 "worker": os.getpid()}
        hits = client.get("/api/v1/search", params={"q": "answer"}).json()["results"]
    assert [hit["title"] for hit in hits] == ["Why new?"]  # the newest data, not the fallback


def test_faq_reindex_without_data_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli

    monkeypatch.setattr(cli, "get_settings", lambda: settings_for(tmp_path, tmp_path))
    assert cli.main(["reindex"]) == 1
    error = capsys.readouterr().err
    assert "run `faq ingest` first" in error and error[-1] == "\n" and error.count("\n") == 1


def test_faq_check_says_when_the_data_is_damaged_and_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli

    settings, old, new = _two_generations(tmp_path)
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    assert cli.main(["check"]) == 0
    _damage_index(settings, new)
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert f"generation {new} cannot be served" in out and f"falls back to {old}" in out and "faq reindex" in out
    assert out.splitlines()[-1].startswith("1 damaged generations, 0 damaged vector files,")  # not all zeros


def _a_large_third_generation(tmp_path: Path) -> tuple[Settings, str, str]:
    """Two generations and a third whose index is larger than what a file's read buffer holds: the settings, the
    second's name and the third's."""
    settings, _, second = _two_generations(tmp_path)
    content = settings.content_dir / "more.md"
    content.write_text("# More\n\n" + "".join(f"## Why word{n}?\n\nNew answer word{n}.\n\n" for n in range(400)),
                       encoding="utf-8")
    return settings, second, run_ingest(settings, progress=False).generation


def test_an_index_damaged_while_serving_is_noticed_and_the_previous_generation_served(tmp_path: Path) -> None:
    settings, _, new = _a_large_third_generation(tmp_path)
    with InProcessClient(create_app(settings)) as client:
        assert client.get("/api/v1/search", params={"q": "why"}).json()["total"] > 1
        _damage_index(settings, new)  # truncated under the running server: every search was a 500 (struct.error)
        responses = [client.get("/api/v1/search", params={"q": f"word{n}"}) for n in range(0, 400, 40)]
        statuses = [response.status_code for response in responses]
        assert 503 in statuses, statuses
        first = statuses.index(503)
        assert statuses[first + 1:] == [200] * (len(statuses) - first - 1)  # served from the previous generation
        assert responses[first].headers["retry-after"] == "1" and "try again" in responses[first].json()["detail"]
        answer = client.get("/api/v1/search", params={"q": "answer"}).json()["results"]
        page = client.get("/search", params={"q": "answer"})
        ready = client.get("/readyz").json()
    assert [hit["title"] for hit in answer] == ["Why new?"]  # the generation before the damaged one
    assert page.status_code == 200 and "Why new?" in page.text
    assert ready["status"] == "degraded" and ready["generation"] != new
    assert new in ready["note"] and "changed while served" in ready["note"] and "faq reindex" in ready["note"]


def test_a_damage_one_worker_found_spares_the_other_workers_a_failed_search(tmp_path: Path) -> None:
    settings, old, new = _a_large_third_generation(tmp_path)
    with InProcessClient(create_app(settings)) as first, InProcessClient(create_app(settings)) as second:
        for client in (first, second):
            assert client.get("/api/v1/search", params={"q": "why"}).json()["total"] > 1
        _damage_index(settings, new)
        statuses = [first.get("/api/v1/search", params={"q": f"word{n}"}).status_code for n in range(0, 400, 40)]
        assert 503 in statuses, statuses
        # Each worker failed a search of its own before it knew; now the first one's finding tells the others.
        found = [second.get("/api/v1/search", params={"q": f"word{n}"}) for n in range(1, 400, 40)]
        ready = second.get("/readyz").json()
    assert [response.status_code for response in found] == [200] * len(found)
    assert ready["status"] == "degraded" and ready["generation"] == old and "changed while served" in ready["note"]
    with InProcessClient(create_app(settings)) as restarted:  # a worker started later never opens it either
        assert restarted.get("/readyz").json()["generation"] == old


def test_a_read_error_in_unchanged_files_marks_the_index_damaged(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import struct

    from app.search import engine as engine_module

    settings, old, _ = _two_generations(tmp_path)

    def garbled(*_: object, **__: object) -> None:
        raise struct.error("unpack requires a buffer of 12 bytes")  # bytes not as written, same size and time

    with InProcessClient(create_app(settings)) as client:
        monkeypatch.setattr(engine_module, "lexical_search", garbled)
        assert client.get("/api/v1/search", params={"q": "answer"}).status_code == 503
        monkeypatch.undo()
        assert client.get("/readyz").json()["generation"] == old


def test_a_bug_in_a_search_is_no_damage_and_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.search import engine as engine_module

    settings, _, new = _two_generations(tmp_path)

    def buggy(*_: object, **__: object) -> None:
        raise KeyError("id")  # what a truncated segment also raises: only its changed files tell them apart

    with InProcessClient(create_app(settings)) as client:
        monkeypatch.setattr(engine_module, "lexical_search", buggy)
        with pytest.raises(KeyError):  # a 500, logged with its traceback, as any bug
            client.get("/api/v1/search", params={"q": "answer"})
        monkeypatch.undo()
        assert client.get("/api/v1/search", params={"q": "answer"}).status_code == 200
        assert client.get("/readyz").json() == {"status": "ok", "generation": new, "note": None,
                                                 "semantic": "off (FAQ_SEMANTIC=false): search is lexical",
                                                 "worker": os.getpid()}


@pytest.mark.parametrize(("pointer", "problem"), [(b"", "CURRENT is empty"), (None, "CURRENT is missing"),
                                                  (b'{"generation": ', "CURRENT cannot be read")])
def test_a_missing_or_empty_pointer_serves_the_newest_complete_generation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        pointer: bytes | None, problem: str) -> None:
    from app import cli

    settings, _, new = _two_generations(tmp_path)
    current = settings.data_dir / "CURRENT"
    if pointer is None:
        current.unlink()
    else:
        current.write_bytes(pointer)  # was 503 on every route: "no data yet: run `faq ingest`"
    with InProcessClient(create_app(settings)) as client:
        hits = client.get("/api/v1/search", params={"q": "answer"}).json()["results"]
        ready = client.get("/readyz").json()
    assert [hit["title"] for hit in hits] == ["Why new?"]
    assert ready["status"] == "degraded" and ready["generation"] == new
    assert problem in ready["note"] and "faq ingest" in ready["note"]
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    assert cli.main(["check"]) == 1
    assert f"data: {problem}" in capsys.readouterr().out
    assert cli.main(["ingest", "--quiet"]) == 0  # writes the pointer again
    assert cli.main(["check"]) == 0


def test_a_pointer_naming_a_half_deleted_generation_falls_back(tmp_path: Path) -> None:
    import shutil

    settings, old, new = _two_generations(tmp_path)
    shutil.rmtree(settings.data_dir / "generations" / new / "index")  # the folder's deletion cut short
    with InProcessClient(create_app(settings)) as client:
        hits = client.get("/api/v1/search", params={"q": "answer"}).json()["results"]
        ready = client.get("/readyz").json()
    assert [hit["title"] for hit in hits] == ["Why old?"]
    assert ready["status"] == "degraded" and ready["generation"] == old and new in ready["note"]


def test_without_any_generation_a_missing_pointer_still_says_to_ingest(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, tmp_path)
    with InProcessClient(create_app(settings)) as client:
        response = client.get("/readyz")
    assert response.status_code == 503 and "run `faq ingest`" in response.json()["detail"]
