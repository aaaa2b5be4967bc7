"""Pasted errors and tracebacks: recognise them and reduce them to a searchable signature.

Error trackers group events by exception type plus a normalised message; log miners mask
numbers, paths and addresses. The same normaliser runs over each entry's error lines at
ingest and over a pasted error at query time, so `CUDA out of memory. Tried to allocate
20.00 MiB (GPU 3; 23.65 GiB total capacity)` meets `CUDA out of memory. Tried to allocate
2.00 GiB` in the index.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

ERROR_LINE = re.compile(
    r"(?:^|[\s:：，,（(])((?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit|Fault)E?\b:?.*)$"
)  # (`E?`: C++'s mangled names, `N6apache6thrift9transport19TTransportExceptionE: Timed Out`)
# A Java or Python stack frame: it names where code ran, never what failed.
STACK_FRAME = re.compile(r"at [\w$.<>/]+\([\w$. ]*(?::\d+)?\)|File \".*\", line \d+")
# Python tracebacks, Java stack frames and causes, Go goroutine dumps.
TRACEBACK_MARKERS = re.compile(
    r"Traceback \(most recent call last\)|^[^\S\n]*(?:" + STACK_FRAME.pattern + r")|^[^\S\n]*Caused by: "
    r"|^goroutine \d+ \[", re.MULTILINE)  # a line's own indent only: `\s*` read every following empty line again
# The message of a log line, after its level, and of tools that name no exception type:
# Go panics, compilers, linkers and loaders, the shell. (No leading `.*`: lines are long.)
LOG_LEVEL = re.compile(r"(?:(?:^|\s)(?:ERROR|FATAL|CRITICAL|SEVERE)\b|\[(?:ERROR|FATAL|error|crit|alert|emerg)"
                       r"(?:\s*\(-?\d+\))?\])\s*[:\-]?\s+(\S.*)$")  # (`[ERROR (-8)]: Wrong vertex id type`)
# A warning names the failure when a log holds nothing worse (`[warn] … _request_uri(): … timeout`).
WARN_LEVEL = re.compile(r"(?:(?:^|\s)(?:WARN|WARNING)\b|\[(?:warn|WARN|warning|WARNING)\])\s*[:\-]?\s+(\S.*)$")
# An informational line says what happened when a log holds nothing worse, if it is a log line (timestamped):
# `2020-09-08 18:46:14.920 INFO … DefaultGlobalTransaction … commit status: Committed`. A question that
# mentions "INFO" has no timestamp.
INFO_LEVEL = re.compile(r"(?:(?:^|\s)(?:INFO|DEBUG|NOTICE)\b|\[(?:info|notice|INFO|NOTICE)\])\s*[:\-]?\s+(\S.*)$")
TIMESTAMP = re.compile(r"\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d:\d\d|\b\d\d:\d\d:\d\d[.,]\d+")
TOOL_PREFIX = re.compile(r"(?:^|\s)((?:panic|fatal error|error|Error|ERROR)\s*:\s*\S.*)$")
TOOL_PHRASE = re.compile(r"\b(?:command not found|undefined reference to|error while loading shared libraries"
                         r"|cannot open shared object file|cannot find -l\w+|No such file or directory)\b")
# The message of an API's JSON error payload: {"error": {"message": "You exceeded your quota"}}.
JSON_MESSAGE = re.compile(r'"(?:message|msg|errmsg|error|detail|reason|description)"\s*:\s*"((?:[^"\\]|\\.){4,})"')
BOILERPLATE = re.compile(
    r"(?i)CUDA kernel errors might be asynchronously reported.*|For debugging consider passing.*"
    r"|Compile with `?TORCH_USE_CUDA_DSA`?.*|See above for output.*|note: This (?:error|is an issue).*"
)
MASKS = (
    re.compile(r"\([^()]*\)"),  # parentheticals: (GPU 3; 23.65 GiB total capacity)
    re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.\-@]+){2,}[\\/]?"),  # paths
    re.compile(r"\b0x[0-9a-fA-F]+\b"),  # addresses
    re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}\b"),  # hex ids: trace, span, commit, request
    re.compile(r"\b\d+(?:\.\d+)?\s*(?:[KMGT]i?B|bytes?|ms|s|%)\b"),  # sizes and durations
    re.compile(r"\bline \d+\b"),
    re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w.])"),  # other numbers, not those inside names (libnccl.so.2)
    re.compile(r"[\"'`“”‘’]"),  # quotes of every kind
)
MAX_SIGNATURE_WORDS = 12
# A qualified name (`java.lang.IllegalStateException`) starts where an identifier or one of its parts does (after
# Chinese, `报错java.lang…`, or `9.java.lang…`), and names at most 16 packages: from inside a word, or through
# every part of `a.a.a…`, its parts were read again from every letter of a long word (4,000 characters: 66 ms).
# A bare type may start inside a word (`torch._C._LinAlgError`).
TYPE_END = re.compile(r"(?:Error|Exception)\b")  # where an error's type can end
ERROR_TYPE = re.compile(r"(?:(?<![A-Za-z0-9_$])(?:[A-Za-z_][\w$]*+\.){1,16})?[A-Z]\w*" + TYPE_END.pattern)
MESSAGE_WORD = re.compile(r"[A-Za-z]{2,}")
MIN_MESSAGE_WORDS = 2  # a cause with fewer words says less than the wrapper's message
WORD = re.compile(r"\S+")
ERROR_PREFIX = re.compile(r"(?<!\s)\s*+" + ERROR_TYPE.pattern + r"E?\s*+[:\[]\s*+")
MAX_PHRASE_WORDS = 6


def looks_like_error(text: str) -> bool:
    """True for a pasted traceback, stack trace or log, or a message that names an error."""
    return bool(TRACEBACK_MARKERS.search(text)) or bool(error_lines(text))


def read_pasted(text: str) -> tuple[str, str] | None:
    """A pasted error's signature and phrase (see below), its lines read once; None when `text` is no error."""
    lines = error_lines(text)
    if not lines and not TRACEBACK_MARKERS.search(text):
        return None
    return _signature(lines), _phrase(lines)


