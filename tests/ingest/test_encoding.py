"""Decoding bytes: Unicode encodings, Chinese legacy encodings, and clear refusals."""

from __future__ import annotations

import pytest

from app.ingest.encoding import DecodeError, decode_bytes

SIMPLIFIED = ("# 常见问题\n\n## 训练时显存不足怎么办？\n\n可以开启梯度检查点，或者减小批大小；"
              "也可以设置 `PYTORCH_CUDA_ALLOC_CONF` 来减少内存碎片。\n")
TRADITIONAL = ("# 常見問題\n\n## 訓練時顯存不足怎麼辦？\n\n可以開啟梯度檢查點，或者減小批大小；"
               "也可以設定 `PYTORCH_CUDA_ALLOC_CONF` 來減少記憶體碎片。\n")


@pytest.mark.parametrize(("data", "encoding"), [
    (SIMPLIFIED.encode("utf-8"), "utf-8"),
    (b"\xef\xbb\xbf" + SIMPLIFIED.encode("utf-8"), "utf-8"),
    (b"\xff\xfe" + SIMPLIFIED.encode("utf-16-le"), "utf-16-le"),
    (b"\xfe\xff" + SIMPLIFIED.encode("utf-16-be"), "utf-16-be"),
    (SIMPLIFIED.encode("utf-16-le"), "utf-16-le"),
    (SIMPLIFIED.encode("gbk"), "gb18030"),
    (SIMPLIFIED.encode("gb2312"), "gb18030"),
    (SIMPLIFIED.encode("gb18030"), "gb18030"),
])
def test_decode_bytes_reads_simplified_chinese_in_every_encoding(data: bytes, encoding: str) -> None:
    decoded = decode_bytes(data)
    assert decoded.text == SIMPLIFIED
    assert decoded.encoding == encoding
    assert decoded.confidence >= 0.9


def test_decode_bytes_reads_big5_as_big5_not_gbk() -> None:
    decoded = decode_bytes(TRADITIONAL.encode("big5"))
    assert decoded.encoding == "big5" and decoded.text == TRADITIONAL
    assert decoded.confidence >= 0.9


def test_decode_bytes_reads_gbk_as_gbk_though_big5_accepts_the_bytes_too() -> None:
    data = SIMPLIFIED.encode("gbk")
    assert decode_bytes(data).encoding == "gb18030"


def test_decode_bytes_reads_mixed_utf8_and_gbk_lines() -> None:
    data = SIMPLIFIED.encode("utf-8") + SIMPLIFIED.encode("gbk")
    decoded = decode_bytes(data)
    assert decoded.text == SIMPLIFIED + SIMPLIFIED
    assert any("mixed encodings" in note for note in decoded.notes)


def test_decode_bytes_keeps_a_truncated_file_and_says_so() -> None:
    data = SIMPLIFIED.encode("utf-8") + "中".encode()[:2]
    decoded = decode_bytes(data)
    assert decoded.text == SIMPLIFIED
    assert any("middle of a character" in note for note in decoded.notes)


@pytest.mark.parametrize(("data", "reason"), [
    (b"", "empty"),
    (b"  \n\n", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01", "binary"),
    ("café naïve résumé déjà vu\n".encode("latin-1"), "no Chinese legacy encoding"),
    (b"\xff\xfe\x00\xd8", "byte-order mark"),
])
def test_decode_bytes_refuses_what_it_cannot_read_with_a_reason(data: bytes, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason):
        decode_bytes(data)
