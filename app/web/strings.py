"""Every interface string of the pages, in both languages, and how a reader's interface language is chosen.

The interface language is the reader's, never the content's: a Chinese entry keeps English
chrome for an English reader, and the content-language filter changes what is searched,
not the words around it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import Request, Response

INTERFACE_LANGUAGES = ("en", "zh")
UI_COOKIE = "faq_ui"  # the reader's choice from the header's language switch, remembered for a year
UI_COOKIE_SECONDS = 365 * 24 * 3600
OTHER_LANGUAGE = {"en": "zh", "zh": "en"}
ENDONYMS = {"en": "English", "zh": "中文"}  # each language named in itself

INTERFACE: dict[str, dict[str, Any]] = {
    "en": {
        "interface_name": "English UI",
        "switch_title": "Show the portal in English",
        "permalink": "Link to this question",
        "stats_title": "What readers search for",
        "stats_period": "The last {days} days. Queries only: no names, addresses or times.",
        "stats_zero": "Searches that found nothing: FAQ to write",
        "stats_top": "Most frequent searches",
        "stats_query": "Query",
        "stats_searches": "Searches",
        "stats_found_nothing": "Found nothing",
        "stats_none": "None yet.",
        "search": "Search",
        "placeholder": "Search questions, errors, identifiers…",
        "documents": "Documents",
        "entries": "entries",
        "results": "results for",
        "no_results": "No entry matches. Try fewer words, another spelling, or the other language.",
        "timed_out": "The search ran out of time before it found anything. Try again in a moment, or with fewer words.",
        "translation": "Translation",
        "related": "Related",
        "in_document": "In",
        "any": "Any language",
        "language_filter": "Language of the entries",
        "language_names": {"en": "English", "zh": "Chinese"},
        "no_entry_translation": "This entry has no {language} version.",
        "translated_document": "The document is translated: {title}",
        "previous": "Previous",
        "next": "Next",
        "json": "JSON",
        "source": "Source line",
        "edit_page": "Edit this page",
        "last_changed": "Last changed {date}",
        "recently_changed": "Recently changed",
        "other_topic": "Other documents",
        "helpful_question": "Was this helpful?",
        "yes": "Yes",
        "no": "No",
        "add_comment": "Add a comment (optional)",
        "comment_label": "What was missing or wrong? Kept for the editors, without your name or address.",
        "thanks": "Thank you: the editors will see it.",
        "helpful_counts": "Readers found it helpful {yes} times, not helpful {no} times (last 90 days).",
        "stats_feedback": "Was it helpful? The least helpful entries first",
        "stats_entry": "Entry",
        "stats_helpful": "Helpful",
        "stats_unhelpful": "Not helpful",
        "stats_comments": "Comments",
        "for_editors": "For editors",
        "editors_view": "Editors' view: where this entry comes from",
        "highlighted": "Highlighting “{q}”",
        "remove_highlight": "Remove highlighting",
        "history": "First published {first}; question or answer last changed {changed}.",
        "earlier_questions": "Earlier asked as",
        "outdated": "The {language} version changed on {date}; this translation may be out of date.",
        "outdated_link": "Read the {language} version",
        "feed_title": "FAQ: changed entries in {language} (Atom)",
        "repaired": "This text was repaired from a damaged encoding ({n} characters restored).",
        "uncertain": "{n} of them are a best guess and may read oddly.",
        "skip": "Skip to content",
        "theme": "Dark theme",
        "results_for": "Results for “{q}”",
        "results_for_error": "Results for the error: {error}",
        "results_for_paste": "Results for the pasted text",
        "your_paste": "What you pasted ({characters} characters, {lines} lines)",
        "paste_summary": "Paste a whole traceback or log (up to 64 KB)",
        "paste_label": "Traceback, log or error message",
        "range": "{first}–{last} of {total}",
        "ranked": {"hybrid": "ranked by words and meaning", "lexical": "ranked by words",
                   "semantic": "ranked by meaning"},
        "past_end": "“{q}” has {total} results; this page starts after the last of them.",
        "last_page": "Go to the last page",
        "first_page": "Back to the first results",
        "page_of": "Page {page} of {pages}",
        "pages_label": "Result pages",
        "did_you_mean": "Did you mean",
        "showing_results_for": "Showing results for",
        "search_instead_for": "Search instead for",
        "unmatched": "No entry mentions",
        "closest": "Closest in meaning",
        "popular": "What readers look up most",
        "ask_team": "Ask the team: the answer may not be written yet →",
        "read_translation": "(translation: {title})",
        "lang_label": {"en": "English", "zh": "Chinese"},
        "intro": ("Type a question, an error message or an identifier, in English or"
                  " Chinese. Results appear as you type."),
        "paste_hint": ("Tip: paste a whole error message, traceback or log, even a long one — the portal"
                       " reduces it to the error and finds the entries that mention it."),
        "examples": "Examples",
        "example_kinds": {"error": "an error message",
                          "identifier": "an identifier",
                          "zh": "a Chinese question",
                          "phrase": "an exact phrase"},
        "browse": "Or browse the documents",
        "keys_title": "Keyboard",
        "key_slash": "focus the search box",
        "key_arrows": "move through instant results",
        "key_enter": "open the chosen result (or all results)",
        "key_esc": "close the instant results, or clear the search box",
        "on_this_page": "On this page",
        "parts_label": "Parts of this document",
        "part_of": "A long document: part {part} of {parts}. Each part opens with its first question:",
        "next_part": "Next part",
        "not_found": "Page not found",
        "not_found_text": ("There is nothing at this address. It may have moved when the"
                           " documents were edited; search for what you were looking for:"),
        "error": "Something went wrong",
        "error_text": "The portal could not show this page.",
        "removed": "This entry was removed",
        "removed_text": "It was removed from the FAQ on {since}. Its question was:",
        "removed_closest": "The closest current entries",
        "removed_search": "Or search for what you were looking for:",
        "details": "Details",
        "home": "Home: all documents",
        "report_title": "Editors' report",
        "report_about": ("Generation {generation} ({entries} entries); readers' searches and votes of the last {days} "
                         "days."),
        "report_total": "All",
        "report_section": "Section",
        "report_none": "None.",
        "report_elsewhere": "Not in a document",
        "report_no_translated_document": "no document translates it",
        "report_editors_view": "editors' view",
        "report_line": "line",
        "report_votes": "{unhelpful} not helpful, {helpful} helpful",
        "report_searches": "found nothing ({searches}×)",
        "report_closest": "closest",
        "report_no_closest": "no entry comes close",
        "report_more": "{count} more: run `faq report` for all",
        "report_queries": "Search statistics in full",
        "report_notes": {
            "no-statistics": "FAQ_QUERY_LOG_DAYS=0: no searches or votes are recorded.",
            "closest-by-meaning": "Closest in meaning, as the no-results page offers them.",
            "closest-by-words": ("Closest by words: the vectors for search by meaning are not made or not loaded "
                                 "(`faq embed`)."),
        },
        "report_sections": {
            "untranslated": ("Untranslated entries", "Entries with no translation in the other language."),
            "outdated": ("Translations that fell behind",
                         "Entries whose translation changed after them: the other language and the day it last "
                         "changed. A translator clears one by editing it, with a `reviewed:` date or with the "
                         "`translation_of_commit:` of the original it was checked against."),
            "unhelpful": ("Entries readers found unhelpful",
                          "At least as many readers said \u201cnot helpful\u201d as \u201chelpful\u201d, with "
                          "their latest comments."),
            "zero-results": ("Searches that found nothing",
                             "What readers searched for in vain, most frequent first, and the entries nearest to "
                             "it now."),
            "repairs": ("Uncertain encoding repairs",
                        "Characters restored from mojibake where another reading was almost as likely: check "
                        "them."),
            "structure": ("Structure close calls",
                          "Files whose questions the ingest found by a close call, an ignored hint or text left out "
                          "(see `faq inspect FILE`)."),
            "links": ("Broken links",
                      "Links the portal cannot follow (a file that is not one of its documents), and translation "
                      "metadata naming what does not exist."),
        },
    },
    "zh": {
        "interface_name": "中文界面",
        "switch_title": "以中文显示门户",
        "permalink": "本问题的链接",
        "stats_title": "读者在搜索什么",
        "stats_period": "最近 {days} 天。只记录查询内容，不记录姓名、地址或时间。",
        "stats_zero": "没有找到结果的搜索：需要补写的 FAQ",
        "stats_top": "最常见的搜索",
        "stats_query": "查询",
        "stats_searches": "搜索次数",
        "stats_found_nothing": "无结果次数",
        "stats_none": "暂无。",
        "search": "搜索",
        "placeholder": "搜索问题、报错信息、标识符……",
        "documents": "文档",
        "entries": "条",
        "results": "的搜索结果",
        "no_results": "没有匹配的条目。试试更少的词、别的写法或另一种语言。",
        "timed_out": "搜索在找到结果之前超时了。请稍后再试，或减少一些词。",
        "translation": "译文",
        "related": "相关条目",
        "in_document": "所属文档",
        "any": "所有语言",
        "language_filter": "条目的语言",
        "language_names": {"en": "英文", "zh": "中文"},
        "no_entry_translation": "此条目没有{language}版本。",
        "translated_document": "所属文档有译文：{title}",
        "previous": "上一页",
        "next": "下一页",
        "json": "JSON",
        "source": "源文件行",
        "edit_page": "编辑此页",
        "last_changed": "最后修改于 {date}",
        "recently_changed": "最近修改",
        "other_topic": "其他文档",
        "helpful_question": "这个回答有帮助吗？",
        "yes": "有帮助",
        "no": "没有帮助",
        "add_comment": "补充说明（可选）",
        "comment_label": "缺少了什么，或者哪里不对？只提供给编辑者，不记录你的姓名或地址。",
        "thanks": "谢谢：编辑者会看到你的反馈。",
        "helpful_counts": "读者认为有帮助 {yes} 次，没有帮助 {no} 次（最近 90 天）。",
        "stats_feedback": "是否有帮助：最没有帮助的条目在前",
        "stats_entry": "条目",
        "stats_helpful": "有帮助",
        "stats_unhelpful": "没有帮助",
        "stats_comments": "说明",
        "for_editors": "编辑者视图",
        "editors_view": "编辑者视图：此条目的来源",
        "highlighted": "已高亮“{q}”",
        "remove_highlight": "取消高亮",
        "history": "首次发布于 {first}；问题或回答最近修改于 {changed}。",
        "outdated": "{language}版已于 {date} 修改，此译文可能已过时。",
        "outdated_link": "阅读{language}版",
        "feed_title": "常见问题：最近修改的{language}条目（Atom）",
        "earlier_questions": "以前的问法",
        "repaired": "本文由损坏的编码修复而来（已恢复 {n} 个字符）。",
        "uncertain": "其中 {n} 个为推测结果，读起来可能不太通顺。",
        "skip": "跳到正文",
        "theme": "深色主题",
        "results_for": "“{q}”的搜索结果",
        "results_for_error": "报错的搜索结果：{error}",
        "results_for_paste": "粘贴文本的搜索结果",
        "your_paste": "你粘贴的内容（{characters} 个字符，{lines} 行）",
        "paste_summary": "粘贴完整的 traceback 或日志（最多 64 KB）",
        "paste_label": "Traceback、日志或报错信息",
        "range": "第 {first}–{last} 条，共 {total} 条",
        "ranked": {"hybrid": "按词语和语义排序", "lexical": "按词语排序", "semantic": "按语义排序"},
        "past_end": "“{q}”共有 {total} 条结果，本页已超出最后一条。",
        "last_page": "回到最后一页",
        "first_page": "回到第一页",
        "page_of": "第 {page} 页，共 {pages} 页",
        "pages_label": "结果分页",
        "did_you_mean": "你是不是要找",
        "showing_results_for": "以下是这个搜索的结果：",
        "search_instead_for": "仍然搜索",
        "unmatched": "没有条目提到",
        "closest": "意思最接近的条目",
        "popular": "读者最常查看的条目",
        "ask_team": "向团队提问：答案可能还没有写 →",
        "read_translation": "（译文：{title}）",
        "lang_label": {"en": "英文", "zh": "中文"},
        "intro": "输入问题、报错信息或标识符，中英文均可。边输入边显示结果。",
        "paste_hint": "提示：可以直接粘贴完整的报错信息或 traceback，门户会提取其中的错误并找到提到它的条目。",
        "examples": "示例",
        "example_kinds": {"error": "报错信息", "identifier": "标识符", "zh": "中文问题", "phrase": "精确短语"},
        "browse": "或浏览文档",
        "keys_title": "快捷键",
        "key_slash": "聚焦搜索框",
        "key_arrows": "在即时结果中移动",
        "key_enter": "打开所选结果（或全部结果）",
        "key_esc": "关闭即时结果，或清空搜索框",
        "on_this_page": "本页目录",
        "parts_label": "本文档的各部分",
        "part_of": "长文档：第 {part} 部分，共 {parts} 部分。各部分以其第一个问题为标题：",
        "next_part": "下一部分",
        "not_found": "找不到页面",
        "not_found_text": "这个地址没有内容，可能在文档修改后移动了位置。搜索你要找的内容：",
        "error": "出错了",
        "error_text": "门户无法显示此页面。",
        "removed": "此条目已删除",
        "removed_text": "它已于 {since} 从常见问题中删除。它的问题是：",
        "removed_closest": "最接近的现有条目",
        "removed_search": "或者搜索你要找的内容：",
        "details": "详情",
        "home": "首页：全部文档",
        "report_title": "编辑报告",
        "report_about": "数据版本 {generation}（{entries} 个条目）；读者最近 {days} 天的搜索和评价。",
        "report_total": "合计",
        "report_section": "类别",
        "report_none": "无。",
        "report_elsewhere": "不属于任何文档",
        "report_no_translated_document": "没有翻译它的文档",
        "report_editors_view": "编辑视图",
        "report_line": "行",
        "report_votes": "{unhelpful} 人认为没有帮助，{helpful} 人认为有帮助",
        "report_searches": "没有结果（{searches} 次）",
        "report_closest": "最接近的条目",
        "report_no_closest": "没有接近的条目",
        "report_more": "还有 {count} 项：运行 `faq report` 查看全部",
        "report_queries": "完整的搜索统计",
        "report_notes": {
            "no-statistics": "FAQ_QUERY_LOG_DAYS=0：不记录搜索和评价。",
            "closest-by-meaning": "按意思最接近，与无结果页面给出的相同。",
            "closest-by-words": "按词语最接近：语义搜索的向量尚未生成或未加载（`faq embed`）。",
        },
        "report_sections": {
            "untranslated": ("未翻译的条目", "没有另一种语言译文的条目。"),
            "outdated": ("可能过时的译文",
                         "另一种语言的版本在其之后修改过的条目：列出该语言及其最后修改日期。译者修改译文、写上 "
                         "`reviewed:` 日期或所核对原文的 `translation_of_commit:` 即可清除。"),
            "unhelpful": ("读者认为没有帮助的条目",
                          "认为“没有帮助”的读者不少于认为“有帮助”的读者，附最新评论。"),
            "zero-results": ("没有结果的搜索",
                             "读者搜索却没有找到的内容，按次数排序，并列出现在最接近的条目。"),
            "repairs": ("不确定的编码修复",
                        "从乱码恢复的字符中，另一种读法几乎同样可能的部分：请检查。"),
            "structure": ("结构上的临界判断",
                          "导入时靠临界判断、被忽略的提示或遗漏的文字来确定问题的文件"
                          "（见 `faq inspect FILE`）。"),
            "links": ("失效链接",
                      "门户无法打开的链接（指向不是门户文档的文件），以及指向不存在内容的翻译元数据。"),
        },
    },
}
# Example queries on the empty search page, one per kind of query (tests/web/test_ui.py checks each finds an entry).
EXAMPLES = [
    ("error", "CUDA out of memory"),
    ("identifier", "bitsandbytes undefined symbol"),
    ("zh", "显存不足怎么办"),
    ("phrase", "\"ZeRO stage 2\""),
]


def interface_language(chosen: str | None, remembered: str | None, accept_language: str) -> str:
    """The interface language: the switch just used, else the remembered choice, else the browser's language."""
    for language in (chosen, remembered):
        if language in INTERFACE_LANGUAGES:
            return language
    first = accept_language.lower().split(",")[0].strip()
    return "zh" if first.startswith("zh") else "en"


