"""Decoding bytes: UTF-8 with or without BOM, BOM-marked UTF-16, and clear refusals."""

from __future__ import annotations

import pytest

from app.ingest.encoding import DecodeError, decode_bytes

TEXT = "# 常见问题\n\n## 显存不足怎么办？\n\nSet `PYTORCH_CUDA_ALLOC_CONF`.\n"


@pytest.mark.parametrize(("data", "encoding"), [
    (TEXT.encode("utf-8"), "utf-8"),
    (b"\xef\xbb\xbf" + TEXT.encode("utf-8"), "utf-8"),
    (b"\xff\xfe" + TEXT.encode("utf-16-le"), "utf-16-le"),
    (b"\xfe\xff" + TEXT.encode("utf-16-be"), "utf-16-be"),
])
def test_decode_bytes_reads_unicode_encodings(data: bytes, encoding: str) -> None:
    decoded = decode_bytes(data)
    assert decoded.text == TEXT
    assert decoded.encoding == encoding


@pytest.mark.parametrize(("data", "reason"), [
    (b"", "empty"),
    (b"  \n\n", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    (TEXT.encode("gbk"), "not valid UTF-8"),
])
def test_decode_bytes_refuses_what_it_cannot_read_with_a_reason(data: bytes, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason):
        decode_bytes(data)
