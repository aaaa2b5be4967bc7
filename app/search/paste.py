"""Long pastes: a whole traceback or log (up to 64 KB) reduced to what the engine searches, and named for the reader.

A traceback ends with its error, so keeping its first few thousand characters loses exactly what
matters. The engine already reads a pasted error by its signature; here a paste too long to search
whole keeps its error lines and its last, most specific frames (with a frame's code line), in
order, within the engine's query length. Every line is cut to a bounded length first, so a paste
of one 64 KB line with no spaces, or of binary junk, costs the regular expressions no more than a
page of ordinary text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.search.errors import STACK_FRAME, error_lines

MAX_PASTE_LENGTH = 65_536  # characters a reader may paste into the page's form or POST to the API
SEARCHED_LENGTH = 4000  # what the engine is given at most (the length of a query in a URL)
MAX_LINE = 600  # characters of one line that are read
FRAMES_KEPT = 4  # the last frames name the code closest to the error
PATH_NOTE = re.compile(r"\s*\([^()]*[/\\][^()]*\)\s*$")  # "(/usr/lib/python3.8/functools.py)"
SHOWN_ERROR = 200  # characters of the error line the page repeats


@dataclass(frozen=True)
class Paste:
    """What a pasted text is searched as, and the error it names (None when it names none)."""

    searched: str
    error: str | None
    characters: int
    lines: int


def is_paste(text: str) -> bool:
    """Whether `text` is a paste rather than typed words: several lines, or longer than a query in a URL."""
    return "\n" in text.strip() or len(text) > SEARCHED_LENGTH


def read_paste(text: str) -> Paste:
    """The text to search for `text` (itself when short enough) and the error it ends with."""
    lines = [line[:MAX_LINE] for line in text.splitlines()]
    errors = error_lines("\n".join(lines))
    error = PATH_NOTE.sub("", errors[-1])[:SHOWN_ERROR] if errors else None
    if len(text) <= SEARCHED_LENGTH:
        return Paste(text, error, len(text), len(lines))
    return Paste(_reduced(lines, set(errors)), error, len(text), len(lines))


def _reduced(lines: list[str], errors: set[str]) -> str:
    """The error lines and the last frames (each with the line after it), in order, at most SEARCHED_LENGTH."""
    keep: set[int] = set()
    frames = [i for i, line in enumerate(lines) if STACK_FRAME.search(line)]
    for i in frames[-FRAMES_KEPT:]:
        keep.update((i, i + 1))
    keep.update(i for i, line in enumerate(lines) if any(error in line for error in errors))
    if not keep:  # no error and no frame: a log ends with what happened last
        keep = set(range(len(lines)))
    chosen: list[str] = []
    room = SEARCHED_LENGTH
    for i in sorted((i for i in keep if i < len(lines)), reverse=True):  # from the end: the error first
        line = lines[i].strip()
        if line and len(line) + 1 <= room:
            chosen.append(line)
            room -= len(line) + 1
    return "\n".join(reversed(chosen))
