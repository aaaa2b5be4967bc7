"""Evidence that a piece of text is a question, an error report, a category or navigation.

Every rule that reads the *words* of a candidate lives here; the candidates and the
decision only combine these scores.
"""

from __future__ import annotations

import re

# A section titled like this holds questions; the section itself is never a question.
FAQ_CONTAINER = re.compile(
    r"(?i)^(?:\W|\d)*(?:faqs?|q\s*&\s*a|qa|frequently[- ]asked[- ]questions|troubleshooting|"
    r"others?|other questions|common (?:questions|issues|problems|errors)|常见问题|常见错误|常见报错|"
    r"问题汇总|问题集锦|问题合集|"
    r"其他问题|其它问题|"
    r"疑难解答|问答|答疑|其他|其它)\b"
)
# A table of codes (`## Error codes` › `### 126`, `## 常见错误码`): it asks nothing itself; each code under it is an
# error a reader searches for.
CODE_TABLE = re.compile(r"(?i)^(?:\W|\d)*(?:(?:common |known )?(?:error|exit|status|return) codes|"
                        r"(?:常见)?(?:错误码|错误代码|返回码|状态码|退出码))\W*$")
GROUP_TITLE = re.compile(
    r"(?i)\b(?:related|relevant) (?:issues|problems|questions|errors)\W*$|相关的?(?:问题|错误|报错)\W*$")
# `Error reporting related`, `Hardware related` (`报错相关` written in English): a category, never an error of its own.
RELATED_GROUP = re.compile(r"(?i)^[^?？]*\b(?:related|relevant)\s*$")
# A heading that opens the FAQ part of a longer document (README, guide); a name or title that says FAQ.
FAQ_SECTION = re.compile(
    r"(?i)(?<![a-z])faqs?(?![a-z])|frequently[- ]asked|q\s*&\s*a\b|troubleshoot|"
    r"common[ _-](?:questions|issues|problems)|^(?:\W|\d|[一二三四五六七八九十])*qa\W*$|"
    r"^(?:\W|\d)*(?:questions?[ _-]list|list of (?:questions|faqs?)|问题列表|问题清单)\W*$|"
    r"常见问题|问题汇总|问题集锦|问题合集|疑难解答|故障排除|故障排查|问题排查|排查手册|排查指南|问答|常見問題|問題彙總|問題匯總|問答"
)
# A section of the errors a reader meets (`## Common errors`): in a README, the troubleshooting part.
ERROR_SECTION = re.compile(r"(?i)common[ _-]errors|常见(?:错误|报错)")
# A heading that names the version or platform an answer holds for (`v0.4.0 or newer`, `Version v0.5.6 and lower`,
# `macOS`, `2.0 及以上版本`): a variant of its parent's answer, not a topic of its own.
CONDITION = re.compile(
    r"(?i)^\W*(?:(?:for|on)\s+)?(?:(?:version|版本)\s*)?v?\d+(?:\.\d+)+\w*\s*"
    r"(?:(?:or|and)\s+(?:older|newer|lower|higher|earlier|later|above|below)|\+|及?以上|及?以下|之前|之后|以前|以后)?"
    r"\s*(?:版本)?\W*$|"
    r"^\W*(?:(?:for|on)\s+)?(?:macos|mac|os x|windows|linux|ubuntu|debian|centos|fedora|alpine|ios|android|wsl2?)\W*$")
ERROR_SCORE = 0.7  # question_score of a line that states an error or failure without asking
# An explicit question label: `Q:`, `Q3.`, `Question 2:`, `问：`, `问题1：` (bold markers around it allowed).
# An item number may stand before the label, glued or not (`14.Q: …`, `13 (2). Q: …`).
Q_PREFIX = re.compile(
    r"(?i)^\s*+(?:\d{1,3}(?:\s*+\(\d{1,3}\))?\s*+[.、)]\s*+)?(?:Q|Question|问|问题)\s*+\d*+\s*+[:：.、]\s*+")
