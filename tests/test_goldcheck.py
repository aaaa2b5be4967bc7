"""`measure.goldcheck`: every gold question of eval/wild is a source line, and a broken label is reported."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from measure.goldcheck import check_corpus, main, question_text, source_lines

WILD = Path(__file__).resolve().parents[1] / "eval" / "wild"


def test_every_gold_question_of_the_wild_corpus_is_found() -> None:
    reports = check_corpus(WILD)
    assert len(reports) >= 25
    assert [m for r in reports for m in r.missing] == []
    assert [p for r in reports for p in r.problems] == []
    assert main([str(WILD)]) == 0


def test_a_corrupted_gold_line_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "kyanos"
    shutil.copytree(WILD / "kyanos", folder)
    pairs = folder / "pairs.tsv"
    text = pairs.read_text(encoding="utf-8")
    assert "Can it run in a container/Pod?" in text
    pairs.write_text(text.replace("Can it run in a container/Pod?", "Can it run in a container?"), encoding="utf-8")
    [report] = check_corpus(tmp_path)
    assert report.missing == ["faq.md: Can it run in a container?"]
    assert main([str(tmp_path)]) == 1
    assert "missing:   faq.md: Can it run in a container?" in capsys.readouterr().out


@pytest.mark.parametrize(("line", "question"), [
    ("### 1. Where does it start?  ", "1. Where does it start?"),
    ("## Closed heading ##", "Closed heading"),
    ("### 该包仅支持 ESM {#this-package-is-esm-only}", "该包仅支持 ESM"),
    ("## Setup {: #setup .wide }", "Setup"),
    ("1. **Q: How to select models?**<br>", "Q: How to select models?"),
    ("**Q: 这个模型怎么用？**  ", "Q: 这个模型怎么用？"),
    ("**Q：**SOLOv2 的原因是？", "**Q：**SOLOv2 的原因是？"),
    ("**Q:**  为什么会出`NaN`? </br>", "**Q:**  为什么会出`NaN`?"),
    ("<details><summary><b>How to save/load checkpoint</b></summary>", "How to save/load checkpoint"),
    ('??? note "Q: Can PR-Agent review draft PRs?"', "Q: Can PR-Agent review draft PRs?"),
    ('<h4 id="1.1">What is <code>Nacos</code></h4>', "What is Nacos"),
    ("> **Q: Why?**", "Q: Why?"),
    ("| `E492` error | run `:set ff=unix` |", "`E492` error"),
    ("Why is a given page not published?", "Why is a given page not published?"),
])
def test_question_text_removes_only_the_block_marker(line: str, question: str) -> None:
    assert question_text(line) == question


def test_a_line_of_triple_backtick_code_spans_is_not_a_fence(tmp_path: Path) -> None:
    # CommonMark: a backtick fence's info string holds no backtick, so this line is a paragraph (MockingBird's README)
    page = tmp_path / "README.md"
    page.write_text("  ```conda env create -f env.yml```\n\n## FAQ\n\n```\n# not a heading\n```\n", encoding="utf-8")
    assert [number for number, _ in source_lines(page)] == [1, 2, 3, 4]
