"""The lexicon mined from translation pairs, and search across languages with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ingest.dictionary import dictionary_lexicon, technical_lexicon
from app.ingest.lexicon import mine_lexicon
from app.ingest.pipeline import run_ingest
from app.search.analysis import query_terms
from app.search.clauses import Thesaurus
from app.search.ranking import ISSUE_TEMPLATE
from app.web.inprocess import InProcessClient
from tests.conftest import settings_for

PAIRS = [
    ("Out of memory when training with deepspeed", "使用 deepspeed 训练时显存不足"),
    ("How much memory does inference need?", "推理需要多少显存？"),
    ("Reduce memory with gradient checkpointing", "用梯度检查点减少显存"),
    ("The tokenizer cannot be loaded", "分词器无法加载"),
    ("Loading the tokenizer is slow", "加载分词器很慢"),
    ("Where is the cache folder?", "缓存目录在哪里？"),
]


def test_words_that_keep_meeting_in_pairs_are_mined() -> None:
    groups = mine_lexicon(PAIRS)
    assert ["memory", "显存"] in groups
    assert ["tokenizer", "分词器"] in groups
    assert not any("deepspeed" in group for group in groups)  # shared by both texts: not a translation
    assert not any("缓存" in group for group in groups)  # one pair is chance


def test_mining_nothing_gives_nothing() -> None:
    assert mine_lexicon([]) == []


def _write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


def test_an_english_query_finds_a_chinese_only_answer_through_mined_pairs(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    english = "\n\n".join(f"## {en}\n\nAnswer number {k}: see the `step{k}` option." for k, (en, _) in enumerate(PAIRS))
    chinese = "\n\n".join(f"## {zh}\n\n第{k}个回答：请看 `step{k}` 选项。" for k, (_, zh) in enumerate(PAIRS))
    _write(content, "faq.en.md", "# FAQ\n\n" + english)
    _write(content, "faq.zh.md", "# 常见问题\n\n" + chinese)
    _write(content, "notes.zh.md", "# 笔记\n\n## 多卡推理时显存占用不均衡怎么办？\n\n调整 `device_map` 参数。\n")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    from app.main import create_app

    with InProcessClient(create_app(settings)) as client:
        hits = client.get("/api/v1/search", params={"q": "uneven memory usage", "lang": "zh"}).json()["results"]
    # No Chinese entry holds an English word of the query: only the mined memory ~ 显存 reaches them.
    assert "多卡推理时显存占用不均衡怎么办？" in [hit["title"] for hit in hits]


def test_chinese_query_terms_stay_inside_words() -> None:
    terms = query_terms("安装官方给的flash-attention装不上什么原因")
    assert "原因" in terms and "安装" in terms
    assert "么原" not in terms and "方给" not in terms  # across two words: an accident of the sentence


def test_issue_template_prefixes_are_not_searched() -> None:
    assert ISSUE_TEMPLATE.sub("", "[Bug]: Qwen3 模型推理结果不确定").strip() == "Qwen3 模型推理结果不确定"
    assert ISSUE_TEMPLATE.sub("", "[BUG] <title>lora微调后报错").strip() == "lora微调后报错"
    assert ISSUE_TEMPLATE.sub("", "help request: discovery nacos support https?").strip() == \
        "discovery nacos support https?"
    assert ISSUE_TEMPLATE.sub("", "Bug in the tokenizer") == "Bug in the tokenizer"


def test_the_dictionary_keeps_words_the_entries_use_in_both_languages() -> None:
    groups = dictionary_lexicon(["超时了怎么办？冻结参数", "The request hits a timeout; freeze the parameters"])
    assert ["超时", "timeout"] in groups  # "overtime", CEDICT's first sense, occurs in no entry
    assert ["冻结", "freeze"] in groups
    assert not any("显存" in group for group in groups)  # no entry says it


def test_an_english_query_reaches_a_chinese_answer_with_no_translation_pair_at_all(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    _write(content, "train.zh.md", "# 训练\n\n## 如何冻结部分网络层？\n\n把这些层的 `trainable` 设为 `False`。\n\n"
           + "".join(f"## 第{k}步为什么失败？\n\n重试第{k}步。\n\n" for k in range(30)))
    _write(content, "notes.en.md", "# Notes\n\n## Can I freeze the encoder?\n\nNo: freeze is not supported.\n")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    from app.main import create_app

    with InProcessClient(create_app(settings)) as client:
        hits = client.get("/api/v1/search", params={"q": "freeze network layers", "lang": "zh"}).json()["results"]
    assert [hit["title"] for hit in hits][:1] == ["如何冻结部分网络层？"]


def test_a_chinese_query_reaches_an_english_answer_through_words_no_entry_writes(tmp_path: Path) -> None:
    english = ["The request hits a timeout; please retry it.", "The machine is an apparatus."]
    groups = dictionary_lexicon(english)
    assert ["重试", "retry"] in groups  # no entry writes 重试; the English ones write its sense
    # Its commonest sense alone: "machine" must not reach "apparatus" through a Chinese word no entry holds.
    assert not any("machine" in group and "apparatus" in group for group in groups)
    page = "# Uploads\n\n## Can I retry a failed upload?\n\nYes: run `up --again`.\n\n" + "".join(
        f"## Why does step {k} fail?\n\nCheck the log of step {k}.\n\n" for k in range(30))
    assert _best_by_words(tmp_path, page, "怎么重试") == "Can I retry a failed upload?"


def _best_by_words(tmp_path: Path, english_page: str, query: str) -> str:
    """The title of the best entry by words for `query` over one English page."""
    content = tmp_path / "content"
    content.mkdir()
    _write(content, "page.en.md", english_page)
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    from app.main import create_app

    with InProcessClient(create_app(settings)) as client:
        hits = client.get("/api/v1/search", params={"q": query, "mode": "lexical"}).json()["results"]
    return str(hits[0]["title"]) if hits else ""


def test_a_sense_the_entries_use_counts_however_far_down_the_dictionary_lists_it() -> None:
    # CC-CEDICT lists 粘贴 as "to stick", "to affix", "to adhere", then "to paste (as in "copy and paste")".
    assert ["粘贴", "paste"] in dictionary_lexicon(["Copy and paste does not work"])  # from a Chinese query
    groups = dictionary_lexicon(["无法粘贴图片", "Images cannot be pasted"])
    assert any(group[0] == "粘贴" and "paste" in group for group in groups)  # both languages hold it


def test_the_technical_lexicon_knows_senses_the_dictionary_lacks(tmp_path: Path) -> None:
    assert ("crash", "崩溃") in technical_lexicon()  # CC-CEDICT: "to collapse; to crumble; to fall apart"
    assert ["崩溃", "crash"] in dictionary_lexicon(["VNote crashes when opening a note"])
    page = "# App\n\n## VNote crashes when opening a note\n\nDelete the session file.\n\n" + "".join(
        f"## How do I set option {k}?\n\nSee the settings page, section {k}.\n\n" for k in range(30))
    assert _best_by_words(tmp_path, page, "打开笔记时程序崩溃") == "VNote crashes when opening a note"


def test_the_shipped_lexicon_keeps_only_words_that_pair_across_projects() -> None:
    from measure.technical_lexicon import projects_teaching, taught_words

    pairs = [("genome", "Contigs are too short", "染色体的 contig 太短"), ("genome", "Contig order", "染色体排序"),
             ("app", "The app crashes on start", "应用启动时崩溃"), ("editor", "VNote crashes", "VNote 崩溃了")]
    taught = taught_words(pairs)
    assert projects_teaching(["crashes", "崩溃"], taught) == {"app", "editor"}
    assert projects_teaching(["contig", "染色体"], taught) == {"genome"}  # one project's subject, not a translation


def test_the_thesaurus_finds_chinese_as_written_and_other_phrases_by_all_their_stems() -> None:
    thesaurus = Thesaurus([([["memory fragmentation", "内存碎片"], ["显存", "GPU memory"]], 0.5)])
    found = thesaurus.mentioned("训练时内存碎片很多", [])
    assert [phrase for phrase, _, _ in found] == ["内存碎片"]
    stems = query_terms("fragmentation of the memory")
    assert [phrase for phrase, _, _ in thesaurus.mentioned("", stems)] == ["memory fragmentation"]
    assert thesaurus.mentioned("", query_terms("memory")) == []  # "GPU memory" needs both words


def test_the_thesaurus_names_phrases_in_the_order_of_the_query_not_of_a_set() -> None:
    """The same query builds the same clauses in every process: no set's order, which changes with PYTHONHASHSEED."""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    thesaurus = Thesaurus([([[f"{word} cluster", f"集群{k}"] for k, word in enumerate(reversed(words))], 0.5)])
    query = " ".join(f"{word} cluster" for word in words)
    found = [phrase for phrase, _, _ in thesaurus.mentioned("", query_terms(query))]
    assert found == [f"{word} cluster" for word in words]