BOLD_Q_PREFIX = re.compile(r"^\*\*\s*+(?:Q|问题?)\s*+\d*+\s*+[:：.、]?\s*+\*\*\s*+[:：]?\s*+")  # `**Q3：**`
# The parts an answer is written in (`### Analysis`, `- 原因：…`): never questions of their own.
ANSWER_PART_WORDS = (
    "problem description", "issue description", "description", "symptom", "symptoms", "cause", "causes",
    "root cause", "reason", "reasons", "analysis", "solution", "solutions", "resolution", "workaround",
    "workarounds", "fix", "fixes", "how to fix", "steps", "answer", "background", "explanation",
    "问题描述", "问题现象", "现象", "描述", "原因", "原因分析", "分析原因", "分析", "解析", "解决", "解决方法",
    "解决方案", "解决办法", "解决方式", "处理方法", "处理方式", "答案", "回答", "解答", "背景", "步骤", "说明",
    "异常原因", "可能原因", "问题原因", "问题分析",
    "expected behavior", "expected behaviour", "actual behavior", "actual behaviour", "troubleshooting steps",
    "异常现象", "错误现象", "正常情况", "正常现象", "预期结果", "期望结果", "实际结果", "报错信息", "错误信息",
    "排查", "排查步骤", "排查方法", "排查思路", "检查", "检查方法", "检查步骤", "解决步骤", "处理步骤",
    "behavior", "behaviour", "phenomenon", "error message", "error messages",
    "code example", "example code", "results", "result", "quote", "代码示例", "示例代码", "结果展示",
    "work around", "work-around", "work arounds", "变通方法", "变通办法",
)
# The parts that state the problem itself: with its text after the label (`## 错误信息：Could not open video stream`)
# such a heading names the problem an entry answers, not a part of another's answer.
PROBLEM_PART_WORDS = frozenset((
    "problem description", "issue description", "description", "symptom", "symptoms", "behavior", "behaviour",
    "phenomenon", "error message", "error messages", "问题描述", "问题现象", "现象", "描述", "异常现象", "错误现象",
    "报错信息", "错误信息",
))
PROBLEM_TEXT = 8  # letters after the label: a stated problem, not `现象：略`
ANSWER_PART = re.compile(
    r"(?i)^\W*(?:\d+(?:\.\d+)*\s*[.、)）]?\s*)?(?P<part>"
    + "|".join(re.escape(w) for w in sorted(ANSWER_PART_WORDS, key=len, reverse=True)) + r")(?![a-z])"
)
# `Common Causes`, `Possible reasons`: a part of an answer, qualified.
PART_QUALIFIER = re.compile(r"(?i)^\W*(?:common|possible|typical|likely|known|常见的?|可能的?)\s*")
ORDINAL_REST = re.compile(r"^(?:[一二三四五六七八九十]|\d{1,2})\s*(?:[:：、.]\s*\S.*)?$")
# "The cause of X", "notes on X": a part of X's answer, named after it (`连接同步服务失败的可能原因`,
# `关于同步弹窗的说明`).
# `…闪退原因查询步骤`: the steps to find X's cause (a general `## 通用排查步骤` may be an entry of its own).
ANSWER_PART_OF = re.compile(r"的(?:可能)?(?:原因|说明|检查|排查|解决方法|解决办法|解决方案|处理方法|步骤)\W*$|"
                            r"原因(?:查询|排查|检查|定位|分析)(?:步骤|流程|方法)\W*$")
# "The solution to the … problem": the heading names its problem in full, as a question would (`在 Arduino IDE 中
# 使用 ESP32-S3 驱动 RGB LCD 时出现画面漂移问题的解决方案`, the English page's `Solution for screen drift issue …`).
SOLVES_NAMED_PROBLEM = re.compile(r"问题的(?:解决方法|解决办法|解决方案|处理方法)\W*$")
# A leading number of a title, with or without a mark after it: `4 `, `2.`, `IV. `, `一、`.
TITLE_NUMBER = re.compile(
    r"(?i)^\s*(?:\d{1,3}(?:\.\d{1,3})*|[ivx]{1,5}|[一二三四五六七八九十]{1,3})(?:\s*[.、)）]\s*|\s+)")
