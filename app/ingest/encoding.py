"""Turn a file's bytes into text with a confidence, or say plainly why that is not possible.

Order of trust: a byte-order mark; strict UTF-8 (also with a character cut off at the
very end); UTF-16 recognised by its zero bytes; then the Chinese legacy encodings
GB18030 (a superset of GBK and GB2312) and Big5, judged by how fluent the Chinese they
produce reads to a language model — bytes that are valid in both decode to common words
in the right one and to rare characters in the wrong one. A file whose lines are UTF-8
and GB18030 by turns is decoded line by line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from app.ingest.chinese import han_fluency

BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
LEGACY_CHINESE = ("gb18030", "big5")
MIN_CONFIDENCE = 0.6


class DecodeError(ValueError):
    """The bytes are not text this pipeline can read with confidence."""


@dataclass(frozen=True)
class DecodedText:
    """Decoded text with the encoding it was read as, how sure that reading is, and notes."""

    text: str
    encoding: str
    confidence: float
    notes: list[str] = field(default_factory=list)


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when zero bytes sit on one side of most pairs."""
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even = sample[0::2].count(0) / (len(sample) / 2)
    odd = sample[1::2].count(0) / (len(sample) / 2)
    if odd > 0.3 and even < 0.05:
        return "utf-16-le"
    if even > 0.3 and odd < 0.05:
        return "utf-16-be"
    return None


def looks_binary(data: bytes) -> bool:
    """True for data with NUL bytes or many control characters (images, archives, …)."""
    sample = data[:8192]
    if b"\x00" in sample:
        return True
    controls = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return bool(sample) and controls / len(sample) > 0.05


def _strict(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def _legacy_chinese(data: bytes) -> DecodedText | None:
    """The most fluent reading among GB18030 and Big5, with a confidence."""
    readings = []
    for encoding in LEGACY_CHINESE:
        text = _strict(data, encoding)
        if text is not None:
            fluency, count = han_fluency(text)
            readings.append((fluency, count, encoding, text))
    if not readings:
        return None
    readings.sort(reverse=True)
    fluency, count, encoding, text = readings[0]
    if count == 0:
        return None
    # Fluent Chinese scores about -6 to -9 per character; mis-decoded bytes -12 or lower.
    quality = 1 / (1 + math.exp(-(fluency + 11.0)))
    margin = 1.0
    if len(readings) > 1 and readings[1][1]:
        margin = 1 / (1 + math.exp(-(fluency - readings[1][0]) * min(count, 40) / 4))
    return DecodedText(text, encoding, round(min(quality, margin), 3))


def _mixed_lines(data: bytes) -> DecodedText | None:
    """Lines that are UTF-8 and lines in a Chinese legacy encoding, in one file."""
    lines = data.split(b"\n")
    utf8 = [_strict(line, "utf-8") for line in lines]
    if all(text is not None for text in utf8) or not any(text and not text.isascii() for text in utf8):
        return None  # one encoding throughout, or no UTF-8 line that proves it is UTF-8
    legacy = _legacy_chinese(b"\n".join(line for line, text in zip(lines, utf8, strict=True) if text is None))
    if legacy is None or legacy.confidence < MIN_CONFIDENCE:
        return None
    decoded = [text if text is not None else line.decode(legacy.encoding)
               for line, text in zip(lines, utf8, strict=True)]
    bad = sum(1 for text in utf8 if text is None)
    return DecodedText("\n".join(decoded), f"utf-8+{legacy.encoding}", legacy.confidence,
                       [f"mixed encodings: {bad} of {len(lines)} lines were {legacy.encoding}, the rest UTF-8"])


def decode_bytes(data: bytes) -> DecodedText:
    """Decode a document's bytes; DecodeError says why when no reading is trustworthy."""
    if not data.strip():
        raise DecodeError("the file is empty")
    for bom, encoding in BOMS:
        if data.startswith(bom):
            text = _strict(data, encoding)
            if text is None:
                raise DecodeError(f"starts with a {encoding} byte-order mark but is not valid {encoding}")
            return DecodedText(text.lstrip("\ufeff"), encoding.replace("-sig", ""), 1.0)
    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        text = _strict(data, utf16)
        if text is not None:
            return DecodedText(text, utf16, 0.9, [f"read as {utf16} (no byte-order mark)"])
    if looks_binary(data):
        raise DecodeError("the file looks binary (NUL or control bytes), not like text")
    text = _strict(data, "utf-8")
    if text is not None:
        return DecodedText(text, "utf-8", 1.0)
    for cut in (1, 2, 3):
        head = _strict(data[:-cut], "utf-8")
        if head is not None:
            return DecodedText(head, "utf-8", 1.0, [
                f"the file ends in the middle of a character ({cut} byte(s) of an incomplete "
                "UTF-8 sequence were dropped); it was probably cut short"])
    for reading in (_mixed_lines(data), _legacy_chinese(data)):
        if reading is not None and reading.confidence >= MIN_CONFIDENCE:
            note = f"not UTF-8: read as {reading.encoding} (confidence {reading.confidence:.2f})"
            return DecodedText(reading.text, reading.encoding, reading.confidence, [note, *reading.notes])
    raise DecodeError("not valid UTF-8, and no Chinese legacy encoding (GB18030, Big5) reads it "
                      "with confidence; save it as UTF-8 and ingest again")
