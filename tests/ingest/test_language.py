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


def test_a_folder_mark_gives_way_to_prose_plainly_in_the_other_language() -> None:
    from app.ingest.language import document_language

    english = "# Goproxy China\n\n" + "The most trusted Go module proxy in China. " * 20 + "\n[中文](README.zh-CN.md)\n"
    assert document_language("goproxy-cn/README.md", english) == "en"  # a project named `-cn`, an English README
    assert document_language("goproxy-cn/README.zh-CN.md", english) == "zh"  # the file name's mark is the author's
    chinese = "# 常见问题\n\n" + "如何配置 Go 模块代理？设置 GOPROXY 环境变量即可。" * 5
    assert document_language("docs-zh/faq.md", chinese) == "zh"
    mixed = "# FAQ\n\n" + "部署时提示 `connection refused` 错误怎么办？检查 docker daemon 是否启动。" * 5
    assert document_language("docs/zh/faq.md", mixed) == "zh"  # Chinese prose full of English terms stays Chinese
