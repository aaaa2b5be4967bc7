"""Document pairing and entry alignment: names, metadata, content, overrides and bad input."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from app.ingest.align import AlignableEntry, Alignment, align_entries, language_neutral_name
from app.ingest.glossary import read_glossary
from app.ingest.links import parse_link_rules
from app.ingest.pipeline import IngestReport, ReadDocument, link_documents, read_documents
from tests.conftest import CONTENT, require, require_model

GLOSSARY = read_glossary(CONTENT)[0]
HEADING = re.compile(r"^(#{2,6}) ", re.MULTILINE)


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def _align(folder: Path, links: str = "") -> tuple[list[ReadDocument], Alignment]:
    documents = read_documents(folder, IngestReport())
    rules, warnings = parse_link_rules(links)
    assert not warnings
    return documents, link_documents(documents, GLOSSARY, rules).alignment


def _questions(documents: list[ReadDocument], alignment: Alignment) -> set[tuple[str, str]]:
    question = {i: e.question for d in documents for i, e in zip(d.entry_ids, d.entries, strict=True)}
    return {(question[p.first], question[p.second]) for p in alignment.entries}


def _paths(documents: list[ReadDocument], alignment: Alignment) -> set[frozenset[str]]:
    path = {d.id: d.source.relative_path for d in documents}
    return {frozenset((path[p.first], path[p.second])) for p in alignment.documents}


EN = """# FAQ

## How do I install it?

Run `pip install demo-kit==1.2.0` first.

## Why do I run out of GPU memory?

Set `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` before training.

## Where are the logs?

See `/var/log/demo-kit/train.log` and https://example.org/demo/logs.
"""
ZH = """# 常见问题

## 如何安装？

先运行 `pip install demo-kit==1.2.0`。

## 为什么显存不够？

训练前设置 `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`。

## 日志在哪里？

