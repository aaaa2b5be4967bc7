"""Every pattern of the portal against texts built to make a regular expression backtrack: the slowest, timed.

`python -m measure.backtracking [LENGTH] [--limit S]` imports every module of `app/`, takes the compiled patterns
they hold at module level, and times each on hostile texts of about LENGTH characters (default 2,000): a run of
one character (each of ~40: letters, digits, `_`, spaces, quotes, brackets, Chinese…) after each way the pattern
can open (`**A`, `<a`, `Q:`… read from its parsed form), ended by a character that breaks the match. A pattern
that reads such a text in time proportional to its length takes well under a millisecond; one that tries every
split of the run takes seconds to forever, holding the interpreter. Each module's patterns run in a child process
that must finish within `--limit` seconds a pattern (default 5); the slowest ten are printed, and the exit status
is 1 when a pattern went over its limit.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import re
import subprocess
import sys
import time
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import app

RUN_CHARACTERS = [*"aZ09_.-/ \t*<>\"'`#|=,:!@()[]{}\\+~$%&?;^", "中", "：", "。", "、", "\n", "é", "\u3000"]
ENDINGS = ("\x00", "!")
OPENING_LENGTH = 6  # characters of a pattern's opening followed: enough for `**Answer`-like labels' starts
MAX_OPENINGS = 24


def patterns(module_name: str) -> dict[str, re.Pattern[str]]:
    """The compiled string patterns `module_name` holds at module level, by name."""
    module = importlib.import_module(module_name)
    return {f"{module_name}.{name}": value for name, value in vars(module).items()
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str)}


def openings(pattern: re.Pattern[str]) -> list[str]:
    """Ways a match of `pattern` can begin (a few characters each), read from its parsed form; optional parts
    and look-arounds are passed over, a character class gives its first member."""
    found = _starts(list(sre_parse.parse(pattern.pattern, pattern.flags)), OPENING_LENGTH)
    return sorted(set(found))[:MAX_OPENINGS] or [""]


def _starts(items: list[tuple[Any, Any]], room: int) -> list[str]:
    if room <= 0 or not items:
        return [""]
    (op, value), rest = items[0], items[1:]
    name = str(op)
    if name == "LITERAL":
        heads = [chr(value)]
    elif name == "IN":
        heads = [_member(value)]
    elif name == "NOT_LITERAL" or name == "ANY":
        heads = ["a" if value != ord("a") else "b"]
    elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, _, inner = value
        heads = [""] if low == 0 else [start for start in _starts(list(inner), room)]
    elif name == "SUBPATTERN":
        heads = _starts(list(value[-1]), room)
    elif name == "ATOMIC_GROUP":
        heads = _starts(list(value), room)
    elif name == "BRANCH":
        heads = [start for branch in value[1] for start in _starts(list(branch), room)]
    else:  # anchors, look-arounds, group references: nothing to type
        heads = [""]
    result = []
    for head in heads[:MAX_OPENINGS]:
        for tail in _starts(rest, room - len(head))[:MAX_OPENINGS]:
            result.append(head + tail)
    return result


def _member(items: list[tuple[Any, Any]]) -> str:
    """One character of a parsed character class (`a` for a negated or category-only one)."""
    for op, value in items:
        if str(op) == "LITERAL":
            return chr(value)
        if str(op) == "RANGE":
            return chr(value[0])
    return "a"


def hostile_texts(pattern: re.Pattern[str], length: int) -> list[str]:
    """Each start of an opening of `pattern` (`<`, `<a`…) followed by a run of one character, as long as `length`
    and one shorter than each count the pattern asks for (`{257,}`: 256), and a character that ends the match."""
    starts = sorted({opening[:cut] for opening in openings(pattern) for cut in range(len(opening) + 1)},
                    key=lambda start: (len(start), start))[:MAX_OPENINGS]
    lengths = {length} | {count - 1 for count in _counts(pattern) if 1 < count <= length}
    return [start + character * run + ending for start in starts for character in RUN_CHARACTERS
            for run in sorted(lengths) for ending in ENDINGS]


def _counts(pattern: re.Pattern[str]) -> set[int]:
    """The least counts of the pattern's repeats (`{257,}` → 257)."""
    counts: set[int] = set()
    stack: list[Any] = [list(sre_parse.parse(pattern.pattern, pattern.flags))]
    while stack:
        for op, value in stack.pop():
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                counts.add(value[0])
                stack.append(list(value[2]))
            elif name == "SUBPATTERN":
                stack.append(list(value[-1]))
            elif name == "ATOMIC_GROUP":
                stack.append(list(value))
            elif name in ("ASSERT", "ASSERT_NOT"):
                stack.append(list(value[1]))
            elif name == "BRANCH":
                stack.extend(list(branch) for branch in value[1])
    return counts


def _time_module(module_name: str, length: int) -> None:
    """In a child process: print, for each pattern of the module, its name before it starts and its worst time."""
    for name, pattern in patterns(module_name).items():
        print(json.dumps({"start": name}), flush=True)
        worst, text = 0.0, ""
        for candidate in hostile_texts(pattern, length):
            started = time.perf_counter()
            pattern.search(candidate)
            spent = time.perf_counter() - started
            if spent > worst:
                worst, text = spent, candidate
        print(json.dumps({"name": name, "seconds": worst, "text": text[:16]}), flush=True)


def survey(length: int, limit: float) -> tuple[list[tuple[float, str, str]], list[str]]:
    """Every module's patterns timed in a child process: (worst seconds, name, opening of the text) for each, and
    the names of those that went over `limit` seconds."""
    timed: list[tuple[float, str, str]] = []
    over: list[str] = []
    names = [module.name for module in pkgutil.walk_packages(app.__path__, "app.")]
    for module_name in names:
        count = len(patterns(module_name))
        if not count:
            continue
        command = [sys.executable, "-m", "measure.backtracking", "--child", module_name, str(length)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=limit * count, check=True)
            lines = [json.loads(line) for line in done.stdout.splitlines()]
        except subprocess.TimeoutExpired as stopped:
            output = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else stopped.stdout or ""
            lines = [json.loads(line) for line in output.splitlines()]
            started = [line["start"] for line in lines if "start" in line]
            over.append(started[-1] if started else module_name)
        for line in lines:
            if "name" in line:
                timed.append((line["seconds"], line["name"], line["text"]))
                if line["seconds"] > limit:
                    over.append(line["name"])
    return sorted(timed, reverse=True), over


def main() -> int:
    """Print the slowest patterns; exit 1 when one went over the limit."""
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _time_module(sys.argv[2], int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(prog="python -m measure.backtracking", description=__doc__.splitlines()[0])
    parser.add_argument("length", nargs="?", type=int, default=2000, help="characters of each run (default 2000)")
    parser.add_argument("--limit", type=float, default=5.0, help="seconds a pattern may take (default 5)")
    args = parser.parse_args()
    timed, over = survey(args.length, args.limit)
    print(f"{len(timed)} patterns of app/, texts of about {args.length} characters; the slowest:")
    for seconds, name, text in timed[:10]:
        print(f"{seconds * 1000:9.2f} ms  {name}  ({text!r}…)")
    for name in over:
        print(f"over {args.limit:g} s: {name} (it backtracks: rewrite it so that no run can be split two ways)")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
