"""The bilingual analyzer, token by token."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.search.analysis import (
    HAN,
    TOKEN_PATTERN,
    BilingualTokenizer,
    analyse,
    identifier_words,
    merged_spans,
    normalise,
    query_terms,
    stem,
    term_spans,
)


def texts(value: str) -> list[tuple[str, int]]:
    return [(t.text, t.position) for t in analyse(value)]


def test_analyse_splits_chinese_into_bigrams_and_dictionary_words() -> None:
    terms = texts("内存碎片化")
    assert ("内存", 0) in terms and ("存碎", 1) in terms and ("碎片", 2) in terms and ("片化", 3) in terms
    # a word from the middle of the sentence is found as a bigram
    assert "碎片" in query_terms("碎片")


def test_analyse_keeps_identifiers_whole_and_by_parts_at_consecutive_positions() -> None:
    terms = texts("PYTORCH_CUDA_ALLOC_CONF next")
    assert terms[0] == ("pytorch_cuda_alloc_conf", 0)
    assert terms[1:5] == [("pytorch", 0), ("cuda", 1), ("alloc", 2), ("conf", 3)]
    assert terms[5] == ("next", 4)


def test_analyse_splits_camel_case_and_dotted_names() -> None:
    terms = [t for t, _ in texts("torch.cuda.OutOfMemoryError")]
    assert terms[0] == "torch.cuda.outofmemoryerror"
    assert {"torch", "cuda", "out", "memori", "error"} <= set(terms)


def test_analyse_stems_english_words() -> None:
    assert [t for t, _ in texts("fragmentations checkpointing")] == ["fragment", "checkpoint"]


def test_normalise_folds_full_width_case_and_traditional_chinese() -> None:
    norm, offsets = normalise("ＣＵＤＡ顯存不足")
    assert norm == "cuda显存不足"
    assert len(offsets) == len(norm)
    assert query_terms("顯存") == query_terms("显存") == ["显存"]


def test_query_terms_drop_stop_words_unless_nothing_else_is_left() -> None:
    assert query_terms("how does one use the tokenizer") == ["one", "use", "token"]  # stems
    assert query_terms("the") == ["the"]


def test_query_terms_drop_chinese_question_words_as_english_ones_are_dropped() -> None:
    # "why" is a stop word; 为什么 is too, or its bigrams outweigh the words that say what failed.
    assert query_terms("nginx配置完成也无法流式是为什么？") == ["nginx", "配置", "完成", "无法", "流式"]
    assert query_terms("如何 什么是代理") == ["代理"]
    assert query_terms("为什么") == ["为什", "什么"]  # nothing else: kept
    # A lone particle between English words is a term of its own in the index: not one worth matching.
    assert query_terms("可以只微调llama layers吗?") == ["微调", "llama", "layer"]
    assert query_terms("lora的weights") == ["lora", "weight"]


def test_tokenizer_reports_character_offsets_of_the_source_text() -> None:
    value = "报错 ＯＯＭ"
    tokens = [(t.text, value[t.startchar:t.endchar]) for t in BilingualTokenizer()(value, chars=True)]
    assert tokens == [("报错", "报错"), ("oom", "ＯＯＭ")]


def test_term_spans_find_stems_identifiers_bigrams_and_lone_characters_where_the_index_would() -> None:
    text = "我 Connections fail; 我们 set PYTORCH_CUDA_ALLOC_CONF, ＯＯＭ 显存不足"
    spans = term_spans(text, ["connect", "pytorch_cuda_alloc_conf", "oom", "存不", "我"])
    assert [text[a:b] for a, b in spans] == ["我", "Connections", "PYTORCH_CUDA_ALLOC_CONF", "ＯＯＭ", "存不"]


def test_normalise_keeps_offsets_right_when_a_character_folds_to_several() -> None:
    text = "ﬁle 報錯 ß"
    norm, offsets = normalise(text)
    assert norm == "file 报错 ss"
    assert [text[offsets[i]] for i in (0, 1, 2, 5, 8, 9)] == ["ﬁ", "ﬁ", "l", "報", "ß", "ß"]


def test_identifier_words_split_camel_case_and_separators_into_stems() -> None:
    words = identifier_words("无法指定 AllowPublicKeyRetrieval=True max_length plain")
    assert words == {"allowpublickeyretrieval": ["allow", "public", "key", "retriev"], "max_length": ["max", "length"]}


def test_a_qualified_names_words_are_those_of_its_last_name() -> None:
    words = identifier_words("java.net.SocketTimeoutException swift.llm.MaxLengthError libnccl.so.2")
    assert words["java.net.sockettimeoutexception"] == ["socket", "timeout", "except"]
    assert words["swift.llm.maxlengtherror"] == ["max", "length", "error"]
    assert words["libnccl.so.2"] == ["libnccl", "so", "2"]  # no last name of two words: all its parts


def test_inflections_of_one_word_share_a_stem() -> None:
    # Whoosh's Porter kept these apart (runn/run, generat/gener, deserializ/deseri, evaluat/evalu).
    for forms in (("running", "runs"), ("generating", "generate"), ("deserializing", "deserialize"),
                  ("evaluating", "evaluation"), ("normalizing", "normalize")):
        assert len({term for form in forms for term in query_terms(form)}) == 1, forms


def _spans_by_tokenizing(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """term_spans' rule written the slow, plain way: every token of the text, checked one by one."""
    wanted = set(terms)
    norm, offsets = normalise(text)
    found: list[tuple[int, int]] = []
    for match in TOKEN_PATTERN.finditer(norm):
        start, end = match.span()
        if match.lastgroup == "han":
            if match.group() in wanted:
                found.append((start, end))
            for term in (t for t in wanted if len(t) > 1 and HAN.fullmatch(t)):
                found.extend((start + i, start + i + len(term)) for i in range(len(match.group()))
                             if match.group().startswith(term, i))
        elif match.group() in wanted or stem(match.group()) in wanted:
            found.append((start, end))
    return merged_spans(found, offsets)


TRICKY = "aAbcCdgin.-_/+ 0129我们显存不足報錯ＯＯＭﬁß\n"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=TRICKY, max_size=60),
       terms=st.lists(st.sampled_from(["a", "b.c", "connect", "din", "我", "存不", "显存不", "oom", "file", "ss", "9",
                                       "a-b", "c/d"]), min_size=1, max_size=4))
@example(text="c.a b..b", terms=["b"])  # `c.a` is one word; `b` after `..` starts one
@example(text="c.a", terms=["a"])
def test_term_spans_find_what_tokenizing_every_word_finds(text: str, terms: list[str]) -> None:
    assert term_spans(text, terms) == _spans_by_tokenizing(text, terms)
