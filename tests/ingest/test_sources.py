"""Finding documents and splitting front matter."""

from __future__ import annotations

from pathlib import Path

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
