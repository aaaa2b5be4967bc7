"""Language detection."""

from __future__ import annotations

import pytest

from app.ingest.language import detect_language, language_from_name, name_from_path


@pytest.mark.parametrize(("text", "lang"), [
    ("FSDP 如何处理混合的梯度要求？需要设置 `require_grad`。", "zh"),
    ("How does FSDP handle mixed grad requirements?", "en"),
    ("解决方案1：\n```shell\npip install flash-attn --no-build-isolation\n```", "zh"),
    ("```\nonly code here\n```", "en"),
])
def test_detect_language_reads_prose_not_code(text: str, lang: str) -> None:
    assert detect_language(text) == lang


def test_chinese_glued_to_code_is_still_read_as_prose() -> None:
    """Chinese is written without spaces: the code inside a word ends where the Chinese starts, on either side."""
    from app.ingest.language import language_scores

    assert language_scores("设置freeze_layers=True后训练更快，见docs/faq.md说明") == (10, 0)
    assert language_scores("详见https://example.org/setup，然后重启") == (6, 0)
    assert language_scores("用stop_gradient=True的") == (2, 0)
    assert detect_language("设置freeze_layers=True后训练更快，见docs/faq.md说明") == "zh"


@pytest.mark.parametrize(("path", "lang"), [
    ("faq.zh.md", "zh"), ("FAQ_zh.md", "zh"), ("zh_cn/faq.md", "zh"), ("en/faq.md", "en"),
    ("faq.en.md", "en"), ("docs/zhong.md", None), ("README.md", None),
])
def test_language_from_name_follows_common_conventions(path: str, lang: str | None) -> None:
    assert language_from_name(path) == lang


def test_entry_language_follows_its_document_unless_prose_says_otherwise() -> None:
    from app.ingest.language import entry_language

    error_row = ("RuntimeError: Error building extension 'fused_adam'\n"
                 "sudo ln -s /usr/local/cuda/lib64/libcudart.so /usr/lib/")
    assert entry_language(error_row, "zh") == "zh"
    english = "Exec docker\n\nWithin the Docker container, we can only perform the following steps to run it."
    assert entry_language(english, "zh") == "en"
    assert entry_language("FSDP 如何处理混合的梯度要求？需要在单元级别而不是模型层级别执行冻结。", "en") == "zh"


@pytest.mark.parametrize(("path", "name"), [
    ("apollo/en/common-issues-in-deployment.md", "Common issues in deployment"), ("faq.zh.md", "FAQ"),
    ("FAQ_zh.md", "FAQ"), ("docs/troubleshooting.md", "Troubleshooting"), ("常见问题.md", "常见问题"),
])
def test_a_document_is_named_by_its_file_without_its_language_mark(path: str, name: str) -> None:
    assert name_from_path(path) == name



def test_a_folder_mark_gives_way_to_a_version_beside_the_file_marked_by_its_own_name() -> None:
    from app.ingest.language import document_language, named_versions

    named = named_versions(["goproxy-cn/README.md", "goproxy-cn/README.zh-CN.md", "docs-zh/faq.md", "docs/faq.md"])
    english = "# Goproxy China\n\nThe most trusted Go module proxy in China.\n"
    assert document_language("goproxy-cn/README.md", english, named) == "en"  # a project named `-cn`
    assert document_language("goproxy-cn/README.zh-CN.md", english, named) == "zh"  # the file's own mark decides
    assert document_language("goproxy-cn/README.md", english) == "zh"  # alone, the folder's mark stands
    untranslated = "# FAQ\n\nHow do I set the proxy? Set GOPROXY.\n"  # a copy not yet translated stays Chinese
    assert document_language("docs-zh/faq.md", untranslated, named) == "zh"
