"""The `faq` command as users run it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.cli import EXIT_FAILED, EXIT_OK, EXIT_SKIPPED, main
from app.config import get_settings
from app.generations import current_name
from measure.localserver import running_server
from tests.conftest import CONTENT, DAMAGED_SEED, SAMPLE, SHARED


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FAQ_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FAQ_CONTENT_DIR", str(CONTENT))
    monkeypatch.delenv("FAQ_DATABASE_URL", raising=False)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_faq_ingest_prints_a_summary_and_exits_zero(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", "--quiet"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "documents:          5" in out
    assert "translation pairs:  9" in out
    assert "encoding repairs:" in out and "warnings:" in out and "skipped:            0" in out
    assert (env / "data" / "CURRENT").exists()


def test_faq_ingest_names_skipped_files_and_exits_three(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = env / "content"
    content.mkdir()
    (content / "ok.md").write_text("# FAQ\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    (content / "broken.md").write_bytes(b"\xff\xfe\x00")
    assert main(["ingest", "--quiet", "--content", str(content)]) == EXIT_SKIPPED
    assert "skipped  broken.md:" in capsys.readouterr().out


def test_faq_ingest_of_missing_folder_fails_with_advice(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", "--quiet", "--content", str(env / "nope")]) == EXIT_FAILED
    assert "does not exist" in capsys.readouterr().err


def test_faq_serve_answers_over_http(env: Path) -> None:
    assert main(["ingest", "--quiet"]) == EXIT_OK
    with running_server({}) as (base, _, _):
        health = httpx.get(f"{base}/healthz", timeout=5).json()
        assert health["status"] == "ok" and health["documents"] == 5
        page = httpx.get(f"{base}/search", params={"q": "梯度"}, timeout=10)
        assert page.status_code == 200 and '<html lang="' in page.text


def test_faq_check_lists_uncertain_repairs_with_candidates(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", "--quiet"]) == EXIT_OK
    capsys.readouterr()
    assert main(["check"]) == EXIT_FAILED  # uncertain repairs need an editor
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "repair-uncertain" in line]
    assert lines and all(line.startswith("hf-transformers-deepspeed-notes.zh.md:") for line in lines)
    assert "candidates:" in lines[0]
    assert "uncertain repairs" in out.splitlines()[-1]


def test_faq_check_self_test_prints_figures_and_meets_targets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--self-test"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "cp1254" in out and "met" in out


def test_faq_check_lists_an_faq_that_yields_almost_nothing(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = env / "content"
    content.mkdir()
    (content / "faq.md").write_text("# Release FAQ\n\n- When is the next release?\n- Can I skip a version?\n"
                                    "- Where are the notes?\n\nAll on the release page.\n", encoding="utf-8")
    (content / "guide.md").write_text("# Guide\n\n## Install\n\nRun it.\n", encoding="utf-8")
    assert main(["ingest", "--quiet", "--content", str(content)]) == EXIT_OK
    warning = (f"says it is an FAQ but yields 0 entries: run `faq inspect {content / 'faq.md'}` to see why; "
               "front matter `entries: list-items` would find 3 questions")
    assert f"warning  faq.md: {warning}" in capsys.readouterr().out
    assert main(["check"]) == EXIT_OK  # information for an editor, not a failure
    out = capsys.readouterr().out
    assert f"faq.md: warning: {warning}" in out and "guide.md: warning" not in out


def _bad_links_content(root: Path) -> Path:
    content = root / "content"
    content.mkdir()
    faq = "# FAQ\n\n## How do I install it?\n\nRun `pip install demo-kit==1.2.0`.\n"
    (content / "faq.md").write_text(faq, encoding="utf-8")
    zh = "# 常见问题\n\n## 如何安装？\n\n运行 `pip install demo-kit==1.2.0`。\n"
    (content / "one.md").write_text("---\ntranslation_of: faq.md\n---\n" + zh, encoding="utf-8")
    (content / "two.md").write_text("---\ntranslation_of: faq.md\n---\n" + zh, encoding="utf-8")
    lost = "---\ntranslation_of: gone.md\n---\n# 孤立\n\n## 问题？\n\n答案。\n"
    (content / "lost.md").write_text(lost, encoding="utf-8")
    (content / "links.tsv").write_text("pair\tfaq.md\tmissing.md\nthis is not a rule\n", encoding="utf-8")
    return content


def test_faq_check_lists_link_problems_and_fails(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = _bad_links_content(env)
    assert main(["ingest", "--quiet", "--content", str(content)]) == EXIT_OK  # the rest still links
    out = capsys.readouterr().out
    assert "translation pairs:  1" in out and "links to check:     3 problems" in out
    assert "warning  links.tsv: line 2: expected `pair` or `unpair`" in out
    assert main(["check"]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "two.md: link-problem: two.md ↔ faq.md: faq.md is already paired with one.md" in out
    assert "lost.md: link-problem: translation_of: no document 'gone.md'" in out
    assert "links.tsv: link-problem: pair faq.md ↔ missing.md: no document or entry 'missing.md'" in out
    assert "lost.md: link-info: no translation found (zh only)" in out
    assert "3 link problems" in out


def test_sidecar_metadata_pairs_a_file_whose_bytes_must_not_change(
        env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = env / "content"
    content.mkdir()
    # Nothing in common, so neither names nor content could pair them: only the sidecar does. Their questions
    # differ in meaning too, so the entries stay unpaired however the portal compares them.
    (content / "vendor-faq.md").write_text("# FAQ\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    (content / "notes.md").write_text("# 说明\n\n## 如何卸载？\n\n删除目录。\n", encoding="utf-8")
    (content / "notes.md.meta.yml").write_text("translation_of: vendor-faq.md\nlang: zh\n", encoding="utf-8")
    (content / "vendor-faq.md.meta.yml").write_text("- not a mapping\n", encoding="utf-8")
    assert main(["ingest", "--quiet", "--content", str(content)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "translated documents: 1 pairs" in out and "translation pairs:  0" in out
    assert "vendor-faq.md: vendor-faq.md.meta.yml is not a mapping" in out


def test_every_cli_option_says_what_it_does_and_its_default() -> None:
    import argparse

    from app.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"faq {name} {action.dest}: no description"
            if action.option_strings:
                assert "default" in action.help, f"faq {name} {action.option_strings[0]}: no default stated"


def test_faq_serve_says_where_to_open_the_portal(env: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import uvicorn
    from uvicorn.importer import import_from_string

    from app.web.http import NoDelayProtocol

    started: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: started.update(kwargs))
    assert main(["serve", "--port", "8123"]) == EXIT_OK
    assert "open http://127.0.0.1:8123/ in a browser" in capsys.readouterr().out
    assert started["port"] == 8123
    assert import_from_string(str(started["http"])) is NoDelayProtocol  # tests/web/test_http.py: why


def test_the_bundled_samples_check_names_the_damaged_seeds_uncertain_repairs_and_nothing_else(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("FAQ_CONTENT_DIR", str(SAMPLE))
    monkeypatch.setenv("FAQ_SEMANTIC", "false")
    get_settings.cache_clear()
    assert main(["ingest", "--quiet"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "skipped:            0" in out and "warnings:           1" in out
    assert f"{DAMAGED_SEED.name}: mojibake (UTF-8 read as cp1254) repaired" in out
    assert main(["check"]) == EXIT_FAILED  # something for an editor: the guesses a repair could not be sure of
    lines = capsys.readouterr().out.splitlines()
    uncertain = [line for line in lines if "repair-uncertain" in line]
    assert uncertain and all(line.startswith(f"{DAMAGED_SEED.name}:") for line in uncertain)
    assert lines[-1].startswith(f"0 damaged generations, 0 damaged vector files, {len(uncertain)} uncertain repairs, "
                                "0 skipped files, 0 link problems, 0 low-confidence pairs")


def test_every_seed_is_in_the_sample_byte_for_byte_and_only_the_damaged_one_is_mojibake() -> None:
    import hashlib

    from app.ingest.repair import is_mojibake

    assert is_mojibake(DAMAGED_SEED.read_text(encoding="utf-8"))
    assert [p.name for p in SAMPLE.glob("*.md") if is_mojibake(p.read_text(encoding="utf-8"))] == [DAMAGED_SEED.name]
    seeds = sorted((SHARED / "seeds").glob("*.txt"))
    if seeds:  # the delivered seeds, byte for byte
        sample = {hashlib.sha256(p.read_bytes()).digest() for p in SAMPLE.iterdir() if p.is_file()}
        assert len(seeds) == 5 and all(hashlib.sha256(seed.read_bytes()).digest() in sample for seed in seeds)


def _one_question(folder: Path) -> Path:
    """A content folder holding one small FAQ."""
    folder.mkdir()
    (folder / "faq.md").write_text("# FAQ\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    return folder


@pytest.fixture
def small(env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The `env` settings with FAQ_CONTENT_DIR on a folder of one small FAQ (returned)."""
    content = _one_question(env / "content")
    monkeypatch.setenv("FAQ_CONTENT_DIR", str(content))
    get_settings.cache_clear()
    return content


