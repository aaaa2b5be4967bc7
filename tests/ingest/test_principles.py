"""Issue 24's principles of structure inference, each on the smallest document that shows it, and its bad input.

Explicit question labels win wherever they stand; regular siblings are entries in an FAQ even when they name
topics; navigation is never an entry; the sub-headings of one answer belong to it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from app.ingest.pipeline import IngestReport, read_document
from app.ingest.segment import segment_markdown
from app.ingest.segment.evidence import strip_numbering
from app.ingest.sources import SourceFile
from tests.conftest import CONTENT, REPO

BAD = REPO / "tests" / "fixtures" / "bad"


def _questions(text: str, **kwargs: object) -> list[str]:
    return [e.question for e in segment_markdown(text, **kwargs).entries]  # type: ignore[arg-type]


# ---------------------------------------------------------------- explicit labels, wherever they stand


def test_a_bold_label_closed_before_a_letter_is_still_a_label() -> None:
    # CommonMark does not close `**` between `：` and a letter: the paragraph's text starts with `**Q：**`.
    text = ("# FAQ：第一期\n\n**Q：**SOLOv2训练mAP值宽幅震荡的原因是？\n\n**A：** 学习率过大。\n\n"
            "**Q：** Optimizer中优化器支持哪几种？\n\n**A：** 见文档。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["**Q：**SOLOv2训练mAP值宽幅震荡的原因是？",
                                             "**Q：** Optimizer中优化器支持哪几种？"]
    assert entries[0].answer_markdown == "学习率过大。"


def test_an_answer_label_under_a_question_heading_or_summary_is_not_part_of_the_answer() -> None:
    text = ("# 常见问题\n\n### 如何批量清理临时镜像文件？\n\n答：可以使用 `docker image prune` 命令。\n\n"
            "### How do I stop every container?\n\n**A:**\nRun `docker stop $(docker ps -q)`.\n")
    summaries = "# FAQ\n\n<details><summary>Q: 支持哪些服务？</summary>\n\n**A**: 支持 OpenAI。\n\n</details>\n"
    assert [e.answer_markdown for e in segment_markdown(text).entries + segment_markdown(summaries).entries] == [
        "可以使用 `docker image prune` 命令。", "Run `docker stop $(docker ps -q)`.", "支持 OpenAI。"]


def test_a_trailing_hard_break_is_not_part_of_the_question() -> None:
    text = ("# FAQ\n\n**Q:**  为什么单卡训练loss会出`NaN`? </br>\n**A:**  学习率要除以8。\n\n"
            "**Q:**  `num_classes`应该如何设置?</br>\n**A:**  设为类别数。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["**Q:**  为什么单卡训练loss会出`NaN`?",
                                             "**Q:**  `num_classes`应该如何设置?"]
    assert [e.answer_markdown for e in entries] == ["学习率要除以8。", "设为类别数。"]


def test_a_labelled_list_item_loses_its_bold_and_break_and_its_answer_its_label() -> None:
    text = ("# FAQ\n\n1. **Q: How to select models?**<br>\nA: See the model zoo.\n\n"
            "1. **Q: Error \"slow_conv2d_cpu\" not implemented for 'Half'**<br>\nA: Add `--fp32`.\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["Q: How to select models?",
                                             "Q: Error \"slow_conv2d_cpu\" not implemented for 'Half'"]
    assert [e.answer_markdown for e in entries] == ["See the model zoo.", "Add `--fp32`."]


def test_a_problem_statement_answered_by_a_solution_is_half_of_its_headings_answer() -> None:
    # `问题：` means "the problem" as well as "question": stating a problem (asking nothing) that a `解决方法：` or
    # `说明：` part answers, it is the first half of the heading's answer.
    text = ("# 常见问题\n\n### 在 RPM 系发行版上安装\n\n**问题：**\n`.deb` 包无法被系统包管理器安装。\n\n"
            "**解决方法：**\n\n改用 `rpm` 目标。\n\n### 应用占用内存比预期高\n\n"
            "**问题：**\n应用会启动一个 WebView 进程。\n\n"
            "**说明：**\n\n这是系统 WebView 的代价。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["在 RPM 系发行版上安装", "应用占用内存比预期高"]
    assert entries[0].answer_markdown.startswith("**问题：**") and "rpm" in entries[0].answer_markdown
    # Asking, or answered by `答：`, it is a question as before.
    labelled = "# FAQ\n\n**问题：** 如何安装？\n\n**解决方法：** 运行脚本。\n\n**问题：** 报错了\n\n**答：** 重试。\n"
    assert _questions(labelled) == ["**问题：** 如何安装？", "**问题：** 报错了"]


def test_an_answer_labelled_item_answers_the_item_before_it() -> None:
    text = "# FAQ\n\n- Q: How do I log in?\n- A: With your badge.\n- Q: Where is the VPN guide?\n- A: On the wiki.\n"
    entries = segment_markdown(text).entries
    assert [(e.question, e.answer_markdown) for e in entries] == [
        ("Q: How do I log in?", "With your badge."), ("Q: Where is the VPN guide?", "On the wiki.")]


def test_labels_in_quotes_and_table_cells_are_questions() -> None:
    quoted = ("# Notes\n\n> **Q: Can I share a token?**\n> A: No, tokens are personal.\n\n"
              "> Q: 令牌会过期吗？\n> A: 会，30天。\n")
    entries = segment_markdown(quoted).entries
    assert [(e.question, e.answer_markdown) for e in entries] == [
        ("Q: Can I share a token?", "No, tokens are personal."), ("Q: 令牌会过期吗？", "会，30天。")]
    table = "# Notes\n\n| Item | Reply |\n| --- | --- |\n| Q: Can I pin a version? | Yes, in `lock.toml`. |\n" \
            "| Q: 如何回滚？ | 运行 `rollback`。 |\n"
    assert _questions(table) == ["Q: Can I pin a version?", "Q: 如何回滚？"]


def test_an_admonition_whose_title_asks_is_an_entry_with_its_indented_answer() -> None:
    text = ('# FAQ\n\n??? note "Q: Can it replace a human reviewer?"\n    #### Answer:\n\n    It assists.\n\n'
            '    1. Keeps the header\n        - nested\n\n___\n\n??? note "Q: Will you store my code?"\n\n'
            "    No.\n\n!!! tip \"Keyboard shortcuts\"\n    Press `?`.\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["Q: Can it replace a human reviewer?", "Q: Will you store my code?"]
    assert entries[0].answer_markdown == "#### Answer:\n\nIt assists.\n\n1. Keeps the header\n    - nested"
    assert entries[1].answer_markdown == "No."


def test_an_admonition_whose_title_asks_nothing_is_read_as_the_text_around_it() -> None:
    text = ('# FAQ\n\n## 1Panel 和宝塔有什么区别？\n\n!!! note ""\n    **1Panel 的特色是开源和现代化。**\n\n'
            "    - 开源\n    - 现代化\n\n## Which ports does it use?\n\n!!! tip\n    Port `8080`:\n\n"
            "        curl localhost:8080\n\n```md\n!!! note \"\"\n    kept as written inside code\n```\n\n"
            "## 常见问题汇总\n\n!!! tip \"\"\n    - [问题一](https://x.org/1)\n    - [问题二](https://x.org/2)\n")
    entries = segment_markdown(text).entries
    # Indented four spaces, the bodies were blocks of code; opened, their lists and code are the answers' own,
    # and a list of links is navigation again.
    assert [e.question for e in entries] == ["1Panel 和宝塔有什么区别？", "Which ports does it use?"]
    assert entries[0].answer_markdown == "**1Panel 的特色是开源和现代化。**\n\n- 开源\n- 现代化"
    assert entries[1].answer_markdown.startswith("Port `8080`:\n\n    curl localhost:8080")
    assert entries[1].answer_markdown.endswith('```md\n!!! note ""\n    kept as written inside code\n```')


def test_definition_list_terms_are_questions_and_their_definitions_answers() -> None:
    text = ("---\n---\nIntro text.\n\nWhy is a given page not published?\n: In the page's front matter:\n\n"
            "  - Is `draft` set?\n\n  Change the field.\n\nCan I use environment variables?\n: Yes. See [details].\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["Why is a given page not published?", "Can I use environment variables?"]
    assert entries[0].answer_markdown == "In the page's front matter:\n\n- Is `draft` set?\n\nChange the field."


def test_a_definition_may_follow_its_term_after_a_blank_line_and_have_several_parts() -> None:
    text = ("# 储能\n\n## 常见问题\n\n元件模型是否具有代表性？\n\n:   主要建立通用简化模型。\n\n"
            "能否设置 SOC 上下限？\n\n:   不支持。\n\n元件的运行方式有哪几种？\n\n:   共有 2 种。\n\n"
            ":   1. **仿真功率**\n\n        录入蓄电策略。\n\n"
            "仿真运行报错：\"compile python code failed\"\n\n:\n    请检查 Python 代码是否存在语法错误。\n")
    entries = segment_markdown(text, file_name="index.md").entries
    assert [e.question for e in entries] == ["元件模型是否具有代表性？", "能否设置 SOC 上下限？",
                                             "元件的运行方式有哪几种？", '仿真运行报错："compile python code failed"']
    assert entries[2].answer_markdown.startswith("共有 2 种。") and "仿真功率" in entries[2].answer_markdown
    assert entries[3].answer_markdown.strip() == "请检查 Python 代码是否存在语法错误。"


def test_question_n_is_a_label_and_a_labelled_list_beats_a_heading_that_asks() -> None:
    text = ("# FAQ\n\n## How do I use the CLI?\n\n- Question 1: How do I list jobs?\n\n  Run `jobs ls`.\n\n"
            "- Question 2: How do I stop one?\n\n  Run `jobs stop`.\n")
    assert _questions(text) == ["Question 1: How do I list jobs?", "Question 2: How do I stop one?"]


def test_name_anchors_are_not_part_of_a_question() -> None:
    text = ("# FAQ\n\n### <a id='FQDN'>3. How can I resolve the \"Unable to resolve FQDN\" error? </a>\n\nSet it.\n\n"
            "## <a name=\"1\"></a> 1. 单机单卡可以训练多大参数量的模型\n\n7B。\n")
    assert _questions(text) == ['3. How can I resolve the "Unable to resolve FQDN" error?',
                                "1. 单机单卡可以训练多大参数量的模型"]


def test_heading_attributes_are_not_part_of_a_question_or_its_breadcrumb() -> None:
    text = ("# 故障排除 {#troubleshooting}\n\n## 该包仅支持 ESM {#this-package-is-esm-only}\n\n换成 `import`。\n\n"
            "## Why is the page blank? {: #blank .note }\n\nReload it.\n\n"
            "## How do I write {#each items} blocks?\n\nLike this.\n")  # a template's braces inside a question stay
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["该包仅支持 ESM", "Why is the page blank?",
                                             "How do I write {#each items} blocks?"]
    assert all("{" not in part for e in entries for part in e.section)


# ---------------------------------------------------------------- regular siblings in an FAQ


HEADING_FAQ = ("## 运行时报错，上传文件失败\n\n检查内存。\n\n"
               "## 使用ollama本地服务时报错：Connection error.\n\n绑定0.0.0.0。\n\n"
               "## 使用ollama本地服务时问答效果不佳：\n- 原因：上下文长度为2048，信息被截断\n"
               "- 解决方式：（需手动修改）\n  - 修改 num_ctx\n")


def test_a_topic_heading_among_question_headings_of_an_faq_is_an_entry() -> None:
    entries = segment_markdown(HEADING_FAQ, file_name="FAQ_zh.md").entries
    assert [e.question for e in entries][-1] == "使用ollama本地服务时问答效果不佳："
    assert entries[-1].answer_markdown.startswith("- 原因：") and entries[-1].rule.startswith("heading among")
    # `原因：` and `解决方式：` name the parts of an answer: they are never questions, FAQ or not.
    assert "原因：上下文长度为2048，信息被截断" not in _questions(HEADING_FAQ, file_name="notes.md")


def test_a_checklist_of_questions_under_a_sibling_heading_is_its_answer_only_in_an_faq() -> None:
    text = ("## Swoole short function names cause an error\n\nDisable them.\n\n"
            "## Message loss in asynchronous queues\n\n"
            "1. Is `Redis` shared with another project?\n2. Do old processes still run?\n\n"
            "## Syntax error when starting the server\n\nUpgrade PHP.\n")
    assert _questions("# FAQ\n\n" + text) == [
        "Swoole short function names cause an error", "Message loss in asynchronous queues",
        "Syntax error when starting the server"]
    assert "Is `Redis` shared with another project?" in _questions("# Notes\n\n" + text)


def test_regular_topic_items_with_answers_under_them_are_entries_in_an_faq() -> None:
    text = ("- Proxy settings\n\n  Set `HTTPS_PROXY` before `pip install`.\n\n- Offline machines\n\n"
            "  Copy the wheel folder and use `--no-index`.\n")
    assert _questions("# Installation FAQ\n\n" + text) == ["Proxy settings", "Offline machines"]
    assert _questions("# Installation notes\n\n" + text) == []  # the same list elsewhere is a list
    assert _questions(text, file_name="docs/faq/install.md") == ["Proxy settings", "Offline machines"]


def test_a_numbered_list_cut_by_an_answer_indented_too_little_is_one_list() -> None:
    text = ("# FAQ\n\n## General\n\n9. Does it work in real applications?\n\n   Yes.\n\n10. How is it tested?\n\n"
            "   With a unit test suite.\n\n11. Is it well documented?\n\n   There is a user guide.\n\n"
            "12. Are there alternatives?\n\n   Yes, many.\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["Does it work in real applications?", "How is it tested?",
                                             "Is it well documented?", "Are there alternatives?"]
    assert entries[1].answer_markdown == "With a unit test suite."
    assert entries[3].answer_markdown == "Yes, many."


def test_numbering_that_continues_after_a_bullet_list_at_the_margin_is_the_same_list() -> None:
    text = ("## 常见问题\n1. 提取速度慢怎么办\n\n修改参数。\n\n2. 视频去除效果不好怎么办\n\n尝试不同的算法：\n\n"
            "- 使用STTN算法\n\n```python\nMODE = STTN\n```\n- 使用LAMA算法\n```python\nMODE = LAMA\n```\n\n"
            "3. 7z文件解压错误\n\n解决方案：升级7-zip\n\n4. Mac版本运行报错\n\n解决方案：安装rosetta\n\n"
            "## 赞助\n\n谢谢。\n")
    entries = segment_markdown(text, file_name="README.md").entries
    assert [e.question for e in entries] == ["提取速度慢怎么办", "视频去除效果不好怎么办", "7z文件解压错误",
                                             "Mac版本运行报错"]
    assert "- 使用LAMA算法" in entries[1].answer_markdown and "MODE = LAMA" in entries[1].answer_markdown
    # The last item's answer at the margin is its answer too, up to the next heading.
    assert entries[3].answer_markdown == "解决方案：安装rosetta"


def test_sub_headings_that_are_the_parts_of_one_answer_belong_to_it() -> None:
    text = ("# RKNPU2 FAQs\n\n## Navigation\n\n- [Link issues in dynamic link library](#动态链接库链接问题)\n\n"
            "## Link issues in dynamic link library\n\n### Association issue\n\n- [Issue 870](https://x.org/870)\n\n"
            "### Problem Description\n\nAn error at run time.\n\n### Analysis\n\nld cannot find it.\n\n"
            "### Solutions\n\nSource the init script.\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["Link issues in dynamic link library"]
    assert "### Solutions" in entries[0].answer_markdown


def test_an_entry_keeps_the_sub_headings_up_to_the_first_that_asks() -> None:
    text = ("# FAQ\n\n## 一、编译问题\n\n### ARMv8.2编译报错\n\nndk 至少 r18b。\n\n"
            "### Windows CUDA 编译\n#### CUDA 版本\n  - CUDA 10.2 可能与 VS 不兼容\n\n"
            "#### Windows CUDA 报错\n  - 下载补丁\n\n### 如何编译？\n\n运行脚本。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["ARMv8.2编译报错", "Windows CUDA 编译", "Windows CUDA 报错", "如何编译？"]
    assert entries[1].answer_markdown.startswith("#### CUDA 版本") and "报错" not in entries[1].answer_markdown


def test_a_question_answered_before_its_follow_up_questions_is_an_entry_and_a_short_lead_in_is_not() -> None:
    text = ("# FAQ\n\n## How do I use it behind a proxy?\n\nThe tool pulls models from the Internet and may need a "
            "proxy server to reach them. Set `HTTPS_PROXY` to send outbound requests through the proxy.\n\n"
            "### How do I use it behind a proxy in Docker?\n\nPass `-e HTTPS_PROXY` to `docker run`.\n\n"
            "## Why does it fail?\n\nThere are a few causes:\n\n### Is the disk full?\n\nFree some space.\n\n"
            "### Is the port taken?\n\nPick another port.\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["How do I use it behind a proxy?",
                                             "How do I use it behind a proxy in Docker?",
                                             "Is the disk full?", "Is the port taken?"]
    assert "HTTPS_PROXY" in entries[0].answer_markdown and "docker run" not in entries[0].answer_markdown
    # The same in Chinese: a Chinese character says as much as a word.
    chinese = ("# 常见问题\n\n## 模型保存在哪里？\n\n模型默认保存在用户目录下的隐藏文件夹中，不同操作系统的路径不同，"
               "可以通过环境变量修改保存位置，修改后需要重启服务才能生效。\n\n"
               "### 如何把它们移到其他磁盘？\n\n设置环境变量。\n")
    assert [e.question for e in segment_markdown(chinese).entries] == ["模型保存在哪里？", "如何把它们移到其他磁盘？"]


def test_numbered_sub_headings_inside_a_topic_answer_are_not_entries() -> None:
    text = ("### 7. How to add an environment?\n\nEdit the list.\n\n"
            "### 8. Register Config Service to a separate Eureka\n\n"
            "#### 1. Configure Config Service to not start Eureka\n\n##### 1.1 1.5.0 and above\n\nSet the flag.\n\n"
            "#### 2. Modify `eureka.service.url`\n\nPoint it at yours.\n\n"
            "### 9. Why is my config not read?\n\nCheck it.\n\n### 10. How do I put it behind nginx?\n\nSo.\n")
    questions = ["7. How to add an environment?", "8. Register Config Service to a separate Eureka",
                 "9. Why is my config not read?", "10. How do I put it behind nginx?"]
    # Named an FAQ (its folder), or shaped like one (three of its four `###` ask): the same entries.
    for name in ("docs/faq/common-issues.md", "doc003.md"):
        entries = segment_markdown(text, file_name=name).entries
        assert [e.question for e in entries] == questions
        assert "##### 1.1 1.5.0 and above" in entries[1].answer_markdown


def test_a_generic_category_name_is_not_a_question() -> None:
    text = ("# 经常被问到的问题\n\n## 3 配置相关\n\n1. **消息可以保存多长时间？**\n\n   三天。\n\n## 4 错误\n\n"
            "1. **消费者无法在广播模式下加载 json 文件**\n\n   升级 fastjson。\n\n"
            "2. **Broker崩溃以后有什么影响？**\n\n   见下文。\n")
    entries = segment_markdown(text).entries
    assert [e.question for e in entries] == ["消息可以保存多长时间？", "消费者无法在广播模式下加载 json 文件",
                                             "Broker崩溃以后有什么影响？"]
    assert entries[1].section == ("4 错误",)


# ---------------------------------------------------------------- navigation is never an entry


def test_a_table_of_errors_under_a_heading_that_only_names_errors_is_an_entry_per_row() -> None:
    text = ("# Docker 实践\n\n## 常见错误处理\n\n| 错误信息 / 现象 | 可能原因 | 解决方案 |\n| --- | --- | --- |\n"
            "| `Cannot connect to the Docker daemon` | 服务未启动 | `systemctl start docker` |\n"
            "| `port is already allocated` | 端口被占用 | 换一个端口 |\n"
            "| 容器内无法访问外网 | DNS 配置 | 设置 `--dns` |\n\n"
            "## 为什么构建失败？\n\n| 错误 | 解决 |\n| --- | --- |\n| `no space left` | 清理磁盘 |\n")
    entries = segment_markdown(text, file_name="errors.md").entries
    # A heading that asks keeps its table as its answer.
    assert [e.question for e in entries] == ["`Cannot connect to the Docker daemon`", "`port is already allocated`",
                                             "容器内无法访问外网", "为什么构建失败？"]
    assert entries[1].answer_markdown == "端口被占用\n\n换一个端口" and entries[0].section == ("常见错误处理",)


def test_a_language_switch_heading_is_navigation() -> None:
    text = ('# Frequently Asked Questions\n\n<h4 align="right"><strong>English</strong> | '
            '<a href="faq_CN.md">简体中文</a></h4>\n\nCommon issues and solutions.\n\n'
            "## Why does the build fail?\n\nInstall Rust.\n\n## How do I change the icon?\n\nPass `--icon`.\n")
    assert _questions(text) == ["Why does the build fail?", "How do I change the icon?"]


def test_tables_of_contents_are_never_entries_but_an_answer_that_is_a_link_is_one() -> None:
    text = ("# FAQ\n\n## Contents\n\n- [Build](#build)\n\n## 目录\n\n1. [Why does the build fail?](#build)\n"
            "2. [How do I run it?](#run)\n\n## Why does the build fail?\n\nInstall CMake.\n\n## How do I run it?\n\n"
            "Run `./demo`.\n\n## Model alignment troubleshooting\n\n* [Model alignment troubleshooting](./align.md)\n"
            "\n## Before you read\n\nSearch the closed issues first.\n")
    assert _questions(text) == ["Why does the build fail?", "How do I run it?", "Model alignment troubleshooting"]


def test_plain_text_before_an_faqs_first_question_is_a_preface() -> None:
    # TDengine's FAQ (eval/fresh3): how to file an issue, then the questions under a category.
    text = ("## Submit an Issue\n\nAttach `/var/log/taos`.\n\n## Usage\n\n"
            "### 1. How do I upgrade to 3.0?\n\nBack up first.\n\n### 2. How can I resolve \"Unable to connect\"?\n\n"
            "Check the FQDN.\n\n## About compatibility\n\n3.0 reads no 2.x data.\n")
    assert _questions(text, file_name="faq.md") == [
        "1. How do I upgrade to 3.0?", '2. How can I resolve "Unable to connect"?', "About compatibility"]
    assert _questions(text, file_name="notes.md")[0] == "Submit an Issue"  # not an FAQ: a heading with its text


def test_sections_about_the_document_itself_are_not_entries() -> None:
    # vben's preface, Pake's closing `Getting Help`, scrcpy's `Translations` (eval/wild2), among topic headings.
    text = ("# FAQ\n\n## 说明\n\n遇到问题，可以先从以下几个方面查找。\n\n## 依赖问题\n\n重新安装依赖。\n\n"
            "## 缓存问题\n\n清空浏览器缓存。\n\n## Getting Help\n\nOpen an issue on GitHub.\n\n"
            "## Translations\n\nTranslations of this FAQ are on the wiki.\n\n## P.S.\n\n未解决请提 issue。\n\n"
            "## 辅助文章\n\n- [手摸手系列](https://example.com/a)\n")
    assert _questions(text, file_name="faq.md") == ["依赖问题", "缓存问题"]
    # A question heading is one whatever words it uses.
    assert _questions("# FAQ\n\n## Where can I get help?\n\nOn the forum.\n\n## Help\n\nAsk.\n",
                      file_name="faq.md") == ["Where can I get help?"]


def test_among_heading_entries_a_headings_lists_and_sub_headings_are_its_answer() -> None:
    # Vite's troubleshooting page (eval/wild2): symptom headings; one answer lists two fixes with code under each,
    # another has a `#### macOS` part. Neither the fixes nor the part is an entry.
    text = ("# 排错指南\n\n## 开发服务器\n\n### 请求始终停滞\n\n文件描述符限制可能导致这个问题。要解决这个问题：\n\n"
            "- 使用 `ulimit` 增加文件描述符的限制\n\n  ```shell\n  ulimit -Sn 10000\n  ```\n\n"
            "- 通过 `sysctl` 提升 inotify 限制\n\n  ```shell\n  sudo sysctl fs.inotify.max_user_watches=9\n  ```\n\n"
            "### 网络请求停止加载\n\n使用自签名证书时，Chrome 会忽略缓存指令。\n\n#### macOS\n\n"
            "用以下命令安装受信任的证书。\n\n### 431 Request Header Fields Too Large\n\n请求头过大。\n\n"
            "### 开发容器端口转发\n\n改用 `127.0.0.1`。\n")
    entries = segment_markdown(text, file_name="troubleshooting.md").entries
    assert [e.question for e in entries] == ["请求始终停滞", "网络请求停止加载", "431 Request Header Fields Too Large",
                                             "开发容器端口转发"]
    assert "sysctl" in entries[0].answer_markdown and "macOS" in entries[1].answer_markdown
    # Where the headings are categories over such lists, the items are still the entries.
    topics = ("# FAQ\n\n## 安装\n\n- 内存不足\n\n  加大内存。\n\n- 找不到模块\n\n  重新安装。\n\n"
              "## 运行\n\n- 端口被占用\n\n  换一个端口。\n\n- 启动很慢\n\n  关闭插件。\n")
    assert _questions(topics, file_name="faq.md") == ["内存不足", "找不到模块", "端口被占用", "启动很慢"]


def test_a_heading_that_only_points_to_more_faq_marks_no_faq_section() -> None:
    # semi-design's FAQ page (eval/wild3): its questions, then `#### More FAQ` over one link. Read as the FAQ
    # section, it left all 30 questions above it outside.
    questions = ("#### Does Semi support i18n?\n\nYes.\n\n#### Why is defaultValue not working?\n\n"
                 "It is uncontrolled.\n\n")
    text = "# Semi\n\n" + questions + "#### More FAQ\nPlease refer to https://example.com/faq\n"
    assert _questions(text, file_name="index-en-US.md") == ["Does Semi support i18n?",
                                                            "Why is defaultValue not working?"]
    # Its front matter title says FAQ: the whole document is the FAQ, whatever a heading says.
    guide = "# Guide\n\nIntro.\n\n## Setup\n\nRun it.\n\n## FAQ\n\n### Why does it fail?\n\nNo disk.\n"
    assert _questions(guide, file_name="guide.md") == ["Why does it fail?"]
    assert _questions(guide, file_name="guide.md", title="Frequently Asked Questions") == ["Setup",
                                                                                         "Why does it fail?"]


def test_a_step_that_ends_in_a_colon_asks_nothing_and_failures_are_named_in_chinese_too() -> None:
    # DB-GPT's troubleshooting page in Chinese (eval/wild3): `验证 CUDA 是否安装正确：` introduces a command.
    text = ("# 安装问题\n\n## Python 版本错误\n\n需要 3.10。\n\n## 找不到 uv\n\n安装 uv。\n\n"
            "## CUDA / GPU 问题\n\n如果 GPU 不可用：\n\n1. 验证 CUDA 是否安装正确：\n\n"
            "```bash\nnvidia-smi\n```\n\n2. 验证 PyTorch 是否能识别 GPU：\n\n```bash\npython -c 1\n```\n\n"
            "## Docker 相关问题\n\n### 权限不足\n\n把用户加入 docker 组。\n\n### 找不到 NVIDIA runtime\n\n安装它。\n\n"
            "## 还是没解决？\n\n- 搜索 [GitHub Issues](https://github.com/x/y/issues)\n")
    assert _questions(text, file_name="troubleshooting/installation.md") == [
        "Python 版本错误", "找不到 uv", "CUDA / GPU 问题", "权限不足", "找不到 NVIDIA runtime"]


def test_a_list_announced_as_the_steps_of_an_answer_is_not_a_list_of_entries() -> None:
    # lx-music's FAQ (eval/wild4): `尝试按以下顺序解决：` over six numbered steps, three naming an error in passing.
    text = ("# 常见问题\n\n## 歌曲无法播放\n\n### 提示 `无法连接到服务器`\n\n检查 DNS。\n\n### 通用解决方法\n\n"
            "尝试按以下顺序解决：\n\n1. 尝试更新到最新版本\n2. 尝试切换其他歌曲，若全部歌曲都无法试听则进行下一步\n"
            "3. 尝试切换网络（所有歌曲都提示请求异常时可用此法）\n4. 若还是无法播放，请到 issue 里查看\n")
    assert _questions(text, file_name="FAQ.md") == ["提示 `无法连接到服务器`", "通用解决方法"]
    # A lead-in that announces problems keeps its list of entries.
    problems = ("# 常见问题\n\n常见报错如下：\n\n1. 安装失败\n\n   换源重试。\n\n2. 启动报错 `EADDRINUSE`\n\n"
                "   换一个端口。\n")
    assert _questions(problems, file_name="FAQ.md") == ["安装失败", "启动报错 `EADDRINUSE`"]
    # "To solve this problem:" announces fixes, though it names the problem.
    fixes = ("# 常见问题\n\n## 歌曲无法播放\n\n### 提示 `无法连接`\n\n检查 DNS。\n\n### 通用处理\n\n"
             "要解决这个问题：\n\n1. 检查网络是否报错\n2. 若还是无法连接，请重启\n3. 查看日志中的错误\n")
    assert _questions(fixes, file_name="FAQ.md") == ["提示 `无法连接`", "通用处理"]


def test_sub_headings_that_name_parts_of_an_answer_or_sit_below_the_questions_belong_to_it() -> None:
    # lx-music: `X的说明`, `X的可能原因`, `X的检查` are parts of `## 同步功能的使用`; dumi: `## 部署文档` has no
    # text of its own and labels two topics, the second with `####` parts of its own.
    sync = ("# 常见问题\n\n## 如何调整列表顺序？\n\n拖动。\n\n## 同步功能的使用\n\n在设置中开启同步。\n\n"
            "#### 关于同步弹窗的说明\n\n仅首次同步时弹出。\n\n#### 连接同步服务失败的可能原因\n\n- 不在同一网络\n\n"
            "#### 连接同步服务失败的检查\n\n1. 确认服务已启动\n\n## 为什么没有声音？\n\n检查音量。\n")
    assert _questions(sync, file_name="FAQ.md") == ["如何调整列表顺序？", "同步功能的使用", "为什么没有声音？"]
    deploy = ("# 常见问题\n\n## dumi 和 Umi 的关系是什么？\n\n一个框架。\n\n## 如何自定义首页？\n\n写 index.md。\n\n"
              "## 部署文档\n\n### 非根目录部署\n\n修改 base 配置项。\n\n### 部署到 GitHub Pages\n\n借助 gh-pages。\n\n"
              "#### 手动部署\n\n运行 `npm run deploy`。\n\n#### 自动部署\n\n用 GitHub Actions。\n\n"
              "## 为什么不支持 CSS Modules？\n\n不利于覆盖样式。\n")
    entries = segment_markdown(deploy, file_name="faq.md").entries
    assert [e.question for e in entries] == ["dumi 和 Umi 的关系是什么？", "如何自定义首页？", "非根目录部署",
                                             "部署到 GitHub Pages", "为什么不支持 CSS Modules？"]
    assert "#### 自动部署" in entries[3].answer_markdown and entries[3].section == ("部署文档",)


def test_a_sub_heading_that_states_its_own_problem_or_sits_at_the_questions_level_is_an_entry() -> None:
    # lx-music: under `## 软件更新` (a topic with its text), a `###` that states a problem in clauses is a question
    # of its own, where a label (`### macOS`) would be a part. TrafficMonitor: the one `##` among `###` questions
    # does not take the questions after it.
    update = ("# 常见问题\n\n## 列表多选\n\n按住 Ctrl。\n\n## 软件更新\n\n启动时自动下载新版本。\n\n"
              "### Windows 安装版在升级后，卸载了旧版本，但没有安装新版本\n\n以管理员身份安装导致。\n\n"
              "## 数据存储路径\n\n在用户目录下。\n")
    assert _questions(update, file_name="FAQ.md") == [
        "列表多选", "软件更新", "Windows 安装版在升级后，卸载了旧版本，但没有安装新版本", "数据存储路径"]
    levels = ("# FAQ\n\n### How to show the CPU usage?\n\nRight-click.\n\n### The net speed is always 0KB\n\n"
              "Pick the adapter.\n\n### How do I set the colors?\n\nOpen the options.\n\n"
              "## The program says that \"MSVC.dll\" cannot be found\n\nInstall the runtime.\n\n"
              "### I want more hardware information on the taskbar\n\nUse the plug-in.\n")
    assert _questions(levels, file_name="Help.md")[-2:] == ['The program says that "MSVC.dll" cannot be found',
                                                            "I want more hardware information on the taskbar"]


def test_in_an_faq_without_headings_bold_title_lines_over_their_own_text_are_entries() -> None:
    # havenask's 常见问题.md (eval/wild4): no heading at all, two bold lines each over a list.
    text = ("**start_demo_searcher.py测试脚本运行失败**\n* 删除工作目录\n* 重新构建索引\n\n\n\n"
            "**workdir目录结构**\n* 工作目录 example/scripts/workdir\n* 索引构建日志 bs.log\n")
    assert _questions(text, file_name="常见问题.md") == ["start_demo_searcher.py测试脚本运行失败", "workdir目录结构"]
    assert _questions(text, file_name="notes.md") == []  # not an FAQ: bold lines are emphasis
    # Under headings, bold lines are the answer's own labels.
    headed = "# 常见问题\n\n## 安装失败\n\n**原因**\n* 网络不通\n\n**解决**\n* 换源\n"
    assert _questions(headed, file_name="常见问题.md") == ["安装失败"]


def test_a_heading_that_names_a_part_of_an_answer_continues_the_entry_before_it() -> None:
    # safeline's docs (eval/wild5): `## 排查步骤` after `## 配置后网站无法访问，排查思路`, then the closing
    # `## 问题无法解决`; knowstreaming: `### 1.1、异常现象` / `1.2、解决方案` / `1.3、正常情况` under a problem.
    text = ("# 配置问题\n\n## 配置后攻击测试没有拦截记录\n\n检查站点配置。\n\n## 配置后网站无法访问，排查思路\n\n"
            "先确认网络。\n\n## 排查步骤\n\n1. 在客户端执行 `curl -v` 。如能获取响应，说明配置正确\n"
            "2. 在雷池设备上执行 `netstat -anp` 确认端口监听情况\n\n## 问题无法解决\n\n1. 搜索其他页面\n"
            "2. 通过社群寻求帮助\n")
    entries = segment_markdown(text, file_name="03-faq/03-config.md").entries
    assert [e.question for e in entries] == ["配置后攻击测试没有拦截记录", "配置后网站无法访问，排查思路"]
    assert "## 排查步骤" in entries[1].answer_markdown and "netstat" in entries[1].answer_markdown
    manual = ("# 页面无数据排查手册\n\n## 1、集群接入错误\n\n### 1.1、异常现象\n\n页面报错。\n\n"
              "### 1.2、解决方案\n\n重新接入。\n\n### 1.3、正常情况\n\n显示指标。\n\n## 2、JMX连接失败\n\n"
              "开启 JMX。\n")
    assert _questions(manual, file_name="页面无数据排查手册.md") == ["1、集群接入错误", "2、JMX连接失败"]


def test_one_line_bullets_cut_off_by_their_fenced_answers_are_still_one_list() -> None:
    # nps's FAQ (eval/wild5): each `- ` question is ended by the fence of its answer at the margin.
    text = ("# FAQ\n\n- 服务端无法启动\n```\n端口冲突，请修改配置\n```\n- 客户端无法连接服务端\n```\n"
            "请检查防火墙\n```\n- p2p穿透失败\n```\n先查看nat类型\n```\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["服务端无法启动", "客户端无法连接服务端", "p2p穿透失败"]
    assert "nat" in entries[2].answer_markdown and "防火墙" not in entries[0].answer_markdown


def test_a_question_heading_answered_by_the_a_heading_after_it_is_an_entry() -> None:
    # go-cqhttp's QA.md (eval/wild6): `### Q: …?` then `### A: …`, nothing else.
    text = ("# 常见问题\n\n### Q: 为什么登录时出现 `客户端版本过低`?\n\n### A: 密码输入错误导致的, 请检查密码\n\n"
            "### Q: 为什么消息发送失败?\n\n### A: 账号可能被风控\n\n建议挂机3-7天。\n")
    entries = segment_markdown(text, file_name="QA.md").entries
    assert [e.question for e in entries] == ["Q: 为什么登录时出现 `客户端版本过低`?", "Q: 为什么消息发送失败?"]
    assert entries[0].answer_markdown == "密码输入错误导致的, 请检查密码"
    assert entries[1].answer_markdown == "账号可能被风控\n\n建议挂机3-7天。"


def test_a_closing_more_questions_item_points_elsewhere() -> None:
    # smartdns's README FAQ (eval/wild6): its numbered questions end with `1. More questions` over a link.
    text = ("# SmartDNS\n\n## Install\n\nRun the installer.\n\n## FAQ\n\n"
            "1. How do I enable the cache?  \n    Set `cache-size`.\n\n1. Why is it slow?  \n"
            "    Check the upstream.\n\n1. More questions  \n    Please read the [issues](https://x.org/issues)\n\n"
            "## Compile\n\nRun make.\n")
    assert _questions(text, file_name="ReadMe.md") == ["How do I enable the cache?", "Why is it slow?"]


def test_bold_over_a_whole_heading_is_the_headings_emphasis_not_part_of_the_question() -> None:
    # fooview-doc's 常见问题.md (eval/wild7): `##### **1）fooView耗电吗？占内存大吗？**`.
    text = ("# 常见问题\n\n##### **1）fooView耗电吗？**\n\n不耗电。\n\n##### **2）如何关闭？**\n\n长按。\n\n"
            "##### 3）**悬浮窗**不见了？\n\n重新开启。\n")
    assert _questions(text, file_name="常见问题.md") == ["1）fooView耗电吗？", "2）如何关闭？", "3）**悬浮窗**不见了？"]


# ---------------------------------------------------------------- the mechanism stays visible


def test_faq_inspect_shows_how_the_document_was_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "FAQ_zh.md"
    path.write_text(HEADING_FAQ, encoding="utf-8")
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "read as: an FAQ" in out and "question headings stand at level 2" in out
    assert "heading among the question headings of its level, in an FAQ" in out


# ---------------------------------------------------------------- bad input: the entries that are there, and a line


def _read(name: str) -> tuple[list[str], list[str]]:
    report = IngestReport()
    document = read_document(SourceFile(BAD / name, name), report)
    assert document is not None
    assert all(e.question.strip() and e.title.strip() for e in document.entries)  # never an entry without a question
    return [e.question for e in document.entries], [m for _, m in report.warnings + report.structure_notes]


@pytest.mark.parametrize(("name", "questions", "line"), [
    ("non-questions-list.md", [], "no recognisable questions: ingested as a plain document"),
    ("readme-no-faq.md", [], "a README without an FAQ section: no entries"),
    ("empty-headings.md", ["How do I rotate the signing key?", "Why does `keyctl verify` print `signature expired`?"],
     "4 heading(s) with no text (line 3, 5, 11, 17): not entries"),
    ("question-without-answer.md", ["Q: How do I restore a backup?"],
     "line 3: the question 'Q: How do I take a backup?' has no answer; it stays in the document, not an entry"),
    ("answer-without-question.md", ["Q: How often is the mirror synced?"],
     "line 3: an answer (`A:`) with no question before it stays in the document"),
    ("table-empty-first-column.md", ["`502 Bad Gateway`", "`413 Request Entity Too Large`"],
     "line 6: a table row with an empty first cell is not an entry"),
    ("frontmatter-missing-level.md", ["How do I pause a job?", "Why did a job run twice?"],
     "front matter `entries: h4`: the document has no level-4 heading; ignored"),
    ("frontmatter-h7.md", ["How do I flush the cache?", "Why is the hit rate below 10%?"],
     "front matter `entries: h7` is not one of"),
])
def test_bad_input_gives_the_entries_that_are_there_and_a_line_in_the_summary(
        name: str, questions: list[str], line: str) -> None:
    found, lines = _read(name)
    assert found == questions
    assert any(message.startswith(line) for message in lines), lines


def test_a_list_nested_ten_levels_deep_keeps_its_nesting_in_the_answers() -> None:
    found, _ = _read("deep-nesting.md")
    assert found == ["How do I configure nested routing?", "Why is the tree so deep?", "Can I flatten the hierarchy?"]


def test_an_faq_that_yields_almost_nothing_names_the_command_and_the_hint_that_helps() -> None:
    _, lines = _read("faq-question-list.md")
    assert (f"says it is an FAQ but yields 0 entries: run `faq inspect {BAD / 'faq-question-list.md'}` to see why; "
            "front matter `entries: list-items` would find 3 questions") in lines
    _, lines = _read("faq-plain-paragraphs.md")
    assert any(m.endswith("no front matter `entries:` hint finds more questions") for m in lines)
    assert not any("plain document" in m for m in lines)  # one warning per document, the more useful one


def test_a_troubleshooting_page_of_topics_read_right_is_not_flagged() -> None:
    # Its entries are mostly topics (`Exec docker`, `Note`), and no hint would find more questions.
    report = IngestReport()
    document = read_document(SourceFile(CONTENT / "training-env-troubleshooting.zh.md",
                                        "training-env-troubleshooting.zh.md"), report)
    assert document is not None and len(document.entries) == 17
    assert not any("FAQ" in m for _, m in report.warnings)


@pytest.mark.parametrize(("text", "file_name"), [
    ("# 常見問題\n\n## 如何安裝？\n\n執行。\n", "notes.md"), ("# Notes\n\n## How?\n\nSo.\n", "docs/faq/install.md"),
    ("# Notes\n\n## How?\n\nSo.\n", "troubleshooting.md"),
    ("# 笔记\n\n## 问题汇总\n\n### 如何安装？\n\n运行。\n", "a.md")])
def test_a_document_says_it_is_an_faq_by_title_name_folder_or_heading(text: str, file_name: str) -> None:
    assert segment_markdown(text, file_name=file_name).says_faq
    assert not segment_markdown("# Notes\n\n## How?\n\nSo.\n", file_name="notes.md").says_faq


# ---------------------------------------------------------------- from eval/wild8's first run


def test_an_faq_heading_in_a_page_of_questions_names_only_a_part_of_them() -> None:
    text = ("# Common knowledge\n\n## How to check logs?\n\nThe first step to start investigating installation "
            "failures or when a thing does not work as expected, is to find and look at the related installation "
            "logs.\n\n### How to check cloudcore logs?\n\nkubectl.\n\n### How to check edgecore logs?\n\njournalctl."
            "\n\n### How to modify edgecore configuration?\n\nEdit it.\n\n"
            "# Frequently Asked Questions\n\n## cloudcore pre-flight check failed\n\nFree the port.\n")
    assert _questions(text, file_name="setup.md") == [
        "How to check logs?", "How to check cloudcore logs?", "How to check edgecore logs?",
        "How to modify edgecore configuration?", "cloudcore pre-flight check failed"]
    # A few questions among many other headings introduce a project: its FAQ section alone holds entries.
    guide = text.replace("# Common knowledge\n\n", "# Yi\n\n" + "".join(
        f"## {name}\n\nSome text about it.\n\n" for name in ("News", "Models", "Quick start", "Deployment",
                                                               "Fine-tuning", "Quantization", "Ecosystem")))
    assert _questions(guide, file_name="guide.md") == ["cloudcore pre-flight check failed"]


def test_a_label_that_states_the_problem_with_its_text_is_a_question() -> None:
    text = ("# QtScrcpy FAQ\n\n## 无法连接手机\n\n打开调试。\n\n## 错误信息：Could not open video stream\n\n"
            "更新显卡驱动。\n\n## 错误信息：adb server version (40) doesn't match this client\n\n使用同一个 adb。\n")
    assert _questions(text, file_name="FAQ.md") == [
        "无法连接手机", "错误信息：Could not open video stream",
        "错误信息：adb server version (40) doesn't match this client"]
    parts = ("# FAQ\n\n## Cross-host access fails\n\n### Behavior\n\nPackets drop.\n\n### Solution\n\nUpgrade.\n\n"
             "## Leader selection is frequent\n\n### Behavior\n\nLogs say so.\n\n### Solution\n\nTune it.\n")
    entries = segment_markdown(parts, file_name="faq.en.md").entries
    assert [e.question for e in entries] == ["Cross-host access fails", "Leader selection is frequent"]
    assert "### Behavior" in entries[0].answer_markdown


def test_a_summary_that_goes_on_into_a_log_asks_its_first_line() -> None:
    text = ("# FAQ\n\n<details>\n<summary>Q: 使用 GPU 推理时报错：\n\n```shell\nError in predict_shapes: FAIL\n```\n"
            "</summary>\n\n可参考 #389。\n</details>\n\n"
            "<details>\n<summary>Q: 如何安装？</summary>\n\n运行。\n</details>\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["Q: 使用 GPU 推理时报错：", "Q: 如何安装？"]
    assert entries[0].answer_markdown.startswith("```shell\nError in predict_shapes") and "#389" in \
        entries[0].answer_markdown


def test_headings_written_to_one_pattern_are_read_alike() -> None:
    text = ("# FAQ\n\n## timed out waiting for the condition\n\nCheck the pods.\n\n### cloudcore in pending status\n\n"
            "Scheduling failed.\n\n### cloudcore in ImagePullBackOff status\n\nPull the image.\n\n"
            "### cloudcore in CrashLoopBackOff status\n\nRead the logs.\n\n## Token related issues\n\n"
            "### unknown service runtime.v1alpha2.ImageService\n\nEnable cri.\n\n### Invalid token\n\nRenew it.\n\n"
            "## Still unresolved?\n\nSee [Help](/help).\n")
    assert _questions(text, file_name="setup.md") == [
        "timed out waiting for the condition", "cloudcore in pending status", "cloudcore in ImagePullBackOff status",
        "cloudcore in CrashLoopBackOff status", "unknown service runtime.v1alpha2.ImageService", "Invalid token"]


def test_the_cases_of_one_enumeration_are_read_alike() -> None:
    """`### 情况 A：触发词不弹窗` asks nothing by its words, but `### 情况 C：…跳转失败` beside it does: cases of one
    enumeration are items of one kind, and the symptom over them, with no text of its own, names them (ZotFlow's
    troubleshooting page, eval/wild24). Before, the symptom took the first two cases as its answer."""
    chinese = ("# 故障排查\n\n## 症状 1：API Key 验证失败\n\n检查 Key 是否过期。\n\n## 症状 5：引用插入异常\n\n"
               "### 情况 A：触发词不弹窗\n\n1. 检查触发字符设置。\n\n"
               "### 情况 B：输出格式不是预期\n\n1. 检查默认引用格式。\n\n"
               "### 情况 C：Wikilink 跳转失败\n\n1. 目标 Source Note 可能不存在。\n\n"
               "## 症状 6：本地附件打不开\n\n检查路径。\n")
    english = ("# Troubleshooting\n\n## Symptom 1: The API key is rejected\n\nRenew the key.\n\n"
               "## Symptom 5: Citations fail\n\n### Case A: Typing the trigger shows nothing\n\n"
               "1. Check the trigger character.\n\n### Case B: Unexpected output format\n\n"
               "1. Check the default style.\n\n"
               "### Case C: The wikilink jump fails\n\n1. The note may not exist.\n\n"
               "## Symptom 6: Attachments will not open\n\nCheck the path.\n")
    chinese_entries = segment_markdown(chinese, file_name="troubleshooting.md").entries
    assert [(e.question, e.answer_markdown) for e in chinese_entries] == [
        ("症状 1：API Key 验证失败", "检查 Key 是否过期。"), ("情况 A：触发词不弹窗", "1. 检查触发字符设置。"),
        ("情况 B：输出格式不是预期", "1. 检查默认引用格式。"),
        ("情况 C：Wikilink 跳转失败", "1. 目标 Source Note 可能不存在。"),
        ("症状 6：本地附件打不开", "检查路径。")]
    assert [e.question for e in segment_markdown(english, file_name="troubleshooting.md").entries] == [
        "Symptom 1: The API key is rejected", "Case A: Typing the trigger shows nothing",
        "Case B: Unexpected output format", "Case C: The wikilink jump fails", "Symptom 6: Attachments will not open"]


def test_a_question_heading_whose_answer_would_be_empty_is_not_an_entry() -> None:
    """`## 🔌 事件驱动未激活` with no text of its own over `### Q2: …？` and its causes: it names the question under it,
    which is the entry (ups-guard's FAQ, eval/wild22). Before, it was an entry with an empty answer."""
    text = ("# FAQ\n\n## 🚀 实时性测试\n\n### Q1: 我怎么查看响应时间？\n\n看日志。\n\n## 🔌 事件驱动未激活\n\n"
            "### Q2: 我选择混合模式，为什么事件驱动状态显示\"未激活\"？\n\n事件驱动未激活有 2 个常见原因：\n\n"
            "### 原因 1：NUT 版本过旧 ⚠️\n\n升级 NUT。\n\n### 原因 2：UPS 固件不支持 📱\n\n换用轮询模式。\n\n"
            "## 🧪 通信次数验证\n\n### Q3: 如何验证通信次数？\n\n看统计页。\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == [
        "Q1: 我怎么查看响应时间？", 'Q2: 我选择混合模式，为什么事件驱动状态显示"未激活"？', "Q3: 如何验证通信次数？"]
    assert "原因 2：UPS 固件不支持 📱" in entries[1].answer_markdown


# ---------------------------------------------------------------- from eval/wild9's first run


NUMBERED = ("## GSYVideoPlayer 问题集锦\n\n**[Click to see the English version](QUESTION_EN.md)**\n\n"
            "#### ijkplayer 你可能会需要的 option 大全 : [ff_ffplay_options.h](https://x.org/o.h)\n\n> 在线分析\n\n"
            "#### 1、导入项目不成功？\n\n检查依赖。\n\n#### 2、全屏的时候自动停止了\n\n设置 `setRotateViewAuto`。\n\n"
            "#### 3. The video sound and picture are not synchronized.\n\n- Is hard decoding turned off?\n"
            "- Does the machine support the frame rate?\n\n#### 4、m3u8拖动seek之后，加载很长时间\n\n"
            "https://x.org/issues/2874\n\nhttps://x.org/issues/252\n\n#### 5、播放本地m3u8有问题\n\n用绝对路径。\n\n"
            "#### 更多配置\n\n更多配置可通过下方链接参考。\n\n##### [ff_ffplay_options](https://x.org/o.h)\n\n"
            "![](https://x.org/option1.jpg)\n")


def test_numbered_questions_set_the_pattern_of_their_level() -> None:
    entries = segment_markdown(NUMBERED, file_name="QUESTION.md").entries
    assert [e.question for e in entries] == [
        "1、导入项目不成功？", "2、全屏的时候自动停止了", "3. The video sound and picture are not synchronized.",
        "4、m3u8拖动seek之后，加载很长时间", "5、播放本地m3u8有问题"]
    assert "- Is hard decoding turned off?" in entries[2].answer_markdown  # its checklist, not questions
    assert all(e.section == () for e in entries)  # the `##` names the document: it is its title


def test_lists_of_links_written_as_lines_and_pointers_to_the_tracker_are_not_entries() -> None:
    text = ("# 常见问题\n\n### 1、为什么连不上？\n\n检查网络。\n\n### 2、为什么没有声音？\n\n检查音量。\n\n"
            "### 3、部署相关教程\n1、[如何进行最简化部署](./Deployment.md)<br/>\n"
            "2、[如何进行全模块部署](./all.md)<br/>\n\n"
            "### 4、更多问题，可联系我们反馈 💬\n\n可以在[issues](https://x.org/issues)提交您的问题。\n")
    assert _questions(text, file_name="FAQ.md") == ["1、为什么连不上？", "2、为什么没有声音？"]
    # A heading that links to its own anchor is a topic with a permalink, not a pointer elsewhere.
    anchored = "# FAQ\n\n### [CDN](#cdn)\n\nUse the edge.\n\n### [CORS](#cors)\n\nEnable it in the config.\n"
    assert _questions(anchored, file_name="faq.md") == ["[CDN](#cdn)", "[CORS](#cors)"]


def test_lists_that_each_state_a_problem_and_its_parts_are_entries() -> None:
    text = ("# Troubleshooting\n\n## Git\n\n#### Public key conflict\n\n- Error: `key already in use`\n"
            "- Causes: the key was added twice.\n- Solution: remove one.\n\n## Other\n\n"
            "- Error: `GLIBC_2.14 not found`\n- Solution: try `apt-get install libc6-dev`.\n\n-----\n\n"
            "- Error: extremely slow page response\n- Causes:\n  - (1) Nginx resolves IPv4 as IPv6\n"
            "- Solution:\n  - (1) use `127.0.0.1`\n\n## 其它\n\n- 错误描述：`Error 1062: Duplicate entry`\n"
            "- 可能原因：旧代码。\n- 解决方案：删除唯一约束。\n\n-----\n\n"
            "- 错误描述：页面响应非常慢\n- 解决方案：使用 IP。\n")
    entries = segment_markdown(text, file_name="troubleshooting.md").entries
    assert [e.question for e in entries] == [
        "Public key conflict", "`GLIBC_2.14 not found`", "extremely slow page response",
        "`Error 1062: Duplicate entry`", "页面响应非常慢"]
    assert entries[1].answer_markdown == "- Solution: try `apt-get install libc6-dev`."
    assert "- Error: `key already in use`" in entries[0].answer_markdown


def test_two_questions_in_a_row_answered_once_share_the_answer() -> None:
    text = ("# FAQ\n\n### 在线debug添加断点出现 register breakpoint fail, File was not found\n"
            "### 动态监控添加监控出现 add monitor failed\n"
            "如果路径获取错误，则会出现以上两种错误。\n\n### 如何查看日志？\n\n### 如何安装？\n\n运行脚本。\n")
    entries = segment_markdown(text, file_name="FAQ.md").entries
    assert [e.question for e in entries] == ["在线debug添加断点出现 register breakpoint fail, File was not found",
                                             "动态监控添加监控出现 add monitor failed", "如何安装？"]
    assert entries[0].answer_markdown == entries[1].answer_markdown == "如果路径获取错误，则会出现以上两种错误。"
    # (`如何查看日志？` asks and has no answer: it does not take the answer of the question after it.)


def test_a_heading_that_only_numbers_a_question_asks_the_line_under_it() -> None:
    text = ("# FAQ\n\n## Question 1\n_Description_: When creating a bucket it prompts \"Access Denied\". How should "
            "permissions be set?\n\n**Answer**: Create the volume first.\n\n"
            "## 问题2\n_描述_：硬盘坏了，副本无法正常下线，应该怎么修复？\n\n**回答**：可以强制下线删除副本。\n")
    entries = segment_markdown(text, file_name="case.md").entries
    assert [e.question for e in entries] == [
        '_Description_: When creating a bucket it prompts "Access Denied". How should permissions be set?',
        "_描述_：硬盘坏了，副本无法正常下线，应该怎么修复？"]
    assert entries[0].title.startswith("Description: When creating")
    assert entries[1].answer_markdown == "可以强制下线删除副本。"  # the answer label says what the layout does


def test_a_labelled_question_ends_with_its_line_when_it_asks_and_the_answer_follows() -> None:
    text = ("## SQL开发FAQ\nQ1：ADD JAR语法如何支持s3路径？\n由于没有相应配置，所以在sql层面做了语法增强，如下：\n"
            "```sql\nADD JAR 's3://xxx';\n```\n\nQ2：如何连接 Hive？\n\n使用 catalog。\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["Q1：ADD JAR语法如何支持s3路径？", "Q2：如何连接 Hive？"]
    assert entries[0].answer_markdown.startswith("由于没有相应配置")


def test_a_question_label_inside_the_item_before_it_starts_the_next_question() -> None:
    text = ("# FAQ\n\n- **Question:** Does it support python2?\n  - **Answer:** Yes, from 2.4.\n\n"
            "- **Question:** pyenv-win is not recognised?\n  - **Answer:** Log out and in again.\n\n"
            "  **Question:** How do I configure my company proxy?\n  - **Answer:** Set `http_proxy`.\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["**Question:** Does it support python2?",
                                             "**Question:** pyenv-win is not recognised?",
                                             "**Question:** How do I configure my company proxy?"]
    assert "proxy" not in entries[1].answer_markdown and "http_proxy" in entries[2].answer_markdown


def test_a_question_written_in_several_bold_runs_keeps_them() -> None:
    text = ("# FAQ\n\n1. **How is it monitored? Is it in the form** **of** **command line?**\n\n   > Yes.\n\n"
            "2. **How do I reset it?**\n\n   > Run reset.\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["**How is it monitored? Is it in the form** **of** **command line?**",
                                             "How do I reset it?"]  # one bold run over the line is its wrapper


def test_a_section_of_common_errors_or_headed_qa_is_the_faq_part_of_a_document() -> None:
    readme = ("# Il2CppDumper\n\n## Usage\n\nRun it.\n\n### Command line\n\nGive two paths.\n\n## Common errors\n\n"
              "#### `ERROR: Metadata file supplied is not valid metadata file.`\n\nThe file is encrypted.\n\n"
              "#### `ERROR: This file may be protected.`\n\nDump it from memory.\n")
    entries = segment_markdown(readme, file_name="README.md").entries
    assert [e.question for e in entries] == ["`ERROR: Metadata file supplied is not valid metadata file.`",
                                             "`ERROR: This file may be protected.`"]
    guide = ("# iOS 高性能模式\n\n## 什么是高性能模式\n\n一种运行模式。\n\n## 如何开通\n\n联系我们。\n\n## QA\n\n"
             "### 1. 如何判别游戏否已经开启了高性能模式？\n\n看日志。\n\n### 2. 卡在启动封面无法启动\n\n检查压缩。\n")
    entries = segment_markdown(guide, file_name="iOSOptimization.md").entries
    assert [e.question for e in entries] == ["1. 如何判别游戏否已经开启了高性能模式？", "2. 卡在启动封面无法启动"]


def test_a_question_label_with_nothing_after_it_leaves_the_heading_the_question() -> None:
    text = ("# 常见问题\n\n#### 10.如何预览\n\n扫码。\n\n#### 11.开发者工具提示`permission deny`字样错误\n\nQ: \n\n"
            "<img src='a.png'/>\n\nA: 添加插件即可。\n")
    entries = segment_markdown(text, file_name="QA.md").entries
    assert [e.question for e in entries] == ["10.如何预览", "11.开发者工具提示`permission deny`字样错误"]
    assert "添加插件即可" in entries[1].answer_markdown


def test_a_heading_whose_only_text_is_an_html_comment_is_a_category() -> None:
    text = ("# Build FAQ\n\n## System requirements\n<!-- ==================== -->\n\n"
            "###### Expected disk space to build.\n\n> About 130 GB.\n\n"
            "###### Recommended hardware to run.\n\n> A GPU with 6 GB.\n\n"
            "## Linux build\n<!-- ==================== -->\n\n"
            "###### How do I fix make launch?\n\n> Rebuild.\n")
    entries = segment_markdown(text, file_name="build_faq.md").entries
    assert [e.question for e in entries] == ["Expected disk space to build.", "Recommended hardware to run.",
                                             "How do I fix make launch?"]
    assert entries[0].section == ("System requirements",)


def test_a_heading_over_reference_articles_is_navigation() -> None:
    text = ("# 常见问题\n\n### 如何分享？\n\n调用 share。\n\n### 支付失败怎么办？\n\n检查签名。\n\n### 参考文章\n\n"
            "[iOS-微信SDK更新后需要UniversalLink解决方案](https://juejin.cn/post/1)\n"
            "[flutter使用fluwx调通微信支付](https://www.jianshu.com/p/2)\n")
    entries = segment_markdown(text, file_name="QA_CN.md").entries
    assert [e.question for e in entries] == ["如何分享？", "支付失败怎么办？"]


def test_a_related_category_over_bold_questions_holds_them_and_failures_in_their_rhythm() -> None:
    text = ("# Deployment FAQ\n\n## Tools related\n\n**Can packages be managed via mo_ctl?**\n\nYes.\n\n"
            "**How do operators deployed by helm uninstall?**\n\nRun helm uninstall.\n\n"
            "## Error reporting related\n\n**How do I fix `command not found: mysql`?**\n\nInstall the client.\n\n"
            "**I switch to another version before building panic**\n\nRun make clean.\n\n"
            "**How do I resolve the `too many open files` error?**\n\nRaise ulimit.\n\n"
            "**Login to the cluster fails with a password validation error**\n\nCheck the tag.\n")
    entries = segment_markdown(text, file_name="deployment-faqs.md").entries
    assert [e.question for e in entries] == [
        "Can packages be managed via mo_ctl?", "How do operators deployed by helm uninstall?",
        "How do I fix `command not found: mysql`?", "I switch to another version before building panic",
        "How do I resolve the `too many open files` error?",
        "Login to the cluster fails with a password validation error"]


def test_sub_headings_that_name_versions_are_the_variants_of_one_answer() -> None:
    text = ("# FAQs\n\n## Docker\n\n### Can it run alongside Docker for Mac?\n\nYes.\n\n### Docker socket location\n\n"
            "#### v0.3.4 or older\n\nAt `$HOME/.colima/docker.sock`.\n\n#### v0.4.0 or newer\n\n"
            "At `$HOME/.colima/default/docker.sock`.\n\n#### Listing Docker contexts\n\n"
            "```\ndocker context list\n```\n\n"
            "### Cannot connect to the Docker daemon. Is it running?\n\nStart colima.\n")
    entries = segment_markdown(text, file_name="FAQ.md").entries
    assert [e.question for e in entries] == ["Can it run alongside Docker for Mac?", "Docker socket location",
                                             "Cannot connect to the Docker daemon. Is it running?"]
    assert "v0.4.0 or newer" in entries[1].answer_markdown and "docker context list" in entries[1].answer_markdown


def test_an_answer_part_heading_at_the_entries_level_continues_the_entry_before_it() -> None:
    text = ("# Troubleshooting\n\n### 31) Why does podman fail to start?\n\nRun `podman version` first.\n\n"
            "### 32) Port already bound error\n\nThe port is taken.\n\n#### Solution\n\nFree the port.\n\n"
            "### 33) The sshd process fails to run\n\nNo sshd in the container.\n\n### Solution\n\n"
            "Add the capability.\n\n### 34) Why is a file not owned by the user?\n\nWrong owner.\n\n"
            "#### Solution\n\nUse --userns.\n")
    entries = segment_markdown(text, file_name="troubleshooting.md").entries
    assert [e.question for e in entries] == ["31) Why does podman fail to start?", "32) Port already bound error",
                                             "33) The sshd process fails to run",
                                             "34) Why is a file not owned by the user?"]
    assert "Add the capability." in entries[2].answer_markdown



def test_one_bold_question_in_a_section_is_an_entry_where_the_document_asks_in_bold() -> None:
    text = ("# Deployment FAQ\n\n## Environment\n\n**What OS version is required?**\n\nLinux or macOS.\n\n"
            "**Can I deploy on CentOS 7?**\n\nYes.\n\n## Hardware related\n\n"
            "**What are the hardware requirements?**\n\n| CPU | Memory |\n| --- | --- |\n| 4 | 32 GB |\n")
    entries = segment_markdown(text, file_name="deployment-faqs.md").entries
    assert [e.question for e in entries] == ["What OS version is required?", "Can I deploy on CentOS 7?",
                                             "What are the hardware requirements?"]
    lone = "# FAQ\n\n## Setup\n\n**Why is this needed?**\n\nBecause.\n\n## Usage\n\nRun it.\n"
    # one bold question in a whole document is emphasis
    assert "Why is this needed?" not in [e.question for e in segment_markdown(lone, file_name="faq.md").entries]


def test_a_title_label_heading_asks_the_line_under_it_and_its_parts_follow() -> None:
    text = ("## Title\n\nHow to change the color of the legend?</br>\n"
            "## Problem Description\n\nThe legend is grey.</br>\n"
            "## Solution\n\nSet `legends.item.shape.style.fill`.\n## Code Example\n\n```\nspec\n```\n## Results\n\n"
            "![](a.png)\n## Quote\n\n[Legend](https://example.com)\n")
    entries = segment_markdown(text, file_name="10- How to change the color of the legend.md").entries
    assert [e.question for e in entries] == ["How to change the color of the legend?"]
    assert "legends.item.shape.style.fill" in entries[0].answer_markdown and "spec" in entries[0].answer_markdown
    zh = ("## 问题标题\n\n如何更改图例的颜色？</br>\n## 问题描述\n\n图例是灰色的。\n## 解决方案\n\n设置颜色。\n"
          "## 代码示例\n\n```\nspec\n```\n## 结果展示\n\n![](a.png)\n")
    assert [e.question for e in segment_markdown(zh, file_name="10.md").entries] == ["如何更改图例的颜色？"]


def test_about_us_closes_an_faq_without_being_an_entry() -> None:
    text = ("# 常见问题\n\n## 如何安装？\n\n用 npm。\n\n## 样式不生效怎么办？\n\n检查隔离。\n\n## 关于我们\n\n"
            "我们是一个开源团队。\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["如何安装？", "样式不生效怎么办？"]


def test_a_questions_heading_that_says_where_to_ask_is_not_an_entry() -> None:
    text = ("# FAQ\n\n## Questions?\n\nPlease file all questions and support requests at\n"
            "<https://github.com/coder/code-server/discussions>.\n\n"
            "## How do I change the port?\n\nUse `--bind-addr`.\n\n"
            "## Why can't I see my extensions?\n\nInstall them again.\n")
    entries = segment_markdown(text, file_name="FAQ.md").entries
    assert [e.question for e in entries] == ["How do I change the port?", "Why can't I see my extensions?"]


def test_a_labelled_question_takes_the_sub_headings_that_divide_its_answer() -> None:
    text = ("# FAQ\n\n## Interoperability\n\n***Q***: What is the risk of lock-in?\n\n***A***: Not much.\n\n"
            "## Tool migration\n\n***Q***: How to migrate to Hatch?\n\n### Build system\n\nUse the build backend.\n\n"
            "### Environments\n\nDefine them in `hatch.toml`.\n\n## Fast CLI?\n\nYes, it is fast.\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["***Q***: What is the risk of lock-in?",
                                             "***Q***: How to migrate to Hatch?", "Fast CLI?"]
    assert "build backend" in entries[1].answer_markdown and "hatch.toml" in entries[1].answer_markdown


def test_a_question_list_heading_names_the_whole_page_an_faq() -> None:
    text = ("# Question List\n\n## FAQs\n\n#### Lack dynamic updates of code\n\nRestart the bundler.\n\n"
            "## Specialized Issues\n\n#### MIUI 12 strings fail to be displayed fully\n\nSet a fixed width.\n\n"
            "## Issues with Third-Party Libraries\n\n#### flipper compile question\n\nUpgrade flipper.\n")
    entries = segment_markdown(text, file_name="qa.en.md").entries
    assert [e.question for e in entries] == ["Lack dynamic updates of code",
                                             "MIUI 12 strings fail to be displayed fully", "flipper compile question"]


def test_a_question_label_after_an_item_number_is_a_label() -> None:
    text = ("12.\n\nQ: 如何配置缓存?\n\nA: 参考 wiki。\n\n13 (1).Q:&nbsp;查询怎么写筛选条件?\n\nA: 用 Condition。\n\n"
            "14.Q: Bee 与 Honey 是什么关系?\n\nA: 接口与实现。\n\n14 (2). Q: 开源的代码都是接口吗？\n\nA: 不是。\n")
    entries = segment_markdown(text, file_name="FAQ_CN.md").entries
    assert [e.title for e in entries] == ["如何配置缓存?", "查询怎么写筛选条件?", "Bee 与 Honey 是什么关系?",
                                          "开源的代码都是接口吗？"]
    assert entries[1].answer_markdown == "用 Condition。"


def test_bold_titles_under_headings_that_only_name_categories_are_the_questions() -> None:
    text = ("# Common Questions and Answers\n\n## General Comments\n\n**It is a technology, not a product**\n\n"
            "Do not expect it to work on every voice.\n\n## Issues with Voice Quality\n\n"
            "**Bad audio quality of the generated speech**\n\nUse a clean reference.\n\n"
            "**Accent is not similar to the reference**\n\nOnly the tone colour is cloned.\n\n"
            "## Issues with Installation\n**Error related to Silero**\n\nDownload the zip by hand.\n")
    entries = segment_markdown(text, file_name="QA.md").entries
    assert [e.title for e in entries] == ["It is a technology, not a product",
                                          "Bad audio quality of the generated speech",
                                          "Accent is not similar to the reference", "Error related to Silero"]
    assert entries[1].answer_markdown == "Use a clean reference."
    # A bold line inside an answer whose heading asks stays emphasis.
    asked = ("# FAQ\n\n## How do I install it?\n\n**Note**\n\nUse pip.\n\n"
             "## Why is it slow?\n\n**Tip**\n\nUse a GPU.\n")
    assert [e.question for e in segment_markdown(asked, file_name="faq.md").entries] == [
        "How do I install it?", "Why is it slow?"]


def test_numbered_steps_opening_a_how_to_among_heading_entries_are_its_answer() -> None:
    text = ("# FAQ\n\n## Override theme template\n\nCopy the file into your site.\n\n"
            "## Pin a post\n\nSet `weight: 1` in its front matter.\n\n"
            "## Using the syntax highlighter\n\n1. Disable Highlight.js in `hugo.yaml`\n\n"
            "   ```yml\n   disableHLJS: true\n   ```\n\n2. Set the markdown styling in `hugo.yaml`\n\n"
            "   ```yml\n   codeFences: true\n   ```\n\n"
            "## Custom favicon\n\nPut it under `static/`.\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["Override theme template", "Pin a post", "Using the syntax highlighter",
                                             "Custom favicon"]
    assert "codeFences" in entries[2].answer_markdown


def test_a_step_that_checks_whether_is_no_question_and_steps_to_find_a_cause_are_an_answer_part() -> None:
    text = ("# 常见问题\n\n### 使用模拟器, 崩溃\n\n使用真机调试。\n\n### Android端报`INVALID_USER_SCODE`\n\n"
            "1. 检查申请的高德key是否正确<br/>\n2. 检查key是否配置在`<application>`标签下\n")
    entries = segment_markdown(text, file_name="Troubleshooting.md").entries
    assert [e.title for e in entries] == ["使用模拟器, 崩溃", "Android端报INVALID_USER_SCODE"]
    text = ("## Q：如何更新插件\n\n重新提交。\n\n## Q:云打包后 iOS端调用插件模块闪退了如何解决\n\n按下面的步骤查。\n\n"
            "### 自定义插件云打包闪退原因查询步骤\n\n1. 打开控制台\n2. 查看崩溃日志\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["Q：如何更新插件", "Q:云打包后 iOS端调用插件模块闪退了如何解决"]
    assert "查看崩溃日志" in entries[1].answer_markdown


def test_a_list_item_whose_first_line_leaves_a_quote_or_code_span_open_is_wrapped_text_not_a_topic() -> None:
    text = ("# Common problems\n\n## Editing small files is slow\n\nTurn the plugin off.\n\n"
            "## Function search undo\n\n- A search pattern in a command (`/`, `:s`) changes the \"last used\n"
            "  search pattern\". (It is saved in the `/` register).\n"
            "- A simple text change can be redone with `.`. (It is saved in the\n  `.` register).\n\n"
            "Both are not the case from a function.\n\n"
            "## Newline used for NUL\n\nVim stores NUL as a newline.\n")
    entries = segment_markdown(text, file_name="README.md", title="FAQ").entries
    assert [e.question for e in entries] == ["Editing small files is slow", "Function search undo",
                                             "Newline used for NUL"]
    topics = ("# 常见问题\n\n## 安装\n\n- 下载源码后，使用`Android\n  studio`打开项目\n"
              "- 等待`Android Studio`索引完毕，点击`Packages\n  get`\n\n## 使用模拟器, 崩溃\n\n使用真机调试。\n")
    assert "下载源码后，使用`Android" not in [e.question for e in segment_markdown(topics, file_name="faq.md").entries]


def test_an_html_bold_line_is_bold() -> None:
    text = ("## 6. FAQ\n\n<b>为什么会报 GitHub WebHook Error ？</b>\n\n- 你的 WebHook 超过 20 个\n\n"
            "<b>flow.ci 支持 GitHub 私有项目么？</b>\n\n支持\n\n<b>PHP 项目 Build 失败的常见原因：</b>\n\n"
            "- 项目中缺少 composer.json 文件\n")
    entries = segment_markdown(text, file_name="6. FAQ.md").entries
    assert [e.question for e in entries] == ["为什么会报 GitHub WebHook Error ？", "flow.ci 支持 GitHub 私有项目么？",
                                             "PHP 项目 Build 失败的常见原因："]
    assert "composer.json" in entries[2].answer_markdown


def test_html_headings_written_with_no_blank_line_between_them_are_two_headings() -> None:
    text = ("# FAQ\n\n<h4 id=\"3.19\">How do I build it?</h4>\n\nRun `mvn package`.\n\n"
            "<h4 id=\"3.20\">IllegalArgumentException: the secret key must be 32 bytes</h4>\n"
            "<h4 id=\"3.21\">IllegalArgumentException: the key byte array is not secure enough</h4>\n\n"
            "Set a longer `secret.key`.\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["How do I build it?",
                                             "IllegalArgumentException: the secret key must be 32 bytes",
                                             "IllegalArgumentException: the key byte array is not secure enough"]
    assert all("secret.key" in e.answer_markdown for e in entries[1:])


def test_one_line_quotes_that_ask_over_their_answers_are_questions() -> None:
    text = ("### Common Problems\n---\n> How do you see the exception log when a task exits abnormally?\n\n"
            "&nbsp;&nbsp;Catch the exception and print it.\n\n"
            "> Work node service has two network adapters, you cannot see it online.\n\nSet `device`.\n\n"
            "> Why can't I click start to start a task?\n\nThe work node is offline.\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == [
        "How do you see the exception log when a task exits abnormally?",
        "Work node service has two network adapters, you cannot see it online.",
        "Why can't I click start to start a task?"]
    # One quoted question is a quotation, and quoted notes under headings stay in their answers.
    notes = "# FAQ\n\n## How do I start?\n\n> Why not?\n\nRun it.\n\n## Why is it slow?\n\n> Note: it is.\n\nWait.\n"
    assert [e.question for e in segment_markdown(notes, file_name="faq.md").entries] == [
        "How do I start?", "Why is it slow?"]


def test_a_page_whose_title_asks_one_question_is_that_entry() -> None:
    text = ("# Why can't I read the contents of the HTTP body?\n\n- `CopyRequestBody=false`;\n"
            "- another filter has read the body already.\n")
    entries = segment_markdown(text, file_name="qa/why_can_not_read_data_from_body.md").entries
    assert [e.question for e in entries] == ["Why can't I read the contents of the HTTP body?"]
    assert "CopyRequestBody" in entries[0].answer_markdown
    # A title over questions of its own stays the page's title.
    guide = "# How does it work?\n\n## How do I install it?\n\nRun it.\n\n## How do I configure it?\n\nEdit it.\n"
    assert [e.question for e in segment_markdown(guide, file_name="faq.md").entries] == [
        "How do I install it?", "How do I configure it?"]


def test_each_code_under_a_heading_of_error_codes_is_an_entry() -> None:
    text = ("# Troubleshooting\n\n## Error codes\n\n### 126\n\nMissing dependencies: install them.\n\n"
            "### 1114\n\nVcredist is too old: update it.\n\n"
            "## An error occurs with `PeEditor.exe` when installing\n\nUpdate vcredist.\n")
    entries = segment_markdown(text, file_name="troubleshooting.md").entries
    assert [e.question for e in entries] == ["126", "1114", "An error occurs with `PeEditor.exe` when installing"]
    chinese = "# 常见问题\n\n## 常见错误码\n\n### 126\n\n缺少依赖。\n\n### 127\n\n依赖版本不正确。\n"
    assert [e.question for e in segment_markdown(chinese, file_name="troubleshooting.zh.md").entries] == [
        "126", "127"]


def test_the_solution_to_a_problem_named_in_full_is_that_problems_entry() -> None:
    text = ("## 常见问题及解答\n\n### 打开串口调试器看不到日志信息，如何解决？\n\n打开 `USB CDC On Boot`。\n\n"
            "### 在 Arduino IDE 中使用 ESP32-S3 驱动 RGB LCD 时出现画面漂移问题的解决方案\n\n"
            "1. 开启 `Bounce Buffer`。\n\n### 如何降低 Flash 占用？\n\n关闭不用的驱动。\n")
    assert [e.question for e in segment_markdown(text, file_name="use_with_arduino_cn.md").entries] == [
        "打开串口调试器看不到日志信息，如何解决？",
        "在 Arduino IDE 中使用 ESP32-S3 驱动 RGB LCD 时出现画面漂移问题的解决方案",
        "如何降低 Flash 占用？"]
    # "The possible causes of …" under its question stays a part of that answer.
    part = "# FAQ\n\n## 连接同步服务失败怎么办？\n\n重试。\n\n### 连接同步服务失败的可能原因\n\n网络不通。\n"
    entries = segment_markdown(part, file_name="faq.md").entries
    assert [e.question for e in entries] == ["连接同步服务失败怎么办？"] and "网络不通" in entries[0].answer_markdown


def test_a_numbered_heading_with_no_q_paragraph_among_ones_that_hold_them_is_an_entry() -> None:
    sections = "".join(f"### {n}.第{n}类相关问题\n\n" + "".join(
        f"Q: 第{n}类第{k}个问题怎么办？  \n重启即可。\n\n" for k in range(3)) for n in range(1, 8))
    text = (f"## 小白常见问题\n\nQ:我没学过代码能用吗？  \n能。\n\n{sections}"
            "### 8.总结不上怪\n\n打开设置，关闭自动总结。\n\n### 9 启动程序出现 raise assertionerror()\n\n重新安装。\n")
    questions = [e.question for e in segment_markdown(text, file_name="FAQ_CN.md").entries]
    assert questions[-2:] == ["8.总结不上怪", "9 启动程序出现 raise assertionerror()"]
    assert len(questions) == 1 + 7 * 3 + 2  # the seven numbered headings holding `Q:` paragraphs stay categories


def test_a_heading_that_opens_like_others_but_names_a_topic_and_answers_it_is_an_entry() -> None:
    text = ("# Using with ESP-IDF\n\n## FAQ\n\n### How to reduce Flash usage?\n\nDisable unused drivers.\n\n"
            "### Other LCD issues in ESP-IDF\n\nPlease refer to [ESP-FAQ - LCD](https://example.com/lcd.html).\n")
    assert [e.question for e in segment_markdown(text, file_name="use_with_idf.md").entries] == [
        "How to reduce Flash usage?", "Other LCD issues in ESP-IDF"]
    # `Others` and `24. Other issues` over a link only name the rest: no entry.
    rest = "# FAQ\n\n## How do I start?\n\nRun it.\n\n## 24. Other issues\n\nhttps://example.com/issues/1\n"
    assert [e.question for e in segment_markdown(rest, file_name="faq.md").entries] == ["How do I start?"]


def test_a_heading_numbered_over_the_numbered_questions_under_it_is_their_category() -> None:
    items = {n: "".join(f"### {n}.{k} 第{n}组问题{k}\n\n现象：失败。\n\n解决：重试。\n\n" for k in (1, 2))
             for n in (1, 2)}
    text = (f"# 常见问题\n\n## 1 小商城\n\n这里主要是指小程序的相关问题。\n\n{items[1]}"
            f"## 2. 管理后台\n\n这里主要是指管理后台的相关问题。\n\n{items[2]}"
            "## 3. 基础系统\n\n这里主要是指数据库模块的相关问题。\n\n### 3.1 Invalid bound statement\n\n重新编译。\n\n"
            "### 3.2 Unknown Column\n\n更新数据库。\n")
    questions = [e.question for e in segment_markdown(text, file_name="FAQ.md").entries]
    assert "3. 基础系统" not in questions  # its one line says what its questions are about
    assert questions[-2:] == ["3.1 Invalid bound statement", "3.2 Unknown Column"] and len(questions) == 6


def test_one_numbered_line_under_an_answers_sentence_goes_on_with_that_answer() -> None:
    text = ("# FAQ\n\n### 第一轮分组的结果不好\n\n换用超敏感模式。\n\n### 挂载上的染色体总大小远低于预估基因组大小\n"
            "如果存在以下两种情况，可以调整模式\n1. 输入的数据量低。2. 输入的基因组较为复杂。"
            "需要注意的是，以上两种模式会让部分较碎的contig聚类或者排序错误。\n\n"
            "### 如何设置`-n`参数\n\n设为零。\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries][1] == "挂载上的染色体总大小远低于预估基因组大小"
    assert "输入的数据量低" in entries[1].answer_markdown
    # One numbered item set out as a question is still one.
    bold = "## 训练环境搭建——问题汇总\n\n1. **Exec docker**\n\n   Within the container, run these steps.\n"
    assert [e.question for e in segment_markdown(bold, file_name="faq.md").entries] == ["Exec docker"]


def test_the_cause_of_the_problem_is_a_part_of_its_answer() -> None:
    text = ("## SDK版本切换 iOS白屏问题分析-symbol not found错误处理\n\n### 问题现象\n\n白屏。\n\n### 问题原因\n\n"
            "SDK 版本不一致。\n\n### 解决办法\n\n统一版本。\n")
    entries = segment_markdown(text, file_name="Dev-faq-26.md").entries
    assert len(entries) == 1 and "SDK 版本不一致" in entries[0].answer_markdown


def test_the_steps_under_a_title_that_asks_are_its_answer() -> None:
    text = ("# 如何手动替换ArkUI-X SDK\n\n### 标准替换流程\n\n解压后拷贝替换。\n\n### 常见问题解决\n\n"
            "手动替换经常会遇到报错，修改 arkui-x.json。\n")
    entries = segment_markdown(text, file_name="Dev-faq-1.md").entries
    assert [e.question for e in entries] == ["如何手动替换ArkUI-X SDK"]
    assert "修改 arkui-x.json" in entries[0].answer_markdown
    # A title that only says FAQ keeps the topics under it as its entries.
    faq = "# FAQ?\n\n### Storage recommendations\n\nUse 32 GB.\n\n### Buying SD cards\n\nBuy a known brand.\n"
    assert len(segment_markdown(faq, file_name="faq.md").entries) == 2


def test_a_heading_naming_an_faq_over_its_questions_is_their_category_whatever_it_says_first() -> None:
    text = ("# FAQ and Troubleshooting\n\n## Primary FAQ\n\n### How risky is hacking my console?\n\nNot very.\n\n"
            "### How can I remove parental controls?\n\nReset the PIN.\n\n## Storage Device FAQ\n\n::: danger\n\n"
            "Flash drives are NOT recommended.\n\n:::\n\n### Storage Space Recommendations\n\nUse 32 GB.\n\n"
            "### Buying SD Cards\n\nBuy a known brand.\n\n## Networking FAQ\n\nUse a wired adapter.\n")
    questions = [e.question for e in segment_markdown(text, file_name="faq.md").entries]
    assert "Storage Device FAQ" not in questions
    assert "Storage Space Recommendations" in questions and "Networking FAQ" in questions  # one with no questions


def test_a_titled_block_that_says_where_to_ask_is_not_an_entry() -> None:
    text = ("# Frequently Asked Questions\n\n!!! question \"Not finding what you're looking for?\"\n\n"
            "    [Join our forum](https://example.com/forum) and ask away!\n\n??? faq \"What is Helmless?\"\n\n"
            "    A tool that deploys containers.\n\n??? faq \"Does it need a cluster?\"\n\n    No.\n")
    document = segment_markdown(text, file_name="faq.md")
    assert [e.question for e in document.entries] == ["What is Helmless?", "Does it need a cluster?"]
    assert any("where to ask" in note for note in document.notes)


def test_a_heading_of_generic_words_joined_is_a_category() -> None:
    text = ("# 常见问题\n\n### 如何修改默认主题？\n\n修改变量。\n\n## 错误和警告\n\n以下是常见的错误。\n\n"
            "### 绑定事件时引发编译错误 CS1503\n\n使用 lambda。\n\n### Col 组件的告警\n\n升级版本。\n\n"
            "### 表格组件的 Column 与图表的 Column 命名冲突\n\n写全命名空间。\n")
    questions = [e.question for e in segment_markdown(text, file_name="faq.md").entries]
    assert "错误和警告" not in questions and "绑定事件时引发编译错误 CS1503" in questions


def test_a_heading_that_says_where_to_ask_when_no_answer_helped_is_not_an_entry() -> None:
    text = ("# FAQ\n\n## Why doesn't my prompt look like the preview?\n\nInstall a Nerd Font.\n\n"
            "## What's the weird symbol before the branch?\n\nA powerline glyph.\n\n"
            "## Still can't find a solution?\n\nAsk on our Discord server or file an issue.\n")
    assert [e.question for e in segment_markdown(text, file_name="faq.md").entries] == [
        "Why doesn't my prompt look like the preview?", "What's the weird symbol before the branch?"]
    chinese = ("# 常见问题\n\n## 为什么提示符和预览不一样？\n\n安装 Nerd Font。\n\n"
               "## 分支前的符号是什么？\n\n一个字形。\n\n"
               "## 仍然没有找到答案？\n\n请到论坛提问。\n")
    assert [e.question for e in segment_markdown(chinese, file_name="faq.md").entries] == [
        "为什么提示符和预览不一样？", "分支前的符号是什么？"]


def test_a_heading_that_says_something_fails_is_an_entry_with_its_own_text_over_a_question_below_it() -> None:
    text = ("# FAQ\n\n### Unable to Receive Push Notifications\n\nCheck the network.\n\n### Push Usage Limit\n\n"
            "None for normal use.\n\n### Push Fails Due to Special Characters (e.g., links)\n\n"
            "This happens when the URL is "
            "not properly encoded.\n\n```sh\n# Final URL becomes:\nhttps://api.day.app/key/a/b/c/\n# Correct:\n"
            "https://api.day.app/key/a%2Fb%2Fc%2F\n```\n\nAlways encode parameters.\n\n"
            "#### How to ensure privacy and security\n\nSee the privacy page.\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries][-2:] == ["Push Fails Due to Special Characters (e.g., links)",
                                                  "How to ensure privacy and security"]
    assert "Always encode parameters." in entries[-2].answer_markdown


def test_numbered_lines_with_nothing_under_them_are_the_answer_they_stand_in_not_questions() -> None:
    text = ("#### 推送使用次数限制\n正常使用无任何限制，异常使用<b> IP 会被 BAN 24小时</b>  \n"
            "同一时刻建立了超过 1000 条 TCP 链接，新增的请求将被拒绝。\n\n被BAN规则：\n"
            "1. 5分钟内超过 1000 次错误请求（HTTP状态码为 400 404 500 等）\n2. 5分钟内超过 5 次 405 错误请求\n"
            "3. 5分钟内超过 5 次错误请求，并且 User-Agent 为 “*Mozilla/5.0”\n\n> 自行部署的 Bark-Server 无以上限制\n\n"
            "#### 莫名收到未知推送，比如 \"Empty Message\"\n可能的原因：<br>\n"
            "1. Safari 自动补全成 Bark API 的 URL，预加载触发推送。\n"
            "2. 微信会不定时的请求 URL 触发推送。\n3. 推送 Key 泄露，推荐在服务器列表页面重置 Key。\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ["推送使用次数限制", '莫名收到未知推送，比如 "Empty Message"']
    assert "405 错误请求" in entries[0].answer_markdown


def test_a_section_number_is_taken_off_a_title_whole_and_a_version_never() -> None:
    assert strip_numbering("7.5 `scripts/download.sh` failed") == "`scripts/download.sh` failed"
    assert strip_numbering("1.2 How Do I Use an SD Card?") == "How Do I Use an SD Card?"
    assert strip_numbering("3.2、异因二：索引模板错误") == "异因二：索引模板错误"
    assert strip_numbering("1. 1.如何更新数据") == "如何更新数据"
    assert strip_numbering("9、 2.6.100 升级到 3.0.100 后无法连接") == "2.6.100 升级到 3.0.100 后无法连接"
    assert strip_numbering("2.6.100 升级到 3.0.100 后无法连接") == "2.6.100 升级到 3.0.100 后无法连接"
    assert strip_numbering("3.0 升级后无法启动") == "3.0 升级后无法启动"
    assert strip_numbering("32) 127.0.0.1:7777 port already bound") == "127.0.0.1:7777 port already bound"
    assert strip_numbering("Q：3.6.4以上版本设置导航栏颜色无效？") == "3.6.4以上版本设置导航栏颜色无效？"
    assert strip_numbering("Q：39. 1.4.2及以下版本回滚时抛出异常？") == "1.4.2及以下版本回滚时抛出异常？"
    title = segment_markdown("# FAQ\n\n## 7. Others\n\n### 7.5 `download.sh` failed\n\nRetry.\n", file_name="FAQ.md")
    assert [e.title for e in title.entries] == ["download.sh failed"]


def test_a_table_of_contents_called_directory_is_navigation_even_with_a_sentence_under_it() -> None:
    text = ("# FAQ\n\n## Directory\n\n* [1 Environment problems](#1-environment-problems)\n"
            "* [2 Model problems](#2-model-problems)\n\nWe have listed some common problems and their solutions.\n\n"
            "## 1 Environment problems\n### 1.1 The installation guide is in [the documentation](./install.md).\n\n"
            "### 1.2 How Do I Use an SD Card to update Firmware in SoC Mode\n"
            "Download the SDK and refresh the firmware.\n\n"
            "## 2 Model problems\n### 2.1 How to jit.trace the Pytorch Model\nUse torch 1.8.\n")
    assert [e.question for e in segment_markdown(text, file_name="FAQ.md").entries] == [
        "1.2 How Do I Use an SD Card to update Firmware in SoC Mode", "2.1 How to jit.trace the Pytorch Model"]


def test_a_question_written_in_both_languages_over_both_answers_is_an_entry_in_each_paired_on_the_page(
        tmp_path: Path) -> None:
    from app.ingest.align import LinkRules
    from app.ingest.pipeline import link_documents, read_documents

    (tmp_path / "FAQ.md").write_text(
        "# Leela Zero常见问题解答 #\n# Frequently Asked Questions about Leela Zero #\n\n"
        "## 为什么网络不是每次都变强的 ##\n## Why doesn't the network get stronger every time ##\n\n"
        "从谷歌的论文中可以发现，AZ的网络强度也是有起伏的。请保持耐心。\n\n"
        "AZ also had this behavior. Please be patient.\n\n"
        "## 对局结果错误 ##\n## Wrong score? ##\n\nLeela Zero使用Tromp-Taylor规则，并不去除死子。\n\n"
        "Leela Zero uses Tromp-Taylor rules: dead stones are not removed.\n", encoding="utf-8")
    documents = read_documents(tmp_path, IngestReport())
    [document] = documents
    assert [(e.question, lang) for e, lang in zip(document.entries, document.entry_langs, strict=True)] == [
        ("为什么网络不是每次都变强的", "zh"), ("Why doesn't the network get stronger every time", "en"),
        ("对局结果错误", "zh"), ("Wrong score?", "en")]
    assert document.entries[0].answer_markdown == "从谷歌的论文中可以发现，AZ的网络强度也是有起伏的。请保持耐心。"
    assert document.entries[3].answer_markdown == "Leela Zero uses Tromp-Taylor rules: dead stones are not removed."
    questions = {i: e.question for i, e in zip(document.entry_ids, document.entries, strict=True)}
    pairs = link_documents(documents, [], LinkRules()).alignment.entries
    assert sorted((questions[p.first], questions[p.second], p.method) for p in pairs) == [
        ("为什么网络不是每次都变强的", "Why doesn't the network get stronger every time", "same page"),
        ("对局结果错误", "Wrong score?", "same page")]
    # Outside an FAQ, headings that ask nothing are not read as questions in two languages.
    guide = ("# 使用指南 / Guide\n\n## 安装\n## Installation\n\n运行安装脚本即可完成安装。\n\n"
             "Run the install script to install it.\n")
    assert "安装" not in [e.question for e in segment_markdown(guide, file_name="guide.md").entries]


def test_a_bold_question_may_ask_after_its_bold_and_go_on_with_its_answer_in_the_same_paragraph() -> None:
    text = ("# 常见问题\n\n## 关于部署\n\n**方案主体的VPC为什么要NAT Gateway**?\n\n"
            "lambda需要访问S3等服务，所以需要NAT Gateway。\n\n"
            "**在连接RDS时，为什么需要Endpoint？**\n\n需要访问 Secrets Manager。\n\n## 关于模版\n"
            "**Built-in 的数据标识符，有没有详细的说明？**\nBuilt-in数据标识符的列表，详见附录。\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == [
        "**方案主体的VPC为什么要NAT Gateway**?", "在连接RDS时，为什么需要Endpoint？",
        "Built-in 的数据标识符，有没有详细的说明？"]
    assert entries[2].answer_markdown == "Built-in数据标识符的列表，详见附录。"


@pytest.mark.parametrize(("part", "cause"), [("Error Message Analysis", "Common Causes and Solutions:"),
                                             ("报错信息解析", "常见原因和解决方案:")])
def test_sub_headings_that_name_parts_of_an_answer_together_are_parts_of_it(part: str, cause: str) -> None:
    # Open-LLM-VTuber's FAQ (eval/fresh9): under `### What to do if I encounter the "Error calling the chat
    # endpoint..." error?`, its `####` parts were cut as entries, the error text apart from its question.
    text = ("# FAQ\n\n## Backend errors\n\n### What to do if I see \"Error calling the chat endpoint\"?\n\n"
            "The LLM call failed.\n\n"
            f"#### {part}\n\n**1. Unable to connect to LLM API**\n\n"
            "> Error calling the chat endpoint: Connection error\n\n"
            f"#### {cause}\n\n1. Check that Ollama runs.\n\n### What to do if the port is in use?\n\nFree it.\n")
    entries = segment_markdown(text, file_name="faq.md").entries
    assert [e.question for e in entries] == ['What to do if I see "Error calling the chat endpoint"?',
                                             "What to do if the port is in use?"]
    assert "Connection error" in entries[0].answer_markdown and "Ollama" in entries[0].answer_markdown
