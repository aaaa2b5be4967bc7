"""Search-box completions (OpenSearch suggestions) from entry titles, in both languages.

The titles of a generation are normalised (case, width, Traditional → Simplified) once and
joined into one string; a keystroke is then a few regular-expression scans of that string,
which run at C speed, instead of a Python loop over every title. With many titles a scan
for words that are each common but rarely together (`bloomz pip`) still reads them all, so
each shelf also indexes its titles by word (and Chinese by character pair): a keystroke
whose rarest word is in few titles tests the patterns on those titles only.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import numpy as np
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlmodel import Session

from app.ingest.language import HAN
from app.queries import Reader
from app.querylog import QueryLog, normalise_query
from app.search.analysis import HAN_RUN, normalise_text
from app.web.api import NO_DATA
from app.web.deps import SettingsDep, StoreDep

MEDIA_TYPE = "application/x-suggestions+json"
MAX_SUGGEST_LENGTH = 200
LIMIT = 8
PAST_SEARCH = "search"  # the description of a completion that is a past search rather than an entry
WORD_CHAR = "[a-z0-9]"  # a Latin word starts after anything else: a space, _ - . /, a Chinese character
LATIN_WORD = re.compile(WORD_CHAR + "+")
HAN_CHARS = re.compile(HAN_RUN)
# A keystroke whose words together are in more titles than this scans them all: the scan
# then finds its few completions early, where testing each candidate would cost more.
MAX_CANDIDATES = 4096
MAX_POSTINGS = 65536  # a word in more titles narrows too little to be worth reading


@dataclass(frozen=True)
class Title:
    """One entry as a completion."""

    id: str
    lang: str
    title: str
    document: str


class _Shelf:
    """The titles of one language, shortest first, normalised into one newline-separated string,
    and which titles hold each Latin word and each Chinese character and character pair."""

    def __init__(self, titles: list[Title]) -> None:
        self.titles = sorted(titles, key=lambda t: (len(t.title), t.title, t.id))
        self.starts: list[int] = []
        lines: list[str] = []
        offset = 0
        by_word: defaultdict[str, list[int]] = defaultdict(list)
        by_pair: defaultdict[str, list[int]] = defaultdict(list)
        for number, title in enumerate(self.titles):
            line = normalise_text(" ".join(title.title.split()))
            self.starts.append(offset)
            lines.append(line)
            offset += len(line) + 1
            for word in set(LATIN_WORD.findall(line)):
                by_word[word].append(number)
            for run in HAN_CHARS.findall(line):
                for pair in {*run, *(run[i:i + 2] for i in range(len(run) - 1))}:  # characters and pairs
                    by_pair[pair].append(number)
        self.text = "\n".join(lines)
        self.starts.append(offset)  # where a title after the last would start: each title ends one before the next
        self.words = sorted(by_word)
        self.word_titles = [np.array(by_word[w], dtype=np.int32) for w in self.words]
        self.word_counts = np.concatenate(([0], np.cumsum([len(t) for t in self.word_titles]))).astype(np.int64)
        self.pair_titles = {pair: np.array(numbers, dtype=np.int32) for pair, numbers in by_pair.items()}

    def candidates(self, words: list[str]) -> np.ndarray | None:
        """The titles that can hold every one of `words` (a superset of those that do), or None when
        these are too many to test one by one."""
        options: list[tuple[int, int, int, str]] = []  # (titles at most, lo, hi, pair) per word
        for word in words:
            if latin := LATIN_WORD.match(word):
                lo = bisect_left(self.words, latin.group())
                hi = bisect_left(self.words, latin.group() + "{")  # `{` sorts after every letter and digit
                options.append((int(self.word_counts[hi] - self.word_counts[lo]), lo, hi, ""))
            elif han := HAN_CHARS.match(word):
                run = han.group()
                pairs = [run[i:i + 2] for i in range(max(1, len(run) - 1))]
                rarest = min(pairs, key=lambda pair: len(self.pair_titles.get(pair, ())))
                options.append((len(self.pair_titles.get(rarest, ())), 0, 0, rarest))
        if not options:
            return None
        found: np.ndarray | None = None
        for size, lo, hi, pair in sorted(options):
            if size > MAX_POSTINGS or (found is not None and len(found) <= LIMIT):
                break
            titles = self.pair_titles.get(pair, np.zeros(0, dtype=np.int32)) if pair else (
                np.unique(np.concatenate(self.word_titles[lo:hi])) if hi > lo else np.zeros(0, dtype=np.int32))
            found = titles if found is None else np.intersect1d(found, titles, assume_unique=True)
        return found if found is not None and len(found) <= MAX_CANDIDATES else None

    def matching(self, pattern: re.Pattern[str], limit: int, candidates: np.ndarray | None = None) -> list[Title]:
        """The first `limit` titles (so the shortest) in which `pattern` matches, among `candidates` if given."""
        if candidates is not None:
            held = (int(n) for n in candidates if pattern.search(self.text, self.starts[n], self.starts[n + 1] - 1))
            return [self.titles[n] for n in itertools.islice(held, limit)]
        numbers: dict[int, None] = {}  # a dict keeps the order of first match
        for match in pattern.finditer(self.text):
            numbers[bisect_right(self.starts, match.start()) - 1] = None
            if len(numbers) == limit:
                break
        return [self.titles[n] for n in numbers]


class TitleIndex:
    """Every entry title of one generation, to complete what a reader types."""

    def __init__(self, titles: list[Title]) -> None:
        languages = sorted({t.lang for t in titles})
        self.shelves = {lang: _Shelf([t for t in titles if t.lang == lang]) for lang in languages}

    def complete(self, query: str, limit: int = LIMIT) -> list[Title]:
        """Titles that start with `query`, then those with a word that does, then those holding all its words.

        Within each of these, titles in the query's own script come first (Chinese for a query
        with Chinese characters, else English), shorter before longer.
        """
        words = normalise_text(query).split()
        if not words:
            return []
        first = "zh" if HAN.search(query) else "en"
        languages = sorted(self.shelves, key=lambda lang: lang != first)
        found: dict[str, Title] = {}  # by title text: two documents may ask the same question
        candidates = {lang: shelf.candidates(words) for lang, shelf in self.shelves.items()}
        for pattern in _patterns(words):
            for lang in languages:
                for title in self.shelves[lang].matching(pattern, limit + len(found), candidates[lang]):
                    found.setdefault(title.title, title)
            if len(found) >= limit:
                break
        return list(found.values())[:limit]


def _at_word_start(word: str) -> str:
    """A pattern for `word` where a word begins (anywhere for Chinese, which has no spaces)."""
    escaped = re.escape(word)
    return f"(?<!{WORD_CHAR}){escaped}" if re.match(WORD_CHAR, word) else escaped


def _patterns(words: list[str]) -> list[re.Pattern[str]]:
    """Title prefix, then a word prefix, then (several words) every word in any order."""
    phrase = " ".join(words)
    patterns = [re.compile(r"^" + re.escape(phrase), re.M), re.compile(_at_word_start(phrase))]
    if len(words) > 1:
        patterns.append(re.compile("^" + "".join(f"(?=[^\n]*?{_at_word_start(w)})" for w in words), re.M))
    return patterns


def title_index(reader: Reader) -> TitleIndex:
    """The title index of the reader's generation, built on first use."""
    return reader.snapshot.kept("suggest", None, 1, lambda: TitleIndex([Title(*row) for row in reader.entry_titles()]))