# A heading that names navigation, a preface or the document's own business (where to get help, its
# translations, how to contribute), never an entry: it asks nothing a reader searches for.
NAVIGATION_TITLE = re.compile(
    r"(?i)^\W*(?:navigation|contents|table of contents|toc|index|directory|catalog(?:ue)?|"
    r"before you (?:read|ask|start|begin)|"
    r"目录|导航|索引|阅读须知|提问之前|提问前必读|在提问之前|"
    r"(?:getting|get|need|still need|more|further|where to get) help|help|(?:getting )?support|contact(?: us|s)?|"
    r"feedback|contributing|(?:how to )?contribute|contributions?|translations?|other languages|licen[cs]e|"
    r"acknowledge?ments?|credits|see also|references|further reading|learn more|related (?:links|docs|documents|"
    r"documentation|pages)|instructions|introduction|intro|overview|preface|foreword|disclaimer|"
    r"about(?: us| this (?:faq|page|document|guide))?|"
    r"(?:any |got |have |more )?questions|"  # `## Questions?` over "file them at …": where to ask
    r"still (?:stuck|have questions|having (?:problems|issues|trouble)|unresolved|unsolved|"
    r"not (?:resolved|solved|fixed))|"
    r"(?:still )?(?:did not|didn'?t|can'?t|cannot|could ?n[o']t) find (?:an|the|your|a) (?:answer|solution)s?|"
    r"more faqs?|"
    r"(?:not finding|(?:can'?t|cannot|could ?n[o']t|did ?n[o']t) find) what you(?:'re| are) looking for|"
    r"说明|前言|序言|简介|介绍|概述|引言|写在前面|阅读说明|帮助|(?:获取|寻求|获得|更多)帮助|联系(?:我们|方式)?|关于我们|"
    r"(?:问题|意见)?反馈|(?:参与)?贡献|贡献指南|致谢|鸣谢|感谢|许可证?|开源协议|参考(?:资料|链接|文档|文章)?|"
    r"相关(?:链接|文档)|(?:延伸|扩展)阅读|翻译|其他语言|免责声明|还是没(?:有)?解决|(?:仍然|依然|还是)?(?:没有?|未)找到(?:答案|解决(?:方法|方案|办法))|问题(?:仍然|依然|还是)?无法解决|(?:仍然|依然|仍)(?:未|没有)解决|"
    r"还有(?:其他)?(?:问题|疑问)|更多(?:的)?\s*faq|p\.?\s?s\.?|"
    r"(?:更多|其他|其它)(?:问题|疑问)[，,]?\s*(?:请|可|可以|欢迎)?\s*(?:联系|反馈|提交|提issue).*|"
    r"(?:related|useful|recommended) (?:articles|links|reading)|辅助文章|相关文章|推荐阅读)\W*$"
)
# Two or more language names side by side: the links between a document's translations.
_LANGUAGE = (r"(?:English|EN|Chinese|中文|简体中文|簡體中文|繁體中文|繁体中文|日本語|Japanese|한국어|Korean|"
             r"Español|Français|Deutsch|Русский|Português|Italiano|Tiếng Việt|العربية|Türkçe)")
LANGUAGE_SWITCH = re.compile(rf"(?i)^\W*+{_LANGUAGE}(?:\s*+[|/·•,、]?\s*+{_LANGUAGE})+\W*+$")
# Runs of spaces and digits are taken whole (possessive: what follows each is neither): with `\s*\d*\s*`
# a line of `**A` and 2,000 spaces was split every way, 2 s (cubic in the spaces).
ANSWER_PREFIX = re.compile(
    r"^\s*+(?:\*\*\s*+(?:A|Answer|答|回答|答复)\s*+\d*+\s*+[:：]?\s*+\*\*\s*+[:：]?|(?:A|Answer|答|回答|答复)\s*+\d*+\s*+[:：])"
    r"\s*+")
# `1. `, `3、`, and a section's number whole: `7.5 ` (stripping only `7.` left `5 scripts/download.sh failed`);
# a version or an address is not a number (`3.0 升级后…`, `2.6.100 升级到 …`, `127.0.0.1:7777 port already bound`):
# sections count from 1 in one or two digits.
NUMBERING = re.compile(r"^\s*\d{1,3}\s*[.、)）]\s+|^\s*[1-9]\d?(?:\.[1-9]\d?)+(?:[.、)）](?![\d.])\s*|\s+)"
                       r"|^\s*\d{1,3}[.、](?![\d.])")
