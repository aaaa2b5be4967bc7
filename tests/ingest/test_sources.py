"""Finding documents and splitting front matter."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ingest.sources import find_sources, split_front_matter


def test_find_sources_lists_markdown_and_text_including_chinese_names(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "常见问题.md").write_text("# x", encoding="utf-8")
    (tmp_path / "sub" / "b.markdown").write_text("# x", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("# x", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    (tmp_path / ".hidden.md").write_text("# x", encoding="utf-8")
    found = [s.relative_path for s in find_sources(tmp_path)]
    assert found == ["notes.txt", "sub/b.markdown", "常见问题.md"]


def test_split_front_matter_reads_metadata_and_keeps_line_numbers() -> None:
    front = split_front_matter("---\ntitle: 常见问题\nlang: zh\n---\n# Heading\n")
    assert front.metadata == {"title": "常见问题", "lang": "zh"}
    assert front.body.split("\n")[4] == "# Heading"
    assert "title:" not in front.body


def test_split_front_matter_reports_invalid_yaml_without_losing_the_body() -> None:
    front = split_front_matter("---\ntitle: [unclosed\n---\n# Heading\n")
    assert front.error is not None and "YAML" in front.error
    assert "# Heading" in front.body


def test_split_front_matter_leaves_documents_without_it_alone() -> None:
    text = "# Title\n\n---\n\nafter a rule\n"
    assert split_front_matter(text).body == text


def test_toml_front_matter_is_metadata_and_keeps_line_numbers() -> None:
    front = split_front_matter('+++\ntitle = "FAQ"\nentries = "h2"\n+++\n## Q1?\n')
    assert front.metadata == {"title": "FAQ", "entries": "h2"} and front.error is None
    assert front.body.split("\n")[4] == "## Q1?"
    assert "not valid TOML" in (split_front_matter("+++\ntitle = \n+++\nbody\n").error or "")


def test_front_matter_with_windows_line_ends_is_metadata_not_the_title(tmp_path: Path) -> None:
    # TDengine's Chinese FAQ (eval/fresh3) is saved with CRLF: its title was the front matter's text.
    from app.ingest.pipeline import IngestReport, read_document
    from app.ingest.sources import SourceFile

    yaml_front = split_front_matter("---\r\ntitle: 常见问题及反馈\r\nlang: zh\r\n---\r\n\r\n## 问题反馈\r\n")
    assert yaml_front.metadata == {"title": "常见问题及反馈", "lang": "zh"} and yaml_front.error is None
    assert yaml_front.body.split("\n")[5] == "## 问题反馈\r"
    toml_front = split_front_matter('+++\r\ntitle = "FAQ"\r\n+++\r\n## Q1?\r\n')
    assert toml_front.metadata == {"title": "FAQ"} and "title" not in toml_front.body
    path = tmp_path / "faq.md"
    path.write_bytes("---\r\ntitle: 常见问题及反馈\r\n---\r\n\r\n## 如何升级？\r\n\r\n运行升级脚本。\r\n".encode())
    document = read_document(SourceFile(path, "faq.md"), IngestReport())
    assert document is not None and document.title == "常见问题及反馈"
    assert [(e.question, e.line, e.answer_markdown) for e in document.entries] == [("如何升级？", 5, "运行升级脚本。")]


def test_plain_files_are_not_resolved_one_by_one_and_links_still_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A regular file in a folder inside the content folder needs no resolving; links and odd files are still
    judged as before, with the same files found and the same reasons."""
    import os

    from app.ingest import sources

    content, outside = tmp_path / "content", tmp_path / "outside"
    (content / "sub").mkdir(parents=True)
    outside.mkdir()
    for name in ("a.md", "b.zh.md", "sub/c.md"):
        (content / name).write_text("# t\n", encoding="utf-8")
    (outside / "secret.md").write_text("secret\n", encoding="utf-8")
    os.symlink(outside / "secret.md", content / "leak.md")
    os.symlink(content / "sub" / "c.md", content / "alias.md")
    os.symlink(tmp_path / "nothing.md", content / "dangling.md")
    os.mkfifo(content / "pipe.md")

    def listed() -> tuple[list[str], list[tuple[str, str]]]:
        skipped: list[tuple[str, str]] = []
        return [s.relative_path for s in find_sources(content, skipped)], sorted(skipped)

    with monkeypatch.context() as resolving_each:
        resolving_each.setattr(sources, "_is_plain_file", lambda path: False)
        expected = listed()
    judged: list[str] = []
    real = sources._outside_or_odd
    monkeypatch.setattr(sources, "_outside_or_odd", lambda path, root: judged.append(path.name) or real(path, root))
    assert listed() == expected
    assert expected[0] == ["a.md", "alias.md", "b.zh.md", "sub/c.md"] and len(expected[1]) == 3
    assert sorted(judged) == ["alias.md", "dangling.md", "leak.md", "pipe.md"]