见 `/var/log/demo-kit/train.log` 和 https://example.org/demo/logs。
"""


@pytest.mark.parametrize(("first", "second"), [
    ("faq.md", "faq.zh.md"), ("FAQ.md", "FAQ_zh.md"), ("en/x.md", "zh_cn/x.md"),
    ("docs/source_en/q.md", "docs/source/q.md"), ("guide.en.md", "guide.zh-CN.md"),
    ("docs/faq.md", "docs/cn/faq.md"), ("docs/faq/README.md", "docs/zh/faq/README.md"),
])
def test_naming_conventions_agree_once_the_language_marker_is_gone(first: str, second: str) -> None:
    assert language_neutral_name(first) == language_neutral_name(second)


def test_file_names_pair_documents_and_anchors_pair_entries(tmp_path: Path) -> None:
    documents, alignment = _align(_write(tmp_path, {"en/faq.md": EN, "zh/faq.md": ZH}))
    assert [p.method for p in alignment.documents] == ["file-name"]
    assert _questions(documents, alignment) == {
        ("How do I install it?", "如何安装？"), ("Why do I run out of GPU memory?", "为什么显存不够？"),
        ("Where are the logs?", "日志在哪里？")}


def test_entries_sharing_one_anchor_each_do_not_make_two_documents_translations() -> None:
    # eval/wild: Real-ESRGAN's English FAQ and jieba's Chinese README, both with no translation, share one
    # anchor per entry pair (the glossary's "model", the word `add`): on shared anchors alone both pairs are
    # perfect, and the documents scored 0.5, over the 0.35 that content pairing asks.
    from app.ingest.align import AlignableDocument, pair_documents

    def document(name: str, lang: str, anchors: list[set[str]]) -> AlignableDocument:
        return AlignableDocument(id=name, path=f"{name}.md", lang=lang, entries=[
            AlignableEntry(f"{name}-{k}", frozenset(found)) for k, found in enumerate(anchors)])

    chance = pair_documents([document("esrgan", "en", [{"gloss:26", "word:select"}, {"word:add", "word:fp32"}]),
                             document("jieba", "zh", [{"gloss:26", "word:hmm"}, {"word:add", "word:dict"}])])
    assert chance.documents == []
    evidence = pair_documents([document("faq", "en", [{"gloss:26", "code:--fp32", "word:half"}, {"word:add"}]),
                               document("wenda", "zh", [{"gloss:26", "code:--fp32", "word:dict"}, {"word:add"}])])
    assert [(d.first, d.second, d.method) for d in evidence.documents] == [("faq", "wenda", "content")]


def test_content_alone_pairs_documents_with_meaningless_names(tmp_path: Path) -> None:
    other = "# 其他\n\n## 怎么重启服务？\n\n执行 `systemctl restart portal`。\n"
    documents, alignment = _align(_write(tmp_path, {"a.md": EN, "b.md": other, "c.md": ZH}))
    assert _paths(documents, alignment) == {frozenset({"a.md", "c.md"})}
    assert alignment.documents[0].method == "content"
    assert len(alignment.entries) == 3
    assert ("b.md", "no translation found (zh only)") in alignment.notices


def test_entries_sharing_nothing_are_never_paired_even_in_equal_numbers(tmp_path: Path) -> None:
    zh = "# 常见问题\n\n## 天气如何？\n\n今天晴朗。\n\n## 午饭吃什么？\n\n面条。\n\n## 几点下班？\n\n六点。\n"
    _documents, alignment = _align(_write(tmp_path, {"faq.en.md": EN, "faq.zh.md": zh}))
    assert len(alignment.documents) == 1  # the names say they are translations …
    assert alignment.entries == []  # … but no entry shares any evidence with another


def test_front_matter_pairs_documents_whatever_their_names(tmp_path: Path) -> None:
    zh = "---\ntranslation_of: guide.md\n---\n" + ZH
    _documents, alignment = _align(_write(tmp_path, {"guide.md": EN, "zhinan.md": zh}))
    assert [p.method for p in alignment.documents] == ["front-matter"]
    assert len(alignment.entries) == 3


def test_links_file_forces_and_forbids_pairs(tmp_path: Path) -> None:
    folder = _write(tmp_path, {"faq.en.md": EN, "faq.zh.md": ZH, "notes.md": EN.replace("# FAQ", "# Notes")})
    documents, alignment = _align(folder, "unpair\tfaq.en.md\tfaq.zh.md\npair\tnotes.md\tfaq.zh.md\n")
    assert _paths(documents, alignment) == {frozenset({"notes.md", "faq.zh.md"})}
    assert alignment.documents[0].method == "links.tsv"
    ids = {e.question: i for d in documents if d.source.relative_path != "notes.md"
           for i, e in zip(d.entry_ids, d.entries, strict=True)}
    rules = (f"unpair\t{ids['Where are the logs?']}\t{ids['日志在哪里？']}\n"
             f"pair\t{ids['How do I install it?']}\t{ids['日志在哪里？']}\n")
    documents, alignment = _align(_write(tmp_path / "two", {"faq.en.md": EN, "faq.zh.md": ZH}), rules)
    pairs = _questions(documents, alignment)
    assert ("How do I install it?", "日志在哪里？") in pairs
    assert ("Where are the logs?", "日志在哪里？") not in pairs
    assert all(q != "How do I install it?" or a == "日志在哪里？" for q, a in pairs)


def test_links_file_lines_that_are_not_rules_are_reported() -> None:
    rules, warnings = parse_link_rules("# comment\npair\ta.md\nlink\ta.md\tb.md\npair\ta.md\tb.md\n")
    assert rules.force == [("a.md", "b.md")]
    assert [w.split(":")[0] for w in warnings] == ["line 2", "line 3"]


def test_bad_metadata_is_reported_and_the_rest_still_links(tmp_path: Path) -> None:
    files = {
        "faq.en.md": EN, "faq.zh.md": "---\ntranslation_of: faq.en.md\n---\n" + ZH,
        "copy.zh.md": "---\ntranslation_of: faq.en.md\n---\n" + ZH,  # two claim the same original
        "lost.zh.md": "---\ntranslation_of: nowhere.md\n---\n# 孤立\n\n## 问题？\n\n答案。\n",
        "a.md": "---\ntranslation_of: b.md\nlang: en\n---\n# A\n",
        "b.md": "---\ntranslation_of: c.md\nlang: zh\n---\n# B\n",
        "c.md": "---\ntranslation_of: a.md\nlang: en\n---\n# C\n",  # a cycle of three
        "empty.md": "",
    }
    documents, alignment = _align(_write(tmp_path, files))
    assert frozenset({"copy.zh.md", "faq.en.md"}) in _paths(documents, alignment)
    problems = "\n".join(f"{path}: {message}" for path, message in alignment.problems)
    assert "faq.zh.md: faq.zh.md ↔ faq.en.md: faq.en.md is already paired with copy.zh.md" in problems
    assert "lost.zh.md: translation_of: no document 'nowhere.md'" in problems
    assert "cycle" in problems
    assert len(alignment.entries) == 3  # the pair that was made still aligns its entries
    report = IngestReport()
    read_documents(tmp_path, report)
    assert ("empty.md", "the file is empty") in report.skipped


def test_same_language_pairs_are_refused(tmp_path: Path) -> None:
    _documents, alignment = _align(_write(tmp_path, {"a.md": EN, "b.md": "---\ntranslation_of: a.md\n---\n" + EN}))
    assert alignment.documents == []
    assert "both are en" in alignment.problems[0][1]


def _opencompass(shared: Path) -> tuple[str, str]:
    folder = require(shared / "corpus" / "real" / "opencompass", "the real corpus")
    return ((folder / "en" / "faq.md").read_text(encoding="utf-8"),
            (folder / "zh_cn" / "faq.md").read_text(encoding="utf-8"))


def _entries(markdown: str) -> tuple[str, list[str]]:
    """A document cut into its preamble and its `###` question blocks."""
    parts = re.split(r"(?m)^(?=### )", markdown)
    return parts[0], parts[1:]


def test_alignment_survives_deleted_inserted_and_moved_entries(tmp_path: Path, shared: Path) -> None:
    en, zh = _opencompass(shared)
    head, blocks = _entries(zh)
    deleted = [b for k, b in enumerate(blocks) if k not in {1, 6}]  # two translations gone
    moved = [*deleted[1:], deleted[0]]  # the first entry now comes last
    inserted = [*moved[:3], "### 如何升级到最新版本？\n\n运行 `git pull` 然后重新安装。\n\n", *moved[3:]]
    folder = _write(tmp_path, {"en/faq.md": en, "zh_cn/faq.md": head + "".join(inserted)})
    documents, alignment = _align(folder)
    pairs = _questions(documents, alignment)
    gold_rows = (shared / "corpus" / "real" / "opencompass" / "pairs.tsv").read_text(encoding="utf-8").splitlines()[1:]
    gold = {(row.split("\t")[1], row.split("\t")[3]) for row in gold_rows}
    assert pairs <= gold  # nothing wrong: not the inserted entry, not the orphans of the deleted ones
    removed = {HEADING.sub("", blocks[k].splitlines()[0]) for k in (1, 6)}
    expected = {pair for pair in gold if pair[1] not in removed}
    assert len(pairs) >= len(expected) - 1
    first_question = blocks[0].splitlines()[0].removeprefix("### ")
    assert any(zh_question == first_question for _, zh_question in pairs)  # the moved entry
    # Pairs found by order or by a move are listed for an editor, with both questions.
    assert any("low-confidence pair (moved" in message and "↔" in message for _, message in alignment.review)


def test_repeated_or_same_language_entry_rules_are_reported_not_fatal(tmp_path: Path) -> None:
    folder = _write(tmp_path, {"faq.en.md": EN, "faq.zh.md": ZH})
    documents = read_documents(folder, IngestReport())
    ids = {e.question: i for d in documents for i, e in zip(d.entry_ids, d.entries, strict=True)}
    install, logs, zh_logs = ids["How do I install it?"], ids["Where are the logs?"], ids["日志在哪里？"]
    rules = f"pair\t{install}\t{zh_logs}\npair\t{zh_logs}\t{install}\npair\t{install}\t{logs}\n"
    _, alignment = _align(folder, rules)
    forced = [p for p in alignment.entries if p.method == "links.tsv"]
    assert [(p.first, p.second) for p in forced] == [(install, zh_logs)]  # once, though written twice
    assert "both entries are en" in alignment.problems[0][1]


def test_content_pairing_finds_exactly_the_translations_among_many_documents(tmp_path: Path, shared: Path) -> None:
    corpus = require(shared / "corpus" / "real", "the real corpus")
    seeds = sorted(CONTENT.glob("*.md"))
    pairs_by_folder: dict[str, set[str]] = {}
    for number, source in enumerate([*seeds, *sorted(corpus.rglob("*.md"))]):  # the corpus README too
        name = f"d{number:02d}.md"
        (tmp_path / name).write_bytes(source.read_bytes())
        parts = source.relative_to(corpus).parts if source.is_relative_to(corpus) else ()
        if len(parts) > 1:
            pairs_by_folder.setdefault(parts[0], set()).add(name)
    documents, alignment = _align(tmp_path)
    llama = {f"d{k:02d}.md" for k, seed in enumerate(seeds) if seed.name.startswith("llama-recipes-faq")}
    assert {p.method for p in alignment.documents} == {"content"}
    assert _paths(documents, alignment) == {frozenset(llama), *(frozenset(p) for p in pairs_by_folder.values())}


def test_every_pair_shares_evidence_and_entries_pair_at_most_once() -> None:
    rng = random.Random(5)
    vocabulary = [f"word:term{k}" for k in range(400)]
    for _ in range(30):
        first = [AlignableEntry(f"a{i}", frozenset(rng.sample(vocabulary, 6))) for i in range(rng.randint(1, 25))]
        second = [AlignableEntry(f"b{i}", frozenset(rng.sample(vocabulary, 6))) for i in range(rng.randint(1, 25))]
        anchors = {e.id: e.anchors for e in [*first, *second]}
        pairs = align_entries(first, second)
        assert all(anchors[p.first] & anchors[p.second] for p in pairs)
        assert len({p.first for p in pairs}) == len({p.second for p in pairs}) == len(pairs)


def _alignable(*titles: str) -> list[AlignableEntry]:
    return [AlignableEntry(f"e{n}-{title[:6]}", frozenset({f"word:anchor{n}"}) if n < 2 else frozenset(), title)
            for n, title in enumerate(titles)]


def test_questions_that_share_no_anchor_pair_by_meaning_and_a_weak_pair_of_different_meaning_is_dropped() -> None:
    english = _alignable("How do I install it?", "Where is the config?", "browser compatibility", "Is there a group?")
    chinese = _alignable("如何安装？", "配置在哪里？", "浏览器兼容性")
    known = {("browser compatibility", "浏览器兼容性"): 0.93, ("Is there a group?", "浏览器兼容性"): 0.78}

    def meaning(first: list[str], second: list[str]) -> list[list[float]]:
        return [[known.get((a, b), 0.80) for b in second] for a in first]

    without = align_entries(english, chinese)
    assert [(p.first, p.second) for p in without][:2] == [(english[0].id, chinese[0].id),
                                                          (english[1].id, chinese[1].id)]
    assert (english[2].id, chinese[2].id) not in [(p.first, p.second) for p in without]
    pairs = {(p.first, p.second): p for p in align_entries(english, chinese, meaning=meaning)}
    made = pairs[(english[2].id, chinese[2].id)]
    assert made.method == "meaning" and made.score == 0.93 and made.confident
    assert (english[3].id, chinese[2].id) not in pairs  # the lone one left stays unpaired


def test_a_pair_sharing_two_words_only_is_checked_by_meaning_however_similar() -> None:
    """SpaceVim's FAQ (6266158722): its Chinese colour theme entry and the English entry on +py shared only
    `enable` and `spacevim` among the anchors both documents use, so they scored 1.0 and were never checked; their
    questions' cosine is 0.78. A pair sharing three anchors or more is not second-guessed."""
    english = [AlignableEntry("toml", frozenset({"word:toml", "word:xml", "word:vim", "word:spacevim"}),
                              "Why use toml as the default configuration file format?"),
               AlignableEntry("py", frozenset({"word:enabl", "word:spacevim", "code:g:python_host_prog"}),
                              "How to enable +py and +py3 in neovim?"),
               AlignableEntry("ctrl", frozenset({"code:ctrl-q", "line:stty -ixon", "word:vim"}),
                              "Why does vim freeze after pressing Ctrl-s?")]
    chinese = [AlignableEntry("toml-zh", frozenset({"word:toml", "word:xml", "word:vim", "word:spacevim"}),
                              "为什么选择 Toml 作为默认配置格式？"),
               AlignableEntry("colour-zh", frozenset({"word:enabl", "word:spacevim", "line:enable_guicolors = false"}),
                              "为什么 SpaceVim 颜色主题和官网不一致？"),
               AlignableEntry("ctrl-zh", frozenset({"code:ctrl-q", "line:stty -ixon", "word:vim"}),
                              "按下 Ctrl-s 后，Vim 为什么会卡死？")]

    def meaning(first: list[str], second: list[str]) -> list[list[float]]:
        return [[0.78 for _ in second] for _ in first]  # no two questions alike: only the evidence keeps a pair

    without = {(p.first, p.second): p for p in align_entries(english, chinese)}
    assert without[("py", "colour-zh")].method == "anchors" and without[("py", "colour-zh")].score == 1.0
    pairs = {(p.first, p.second) for p in align_entries(english, chinese, meaning=meaning)}
    assert pairs == {("toml", "toml-zh"), ("ctrl", "ctrl-zh")}