def error_lines(text: str) -> list[str]:
    """The error lines of a text, in order: `XxxError: message`, else a log's or tool's message.

    A log's warnings count only when it holds no error, its informational lines only when it holds neither.
    """
    lines: list[str] = []
    warnings: list[str] = []
    notes: list[str] = []
    for raw in text.splitlines():
        line = BOILERPLATE.sub("", raw).strip()
        if STACK_FRAME.match(line):  # `at com.mysql.SQLError.createSQLException(SQLError.java:110)`
            continue
        if messages := JSON_MESSAGE.findall(line):
            lines.extend(message.strip() for message in messages)
        elif match := ERROR_LINE.search(line) or LOG_LEVEL.search(line) or TOOL_PREFIX.search(line):
            lines.append(match.group(1).strip())
        elif TOOL_PHRASE.search(line):
            lines.append(line)
        elif match := WARN_LEVEL.search(line):
            warnings.append(match.group(1).strip())
        elif TIMESTAMP.search(line) and (match := INFO_LEVEL.search(line)):
            notes.append(match.group(1).strip())
    return lines or warnings or notes


def innermost_error(line: str) -> str:
    """The last error a chained message names, with its message: `…; nested exception is A: B[msg]` → `B[msg]`."""
    for start, end in reversed(list(_error_types(line))):
        if len(MESSAGE_WORD.findall(line[end:])) >= MIN_MESSAGE_WORDS:
            return line[start:]
    return line


def _error_types(line: str) -> Iterator[tuple[int, int]]:
    """Where ERROR_TYPE matches in `line`: in the words (a match holds no space) where a type can end, each read
    up to its last such end, past which ERROR_TYPE would try every start of a word for nothing."""
    for word in WORD.finditer(line):
        text = word.group()
        ends = [match.end() for match in TYPE_END.finditer(text)]
        if ends:
            for match in ERROR_TYPE.finditer(text[:ends[-1] + 1]):
                yield word.start() + match.start(), word.start() + match.end()


def normalise_error(line: str) -> str:
    """An error line without its variable parts: paths, numbers, sizes, addresses, quotes."""
    for mask in MASKS:
        line = mask.sub(" ", line)
    words = [word for word in line.replace(":", " ").split() if any(char.isalnum() for char in word)]
    return " ".join(words[:MAX_SIGNATURE_WORDS])


def error_signature(text: str) -> str:
    """What to search for when `text` is a pasted error: the last error line(s), normalised."""
    return _signature(error_lines(text))


def _signature(lines: list[str]) -> str:
    if not lines:
        return ""
    # The last error is the one raised; a chained 'During handling…' error is kept too.
    chosen = lines[-2:] if len(lines) > 1 and lines[-1].split(":")[0] != lines[-2].split(":")[0] else lines[-1:]
    return " ".join(normalise_error(innermost_error(line)) for line in chosen)


def error_phrase(text: str) -> str:
    """The words that open the raised error's message, up to its first variable part: `Type is required`.

    FAQ entries quote messages; the type before them is often left out (or generic).
    """
    return _phrase(error_lines(text))


def _phrase(lines: list[str]) -> str:
    if not lines:
        return ""
    line = innermost_error(lines[-1])
    if typed := ERROR_PREFIX.match(line):
        line = line[typed.end():]
    for mask in MASKS:
        line = mask.sub("\x00", line)
    for part in line.split("\x00"):
        words = [word for word in part.replace(":", " ").split() if any(c.isalnum() for c in word)]
        if len(words) >= MIN_MESSAGE_WORDS:
            return " ".join(words[:MAX_PHRASE_WORDS])
    return ""


def error_field_text(*texts: str) -> str:
    """The index's error-signature field for an entry: every error line it mentions, normalised."""
    return "\n".join(normalise_error(line) for text in texts for line in error_lines(text))
