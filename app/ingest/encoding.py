"""Turn a file's bytes into text, or say plainly why that is not possible."""

from __future__ import annotations

from dataclasses import dataclass

BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


class DecodeError(ValueError):
    """The bytes are not text this pipeline can read with confidence."""


@dataclass(frozen=True)
class DecodedText:
    """Decoded text with the encoding it was read as and how sure that reading is."""

    text: str
    encoding: str
    confidence: float


def looks_binary(data: bytes) -> bool:
    """True for data with NUL bytes or many control characters (images, archives, …)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    sample = data[:8192]
    if b"\x00" in sample:
        return True
    controls = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return bool(sample) and controls / len(sample) > 0.05


def decode_bytes(data: bytes) -> DecodedText:
    """Decode UTF-8 (with or without BOM) or BOM-marked UTF-16; anything else raises DecodeError."""
    if not data.strip():
        raise DecodeError("the file is empty")
    for bom, encoding in BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise DecodeError(
                    f"starts with a {encoding} byte-order mark but is not valid {encoding}: "
                    f"{exc.reason} at byte {exc.start}"
                ) from exc
            return DecodedText(text.lstrip("\ufeff"), encoding.replace("-sig", ""), 1.0)
    if looks_binary(data):
        raise DecodeError("the file looks binary (NUL or control bytes), not like text")
    try:
        return DecodedText(data.decode("utf-8"), "utf-8", 1.0)
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"not valid UTF-8 ({exc.reason} at byte {exc.start}); save it as UTF-8 and ingest again"
        ) from exc