class SuggestionsResponse(JSONResponse):
    """JSON sent as OpenSearch suggestions."""

    media_type = MEDIA_TYPE


SUGGESTIONS_SCHEMA: dict[str, Any] = {
    # Positional ([query, completions, descriptions, urls]); described rather than given as
    # prefixItems, which validators of OpenAPI 3.0 vintage reject.
    "type": "array", "minItems": 4, "maxItems": 4,
    "description": "the query as sent, then three arrays of equal length: completions (entry titles), "
                   "descriptions (each title's document, or \"search\" for a search readers often made) and "
                   "the page of each completion (the entry, or the search)",
    "items": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    "example": ["cuda", ["CUDA out of memory"], ["FAQ"], ["/entries/cuda-out-of-memory-1a2b3c"]],
}
router = APIRouter(prefix="/api/v1", tags=["browser integration"])


@router.get("/suggest", response_class=SuggestionsResponse, responses={
    200: {"description": "OpenSearch suggestions: `[query, [completions], [descriptions], [urls]]`",
          "content": {MEDIA_TYPE: {"schema": SUGGESTIONS_SCHEMA}}},
    **NO_DATA,
}, openapi_extra={"parameters": [{
    "name": "q", "in": "query", "required": False, "schema": {"type": "string", "default": ""},
    "description": "what the reader has typed so far; empty or over 200 characters gives empty lists"}]})
def suggest(request: Request, store: StoreDep, settings: SettingsDep) -> SuggestionsResponse:
    """Completions for a browser's search box: entry titles in both languages, then searches readers often made.

    An empty query, or one over 200 characters, gets empty lists (never an error).
    """
    # Read by hand rather than declared: no value of q is an error, so there is no 422 to document.
    q = request.query_params.get("q", "")
    if not q.strip() or len(q) > MAX_SUGGEST_LENGTH:
        return SuggestionsResponse(["", [], [], []])
    snapshot = store.current()
    with Session(snapshot.engine) as session:
        titles = title_index(Reader(snapshot=snapshot, session=session)).complete(q)
    base = settings.public_url.rstrip("/")
    completions = [t.title for t in titles]
    descriptions = [t.document for t in titles]
    urls = [f"{base}/entries/{t.id}" for t in titles]
    for past in past_searches(request.app.state.query_log, q, {c.lower() for c in completions},
                              LIMIT - len(titles)):
        completions.append(past)
        descriptions.append(PAST_SEARCH)
        urls.append(f"{base}/search?{urlencode({'q': past})}")
    return SuggestionsResponse([q, completions, descriptions, urls])


def past_searches(log: QueryLog, typed: str, shown: set[str], room: int) -> list[str]:
    """Queries readers often searched that start with what is typed (and found something), most searched first."""
    prefix = normalise_query(typed)
    if room <= 0 or not prefix:
        return []
    return [q for q in log.popular() if q.startswith(prefix) and q != prefix and q not in shown][:room]
