"""Segmentation of the seeds and of the real bilingual corpus."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from app.ingest.segment import segment_markdown
from app.ingest.segment.blocks import without_name_anchors
from tests.conftest import CONTENT, require

SEEDS = {
    "llama-recipes-faq.zh.md": 9,
    "llama-recipes-faq.en.md": 9,
    "deepspeed-chat-faq.zh.md": 13,
    "training-env-troubleshooting.zh.md": 17,
}
REAL_COUNTS = {
    "qwen/FAQ.md": 16, "qwen/FAQ_zh.md": 16,
    "swift/source_en/Frequently-asked-questions.md": 124,
    "swift/source/Frequently-asked-questions.md": 124,
    "lmdeploy/en/faq.md": 8, "lmdeploy/zh_cn/faq.md": 8,
    "opencompass/en/faq.md": 14, "opencompass/zh_cn/faq.md": 16,
    "evalscope/en/faq.md": 41, "evalscope/zh/faq.md": 41,
    "huixiangdou/README.md": 6, "huixiangdou/README_zh.md": 8,
}


def entries_of(path: Path) -> list:  # type: ignore[type-arg]
    return segment_markdown(path.read_text(encoding="utf-8")).entries


@pytest.mark.parametrize(("name", "count"), SEEDS.items())
def test_segment_seed_gives_expected_entry_count(name: str, count: int) -> None:
    assert len(entries_of(CONTENT / name)) == count


def test_segment_ordered_list_seed_splits_question_from_answer() -> None:
    entries = entries_of(CONTENT / "llama-recipes-faq.en.md")
    second = entries[1]
    assert second.title == "How does FSDP handles mixed grad requirements?"  # "2.  " with two spaces
    assert second.answer_markdown.startswith("FSDP does not support mixed `require_grad`")
    seventh = entries[6]
    assert "```bash" in seventh.answer_markdown and "expandable_segments:True" in seventh.answer_markdown
    assert seventh.line == 30


def test_segment_heading_seed_drops_anchor_and_number_from_titles() -> None:
    entries = entries_of(CONTENT / "deepspeed-chat-faq.zh.md")
    assert entries[0].title == "单机单卡可以训练多大参数量的模型"
    assert all("<a" not in e.title and "name=" not in e.title for e in entries)
    # The intro paragraphs belong to the document, not to an entry.
    assert not any("8卡A100 40G" in e.answer_markdown and e.kind == "heading" and e.line < 9 for e in entries)


def test_segment_error_table_rows_become_entries() -> None:
    table = [e for e in entries_of(CONTENT / "deepspeed-chat-faq.zh.md") if e.kind == "table"]
    assert len(table) == 6
    assert table[4].title == "RuntimeError: Error building extension 'fused_adam'"
    assert "libcudart.so" in table[4].answer_markdown
    assert table[1].title.startswith('AutoTokenizer.from_pretrained("llama_model_path")出现递归error')
    assert table[0].section == ("Others",)


def test_segment_generic_titles_carry_their_section() -> None:
    entries = entries_of(CONTENT / "training-env-troubleshooting.zh.md")
    notes = [e.title for e in entries if e.title.endswith("Note")]
    assert notes == ["Deepspeed › Note", "FastChat (falsh attention) › Note", "Qlora › Note", "lora › Note"]
    assert entries[0].title == "Exec docker"
    assert entries[1].title == "Unable to pre-compile async_io"
    assert entries[1].section == ("Deepspeed",)


def test_segment_mojibake_seed_yields_one_entry_per_leaf_heading_with_content() -> None:
    entries = entries_of(CONTENT / "hf-transformers-deepspeed-notes.zh.md")
    assert 17 <= len(entries) <= 23
    assert entries[1].title == "parameters pretrained_model_name_or_path"
    assert all(e.kind == "heading" for e in entries)


def test_segment_front_matter_is_not_content() -> None:
    doc = segment_markdown("\n\n\n# Title\n\n## How do I?\n\nLike this.\n")
    assert [e.title for e in doc.entries] == ["How do I?"]
    assert doc.entries[0].line == 6


def test_segment_code_comment_lines_are_never_headings() -> None:
    text = "# FAQ\n\n## Why does it fail?\n\n```bash\n# not a heading\nmake\n```\n\n## Another?\n\nYes.\n"
    entries = segment_markdown(text).entries
    assert [e.title for e in entries] == ["Why does it fail?", "Another?"]
    assert "# not a heading" in entries[0].answer_markdown


def test_segment_document_without_questions_has_no_entries() -> None:
    assert segment_markdown("Just some notes.\n\nNothing to ask.\n").entries == []


def _gold(folder: Path) -> dict[str, list[str]]:
    gold: dict[str, list[str]] = {}
    for name in ("pairs.tsv", "unpaired.tsv"):
        with (folder / name).open(encoding="utf-8") as handle:
            rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
        for row in rows:
            if name == "pairs.tsv":
                gold.setdefault(row[0], []).append(row[1])
                gold.setdefault(row[2], []).append(row[3])
            else:
                gold.setdefault(row[0], []).append(row[1])
    return gold


@pytest.mark.parametrize(("relative", "count"), REAL_COUNTS.items())
def test_segment_real_corpus_matches_gold_questions(shared: Path, relative: str, count: int) -> None:
    root = require(shared / "corpus" / "real", "the real corpus")
    folder_name, _, file_name = relative.partition("/")
    folder = root / folder_name
    entries = entries_of(folder / file_name)
    assert len(entries) == count
    # Gold lists paired entries in English order and unpaired ones apart: compare as sets.
    assert sorted(e.question for e in entries) == sorted(_gold(folder)[file_name])


def test_segment_swift_restarting_numbers_stay_distinct_entries(shared: Path) -> None:
    path = require(shared / "corpus/real/swift/source_en/Frequently-asked-questions.md", "swift")
    questions = [e.question for e in entries_of(path)]
    assert sum(q.startswith("Q1:") for q in questions) == 6


def test_a_document_whose_headings_all_ask_is_named_by_its_file_not_its_first_question() -> None:
    apollo_like = "### 1. What is Apollo?\n\nA configuration centre.\n\n### 2. What is a cluster?\n\nA group.\n"
    doc = segment_markdown(apollo_like, fallback_title="FAQ")
    assert doc.title == "FAQ" and [e.title for e in doc.entries] == ["What is Apollo?", "What is a cluster?"]
    one_question = segment_markdown("## How do I install it?\n\nRun `pip install`.\n", fallback_title="install")
    assert one_question.title == "How do I install it?"  # a page of one question is named by it
    headed = segment_markdown("## Deployment\n\n### Why is the port busy?\n\nStop the other server.\n\n"
                              "### Why is it slow?\n\nAdd memory.\n", fallback_title="FAQ")
    assert headed.title == "Deployment"  # a heading that names its questions names the document


def test_segment_breadcrumb_never_repeats_the_document_title() -> None:
    doc = segment_markdown((CONTENT / "llama-recipes-faq.en.md").read_text(encoding="utf-8"))
    assert doc.title == "FAQ"
    assert all(e.section == () for e in doc.entries)
    evalscope_like = "# FAQ\n\n## Install\n\n**Q: How?**\n\n**A:** So.\n\n**Q: Why?**\n\nBecause.\n"
    assert [e.section for e in segment_markdown(evalscope_like).entries] == [("Install",), ("Install",)]


def test_segment_drops_emoji_shortcodes_from_titles_and_breadcrumbs() -> None:
    text = "# Notes\n\n## DeepSpeed :rocket:\n\n### ZeRO [(:link:)](https://example.org/zero)\n\nUse stage 2.\n"
    (entry,) = segment_markdown(text).entries
    assert entry.title == "ZeRO" and entry.section == ("DeepSpeed",)
    assert segment_markdown("## Q10: Error:\n\ntext\n").entries[0].title.endswith("Error")


def test_numbered_questions_whose_answers_are_indented_too_little_keep_every_item_and_answer() -> None:
    """`5.` repeated after an answer at the margin goes on with the list; the last item's bullets, indented less
    than its text, are still its answer (SlopeCraft's FAQ, eval/wild23)."""
    english = ("# FAQ\n\n1. Can this be used in Bedrock edition?\n   - No.\n\n2. How to make non-square maps?\n"
               "   - Import your image as usual.\n\n3. Why is everything grey after color adjust?\n"
               " - Some colors are not in the game.\n\n3. '/give' didn't give me the map item\n"
               " - Use `/give @p filled_map{map:i}`.\n\n4. Can I shrink the map?\n - Deprecated.\n\n"
               "5. My Litematic file wasn't able to be loaded\n - Use English characters in its name.\n")
    entries = segment_markdown(english).entries
    assert [e.title for e in entries] == [
        "Can this be used in Bedrock edition?", "How to make non-square maps?",
        "Why is everything grey after color adjust?", "'/give' didn't give me the map item", "Can I shrink the map?",
        "My Litematic file wasn't able to be loaded"]
    assert entries[2].answer_markdown == "- Some colors are not in the game."
    assert entries[5].answer_markdown == "- Use English characters in its name."
    chinese = ("# 常见问题\n\n1. 基岩版能不能用？\n   - 不能。\n\n2. 可不可以把地图缩小？\n   - 不建议。\n\n"
               "3.  导出的投影文件不能正常读取？\n   - 不要在名称中写中文。\n")
    last = segment_markdown(chinese).entries[-1]
    assert (last.title, last.answer_markdown) == ("导出的投影文件不能正常读取？", "- 不要在名称中写中文。")


def test_a_question_with_a_badge_after_its_question_mark_asks() -> None:
    """`运行成功但没收到消息？ ⭐ 最常见`: the emoji opens a badge; the heading asks, and with it the section's other
    headings read as the troubleshooting entries they are (epic_push's README, eval/wild23)."""
    readme = ("# 推送机器人\n\n## 故障排查\n\n### 运行成功但没收到消息？ ⭐ 最常见\n\n"
              "去重机制正常工作，脚本自动跳过。\n\n"
              "### `❌ 缺少配置`\n\n- Secret 名称必须 `TG_BOT_TOKEN`\n- 无多余空格换行\n\n"
              "### 获取免费游戏列表失败\n\n网络波动，脚本已自动重试 3 次。\n\n### Actions 无运行记录\n\n"
              "1. 确认 `.github/workflows/` 文件存在\n2. 手动 Run workflow 激活\n\n### Keepalive 失败\n\n"
              "检查权限是否设为 `Read and write permissions`。\n\n## 常见问题\n\n"
              "<details>\n<summary>每天什么时候自动运行？</summary>\n\n每天 23:30。\n\n</details>\n\n"
              + "".join(f"<details>\n<summary>问题{k}能推送到微信吗？</summary>\n\n可以改代码。\n\n</details>\n\n"
                        for k in range(6)))
    titles = [entry.title for entry in segment_markdown(readme).entries]
    assert titles[0] == "运行成功但没收到消息？ ⭐ 最常见"
    assert "Actions 无运行记录" in titles and "每天什么时候自动运行？" in titles and len(titles) == 12


def test_a_work_around_heading_is_part_of_its_answer() -> None:
    """`### Work around` (two words, as Microsoft's HoloLens troubleshooting page writes it) and `### 变通方法` name the
    part of an answer that works around the problem, like `### Workarounds` (eval/wild23/hololens)."""
    folder = Path(__file__).resolve().parents[2] / "eval" / "wild23" / "hololens"
    gold = _gold(folder)
    for path in ("en/hololens-troubleshooting.md", "zh-cn/hololens-troubleshooting.md"):
        entries = entries_of(folder / path)
        titles = {entry.title for entry in entries}
        assert not titles & {"Work around", "变通方法"}
        anchorless = {without_name_anchors(question) for question in gold[path]}  # as rendered, as eval-links reads
        assert anchorless <= {entry.question for entry in entries}
