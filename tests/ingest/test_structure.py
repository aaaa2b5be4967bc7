"""Structure inference on every gold corpus, on each style in both languages, and on hostile files."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from app.ingest.glossary import read_glossary
from app.ingest.language import entry_language
from app.ingest.segment import segment_markdown
from measure.linkeval import LinkScore, evaluate_links, evaluate_segments
from tests.conftest import CONTENT, REPO, SHARED, require

FIXTURES = REPO / "tests" / "fixtures"
GLOSSARY = read_glossary(CONTENT)[0]


def _corpus(name: str) -> Path:
    """A gold corpus: the project's own style fixtures, or one of the shared folder's (skipped outside CI)."""
    if name == "fixtures":
        return FIXTURES / "styles"
    return require(SHARED / "corpus" / name, f"the {name} corpus")


@pytest.mark.parametrize("corpus", ["real", "styles", "fixtures"])
def test_every_gold_file_segments_to_its_exact_questions(corpus: str) -> None:
    scores = evaluate_segments(_corpus(corpus))
    wrong = {s.name: (s.missed, s.extra) for s in scores if s.missed or s.extra}
    assert wrong == {}
    assert scores[-1].found == scores[-1].gold == scores[-1].matched > 0


def _overall(scores: list[LinkScore]) -> LinkScore:
    return scores[-1]


def test_real_and_styles_pairs_hold() -> None:
    real_score = _overall(evaluate_links(_corpus("real"), glossary=GLOSSARY))
    assert (real_score.correct, real_score.predicted, real_score.gold) == (207, 207, 207)
    # Two styles pairs share no language-neutral anchor (hugegraph "nested attributes", and the
    # S2 pair whose English entry was deleted): a general dictionary is the next step.
    styles_score = _overall(evaluate_links(_corpus("styles"), glossary=GLOSSARY))
    assert styles_score.precision >= 0.99 and styles_score.recall >= 0.98
    assert styles_score.unpaired_violations <= 1


def test_fixture_pairs_hold() -> None:
    # repeated-titles: the English-only "Q12: Can I train without internet access?" and the
    # Chinese-only "Q13: 训练时如何通过国内镜像下载预训练权重？" share their one command and pair as a move.
    fixture_score = _overall(evaluate_links(_corpus("fixtures"), glossary=GLOSSARY))
    assert fixture_score.precision >= 0.98 and fixture_score.recall >= 0.98
    assert fixture_score.unpaired_violations <= 2


WILD = REPO / "eval" / "wild"


def test_the_wild_corpus_keeps_every_gold_question() -> None:
    # 57 FAQ documents of 31 projects (eval/wild/README.md); before issue 24, 641 of 684 (BASELINE.md).
    scores = evaluate_segments(WILD)
    wrong = {s.name: (s.missed, s.extra) for s in scores if s.missed or s.extra}
    assert wrong == {}
    overall = scores[-1]
    assert overall.matched == overall.gold == 684
    # bert-wwm's README_EN.md asks `Q: How to use this model?` twice; gold lists it once.
    assert overall.found == overall.gold + 1


@pytest.mark.parametrize(("layout", "correct", "wrong", "unpaired"), [
    ("as laid out", 238, 2, 3), ("renamed", 235, 0, 0), ("edited", 206, 6, 2)])
def test_the_wild_corpus_pairs_hold(layout: str, correct: int, wrong: int, unpaired: int) -> None:
    # Before issue 24: 227 of 244 correct and 8 wrong (as laid out), 198 of 214 and 14 wrong (edited). What is
    # left as laid out is SpaceVim's partial translation (5 of 14 entries), paired by its folders since: two of
    # its pairs share code with an entry of the other language that has no translation.
    overall = evaluate_links(WILD, renamed=layout == "renamed", perturbed=layout == "edited", glossary=GLOSSARY)[-1]
    assert overall.correct >= correct and overall.predicted - overall.correct <= wrong
    assert overall.unpaired_violations <= unpaired


WILD2 = REPO / "eval" / "wild2"


def test_the_second_wild_corpus_keeps_the_gold_questions_it_finds() -> None:
    # 24 FAQ documents of 17 projects gathered by two probes (eval/wild2/README.md); floors, not a target.
    scores = evaluate_segments(WILD2)
    overall = scores[-1]
    assert overall.gold == 231
    assert overall.matched >= 230
    # Still missed: graia-docs before/QA.md `## 当你遇到问题的时候` (cut as the two advice items of its
    # `:::warning`).
    missed = {s.name for s in scores[:-1] if s.missed}
    assert missed <= {"graia-docs/before/QA.md"}
    # 9 extras today: graia's two advice items, scrcpy's category introductions, hertzbeat's unanswered item 5,
    # mkdocs-material's three guide headings.
    assert len(overall.extra) <= 9


@pytest.mark.parametrize(("layout", "correct", "wrong", "unpaired"), [
    ("as laid out", 54, 2, 0), ("renamed", 54, 2, 0), ("edited", 47, 3, 0)])
def test_the_second_wild_corpus_pairs_hold(layout: str, correct: int, wrong: int, unpaired: int) -> None:
    # 53 gold pairs; hertzbeat asks two questions twice in each language, so 10 of its links are right for 8 rows.
    # By words alone scrcpy misses `Device unauthorized` / `设备未授权` (the two files order it differently; the
    # meaning model of `faq eval-links` finds it) and joins the two category introductions. Edited, the inserted
    # `syntax error, unexpected xxx` takes vben's `Errors When Running Locally` from `本地运行报错`.
    overall = evaluate_links(WILD2, renamed=layout == "renamed", perturbed=layout == "edited", glossary=GLOSSARY)[-1]
    assert overall.correct >= correct and overall.predicted - overall.correct <= wrong
    assert overall.unpaired_violations <= unpaired


WILD3 = REPO / "eval" / "wild3"


def test_the_wild3_corpus_keeps_the_gold_questions_it_finds() -> None:
    # 19 FAQ documents of 12 projects nobody here had read, labelled before any ingest ran on them
    # (eval/wild3/README.md); floors, not a target. The first run found 138 and cut 9 extras; the rules it led to
    # (a `More FAQ` link heading marks no FAQ section, `Still stuck?` and `更多的 FAQ` are the document's own
    # business, `权限不足` names a failure, a step ending in `：` asks nothing) found the rest.
    scores = evaluate_segments(WILD3)
    overall = scores[-1]
    assert overall.gold == 174
    assert overall.matched >= 173
    # Still missed: metagpt `### Chief Evangelist (Monthly Rotation)`, a role among contributor questions.
    missed = {s.name for s in scores[:-1] if s.missed}
    assert missed <= {"metagpt/FAQ-EN.md"}
    assert not overall.extra


@pytest.mark.parametrize(("layout", "correct", "wrong", "unpaired"), [
    ("as laid out", 58, 0, 0), ("renamed", 58, 0, 0), ("edited", 49, 1, 0)])
def test_the_wild3_corpus_pairs_hold(layout: str, correct: int, wrong: int, unpaired: int) -> None:
    # 58 gold pairs, all found once every entry is cut (the first run: 44, semi-design's 13 pairs uncut, db-gpt's
    # closing `Still stuck?` / `还是没解决？` joined). Edited, by words alone, one inserted entry takes a pair.
    overall = evaluate_links(WILD3, renamed=layout == "renamed", perturbed=layout == "edited", glossary=GLOSSARY)[-1]
    assert overall.correct >= correct and overall.predicted - overall.correct <= wrong
    assert overall.unpaired_violations <= unpaired


WILD4 = REPO / "eval" / "wild4"


def test_the_wild4_corpus_keeps_the_gold_questions_it_finds() -> None:
    # 20 FAQ documents of 15 projects nobody here had read, labelled before any ingest ran on them
    # (eval/wild4/README.md); floors, not a target. The first run found 291 of 300 and cut 12 extras; the rules it
    # led to (a lead-in that announces steps, `X的原因` / `X的说明` as answer parts, a heading without text over
    # topics is their category, headings below the question level keep their plain sub-headings but not one that
    # states a problem, a lone `##` among `###` questions does not take them, bold title lines in an FAQ without
    # headings, `P.S.` and `辅助文章` are the document's own business) found 8 more and cut no extra.
    scores = evaluate_segments(WILD4)
    overall = scores[-1]
    assert overall.gold == 300
    assert overall.matched >= 299
    # Still missed: lx-music `### 打开网易源“我喜欢”歌单` (a how-to under the answered `## 无法打开外部歌单`).
    missed = {s.name for s in scores[:-1] if s.missed}
    assert missed <= {"lx-music/FAQ.md"}
    assert not overall.extra


@pytest.mark.parametrize(("layout", "correct", "wrong", "unpaired"), [
    ("as laid out", 56, 0, 0), ("renamed", 56, 0, 0), ("edited", 46, 2, 2)])
def test_the_wild4_corpus_pairs_hold(layout: str, correct: int, wrong: int, unpaired: int) -> None:
    # 60 gold pairs; by words alone the first run linked 54 right and 1 wrong (trafficmonitor, whose English
    # `###` question after the lone `##` was not cut); now 56 and none. Words alone miss shigureader's `**Q:**` /
    # `**问：**` pair that the meaning model finds (faq eval-links: 59 of 59 predicted). The edits of the edited
    # layout draw from one random sequence over every Chinese document, so how one is cut moves the others' edits:
    # since havenask's two entries are cut, they are the ones inserted into shigureader's Chinese FAQ, and words
    # alone pair both by their place with the English `**Q:**` entries there (faq eval-links, with the meaning
    # model: 48 right of 49, one of them paired).
    overall = evaluate_links(WILD4, renamed=layout == "renamed", perturbed=layout == "edited", glossary=GLOSSARY)[-1]
    assert overall.correct >= correct and overall.predicted - overall.correct <= wrong
    assert overall.unpaired_violations <= unpaired


WILD5 = REPO / "eval" / "wild5"


def test_the_wild5_corpus_keeps_the_gold_questions_it_finds() -> None:
    # 21 FAQ documents of 13 projects nobody here had read, labelled before any ingest ran on them
    # (eval/wild5/README.md); floors, not a target. The first run found 236 of 241 and cut 23 extras; the rules it
    # led to (role-named sub-headings `1.1、异常现象` / `正常情况` and `## 排查步骤` are parts of an answer, a list
    # under a heading that names steps is steps, `## 问题无法解决` is the document's own business, one-line
    # bullets cut off by their fenced answers are still one list, `排查手册` names a troubleshooting document)
    # found 4 more and cut 16 fewer.
    scores = evaluate_segments(WILD5)
    overall = scores[-1]
    assert overall.gold == 241
    assert overall.matched >= 240
    assert len(overall.extra) <= 7
    # Missed: safeline `## 配置完成之后…`, cut as its five numbered `####` checks (the extras with knowstreaming's
    # `### 3.2、异因二：索引模板错误` and `### 3.3、异因三：集群Shard满`, causes of its `## 3、ElasticSearch问题`).
    missed = {s.name for s in scores[:-1] if s.missed}
    assert missed <= {"safeline/FAQ.md"}


@pytest.mark.parametrize(("layout", "correct", "wrong", "unpaired"), [
    ("as laid out", 40, 0, 0), ("renamed", 40, 0, 0), ("edited", 35, 1, 0)])
def test_the_wild5_corpus_pairs_hold(layout: str, correct: int, wrong: int, unpaired: int) -> None:
    # 40 gold pairs (asdf, starship, gin, vitest); by words alone the first run links all 40 as laid out and renamed,
    # and 35 right, 1 wrong of 35 with the Chinese files edited.
    overall = evaluate_links(WILD5, renamed=layout == "renamed", perturbed=layout == "edited", glossary=GLOSSARY)[-1]
    assert overall.correct >= correct and overall.predicted - overall.correct <= wrong
    assert overall.unpaired_violations <= unpaired


WILD6 = REPO / "eval" / "wild6"


def test_the_wild6_corpus_keeps_the_gold_questions_it_finds() -> None:
    # 14 FAQ documents of 8 projects nobody here had read, labelled before any ingest ran on them
    # (eval/wild6/README.md); floors, not a target. The first run found 145 of 148 and cut 2 extras.
    scores = evaluate_segments(WILD6)
    overall = scores[-1]
    assert overall.gold == 148
    assert overall.matched >= 145
    assert len(overall.extra) <= 2
    # Missed: go-cqhttp's three `### Q:` headings, each answered only by the `### A:` heading under it. Extra:
    # smartdns's closing `1. More questions` / `1. 更多问题` item (a pointer to the issue tracker).
    missed = {s.name for s in scores[:-1] if s.missed}
    assert missed <= {"go-cqhttp/QA.md"}


@pytest.mark.parametrize(("layout", "correct", "wrong", "unpaired"), [
    ("as laid out", 51, 1, 0), ("renamed", 51, 1, 0), ("edited", 45, 3, 2)])
def test_the_wild6_corpus_pairs_hold(layout: str, correct: int, wrong: int, unpaired: int) -> None:
    # 51 gold pairs (astrbot, ktoolbox, smartdns, xxpermissions); by words alone the first run links all 51 as laid
    # out and renamed, plus smartdns's extra `More questions` / `更多问题`; with the Chinese files edited, 45 right and
    # 3 wrong of 48, and 2 entries that have no counterpart paired.
    overall = evaluate_links(WILD6, renamed=layout == "renamed", perturbed=layout == "edited", glossary=GLOSSARY)[-1]
    assert overall.correct >= correct and overall.predicted - overall.correct <= wrong
    assert overall.unpaired_violations <= unpaired


def test_question_numbers_are_not_what_pairs_entries(tmp_path: Path) -> None:
    from app.ingest.align import LinkRules
    from app.ingest.pipeline import IngestReport, link_documents, read_documents

    (tmp_path / "faq.en.md").write_text(
        "# FAQ\n\n### Q12: How do I clear the cache?\n\nRun `cache-purge --all`.\n\n"
        "### Q13: How do I pin the toolkit?\n\nAdd `cuda_version: 12.1` to `runtime.yaml`.\n", encoding="utf-8")
    (tmp_path / "faq.zh.md").write_text(
        "# 常见问题\n\n### Q12: 如何固定工具包版本？\n\n在 `runtime.yaml` 中加入 `cuda_version: 12.1`。\n\n"
        "### Q13: 如何查看日志？\n\n运行 `journalctl -u agent`。\n", encoding="utf-8")
    documents = read_documents(tmp_path, IngestReport())
    questions = {i: e.question for d in documents for i, e in zip(d.entry_ids, d.entries, strict=True)}
    pairs = link_documents(documents, GLOSSARY, LinkRules()).alignment.entries
    assert [{questions[p.first], questions[p.second]} for p in pairs] == [
        {"Q13: How do I pin the toolkit?", "Q12: 如何固定工具包版本？"}]


def _entries(text: str, **kwargs: object) -> list[str]:
    return [e.question for e in segment_markdown(text, **kwargs).entries]  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "count"), [
    ("non-questions-list.md", 0), ("readme-no-faq.md", 0), ("deep-nesting.md", 3), ("empty-headings.md", 2),
    ("details-no-summary.md", 1), ("frontmatter-h7.md", 2), ("hint-list-items.md", 4)])
def test_hostile_files_give_the_entries_that_are_there(name: str, count: int) -> None:
    from app.ingest.pipeline import IngestReport, read_document
    from app.ingest.sources import SourceFile

    report = IngestReport()
    document = read_document(SourceFile(FIXTURES / "bad" / name, name), report)
    assert document is not None
    assert len(document.entries) == count
    assert all(e.question.strip() for e in document.entries)


def test_category_headings_above_bullet_questions_are_breadcrumbs() -> None:
    text = ("# FAQ\n\n### Installation\n\n- How do I install it?\n\n  Run `pip install kit`.\n\n"
            "- `ImportError: libcudart.so.11.0`\n\n  Install CUDA 11.\n\n"
            "### 安装\n\n- 如何升级？\n\n  运行 `pip install -U kit`。\n\n"
            "- 报错 `No module named kit`\n\n  重新安装。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == [
        "How do I install it?", "`ImportError: libcudart.so.11.0`", "如何升级？", "报错 `No module named kit`"]
    assert entries[0].section == ("Installation",) and entries[2].section == ("安装",)
    assert entries[0].answer_markdown == "Run `pip install kit`."


def test_bold_numbered_chinese_labels_are_questions_with_their_answers() -> None:
    text = ("# 常见问题\n\n**问题1：** 如何安装？\n\n**回答1：** 运行安装脚本。\n\n"
            "**问题2：** 启动失败怎么办？\n\n**回答2：** 查看日志。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["**问题1：** 如何安装？", "**问题2：** 启动失败怎么办？"]
    assert [e.title for e in entries] == ["如何安装？", "启动失败怎么办？"]
    assert [e.answer_markdown for e in entries] == ["运行安装脚本。", "查看日志。"]


def test_question_and_answer_in_one_paragraph_are_split() -> None:
    text = ("## 常见问题\n\n**Q: 提交被拒绝怎么办？**  \nA: 查看错误提示。\n\n"
            "**Q: 检查失败？**  \nA: 运行 `make check`。\n")
    entries = segment_markdown(text).entries
    assert [(e.question, e.answer_markdown) for e in entries] == [
        ("Q: 提交被拒绝怎么办？", "查看错误提示。"), ("Q: 检查失败？", "运行 `make check`。")]


def test_question_details_keep_the_headings_inside_their_answer() -> None:
    text = ("# Guide\n\n## FAQ\n\n<details>\n<summary>Q: Out of memory?</summary>\n\n#### Lower the batch\n\n"
            "Use 1.\n\n#### Offload\n\nUse ZeRO-3.\n</details>\n<details>\n<summary>Q: Slow start?</summary>\n\n"
            "Warm the cache.\n\n</details>\n\n#### Customizing\n\nGuide text.\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["Q: Out of memory?", "Q: Slow start?"]
    assert "#### Offload" in entries[0].answer_markdown and "Customizing" not in entries[1].answer_markdown


def test_a_guide_is_read_only_in_its_troubleshooting_section() -> None:
    text = ("# Tool\n\n## Overview\n\nWhat it does.\n\n## Install\n\nRun it.\n\n## Troubleshooting\n\n"
            "| Issue | Solution |\n| --- | --- |\n| CUDA out of memory | Lower the batch |\n"
            "| Import fails | Reinstall |\n")
    assert _entries(text) == ["CUDA out of memory", "Import fails"]


def test_a_readme_without_faq_has_no_entries_unless_a_hint_says_so() -> None:
    text = "# Tool\n\n## Install\n\nRun it.\n\n## Usage\n\nCall it.\n"
    assert _entries(text, file_name="docs/README.md") == []
    assert _entries(text, file_name="docs/README.md", hint="h2") == ["Install", "Usage"]
    assert _entries(text, file_name="notes.md") == ["Install", "Usage"]


def test_hints_choose_the_level_and_bad_hints_are_reported() -> None:
    text = "# FAQ\n\n## Setup\n\n### Install\n\nRun it.\n\n### Upgrade\n\nRun it again.\n"
    assert _entries(text, hint="h3") == ["Install", "Upgrade"]
    assert _entries(text, hint="none") == []
    document = segment_markdown(text, hint="h9")
    assert [e.question for e in document.entries] == ["Install", "Upgrade"]
    assert any("entries: h9" in note for note in document.notes)


def test_a_question_heading_owns_the_plain_headings_under_it() -> None:
    text = "# FAQs\n\n### 2. How to get the image?\n\nPull it.\n\n#### Offline machines\n\nSave and load it.\n"
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["2. How to get the image?"]
    assert "Offline machines" in entries[0].answer_markdown


def test_an_empty_category_is_not_an_entry() -> None:
    text = ("# FAQ\n\n## 1. 使用问题\n\n### 如何安装？\n\n运行脚本。\n\n## 2. 错误和警告\n\n"
            "## 3. 其他\n\n### 如何升级？\n\n再运行。\n")
    assert _entries(text) == ["如何安装？", "如何升级？"]


def test_an_english_error_question_with_a_chinese_answer_is_chinese() -> None:
    text = "RuntimeError: CUDA error: device-side assert triggered\n检查标签是否越界，标签必须小于类别数。"
    assert entry_language(text, "zh") == "zh"


def test_faq_inspect_names_each_entry_rule_and_the_readings_that_lost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(FIXTURES / "styles" / "mixed" / "faq.en.md")]) == 0
    out = capsys.readouterr().out
    assert "bullet list item" in out and "heading that asks a question" in out
    assert "a category" in out
    assert main(["inspect", str(FIXTURES / "missing.md")]) == 2


def test_numbering_labels_are_stripped_before_anchors_are_taken() -> None:
    from app.ingest.segment.evidence import strip_numbering

    labelled = ("Q13: How do I pin it?", "**问题3：** 如何安装？", "**Q1**: Why?", "12. 如何")
    assert [strip_numbering(q) for q in labelled] == ["How do I pin it?", "如何安装？", "Why?", "如何"]
    assert strip_numbering("Quick start?") == "Quick start?"


def test_a_question_wrapped_in_quotes_is_shown_without_them() -> None:
    from app.ingest.segment.decide import display_title

    assert display_title('"How to scale out or scale in?"') == "How to scale out or scale in?"
    assert display_title("“为什么端口显示红色？”") == "为什么端口显示红色？"
    assert display_title('"a" or "b"?') == '"a" or "b"?'  # quotes inside: they are the question's own
    assert display_title('Why does "x" fail?') == 'Why does "x" fail?'