def test_of_two_equal_phrases_the_one_the_query_writes_together_wins(tmp_path: Path) -> None:
    """In "not work for new consumer group", "group" goes with "consumer" (side by side), not with "work"."""
    content = tmp_path / "content"
    content.mkdir()
    _write(content, "glossary.tsv", "工作组\twork group\n消费者组\tconsumer group\n")
    _write(content, "faq.zh.md", "# 常见问题\n\n## 工作组如何配置？\n\n在控制台设置。\n\n"
                                 "## 新的消费者组从哪里开始消费？\n\n从最后的位置。\n")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    from app.main import create_app

    with InProcessClient(create_app(settings)) as client:
        hits = client.get("/api/v1/search", params={"q": "offset not work for new consumer group",
                                                    "mode": "lexical"}).json()["results"]
    assert hits and hits[0]["title"] == "新的消费者组从哪里开始消费？"


def test_an_equivalent_found_in_most_entries_is_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import app.search.clauses as clauses

    content = tmp_path / "content"
    content.mkdir()
    _write(content, "glossary.tsv", "模型\tmodel\n冻结\tfreeze\n")
    _write(content, "models.en.md", "# Models\n\n" + "".join(
        f"## How do I load model {k}?\n\nCall `load({k})`.\n\n" for k in range(12)) + "## Can I freeze it?\n\nYes.\n")
    _write(content, "faq.zh.md", "# 常见问题\n\n## 模型如何冻结？\n\n设置 `trainable`。\n")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    monkeypatch.setattr(clauses, "EQUIVALENT_MIN_LIMIT", 5)  # as if 14 entries were a large portal
    from app.main import create_app

    with InProcessClient(create_app(settings)) as client:
        hits = client.get("/api/v1/search", params={"q": "模型 冻结", "lang": "en"}).json()["results"]
    # "model" is in 12 of 14 entries: dropped; "freeze" is rare: kept, and it finds its entry.
    assert [hit["title"] for hit in hits] == ["Can I freeze it?"]


def test_a_chinese_run_repeated_across_pairs_is_cut_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mining cuts each distinct Han run once, and mines what cutting every occurrence mined."""
    import jieba

    from app.ingest import lexicon

    repeated = [(english, f"{chinese}。请检查配置文件。") for english, chinese in PAIRS * 3]
    with monkeypatch.context() as uncached:
        uncached.setattr(lexicon, "_run_words", lexicon._run_words.__wrapped__)
        expected = mine_lexicon(repeated)
    cut: list[str] = []
    real = jieba.tokenize
    monkeypatch.setattr(jieba, "tokenize", lambda run, *args, **kwargs: cut.append(run) or real(run, *args, **kwargs))
    lexicon._run_words.cache_clear()
    assert mine_lexicon(repeated) == expected
    assert cut and len(cut) == len(set(cut)) and "请检查配置文件" in cut


def test_a_sense_far_down_the_dictionary_counts_only_when_it_names_something() -> None:
    # 不足 is "insufficient", "lacking", "deficiency" … then "not worth", "cannot": words half the entries use.
    groups = dictionary_lexicon(["显存不足怎么办？", "The model cannot load: memory is not worth the cost"])
    assert not any(group[0] == "不足" and ("cannot" in group or "not worth" in group) for group in groups)