def test_files_of_one_name_that_align_poorly_pair_only_entries_that_mean_the_same() -> None:
    """eval/wild22's UPS Guard: `en/faq.md` and `zh/faq.md` are two FAQs written apart (36 and 33 questions, none a
    translation of another). Paired by their name, answers quoting the same settings paired `What hardware is
    needed?` with `为什么需要调试级别？` (questions' cosine 0.81, above the veto of 0.80 for weak pairs). Documents
    that a name alone pairs and that align as translations do not are doubtful: each pair must mean the same."""
    from app.ingest.align import AlignableDocument, pair_documents

    settings = frozenset({"code:NUT_HOST", "code:POLL_INTERVAL", "line:LOG_LEVEL=DEBUG"})
    topics = ["hardware", "install", "mock", "resources", "crash", "websocket", "docker", "email", "battery", "api"]
    english = [AlignableEntry(f"en-{t}", settings if t == "hardware" else frozenset({f"word:{t}en"}),
                              f"{t} question?") for t in topics]
    chinese = [AlignableEntry(f"zh-{t}", settings if t == "hardware" else frozenset({f"word:{t}zh"}),
                              f"{t} 问题？") for t in topics]
    chinese[-1] = AlignableEntry("zh-websocket", frozenset({"word:websocket"}), "websocket 断开？")
    english[5] = AlignableEntry("en-websocket", frozenset({"word:websocket"}), "websocket failed?")

    def meaning(first: list[str], second: list[str]) -> list[list[float]]:
        return [[0.92 if "websocket" in a and "websocket" in b else 0.81 for b in second] for a in first]

    def pairs(english_path: str, chinese_path: str) -> set[tuple[str, str]]:
        documents = [AlignableDocument(id="en", path=english_path, lang="en", entries=english),
                     AlignableDocument(id="zh", path=chinese_path, lang="zh", entries=chinese)]
        return {(p.first, p.second) for p in pair_documents(documents, meaning=meaning).entries}

    # By name: the settings they share are no evidence; the websocket questions mean the same and stay paired.
    assert pairs("en/faq.md", "zh/faq.md") == {("en-websocket", "zh-websocket")}
    assert ("en-hardware", "zh-hardware") in {(p.first, p.second) for p in align_entries(english, chinese,
                                                                                       meaning=meaning)}
    # A translation aligns well and is not second-guessed: every pair shares its anchors.
    twins = [AlignableEntry(e.id.replace("en-", "zh-"), e.anchors | {"code:shared"}, "翻译？") for e in english]
    english_twins = [AlignableEntry(e.id, e.anchors | {"code:shared"}, e.title) for e in english]
    documents = [AlignableDocument(id="en", path="en/faq.md", lang="en", entries=english_twins),
                 AlignableDocument(id="zh", path="zh/faq.md", lang="zh", entries=twins)]
    assert len(pair_documents(documents, meaning=lambda a, b: [[0.81] * len(b) for _ in a]).entries) == len(topics)


