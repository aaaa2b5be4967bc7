"""Evidence that a piece of text is a question, an error report, a category or navigation.

Every rule that reads the *words* of a candidate lives here; the candidates and the
decision only combine these scores.
"""

from __future__ import annotations

import re

# A section titled like this holds questions; the section itself is never a question.
FAQ_CONTAINER = re.compile(
    r"(?i)^(?:\W|\d)*(?:faqs?|q\s*&\s*a|frequently[- ]asked[- ]questions|troubleshooting|"
    r"others?|other questions|common (?:questions|issues|problems)|常见问题|问题汇总|其他问题|其它问题|"
    r"疑难解答|问答|答疑|其他|其它)\b"
)
# A heading that opens the FAQ part of a longer document (README, guide).
FAQ_SECTION = re.compile(
    r"(?i)(?<![a-z])faqs?(?![a-z])|frequently[- ]asked|q\s*&\s*a\b|troubleshooting|"
    r"常见问题|问题汇总|疑难解答|故障排除|故障排查|问答"
)
Q_PREFIX = re.compile(r"^\s*(?:Q|问题?)\s*\d*\s*[:：.、]\s*")
ANSWER_PREFIX = re.compile(
    r"^\s*(?:\*\*\s*(?:A|答|回答|答复)\s*\d*\s*[:：]?\s*\*\*\s*[:：]?|(?:A|答|回答|答复)\s*\d*\s*[:：])\s*")
NUMBERING = re.compile(r"^\s*\d{1,3}\s*[.、)）]\s+|^\s*\d{1,3}[.、]")
QUESTION_WORDS = re.compile(
    r"(?ix)"
    r"[?？]\W*$"
    r"|^\s*(?:Q|问题?)\s*\d*\s*[:：]"
    r"|^\s*(?:how|what|why|when|where|which|who|can|could|does|do|did|is|are|should|will|would|any)\b"
    r"|如何|怎么|怎样|为什么|为何|为啥|是否|能否|可否|吗\W*$|什么|哪些|哪个|哪里|多大|多少|多长"
)
ERROR_WORDS = re.compile(
    r"(?i)\w*(?:error|exception)\b|not found|no module|cannot|can't|unable|failed|failure|refused|"
    r"denied|timeout|timed out|\boom\b|out of memory|killed|undefined|segmentation fault|core dumped|"
    r"not (?:accessible|working|responding|supported)|inaccessible|(?:doesn't|does not|won't|can not) work|"
    r"报错|错误|失败|异常|无法|出错|超时|拒绝|不能|不支持|乱码|找不到|未找到|不存在|不可用|不生效"
)
# GitHub emoji shortcodes (`:rocket:`, a `[(:link:)](url)` link): decoration, not words.
EMOJI_SHORTCODE = re.compile(r"\(\s*:[a-z0-9_+-]+:\s*\)|(?<![\w:]):[a-z0-9_+-]+:(?![\w:])")
TABLE_QUESTION_HEADER = re.compile(r"(?i)报错|错误|error|问题|question|issue|症状|symptom|现象|message|problem")
GENERIC_TITLES = {
    "note", "notes", "tip", "tips", "other", "others", "misc", "error", "errors", "warning",
    "注意", "备注", "提示", "其他", "其它", "说明", "报错", "错误", "问题",
}
# A file named like this is a project's front page: without an FAQ section it has no entries.
README_NAME = re.compile(r"(?i)^readme(?:[._-].*)?$")


def strip_numbering(text: str) -> str:
    """The text without its leading labels (`1.`, `Q3:`, `**问题2：**`, `Q: 1.`); unchanged if that is all."""
    stripped = NUMBERING.sub("", text.strip(), count=1)
    stripped = re.sub(r"^\*\*\s*(?:Q|问题?)\s*\d*\s*[:：.、]?\s*\*\*\s*[:：]?\s*", "", stripped)
    stripped = NUMBERING.sub("", Q_PREFIX.sub("", stripped, count=1), count=1)
    return stripped or text.strip()


def is_question(text: str) -> bool:
    """Phrased as a question in English or Chinese (or labelled `Q:` / `问：`)."""
    return bool(QUESTION_WORDS.search(NUMBERING.sub("", text.strip(), count=1)))


def is_error(text: str) -> bool:
    """Reads like a failure report: an exception name, a quoted message, `报错`, `失败` …"""
    return bool(ERROR_WORDS.search(text))


def question_score(text: str) -> float:
    """0 to 1: how much a line looks like an FAQ question (or an error an FAQ answers)."""
    if not text.strip():
        return 0.0
    if Q_PREFIX.match(text):
        return 1.0
    if is_question(text):
        return 0.9
    if is_error(text):
        return 0.7
    return 0.0


def is_faq_section(title: str) -> bool:
    """A heading that names an FAQ / troubleshooting part of a document."""
    return bool(FAQ_SECTION.search(title))


def is_container(title: str) -> bool:
    """A heading that only groups questions (`FAQ`, `Others`, `常见问题`)."""
    return bool(FAQ_CONTAINER.match(title))


def is_generic(title: str) -> bool:
    """A title that says nothing without its section (`Note`, `报错`)."""
    return title.strip(" :：.。!！").lower() in GENERIC_TITLES
