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
