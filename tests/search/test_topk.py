"""Top-k collection over arrays of postings gives Whoosh's own scores, order and totals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from whoosh import index as whoosh_index
from whoosh.query import And, ConstantScoreQuery, Or, Phrase, Query, Term
from whoosh.reading import SegmentReader
from whoosh.searching import Searcher

from app.config import Settings
from app.db import DataStore
from app.search import ranking as ranking_module
from app.search import topk as topk_module
from app.search.analysis import query_terms
from app.search.clauses import SEARCH_FIELDS, Thesaurus, build_clauses
from app.search.index import build_schema
from app.search.ranking import Budget, Outcome, _candidate_scores, lexical_search
from app.search.spelling import Vocabulary, count_words
from app.search.topk import LexicalIndex, TopK

QUERIES = ["CUDA out of memory", "显存 不足", "deepspeed 版本", "FSDP freeze layers", '"out of memory" error',
           "PYTORCH_CUDA_ALLOC_CONF", "how to install", "模型 训练 数据", "error"]


@pytest.fixture
def index(seeded: Settings) -> Iterator[LexicalIndex]:
    store = DataStore(seeded)
    try:
        yield store.current().search.lexical
    finally:
        store.close()


def _exhaustive(searcher: Searcher, query: Query, filter_query: Query | None) -> list[tuple[int, float]]:
    if filter_query is not None:
        query = And([query, ConstantScoreQuery(filter_query, 0.0)])
    return [(hit.docnum, hit.score) for hit in searcher.search(query, limit=None)]


def _assert_same(index: LexicalIndex, query: Query, limit: int, filter_query: Query | None = None) -> None:
    expected = _exhaustive(index.searcher, query, filter_query)
    top = TopK(index).top(query, limit, filter_query)
    assert top.total == len(expected), query
    assert top.docnums == [docnum for docnum, _ in expected[:limit]], query
    assert top.scores == pytest.approx([score for _, score in expected[:limit]], rel=1e-12), query


def test_the_best_entries_and_the_total_are_those_of_whooshs_exhaustive_search(index: LexicalIndex) -> None:
    for text in QUERIES:
        clauses, _ = build_clauses(index, text, Thesaurus(), SEARCH_FIELDS)
        for query in (And(clauses), Or(clauses)):
            for filter_query in (None, Term("lang", "zh")):
                _assert_same(index, query, 10, filter_query)
    errors = Or(build_clauses(index, "error", Thesaurus(), SEARCH_FIELDS)[0])
    assert len(_exhaustive(index.searcher, errors, None)) > 10


def _index(folder: Path, batches: list[list[str]]) -> LexicalIndex:
    """An index of one-field entries, a segment per batch (no merging), so entry numbers span segments."""
    folder.mkdir()
    ix = whoosh_index.create_in(str(folder), build_schema())
    for batch in batches:
        writer = ix.writer()
        for n, text in enumerate(batch):
            writer.add_document(id=f"{len(batch)}-{n}-{text[:8]}", document_id="d", lang="en", title=text, body=text)
        writer.commit(merge=False)
    return LexicalIndex(ix.searcher())


def test_segments_and_deleted_entries_are_scored_like_whoosh(tmp_path: Path) -> None:
    index = _index(tmp_path / "ix", [["cuda memory error", "cuda error", "memory"],
                                     ["cuda cuda memory", "error", "cuda memory memory error"]])
    assert len(index.searcher.leaf_searchers()) == 2
    memory = query_terms("memory")[0]
    query = Or([Term("title", "cuda"), Term("body", memory), Term("title", "error", boost=2.0)])
    _assert_same(index, query, 3)
    ix = whoosh_index.open_dir(str(tmp_path / "ix"))
    with ix.writer() as deleting:
        deleting.delete_document(1)
    _assert_same(LexicalIndex(ix.searcher()), query, 3)
    _assert_same(LexicalIndex(ix.searcher()), And([Term("title", "cuda"), Term("title", "error")]), 3)


def test_equal_scores_keep_whooshs_order_lower_entry_first(tmp_path: Path) -> None:
    index = _index(tmp_path / "ix", [["cuda error"] * 5 + ["cuda"] * 5])
    top = TopK(index).top(Term("title", "cuda"), 7)
    assert top.docnums == [5, 6, 7, 8, 9, 0, 1]
    _assert_same(index, Term("title", "cuda"), 7)


def test_terms_reached_after_the_deadline_match_nothing_and_say_so(index: LexicalIndex) -> None:
    late = TopK(index, deadline=0.0)
    assert late.top(Term("body", "cuda"), 10).total == 0
    assert late.exhausted
    on_time = TopK(index)
    assert on_time.top(Term("body", "cuda"), 10).total > 0
    assert not on_time.exhausted


def test_a_searchers_arrays_go_with_it(tmp_path: Path) -> None:
    import gc
    import weakref

    index = _index(tmp_path / "ix", [["cuda memory", "cuda"]])
    assert TopK(index).top(Term("title", "cuda"), 1).total == 2
    searcher, arrays = weakref.ref(index.searcher), weakref.ref(index)
    index.searcher.close()
    del index
    gc.collect()
    assert searcher() is None and arrays() is None  # nothing else keeps a generation's arrays


def test_phrases_scored_for_candidates_sum_to_whooshs_union_and_stop_at_the_deadline(tmp_path: Path) -> None:
    index = _index(tmp_path / "ix", [["cuda out of memory", "out of memory cuda", "cuda memory"],
                                     ["memory out of cuda", "of memory out", "out of memory out of memory"]])
    searcher = index.searcher
    phrases = Or([Phrase(field, words, boost=boost) for field in SEARCH_FIELDS
                  for words, boost in ((["out", "of"], 1.0), (["of", "memori"], 2.0), (["cuda", "memori"], 0.5))])
    everyone = list(range(searcher.doc_count_all()))
    union = dict(_exhaustive(searcher, phrases, None))
    assert len(union) >= 4
    assert _candidate_scores(searcher, phrases, everyone, TopK(index)) == pytest.approx(union, rel=1e-12)
    assert _candidate_scores(searcher, phrases, everyone[:2], TopK(index)) == pytest.approx(
        {d: s for d, s in union.items() if d < 2}, rel=1e-12)
    late = TopK(index, deadline=0.0)
    assert _candidate_scores(searcher, phrases, everyone, late) == {} and late.exhausted


def test_a_search_says_how_much_of_the_query_its_best_match_holds(index: LexicalIndex) -> None:
    def coverage(text: str) -> float:
        return lexical_search(index, text, None, 10, Thesaurus(), Vocabulary({}), None, Budget()).coverage

    assert coverage("CUDA out of memory") == 1.0  # an entry holds every word
    assert coverage("FSDP") == 1.0
    # Each word is held, never together: the best match holds a part, weighed by how rare its words are.
    assert 0.0 < coverage("nccl timeout kubernetes") < 1.0
    assert 0.0 < coverage("显存 不足 tokenizer") < 1.0


def test_one_budget_serves_the_whole_request_spelling_correction_included(
        index: LexicalIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    budgets: list[Budget] = []
    real_run = ranking_module._run

    def run(*args: object, **kwargs: object) -> Outcome:
        budgets.append(next(a for a in args if isinstance(a, Budget)))
        return real_run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ranking_module, "_run", run)
    vocabulary = Vocabulary(count_words(["deepspeed deepspeed deepspeed zero"]))
    outcome = lexical_search(index, "deepsped", None, 10, Thesaurus(), vocabulary, None, Budget())
    assert outcome.suggestion == "deepspeed" and len(budgets) == 2 and budgets[0] is budgets[1]

    budgets.clear()
    spent = Budget(-1.0)  # spent before it starts: no second search
    outcome = lexical_search(index, "deepsped", None, 10, Thesaurus(), vocabulary, None, spent)
    assert len(budgets) == 1 and outcome.partial


def test_a_phrase_reached_after_the_deadline_is_not_started_and_a_phrase_quoted_twice_counts_once(
        index: LexicalIndex) -> None:
    phrase = Phrase("body", query_terms("out of memory"))
    assert TopK(index).matches(phrase).any()
    late = TopK(index, deadline=0.0)
    assert not late.matches(phrase).any() and late.exhausted
    # Phrases have a share of the budget of their own: past it they stop, the words go on.
    phrases_spent = TopK(index, phrase_seconds=0.0)
    assert not phrases_spent.matches(phrase).any() and phrases_spent.exhausted
    assert phrases_spent.matches(Term("body", "cuda")).any()
    once, _ = build_clauses(index, '"out of memory" cuda', Thesaurus(), SEARCH_FIELDS)
    twice, _ = build_clauses(index, '"out of memory" "out of memory" cuda', Thesaurus(), SEARCH_FIELDS)
    assert len(twice) == len(once) == 2


def test_entry_counts_are_whooshs_read_once_and_a_stream_of_new_words_cannot_grow_them_for_ever(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index(tmp_path / "ix", [["cuda memory error", "cuda error"], ["cuda", "memory"]])
    searcher = index.searcher
    for word in ("cuda", "error", "memory", "absent"):
        assert index.frequency("title", word) == searcher.doc_frequency("title", word)
    lookups: list[str] = []
    monkeypatch.setattr(searcher, "doc_frequency", lambda _field, text: lookups.append(text) or 0)
    assert index.frequency("title", "cuda") == 3  # kept: Whoosh is not asked again
    assert lookups == []
    monkeypatch.setattr(topk_module, "CACHED_FREQUENCIES", 10)
    for n in range(100):
        index.frequency("title", f"word{n}")
    assert len(index._frequencies) == 10
    assert index.frequency("title", "word99") == 0 and lookups[-1] == "word99"  # the newest stay
    assert index.frequency("title", "cuda") == 0  # the oldest went: asked again


def test_made_up_words_keep_only_their_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index(tmp_path / "ix", [["cuda memory error", "cuda error"]])
    queries = [Or([Term("title", f"made{n}up"), Term("title", "cuda")]) for n in range(50)]
    for query in queries:
        assert TopK(index).top(query, 10).total == 2
    assert list(index._terms) == [("title", "cuda")]
    lookups: list[object] = []
    holds = SegmentReader.__contains__

    def looked_up(reader: SegmentReader, term: object) -> bool:
        lookups.append(term)
        return bool(holds(reader, term))

    monkeypatch.setattr(SegmentReader, "__contains__", looked_up)
    monkeypatch.setattr(index.searcher, "doc_frequency", lambda _field, text: lookups.append(text) or 0)
    for query in queries:  # the same words again: known to be unknown, so the index is not asked
        assert TopK(index).top(query, 10).total == 2
    assert lookups == []
