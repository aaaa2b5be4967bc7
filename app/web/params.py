"""Validation of search parameters, shared by the search page and the search API."""

from __future__ import annotations

import re
from typing import Literal

from app.limits import MAX_QUERY_LENGTH
from app.queries import LANGUAGES
from app.search.paste import MAX_PASTE_LENGTH
from app.web.errors import BadRequest

LangParam = Literal["en", "zh", "any"]
MAX_OFFSET = 10_000
# Something to search for: a character that is neither white space nor a control character
# (the schema says so, so a client generated from it does not send an empty query).
QUERY_PATTERN = r"[^\s\x00-\x1f\x7f-\x9f]"
CONTROL_BUT_LINE_BREAK = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # Unicode's category Cc, less \n


def clean_query(q: str, limit: int = MAX_QUERY_LENGTH) -> str:
    """The query with control characters blanked, line breaks kept; BadRequest when empty or over `limit`.

    A pasted traceback or log is read line by line: its last error line is what is searched.
    """
    if len(q) > limit:
        longer = " (send a longer text, such as a whole log, with POST)" if limit < MAX_PASTE_LENGTH else ""
        raise BadRequest(f"q: the query is {len(q)} characters long; the limit is {limit}{longer}")
    q = q.replace("\r\n", "\n").replace("\r", "\n")
    cleaned = CONTROL_BUT_LINE_BREAK.sub(" ", q)
    if not cleaned.strip():
        raise BadRequest("q: the query is empty; type a word, an error message or an identifier")
    return cleaned.strip()


def language_filter(lang: str) -> str | None:
    """None for 'any', else the language code."""
    return lang if lang in LANGUAGES else None
