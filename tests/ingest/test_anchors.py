"""Anchors: what an entry shares with its translation."""

from __future__ import annotations

from app.ingest.anchors import Glossary, anchor_weights, extract_anchors

GLOSSARY = Glossary.from_groups(
    [["显存", "GPU memory", "VRAM"], ["报错", "error"], ["错误", "error"], ["安装", "install"]])


def test_code_urls_numbers_and_identifiers_are_anchors() -> None:
    anchors = extract_anchors(
        "Set `PYTORCH_CUDA_ALLOC_CONF` (see https://pytorch.org/docs/notes.html, v2.1.0):\n\n"
        "```bash\n# a comment is prose, not an anchor\nexport NCCL_P2P_DISABLE=1\n```\n"
        "Also read [the guide](../guide/install.md).\n")
    assert "code:pytorch_cuda_alloc_conf" in anchors
    assert "url:https://pytorch.org/docs/notes.html" in anchors
    assert "url:../guide/install.md" in anchors
    assert "number:2.1.0" in anchors
    assert "line:export nccl_p2p_disable=1" in anchors
    assert not any("comment" in a for a in anchors if a.startswith("line:"))
    assert {"word:pytorch_cuda_alloc_conf", "word:pytorch", "word:alloc", "word:conf"} <= anchors


def test_a_name_that_opens_with_digits_is_an_anchor_in_both_languages() -> None:
    english = extract_anchors("7z file extraction error\n\nUpgrade 7-zip; 32GB of memory is not enough.")
    chinese = extract_anchors("7z文件解压错误\n\n升级7-zip，32GB内存不够。")
    assert {"word:7z", "word:7-zip", "word:zip", "word:32gb"} <= english & chinese
    assert not any(a.startswith("word:1") for a in extract_anchors("1.1、异常现象 and 2024-09-11"))


def test_the_same_anchors_come_out_of_both_languages() -> None:
    english = extract_anchors("Why does `bitsandbytes` raise an error when GPU memory is full?", GLOSSARY)
    chinese = extract_anchors("显存满时 `bitsandbytes` 为什么报错？", GLOSSARY)
    assert {"code:bitsandbytes", "word:bitsandbyt"} <= english & chinese
    assert len({a for a in english & chinese if a.startswith("gloss:")}) == 2  # GPU memory, error


def test_glossary_lines_sharing_a_term_are_one_concept() -> None:
    assert GLOSSARY.concepts("报错") == GLOSSARY.concepts("错误") == GLOSSARY.concepts("an error")
    assert GLOSSARY.concepts("multi vram") == GLOSSARY.concepts("显存")
    assert GLOSSARY.concepts("gpu-memory") == GLOSSARY.concepts("显存")


def test_glossary_words_count_in_prose_only() -> None:
    assert not any(a.startswith("gloss:") for a in extract_anchors("```bash\npip install demo\n```\n", GLOSSARY))
    assert any(a.startswith("gloss:") for a in extract_anchors("How do I install it?", GLOSSARY))


def test_shell_and_web_commonplaces_are_not_anchors() -> None:
    anchors = extract_anchors("Run `pip install -U transformers` with sudo, then python train.py", GLOSSARY)
    assert "word:pip" not in anchors and "word:sudo" not in anchors and "word:python" not in anchors
    assert "word:transform" in anchors and "word:train.py" in anchors


def test_rare_anchors_weigh_more_and_code_more_than_words() -> None:
    weights = anchor_weights([frozenset({"word:cuda", "code:x"}), frozenset({"word:cuda", "word:fsdp"}),
                              frozenset({"word:cuda"})])
    assert weights["word:fsdp"] > weights["word:cuda"]
    assert weights["code:x"] > weights["word:fsdp"]