ITEM_NUMBER = re.compile(r"^\s*\d{1,3}\s*[.、)）]\s*(?![\d.])")  # a second label: `1. 1.如何更新数据`, `Q: 1. …`
QUESTION_WORDS = re.compile(
    r"(?ix)"
    r"[?？]\W*+$"
    r"|[?？]\s*+[\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]"  # a badge: `…？ ⭐ 最常见`
    r"|^\s*+(?:Q|问题?)\s*+\d*+\s*+[:：]"
    r"|^\s*+(?:how|what|why|when|where|which|who|can|could|does|do|did|is|are|should|will|would|any)\b"
    r"|如何|怎么|怎样|为什么|为何|为啥|是否|能否|可否|吗\W*+$|什么|哪些|哪个|哪里|多大|多少|多长"
)
LEAD_IN = re.compile(r"^[^?？]*[:：][\s*_`]*$")  # ends in a colon, no question mark anywhere
# A step that tells the reader to check something (`检查 key 是否配置正确`, `确认网络是否正常`): its 是否 is "whether".
CHECK_STEP = re.compile(r"^\W*(?:请\s*)?(?:先\s*)?(?:检查|确认|确保|查看|核实|核对|排查|检测)[^?？]*$")
ERROR_WORDS = re.compile(
    r"(?i)(?<!\w)\w*(?:error|exception)(?![a-z0-9_])|not found|no module|cannot|can't|unable|failed|failure|"
    r"(?<![a-z-])fails?(?![a-z-])|refused|"
    r"denied|timeout|timed out|(?<![a-z])oom(?![a-z])|out of memory|killed|undefined|segmentation fault|core dumped|"
    r"not (?:accessible|working|responding|supported)|inaccessible|(?:doesn't|does not|won't|can not) work|"
    r"crash(?:es|ed|ing)?|panic(?:s|ked)?|hangs|freez(?:es|ing)|corrupt(?:ed|ion)?|"
    r"报错|错误|失败|异常|无法|出错|超时|拒绝|不能|不支持|乱码|找不到|未找到|不存在|不可用|不生效|"
    r"权限不足|没有权限|无权限|崩溃|闪退|卡住|卡死|无响应|无反应|没反应|不起作用|内存不足|显存不足|溢出|损坏"
)
# GitHub emoji shortcodes (`:rocket:`, a `[(:link:)](url)` link): decoration, not words.
EMOJI_SHORTCODE = re.compile(r"\(\s*:[a-z0-9_+-]+:\s*\)|(?<![\w:]):[a-z0-9_+-]+:(?![\w:])")
TABLE_QUESTION_HEADER = re.compile(r"(?i)报错|错误|error|问题|question|issue|症状|symptom|现象|message|problem")
GENERIC_TITLES = {
    "note", "notes", "tip", "tips", "other", "others", "misc", "error", "errors", "warning", "warnings",
    "注意", "备注", "提示", "其他", "其它", "说明", "报错", "错误", "问题", "警告", "告警",
}
# `Errors and Warnings`, `错误和警告`; spaces are read from where a run of them starts (or from each, again and again)
GENERIC_JOIN = re.compile(r"(?<!\s)\s++and\s+|(?:(?<!\s)\s++)?[&/、]\s*+|以及|和|与|及")
# A file named like this is a project's front page: without an FAQ section it has no entries.
README_NAME = re.compile(r"(?i)^readme(?:[._-].*)?$")


def strip_numbering(text: str) -> str:
    """The text without its leading labels (`1.`, `Q3:`, `**问题2：**`, `Q: 1.`); unchanged if that is all."""
    stripped = NUMBERING.sub("", text.strip(), count=1)
    unlabelled = Q_PREFIX.sub("", BOLD_Q_PREFIX.sub("", stripped), count=1)
    stripped = ITEM_NUMBER.sub("", unlabelled, count=1)  # `9、 2.6.100 升级…` keeps its version
    return stripped.strip() or text.strip()


def is_question(text: str) -> bool:
    """Phrased as a question in English or Chinese (or labelled `Q:` / `问：`); a line that ends in a colon and asks
    nothing with `?` introduces what follows (`验证 CUDA 是否安装正确：`, `How to check:`), and one that tells the
    reader to check whether something holds (`检查 key 是否正确`) is a step: neither is a question."""
    text = NUMBERING.sub("", text.strip(), count=1)
    if (LEAD_IN.search(text) or CHECK_STEP.match(text)) and not has_question_label(text):
        return False
    return bool(QUESTION_WORDS.search(text))


def has_question_label(text: str) -> bool:
    """Opens with an explicit question label (`Q:`, `**Q：**`, `Question 3:`, `问题1：`) that labels some text: a
    bare `Q:` asks nothing (the heading above it is the question)."""
    text = text.lstrip().lstrip("*_").lstrip()
    label = Q_PREFIX.match(text)
    return label is not None and bool(text[label.end():].strip(" *_\t"))


