"""Reading the user's bilingual glossary."""

from __future__ import annotations

from pathlib import Path

from app.ingest.glossary import parse_glossary, read_glossary
from tests.conftest import CONTENT


def test_parse_glossary_reads_groups_and_reports_bad_lines() -> None:
    groups, warnings = parse_glossary("# comment\n显存\tGPU memory\tVRAM\n\n微调\n报错\terror\terror\n")
    assert groups == [["显存", "GPU memory", "VRAM"], ["报错", "error"]]
    assert warnings == ["line 4: needs two or more tab-separated terms, found '微调'"]


def test_shipped_glossary_is_valid() -> None:
    groups, warnings = read_glossary(CONTENT)
    assert warnings == []
    assert ["显存", "GPU memory", "VRAM", "CUDA memory"] in groups


def test_missing_glossary_is_fine(tmp_path: Path) -> None:
    assert read_glossary(tmp_path) == ([], [])
