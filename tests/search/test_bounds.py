"""One search cannot hold up the others: bounded spelling automata, and no turn held across work that needs no index."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.config import Settings
from app.db import DataStore
from app.search import spelling
from app.search.engine import SearchEngine
from app.search.spelling import MAX_CORRECTED_WORDS, OutOfTime, Vocabulary, count_words, suggest


@pytest.fixture
def engine(seeded: Settings) -> Iterator[SearchEngine]:
    store = DataStore(seeded)
    try:
        yield store.current().search
    finally:
        store.close()


def _no_automaton(*_: object) -> None:
    raise AssertionError("an automaton was built")


def test_a_word_longer_than_any_in_the_vocabulary_builds_no_automaton(monkeypatch: pytest.MonkeyPatch) -> None:
    vocabulary = Vocabulary(count_words(["gradient results"]))
    assert vocabulary.closest("gradienx", 2, 1) == "gradient"
    monkeypatch.setattr(spelling, "levenshtein_automaton", _no_automaton)
    assert vocabulary.closest("a" * 4000, 2, 1) is None  # was 1.5 s of automaton for one word
    assert vocabulary.closest("gradientsxyz", 2, 1) is None  # 12 letters: beyond 8 + 2 edits
    assert suggest(vocabulary, "a" * 4000) == (None, False)


def test_a_query_looks_up_a_bounded_number_of_unknown_words(monkeypatch: pytest.MonkeyPatch) -> None:
    vocabulary = Vocabulary(count_words(["gradient results"]))
    looked_up: list[str] = []
    closest = Vocabulary.closest

    def counting(self: Vocabulary, word: str, *args: float) -> str | None:
        looked_up.append(word)
        return closest(self, word, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Vocabulary, "closest", counting)
    words = [f"zq{chr(97 + n % 26)}{chr(97 + n // 26)}xyz" for n in range(3 * MAX_CORRECTED_WORDS)]
    suggestion, cut_short = suggest(vocabulary, " ".join(["rrsults", *words]))
    assert len(looked_up) == MAX_CORRECTED_WORDS and not cut_short
    assert suggestion is not None and suggestion.startswith("results ")


def test_spelling_stops_at_the_deadline_and_says_so() -> None:
    vocabulary = Vocabulary(count_words(["gradient results"]))
    with pytest.raises(OutOfTime):
        vocabulary.closest("rrsults", 2, 1, deadline=0.0)
    assert suggest(vocabulary, "rrsults gradienx", deadline=0.0) == (None, True)


def test_a_search_cut_short_while_correcting_is_partial(engine: SearchEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    def out_of_time(*_: object) -> str | None:
        raise OutOfTime

    found = engine.search("fsdpp gradientz", None, 10)
    assert not found.partial
    monkeypatch.setattr(Vocabulary, "closest", out_of_time)
    cut = engine.search("fsdpp gradientz", None, 10)
    assert cut.partial and cut.suggestion is None


def test_spelling_runs_without_holding_the_index_turn(engine: SearchEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    held: list[bool] = []
    closest = Vocabulary.closest

    def watching(self: Vocabulary, word: str, *args: float) -> str | None:
        held.append(engine._lock.locked())  # another search could take its turn now
        return closest(self, word, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Vocabulary, "closest", watching)
    outcome = engine.search("rrsults", None, 10)
    assert held and not any(held)
    assert outcome.suggestion is not None and "results" in outcome.suggestion


def test_a_long_unknown_word_is_not_split_into_known_prefixes(engine: SearchEngine,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from app.search import clauses

    assert clauses._known_prefix(engine.lexical, "deepspeedxyz", clauses.SEARCH_FIELDS) == ["deepspeed"]
    looked: list[str] = []
    unknown = clauses._unknown
    monkeypatch.setattr(clauses, "_unknown", lambda index, term, fields: looked.append(term) or unknown(
        index, term, fields))
    assert clauses._known_prefix(engine.lexical, "a" * 4000, clauses.SEARCH_FIELDS) == []
    assert looked == []  # was a look-up per prefix: 4,000 of them, in the search's turn


def _reference_snippet(text: str, terms: list[str], width: int) -> str:
    """The snippet with its window found as before, every span counted against every later one; its edges
    cut as make_snippet cuts them (between words, URLs shortened)."""
    import html

    from app.search.analysis import term_spans
    from app.search.highlight import SCANNED_CHARS, URL, _marked, _short_url, _word_end, _word_start

    text = URL.sub(_short_url, text)
    spans = term_spans(text[:SCANNED_CHARS], terms)
    if not spans:
        end = _word_end(text, min(len(text), width)) or min(len(text), width)
        return html.escape(text[:end].rstrip()) + ("…" if len(text) > end else "")
    best_start, best_count = spans[0][0], 0
    for i, (start, _) in enumerate(spans):
        count = sum(1 for _, end in spans[i:] if end <= start + width)
        if count > best_count:
            best_start, best_count = start, count
    begin = min(_word_start(text, max(0, best_start - width // 4)), best_start)
    end = _word_end(text, min(len(text), begin + width))
    if end <= best_start:
        end = min(len(text), begin + width)
    excerpt = ("…" if begin > 0 else "") + _marked(text, spans, begin, end) + ("…" if end < len(text) else "")
    return " ".join(excerpt.split())


def test_the_snippet_is_the_window_with_most_matches_as_before_without_a_quadratic_count() -> None:
    import random

    from app.search.highlight import SNIPPET_CHARS, make_snippet

    rng = random.Random(3)
    words = ["cuda", "memory", "training", "the", "a", "显存", "不足", "device_map", "x" * 300]
    terms = ["cuda", "memori", "显存", "device_map", "x" * 300]
    for _ in range(300):
        text = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 400)))
        assert make_snippet(text, terms) == _reference_snippet(text, terms, SNIPPET_CHARS)


def test_a_snippet_looks_for_matches_only_near_the_start_of_a_huge_answer() -> None:
    from app.search.highlight import SCANNED_CHARS, make_snippet

    answer = "filler words. " * (SCANNED_CHARS // 14 + 1) + "the cuda answer " * 70_000  # a megabyte
    snippet = make_snippet(answer, ["cuda"])
    assert snippet.startswith("filler words.") and "<mark>" not in snippet and snippet.endswith("…")
    assert "<mark>cuda</mark>" in make_snippet("the cuda answer " * 70_000, ["cuda"])


def test_a_query_word_is_read_up_to_its_bound() -> None:
    from app.search.analysis import MAX_WORD_LENGTH, shorten_words

    path = "examples/sharding-jdbc-example/" * 7  # 217 characters: the longest word of the labelled queries
    assert shorten_words(path) == path
    assert shorten_words("a" * 4000) == "a" * MAX_WORD_LENGTH
    assert shorten_words("ａ" * 4000) == "ａ" * MAX_WORD_LENGTH  # full-width letters are letters too
    assert shorten_words("显" * 4000) == "显" * MAX_WORD_LENGTH
    assert shorten_words(f"CUDA {'a' * 300} 显存{'存' * 300}x") == f"CUDA {'a' * 256} 显存{'存' * 254}x"
    assert shorten_words(("a" * 256 + " ") * 15) == ("a" * 256 + " ") * 15


def test_a_search_reads_no_more_of_a_long_word_than_its_bound(engine: SearchEngine,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from app.search import ranking
    from app.search.analysis import MAX_WORD_LENGTH

    read: list[str] = []
    read_pasted = ranking.read_pasted
    monkeypatch.setattr(ranking, "read_pasted", lambda text: read.append(text) or read_pasted(text))
    for word in ("a" * 4000, "显" * 4000):
        assert engine.search(word, None, 10).total == 0
        assert read.pop() == word[:MAX_WORD_LENGTH]  # was the whole word, read by every pattern of the search
    long, cut = engine.search("CUDA " + "a" * 3990, None, 10), engine.search("CUDA " + "a" * 256, None, 10)
    assert long.total > 0 and long == cut