def is_answer_part(text: str) -> bool:
    """Names a part of an answer (`Analysis`, `Solutions`, `原因：…`, `解决方案`, `连接失败的可能原因`), not a
    question."""
    if ANSWER_PART_OF.search(text) and not re.search(r"[?？]", text) and not SOLVES_NAMED_PROBLEM.search(text):
        return True  # `…异常的解决方法?` asks for it; `…时出现画面漂移问题的解决方案` is that problem's entry
    match = ANSWER_PART.match(text)
    if match is not None:
        rest = text[match.end():].strip()
        labelled = re.match(r"^\S{0,4}\s*[:：]", rest)
        if labelled and match.group("part").lower() in PROBLEM_PART_WORDS and \
                len(re.findall(r"\w", rest[labelled.end():])) >= PROBLEM_TEXT:
            return False  # `错误信息：Could not open video stream` states the problem
        # Whole title (`### Solutions`), a label before the text (`原因：…`, `原因有2:`), or one of several (`方案二`).
        if not rest or labelled or ORDINAL_REST.match(rest):
            return True
    return _names_parts_only(text)


def _names_parts_only(text: str) -> bool:
    """Names parts of an answer and nothing else: two or more (`Error Message Analysis`, `Common Causes and
    Solutions:`, `原因与解决方法`), or one qualified (`Possible reasons`)."""
    text = text.strip().rstrip(":：").strip()
    rest, named = PART_QUALIFIER.sub("", text, count=1), 0
    qualified = rest != text  # `Common Causes`, `Possible reasons`: one part, qualified
    while rest:
        match = ANSWER_PART.match(rest)
        if match is None:
            return False
        named += 1
        rest = rest[match.end():]
        joiner = GENERIC_JOIN.match(rest)  # `Causes and Solutions`, `原因与解决方法`
        rest = rest[joiner.end():] if joiner else rest.lstrip()
    return named >= 2 or (named == 1 and qualified)


def has_answer_label(text: str) -> bool:
    """Opens with an explicit answer label (`A:`, `**A1**:`, `答：`)."""
    return bool(ANSWER_PREFIX.match(text))


def is_navigation(title: str) -> bool:
    """A heading that names a table of contents, a preface or the document's own business (`Navigation`, `目录`,
    `Before you read`, `Getting help`, `Translations`, `说明`), or switches between a document's translations
    (`English | 简体中文`)."""
    unnumbered = TITLE_NUMBER.sub("", title, count=1)  # `13、更多问题，可联系我们反馈`
    return bool(NAVIGATION_TITLE.match(unnumbered) or LANGUAGE_SWITCH.match(title))


def is_error(text: str) -> bool:
    """Reads like a failure report: an exception name, a quoted message, `报错`, `失败` …"""
    return bool(ERROR_WORDS.search(text))


def question_score(text: str) -> float:
    """0 to 1: how much a line looks like an FAQ question (or an error an FAQ answers)."""
    if not text.strip():
        return 0.0
    if has_question_label(text):
        return 1.0
    if is_question(text):
        return 0.9
    if is_error(text):
        return ERROR_SCORE
    return 0.0


def is_faq_section(title: str) -> bool:
    """A heading that names an FAQ / troubleshooting part of a document."""
    return bool(FAQ_SECTION.search(title))


def is_error_section(title: str) -> bool:
    """A heading that names the common errors of a project (`## Common errors`, `## 常见报错`)."""
    return bool(ERROR_SECTION.search(title))


def names_a_condition(title: str) -> bool:
    """A heading that names the version or platform an answer holds for (`v0.4.0 or newer`, `macOS`)."""
    return bool(CONDITION.match(title))


def is_container(title: str) -> bool:
    """A heading that only groups questions (`FAQ`, `Others`, `常见问题`, `Error codes`)."""
    return bool(FAQ_CONTAINER.match(title) or CODE_TABLE.match(title))


def is_code_table(title: str) -> bool:
    """A heading over a table of error, exit or status codes (`Error codes`, `常见错误码`)."""
    return bool(CODE_TABLE.match(title))


def names_a_group(title: str) -> bool:
    """A title that names the problems of one topic (`Token related issues`, `Runtime(运行时)相关问题`)."""
    return bool(GROUP_TITLE.search(title) or RELATED_GROUP.match(title))


def is_generic(title: str) -> bool:
    """A title that says nothing without its section (`Note`, `报错`, `4 错误`, `错误和警告`)."""
    words = TITLE_NUMBER.sub("", title.strip(), count=1).strip(" :：.。!！").lower()
    return all(part in GENERIC_TITLES for part in GENERIC_JOIN.split(words))


def heading_score(title: str) -> float:
    """How much a heading asks: a question's or an error's evidence, none for a generic or answer-part title."""
    if is_generic(title) or is_answer_part(title) or is_navigation(title) or RELATED_GROUP.match(title):
        return 0.0
    return question_score(title)