def test_the_lone_entries_of_a_gap_between_pairs_pair_by_place_unless_they_mean_different_things() -> None:
    """zeronet's FAQ (eval/wild7): `What happens when someone hosts malicious content?` / `有人托管恶意内容会发生什么？`
    share no anchor, are not each other's clear best by meaning (0.85 < 0.88), and are the one entry left on each
    side between two pairs."""
    english = [AlignableEntry("peers", frozenset({"word:peer", "code:--ip"}), "How do I find peers?"),
               AlignableEntry("bad", frozenset({"word:malicious"}), "What happens when someone hosts bad content?"),
               AlignableEntry("tor", frozenset({"word:tor", "code:--tor"}), "Can I use Tor?")]
    chinese = [AlignableEntry("peers-zh", frozenset({"word:peer", "code:--ip"}), "如何找到节点？"),
               AlignableEntry("bad-zh", frozenset({"word:屏蔽"}), "有人托管恶意内容会发生什么？"),
               AlignableEntry("tor-zh", frozenset({"word:tor", "code:--tor"}), "我可以使用 Tor 吗？")]

    def meaning_at(cosine: float) -> Callable[[list[str], list[str]], list[list[float]]]:
        def meaning(first: list[str], second: list[str]) -> list[list[float]]:
            return [[cosine if ("bad" in a) == ("恶意" in b) else 0.5 for b in second] for a in first]
        return meaning

    assert ("bad", "bad-zh") not in {(p.first, p.second) for p in align_entries(english, chinese)}
    placed = {(p.first, p.second): p for p in align_entries(english, chinese, meaning=meaning_at(0.85))}
    assert placed[("bad", "bad-zh")].method == "order" and not placed[("bad", "bad-zh")].confident
    apart = {(p.first, p.second) for p in align_entries(english, chinese, meaning=meaning_at(0.81))}
    assert ("bad", "bad-zh") not in apart and len(apart) == 2


