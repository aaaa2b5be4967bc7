"""`faq eval-links`: scoring entry pairs against gold files."""

from __future__ import annotations

from pathlib import Path

from app.linkeval import evaluate_links, score_folder
from tests.conftest import require


def _corpus(root: Path) -> Path:
    folder = root / "demo"
    (folder / "en").mkdir(parents=True)
    (folder / "zh").mkdir()
    (folder / "en" / "faq.md").write_text(
        "# FAQ\n\n## How do I install it?\n\nRun pip.\n\n## Why OOM?\n\nToo big.\n", encoding="utf-8")
    (folder / "zh" / "faq.md").write_text(
        "# 常见问题\n\n## 如何安装？\n\n运行 pip。\n\n## 为什么显存不足？\n\n模型太大。\n", encoding="utf-8")
    (folder / "pairs.tsv").write_text(
        "en_file\ten_question\tzh_file\tzh_question\n"
        "en/faq.md\tHow do I install it?\tzh/faq.md\t如何安装？\n"
        "en/faq.md\tWhy OOM?\tzh/faq.md\t为什么显存不足？\n", encoding="utf-8")
    (folder / "unpaired.tsv").write_text("file\tquestion\n", encoding="utf-8")
    return folder


def test_score_folder_counts_correct_pairs(tmp_path: Path) -> None:
    score = score_folder(_corpus(tmp_path))
    assert (score.predicted, score.correct, score.gold) == (2, 2, 2)
    assert score.precision == score.recall == 1.0


def test_renamed_files_leave_only_content_to_pair_them(tmp_path: Path) -> None:
    score = score_folder(_corpus(tmp_path), renamed=True)
    assert score.gold == 2 and score.predicted <= 2
    assert score.precision == 1.0  # never a wrong pair, whatever the names


def test_real_corpus_pairs_are_never_wrong(shared: Path) -> None:
    corpus = require(shared / "corpus" / "real", "the real corpus")
    overall = evaluate_links(corpus)[-1]
    assert overall.name == "overall" and overall.gold == 207
    assert overall.precision >= 0.98
    assert overall.unpaired_violations == 0
