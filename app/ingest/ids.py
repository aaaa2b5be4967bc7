"""Readable, URL-safe, stable identifiers for documents and entries."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from pypinyin import lazy_pinyin
from pypinyin.seg.simpleseg import simple_seg

MAX_SLUG = 60


def slugify(text: str, max_length: int = MAX_SLUG) -> str:
    """Lower-case ASCII words joined by '-'; Chinese is spelled in pinyin."""
    text = unicodedata.normalize("NFKC", text)
    # ASCII has no Chinese to spell: pypinyin gives it back unchanged, as one piece, after 30 us of work.
    words = text if text.isascii() else " ".join(
        word for piece in simple_seg(text) for word in ((piece,) if piece.isascii() and piece else _spelled(piece)))
    words = unicodedata.normalize("NFKD", words).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0] or slug[:max_length]
    return slug


@lru_cache(maxsize=65536)
def _spelled(piece: str) -> tuple[str, ...]:
    """pypinyin's words for one piece of a text, cut where Han characters start or stop as pypinyin cuts it (it
    spells each piece on its own, so a text's words are its pieces' in order). Pieces recur (如何, 设置, 显存):
    each is spelled once, where 10,000 Chinese questions took 5 s (profiled)."""
    return tuple(lazy_pinyin(piece, errors=lambda chars: chars))


def document_id(relative_path: str) -> str:
    """A document's id from its path in the content folder: `guides/faq.zh.md` → `guides-faq-zh`."""
    stem = re.sub(r"\.(md|markdown|txt)$", "", relative_path, flags=re.IGNORECASE)
    return slugify(stem, max_length=120) or "document-" + _digest(relative_path)


def entry_id(document: str, section: tuple[str, ...], question: str) -> str:
    """An entry's id: its question's slug plus a digest of where it lives and what it asks.

    The digest depends only on the document, the section path and the question text, so
    edits elsewhere never change it.
    """
    digest = _digest("\x1f".join((document, *section, question)))
    slug = slugify(question, max_length=48)
    return f"{slug}-{digest}" if slug else f"entry-{digest}"


def path_digest(text: str) -> str:
    """Six hex digits that tell two names apart (a fingerprint, not a security measure)."""
    return _digest(text)


def _digest(text: str) -> str:
    # SHA-1 as a stable fingerprint of names, never for security; changing it would change every id.
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:6]