def html_lang(lang: str) -> str:
    """The value of <html lang> for a content language."""
    return "zh-Hans" if lang == "zh" else "en"


def reader_interface(request: Request) -> str:
    """The interface language of this request's reader (see `interface_language`)."""
    return interface_language(request.query_params.get("ui"), request.cookies.get(UI_COOKIE),
                              request.headers.get("accept-language", ""))


def interface_context(request: Request, content_lang: str | None = None) -> dict[str, Any]:
    """What every page's chrome needs: the interface strings, their language, the switch to the other one."""
    ui_lang = reader_interface(request)
    other = OTHER_LANGUAGE[ui_lang]
    query = [(k, v) for k, v in request.query_params.multi_items() if k != "ui"] + [("ui", other)]
    return {"ui": INTERFACE[ui_lang], "ui_lang": ui_lang, "page_lang": html_lang(content_lang or ui_lang),
            "switch_url": f"{request.url.path}?{urlencode(query)}", "switch_lang": other,
            "switch_label": INTERFACE[other]["interface_name"], "switch_title": INTERFACE[other]["switch_title"],
            "lang_names": ENDONYMS}


def remember_choice(request: Request, response: Response) -> None:
    """Keep the interface language the reader just switched to, for their next visits."""
    chosen = request.query_params.get("ui")
    if chosen in INTERFACE:
        response.set_cookie(UI_COOKIE, chosen, max_age=UI_COOKIE_SECONDS, samesite="lax", httponly=True)
