"""Simulate the damage seed 004 suffered, to measure the repair (`faq check --self-test`)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path

from app.ingest.chinese import held_out_model
from app.ingest.repair import repair_mojibake

SAMPLE = Path(__file__).with_name("data") / "repair-sample.md"  # clean Chinese + English text


def damage(text: str, code_page: str = "cp1254") -> str:
    """UTF-8 bytes read as `code_page`; bytes it cannot carry, and invisible ones, dropped."""
    out: list[str] = []
    for byte in text.encode("utf-8"):
        try:
            char = bytes([byte]).decode(code_page)
        except UnicodeDecodeError:
            continue
        if unicodedata.category(char) == "Cf":
            continue  # the soft hyphen vanishes in editors
        out.append(char)
    return "".join(out)


@dataclass(frozen=True)
class RepairScore:
    """How close a repaired text came to the clean one."""

    characters: int
    identical: int
    damaged: int  # characters whose bytes were lost
    restored: int  # of those, repaired to exactly the original
    undamaged_changed: int  # characters that needed no repair but were changed

    @property
    def identical_share(self) -> float:
        """Share of all characters identical to the clean text."""
        return self.identical / self.characters if self.characters else 1.0

    @property
    def restored_share(self) -> float:
        """Share of damaged characters restored exactly."""
        return self.restored / self.damaged if self.damaged else 1.0


def score_repairs(texts: Iterable[str], code_page: str = "cp1254") -> RepairScore:
    """`score_repair` over several clean texts, added up."""
    scores = [score_repair(text, code_page) for text in texts]
    return RepairScore(*(sum(getattr(s, f.name) for s in scores) for f in fields(RepairScore)))


def score_repair(clean: str, code_page: str = "cp1254") -> RepairScore:
    """Damage `clean`, repair it (with a model that never saw it), and compare line by line."""
    repaired = repair_mojibake(damage(clean, code_page), held_out_model(clean)).text
    characters = identical = damaged = restored = changed = 0
    clean_lines, repaired_lines = clean.split("\n"), repaired.split("\n")
    for clean_line, repaired_line in zip(clean_lines, repaired_lines, strict=True):
        lost = [len(damage(ch, code_page)) < len(ch.encode("utf-8")) for ch in clean_line]
        for k, char in enumerate(clean_line):
            same = k < len(repaired_line) and repaired_line[k] == char
            characters += 1
            identical += same
            if lost[k]:
                damaged += 1
                restored += same
            elif not same:
                changed += 1
    return RepairScore(characters, identical, damaged, restored, changed)
