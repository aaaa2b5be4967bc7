"""Tell Chinese from English text by counting scripts in its prose (code is ignored)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

HAN_RANGES = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # the Han characters, one place for every module
HAN = re.compile(f"[{HAN_RANGES}]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# Code, URLs, tags, and path- or identifier-like tokens say nothing about the prose language: each is replaced by
# a space. Each character is read a bounded number of times and the same words are kept as when the path-like
# token was looked for again from each character (a line of 32,000 Chinese characters, or of `<`, took 4.6 s):
# - what cannot start a token is taken as prose at once (group `prose`, kept with a space before it; it is the
#   last choice, so it starts only where no token does);
# - a path-like token is looked for only where a word starts or a token ended (after `, ~ or >): once one is not
#   in the rest of a word, it is not in any part of that rest;
# - a tag is not looked for right after a `<` that opened none: no `>` follows on its line.
# Chinese is written without spaces, so a run of Chinese characters ends a word as a space does:
# `用stop_gradient=True的` and `详见https://a.org/x，然后…` are prose, code, prose (the Chinese after the code was
# dropped with it, and code after Chinese was read as prose).
CODE = re.compile(rf"```.*?```|~~~.*?~~~|`[^`\n]*+`|https?://[^\s{HAN_RANGES}]++|(?<!<)<[^>\n]++>"
                  rf"|(?<![^\s`~>{HAN_RANGES}])[^\s/_=\\{HAN_RANGES}]*+[/_=\\][^\s{HAN_RANGES}]*+"
                  rf"|(?P<prose>[{HAN_RANGES}]++|[^\s`~<{HAN_RANGES}]++)", re.DOTALL)
MIN_WORDS_TO_DIFFER = 10


def language_scores(text: str) -> tuple[int, int]:
    """Count Han characters and Latin words in the prose of markdown text."""
    prose = CODE.sub(r" \g<prose>", text)
    return len(HAN.findall(prose)), len(LATIN_WORD.findall(prose))


def detect_language(text: str, default: str = "en") -> str:
    """'zh' or 'en' for a text; `default` when the text has too little prose to tell."""
    han, latin = language_scores(text)
    if han + latin < 3:
        return default
    # A Chinese sentence carries about one Han character where English has one word;
    # Chinese technical prose is full of English terms, so Han wins at a lower share.
    return "zh" if han >= latin * 0.5 else "en"


def entry_language(text: str, document_lang: str) -> str:
    """An entry's language: its document's, unless its prose is plainly all in the other one."""
    han, latin = language_scores(text)
    if document_lang == "zh" and han == 0 and latin >= MIN_WORDS_TO_DIFFER:
        return "en"
    if document_lang == "en" and han >= MIN_WORDS_TO_DIFFER and han >= latin:
        return "zh"
    return document_lang


def language_from_name(relative_path: str) -> str | None:
    """A language named by the file's path (`faq.zh.md`, `FAQ_zh.md`, `zh_cn/…`), if any.

    The file name speaks first, then its folders from the nearest out: a folder called
    `zh-en-samples` says nothing about `faq.en.md` inside it.
    """
    for part in reversed(relative_path.lower().split("/")):
        if re.search(r"(?:^|[._-])(?:zh|cn|zh[_-](?:cn|hans|hant|tw))(?:[._-]|$)", part):
            if not re.search(r"(?:^|[._-])(?:en|en[_-]us)(?:[._-]|$)", part):
                return "zh"
        elif re.search(r"(?:^|[._-])(?:en|en[_-]us)(?:[._-]|$)", part):
            return "en"
    return None


def document_language(relative_path: str, text: str, named: Collection[tuple[str, str, str]] = ()) -> str:
    """A document's language: the one its file name marks; else its folders' mark, unless a version of it beside
    it marks that language in its own name (`named`, from `named_versions`: `goproxy-cn/README.md` beside
    `goproxy-cn/README.zh-CN.md`, the folder is a project, the unmarked file the other language); else its prose's."""
    folder, _, name = relative_path.rpartition("/")
    own = language_from_name(name)
    if own is not None:
        return own
    marked = language_from_name(folder) if folder else None
    if marked is not None and (folder, _neutral_stem(name), marked) in named:
        return "en" if marked == "zh" else "zh"
    return marked or detect_language(text)


def named_versions(paths: Iterable[str]) -> set[tuple[str, str, str]]:
    """(folder, name without its language mark, language) of every path whose file name marks its language."""
    found = set()
    for path in paths:
        folder, _, name = path.rpartition("/")
        lang = language_from_name(name)
        if lang is not None:
            found.add((folder, _neutral_stem(name), lang))
    return found


def _neutral_stem(name: str) -> str:
    return LANGUAGE_MARK.sub("", name.rsplit(".", 1)[0]).lower()


LANGUAGE_MARK = re.compile(r"(?:^|[._-])(?:zh|cn|zh[_-](?:cn|hans|hant|tw)|en|en[_-]us)$", re.IGNORECASE)


def name_from_path(relative_path: str) -> str:
    """A document's name from its file name, for a document no heading names: words of the stem without its
    language mark (`common-issues-in-deployment.md` → "Common issues in deployment", `faq_zh.md` → "FAQ")."""
    stem = relative_path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    words = " ".join(re.split(r"[\s_-]+", LANGUAGE_MARK.sub("", stem))).strip()
    if not words:
        return stem
    return "FAQ" if words.lower() == "faq" else words[0].upper() + words[1:]