def test_the_model_pairs_translated_questions_that_share_no_anchor(tmp_path: Path) -> None:
    from app.search.embedding import ModelSlot, question_cosines

    slot = ModelSlot(enabled=True)
    require_model(slot)
    folder = _write(tmp_path, {
        "faq.en.md": "# FAQ\n\n## How do I install `s2`?\n\nRun `npm i s2`.\n\n## browser compatibility\n\n"
                     "Chrome and Firefox.\n\n## Is there a discussion group?\n\nYes, on DingTalk.\n",
        "faq.zh.md": "# 常见问题\n\n## 如何安装 `s2`？\n\n运行 `npm i s2`。\n\n## 浏览器兼容性\n\n支持主流浏览器。\n"})
    documents = read_documents(folder, IngestReport())
    rules, _ = parse_link_rules("")
    alignment = link_documents(documents, GLOSSARY, rules, question_cosines(slot)).alignment
    assert ("browser compatibility", "浏览器兼容性") in _questions(documents, alignment)
    assert ("Is there a discussion group?", "浏览器兼容性") not in _questions(documents, alignment)


def test_content_pairing_lists_a_rare_anchors_other_language_holders_once() -> None:
    """Documents sharing an anchor few hold are found through it by each of them; its holders of the other language
    are listed once per language, not filtered again for every document (n² language checks for n holders)."""
    from app.ingest.align import AlignableDocument, pair_documents

    reads = [0]

    class Counted(AlignableDocument):
        def __getattribute__(self, name: str) -> object:
            if name == "lang":
                reads[0] += 1
            return super().__getattribute__(name)

    documents = []
    for k in range(100):
        for lang, word in (("en", "setting"), ("zh", "设置")):
            anchors = frozenset({"code:shared_key", f"code:key_{k}", f"line:export KEY_{k}={k}", f"word:{word}"})
            documents.append(Counted(id=f"{lang}-{k}", path=f"{k:03d}{lang}.md", lang=lang,
                                     entries=[AlignableEntry(f"{lang}-{k}-q", anchors, f"{word} {k}")]))
    alignment = pair_documents(documents)
    assert sorted(tuple(sorted((p.first, p.second))) for p in alignment.documents) == \
        sorted((f"en-{k}", f"zh-{k}") for k in range(100))
    assert reads[0] < 200 * 200 / 4
