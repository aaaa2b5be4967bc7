"""`faq eval-links`: scoring entry pairs against gold files, and the figures on the real corpus."""

from __future__ import annotations

from pathlib import Path

from app.ingest.glossary import read_glossary
from measure.linkeval import LinkScore, evaluate_links
from tests.conftest import CONTENT, require

GLOSSARY = read_glossary(CONTENT)[0]


def _corpus(root: Path) -> Path:
    folder = root / "corpus" / "demo"
    (folder / "en").mkdir(parents=True)
    (folder / "zh").mkdir()
    (folder / "en" / "faq.md").write_text(
        "# FAQ\n\n## How do I install it?\n\nRun `pip install demo-kit`.\n\n"
        "## Why OOM?\n\nSet `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`.\n", encoding="utf-8")
    (folder / "zh" / "faq.md").write_text(
        "# 常见问题\n\n## 如何安装？\n\n运行 `pip install demo-kit`。\n\n"
        "## 为什么显存不足？\n\n设置 `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`。\n\n"
        "## 只有中文的问题？\n\n没有英文版。\n", encoding="utf-8")
    (folder / "pairs.tsv").write_text(
        "en_file\ten_question\tzh_file\tzh_question\n"
        "en/faq.md\tHow do I install it?\tzh/faq.md\t如何安装？\n"
        "en/faq.md\tWhy OOM?\tzh/faq.md\t为什么显存不足？\n", encoding="utf-8")
    (folder / "unpaired.tsv").write_text("file\tquestion\nzh/faq.md\t只有中文的问题？\n", encoding="utf-8")
    return folder.parent


def _by_name(scores: list[LinkScore]) -> dict[str, LinkScore]:
    return {score.name: score for score in scores}


def test_scores_count_correct_pairs_per_folder_and_overall(tmp_path: Path) -> None:
    scores = _by_name(evaluate_links(_corpus(tmp_path)))
    demo = scores["demo"]
    assert (demo.predicted, demo.correct, demo.gold, demo.unpaired_violations) == (2, 2, 2, 0)
    assert scores["overall"].precision == scores["overall"].recall == 1.0


def test_renamed_files_are_paired_by_content_alone(tmp_path: Path) -> None:
    demo = _by_name(evaluate_links(_corpus(tmp_path), renamed=True))["demo"]
    assert (demo.predicted, demo.correct) == (2, 2)


def test_a_wrong_pair_costs_precision(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    gold = corpus / "demo" / "pairs.tsv"
    gold.write_text(gold.read_text(encoding="utf-8").replace("\t如何安装？", "\t只有中文的问题？"), encoding="utf-8")
    demo = _by_name(evaluate_links(corpus))["demo"]
    assert (demo.predicted, demo.correct) == (2, 1)
    assert demo.precision == 0.5


def test_real_corpus_meets_the_targets_as_laid_out(shared: Path) -> None:
    corpus = require(shared / "corpus" / "real", "the real corpus")
    overall = evaluate_links(corpus, glossary=GLOSSARY)[-1]
    assert overall.name == "overall" and overall.gold == 207
    assert overall.precision >= 0.98 and overall.recall >= 0.95
    assert overall.unpaired_violations == 0


def test_real_corpus_meets_the_targets_with_meaningless_names(shared: Path) -> None:
    corpus = require(shared / "corpus" / "real", "the real corpus")
    scores = _by_name(evaluate_links(corpus, renamed=True, glossary=GLOSSARY))
    assert scores["overall"].precision >= 0.95 and scores["overall"].recall >= 0.90
    assert scores["overall"].unpaired_violations == 0
    assert scores["opencompass"].recall >= 0.9  # inserted, deleted and moved entries


def test_real_corpus_alignment_survives_edited_translations(shared: Path) -> None:
    corpus = require(shared / "corpus" / "real", "the real corpus")
    overall = evaluate_links(corpus, glossary=GLOSSARY, perturbed=True)[-1]
    assert overall.gold < 207  # deleted entries no longer count
    assert overall.precision >= 0.95 and overall.recall >= 0.95
