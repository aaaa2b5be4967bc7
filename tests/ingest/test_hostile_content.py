"""Content that would break a naive ingest: links out, odd files, bombs, colliding names."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from app.ingest import pipeline
from app.ingest.pipeline import run_ingest
from app.queries import all_entries
from tests.conftest import settings_for

FAQ = "# {title}\n\n## {question}\n\n{answer}\n"


def _write(folder: Path, name: str, text: str) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _ingest(tmp_path: Path, content: Path) -> pipeline.IngestReport:
    return run_ingest(settings_for(tmp_path, content), progress=False)


def test_nothing_outside_the_content_folder_is_read(tmp_path: Path) -> None:
    content, secret = tmp_path / "content", tmp_path / "secret.md"
    _write(content, "ok.md", FAQ.format(title="OK", question="Why?", answer="Because."))
    _write(content, "sub/inner.md", FAQ.format(title="Inner", question="How?", answer="Like this."))
    secret.write_text(FAQ.format(title="Secret", question="Password?", answer="hunter2"), encoding="utf-8")
    os.symlink(secret, content / "leak.md")
    os.symlink(content / "sub" / "inner.md", content / "alias.md")  # inside: fine
    os.symlink(content / "loop2.md", content / "loop1.md")
    os.symlink(content / "loop1.md", content / "loop2.md")
    os.symlink(tmp_path / "nothing.md", content / "dangling.md")
    os.mkfifo(content / "pipe.md")
    report = _ingest(tmp_path, content)
    reasons = dict(report.skipped)
    assert "outside the content folder" in reasons["leak.md"]
    assert "loop" in reasons["loop1.md"] and "loop" in reasons["loop2.md"]
    assert "dangling" in reasons["dangling.md"]
    assert "not a regular file" in reasons["pipe.md"]
    texts = " ".join(e.body_markdown for e in all_entries(settings_for(tmp_path, content)))
    assert "hunter2" not in texts and "Like this." in texts and "Because." in texts


def test_a_file_name_that_is_not_utf8_is_named_and_skipped(tmp_path: Path) -> None:
    content = tmp_path / "content"
    _write(content, "ok.md", FAQ.format(title="OK", question="Why?", answer="Because."))
    with open(os.path.join(os.fsencode(content), b"\xff\xfe.md"), "wb") as handle:
        handle.write(b"# Bad name\n")
    report = _ingest(tmp_path, content)
    assert [reason for _, reason in report.skipped] == ["file name is not valid UTF-8; rename the file"]
    assert report.documents == 1


def test_markup_nested_too_deeply_skips_that_file_only(tmp_path: Path) -> None:
    content = tmp_path / "content"
    _write(content, "ok.md", FAQ.format(title="OK", question="Why?", answer="Because."))
    _write(content, "stars.md", FAQ.format(title="Stars", question="Q?", answer="*" * 493 + "word" + "*" * 493))
    report = _ingest(tmp_path, content)
    assert dict(report.skipped)["stars.md"].startswith("markup nested too deeply")
    assert report.documents == 1


def test_a_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    content = tmp_path / "content"
    rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    rows += [f"{c}: &{c} [{','.join(['*' + p] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)]
    front = "---\n" + "\n".join(rows) + "\n---\n"
    _write(content, "bomb.md", front + FAQ.format(title="B", question="Q?", answer="A."))
    started = time.perf_counter()
    report = _ingest(tmp_path, content)
    assert time.perf_counter() - started < 60  # expanding it took 51 s and 6 GB
    warning = dict(report.warnings)["bomb.md"]
    assert "aliases" in warning and "\n" not in warning
    assert report.entries == 1


def test_names_that_make_the_same_id_get_distinct_stable_ids(tmp_path: Path) -> None:
    content = tmp_path / "content"
    for name in ("实验.md", "试验.md", "notes.md", "notes.txt", "a b.en.md", "a-b.en.md"):
        _write(content, name, FAQ.format(title=name, question=f"What is {name}?", answer="It is."))
    report = _ingest(tmp_path, content)
    assert report.skipped == [] and report.documents == 6
    warned = {path for path, message in report.warnings if "is also the id of" in message}
    assert warned == {"试验.md", "notes.txt", "a-b.en.md"}
    settings = settings_for(tmp_path, content)
    first = sorted(e.id for e in all_entries(settings))
    assert len(set(first)) == 6
    _ingest(tmp_path, content)
    assert sorted(e.id for e in all_entries(settings)) == first


def test_entry_ids_that_collide_across_documents_are_told_apart(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    content = tmp_path / "content"
    for name in ("one.md", "two.md"):
        _write(content, name, FAQ.format(title=name, question="Same question?", answer="Same."))
    monkeypatch.setattr(pipeline, "entry_id", lambda document, section, question: "same-question-abcdef")
    report = _ingest(tmp_path, content)
    assert report.entries == 2 and report.skipped == []


def test_metadata_of_the_wrong_kind_is_ignored_and_front_matter_is_not_shown(tmp_path: Path) -> None:
    content = tmp_path / "content"
    _write(content, "fm.md", "---\nlang: 42\ntitle: {a: 1}\n---\n" + FAQ.format(title="Real title", question="Q?",
                                                                               answer="A."))
    report = _ingest(tmp_path, content)
    warnings = [message for path, message in report.warnings if path == "fm.md"]
    assert any("`lang: 42` is not a language tag" in w for w in warnings)
    assert any("`title` must be text" in w for w in warnings)
    from app.db import DataStore
    from app.models import Document

    store = DataStore(settings_for(tmp_path, content))
    with store.session() as session:
        doc = session.get(Document, "fm")
        assert doc is not None and doc.lang in ("en", "zh") and doc.title == "Real title"
        assert "lang: 42" not in doc.html and "lang: 42" in doc.markdown
    store.close()


def test_half_built_generations_are_removed_and_never_count_as_kept(tmp_path: Path) -> None:
    from app.generations import BUILDER_MARKER, KEEP_GENERATIONS

    content = tmp_path / "content"
    _write(content, "ok.md", FAQ.format(title="OK", question="Why?", answer="Because."))
    settings = settings_for(tmp_path, content)
    built = [run_ingest(settings, progress=False).generation for _ in range(KEEP_GENERATIONS)]
    root = settings.data_dir / "generations"
    killed = root / "29990101T000000000000Z"  # sorts after every real one, like a newer build
    killed.mkdir()
    (killed / "faq.db").write_bytes(b"half")
    (killed / BUILDER_MARKER).write_text("999999999", encoding="utf-8")  # no such process
    unmarked = root / "29990101T000000000001Z"
    unmarked.mkdir()
    running = root / "29990101T000000000002Z"
    running.mkdir()
    (running / BUILDER_MARKER).write_text(str(os.getpid()), encoding="utf-8")  # alive: still building
    latest = run_ingest(settings, progress=False).generation
    left = sorted(p.name for p in root.iterdir())
    assert left == sorted([*built[1:], latest, running.name])


def test_a_generation_whose_index_disagrees_with_its_database_is_not_published(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.ingest import store

    content = tmp_path / "content"
    _write(content, "ok.md", FAQ.format(title="OK", question="Why?", answer="Because."))
    settings = settings_for(tmp_path, content)
    first = run_ingest(settings, progress=False).generation
    _write(content, "more.md", FAQ.format(title="More", question="How?", answer="So."))
    real_build = store.build_index
    monkeypatch.setattr(store, "build_index", lambda directory, entries: real_build(directory, list(entries)[:1]))
    with pytest.raises(RuntimeError, match="inconsistent"):
        run_ingest(settings, progress=False)
    from app.generations import current_name

    assert current_name(settings) == first
    assert sorted(p.name for p in (settings.data_dir / "generations").iterdir()) == [first]