def test_ingest_if_changed_ingests_only_when_the_content_changed(small: Path, capsys: pytest.CaptureFixture[str]
                                                                 ) -> None:
    content = small
    assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_OK  # no data yet: ingests
    first = current_name(get_settings())
    assert first is not None and "generation:" in capsys.readouterr().out
    assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_OK
    assert capsys.readouterr().out.startswith(f"data is up to date (generation {first})")
    assert current_name(get_settings()) == first
    for change in ("edit", "add", "delete"):
        if change == "edit":
            (content / "faq.md").write_text("# FAQ\n\n## Why not?\n\nBecause.\n", encoding="utf-8")
        elif change == "add":
            (content / "more.md").write_text("# More\n\n## How?\n\nSo.\n", encoding="utf-8")
        else:
            (content / "more.md").unlink()
        before = current_name(get_settings())
        assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_OK
        assert current_name(get_settings()) != before, change
    (content.parent / "data" / "CURRENT").unlink()  # the data lost: ingested again
    assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_OK
    assert current_name(get_settings()) is not None
    (content / "broken.md").write_bytes(b"\xff\xfe\x00")  # published with a file skipped: counts as ingested
    assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_SKIPPED
    capsys.readouterr()
    assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_OK
    assert "data is up to date" in capsys.readouterr().out


def test_a_failed_ingest_is_tried_again_by_if_changed(small: Path) -> None:
    assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_OK
    published = current_name(get_settings())
    (small / "faq.md").write_bytes(b"\xff\xfe\x00")  # nothing readable left: the ingest fails
    assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_FAILED
    assert main(["ingest", "--quiet", "--if-changed"]) == EXIT_FAILED  # not taken for done
    assert current_name(get_settings()) == published


def test_a_server_logs_each_generation_it_switches_to(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from app.db import DataStore
    from app.ingest.pipeline import run_ingest
    from tests.conftest import settings_for

    settings = settings_for(tmp_path, _one_question(tmp_path / "content"))
    first = run_ingest(settings, progress=False).generation
    store = DataStore(settings)
    try:
        with caplog.at_level(logging.INFO, logger="app.db"):
            store.current()
            second = run_ingest(settings, progress=False).generation
            store.current()
    finally:
        store.close()
    messages = [record.getMessage() for record in caplog.records if record.name == "app.db"]
    assert f"serving generation {first}" in messages
    assert f"serving generation {second} (was {first})" in messages
