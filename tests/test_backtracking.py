"""Patterns that read what readers and editors write do so in time bounded by its length, never exponential.

A regular expression that can split a run of characters in many ways (two classes that share a character, a
quantified group inside a quantified group, `\\s*\\d*\\s*`) tries every split when the text does not match, and
Python's engine holds the interpreter while it does: one query or one line of a file then stalls every search of
the process, or the ingest, for minutes to forever. Each case runs in a child process (a stalled match cannot be
interrupted) that must finish within seconds; before the patterns were rewritten each took minutes or never ended.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.queries import all_entries
from measure import backtracking
from tests.conftest import settings_for

ROOT = Path(__file__).resolve().parents[1]
SECONDS = 20  # each case takes milliseconds now; before, the shortest took about a minute


def _bounded(code: str) -> object:
    """The JSON that `code` (which defines `result`) yields, run in a child Python that must end within SECONDS."""
    program = textwrap.dedent(code) + "\nimport json\nprint(json.dumps(result))\n"
    try:
        done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True,
                              timeout=SECONDS, check=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not finish within {SECONDS} s: the pattern backtracks")
    return json.loads(done.stdout.splitlines()[-1])


def test_a_long_word_of_underscores_is_cut_at_once() -> None:
    # 256 underscores and a stop: `_` was a letter and a separator, 2^256 ways to read them (the search hung).
    assert _bounded("""
        from app.search.analysis import shorten_words
        result = [shorten_words("_" * 256 + "!x"), shorten_words("中" + "_" * 300 + "!x")]
    """) == ["_" * 256 + "!x", "中" + "_" * 256 + "!x"]


def test_a_search_for_underscores_and_a_stop_answers(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    run_ingest(settings, progress=False)
    assert _bounded(f"""
        from pathlib import Path
        from app.config import Settings
        from app.main import create_app
        from measure.evaluation import InProcessClient
        settings = Settings(data_dir=Path({str(settings.data_dir)!r}), content_dir=Path({str(settings.content_dir)!r}),
                            database_url="", semantic=False, _env_file=None)
        with InProcessClient(create_app(settings)) as client:
            queries = ("中" + "_" * 256 + "!x", "_" * 250 + "!")
            answers = [client.get("/api/v1/search", params={{"q": q}}) for q in queries]
        result = [answer.status_code for answer in answers]
    """) == [200, 200]


def test_an_error_line_of_dotted_parts_is_read_in_one_pass() -> None:
    # Every part of `a.a.a…` started a qualified name read to the end of the word: quadratic (80,000: 26 s).
    line = "ERROR " + "a." * 40_000 + "1Error: it broke here"
    assert _bounded(f"""
        from app.search.errors import innermost_error
        line = {line!r}
        result = [innermost_error(line) == line, innermost_error("torch._C._LinAlgError: linalg inv failed"),
                  innermost_error("启动报错java.lang.IllegalArgumentException: the key is short")]
    """) == [True, "LinAlgError: linalg inv failed", "java.lang.IllegalArgumentException: the key is short"]


def test_an_answer_label_followed_by_spaces_is_read_at_once() -> None:
    # `**A` and 20,000 spaces: the spaces were split between three `\s*` every way (cubic: about 40 minutes).
    assert _bounded("""
        from app.ingest.segment.evidence import ANSWER_PREFIX, strip_numbering
        spaces = " " * 20_000
        result = [ANSWER_PREFIX.match("**A" + spaces) is None, ANSWER_PREFIX.match("**A" + spaces + "**").end(),
                  strip_numbering("**Q" + spaces + "x").endswith("x"), strip_numbering("**Q3：** Why?")]
    """) == [True, 20_005, True, "Why?"]


def test_an_unclosed_tag_in_rendered_html_is_read_at_once() -> None:
    # `<a` and 60 letters with no `>`: 2^60 ways to split them between the name and the attributes.
    assert _bounded("""
        from app.web.outline import TAG
        tag = '<a' + '0' * 60
        result = [TAG.search(tag) is None, TAG.search(tag + ' title="x>y">').span()]
    """) == [True, [0, 75]]


def test_the_language_of_a_long_line_without_spaces_is_counted_in_one_pass() -> None:
    # A 200,000-character line of Chinese: the path-like token was looked for from each character (3 minutes).
    assert _bounded("""
        from app.ingest.language import language_scores
        result = [language_scores("中" * 200_000), language_scores("<" * 200_000),
                  language_scores("用`stop_gradient=True`的 scope path/to/x and more words")]
    """) == [[200_000, 0], [0, 0], [2, 4]]  # 用 and 的: Chinese ends the code glued to it


def test_a_file_of_hostile_lines_is_ingested(tmp_path: Path) -> None:
    # jieba copies its path at each character it does not know: a run of 200,000 took it about 90 s.
    content = tmp_path / "content"
    content.mkdir()
    (content / "faq.zh.md").write_text(
        "# 常见问题\n\n## 为什么启动失败？\n\n**A" + " " * 20_000 + "\n\n" + "中" * 200_000 + "\n\n"
        "## How do I set the key?\n\n" + "a." * 20_000 + "1Error\n", encoding="utf-8")
    settings: Settings = settings_for(tmp_path, content)
    assert _bounded(f"""
        from pathlib import Path
        from app.config import Settings
        from app.ingest.pipeline import run_ingest
        settings = Settings(data_dir=Path({str(settings.data_dir)!r}), content_dir=Path({str(content)!r}),
                            database_url="", semantic=False, _env_file=None)
        result = sum(run_ingest(settings, progress=False).entries_by_lang.values())
    """) == 2
    assert {entry.title for entry in all_entries(settings)} == {"为什么启动失败？", "How do I set the key?"}


def test_every_pattern_of_the_portal_reads_hostile_texts_in_bounded_time() -> None:
    timed, over = backtracking.survey(2000, limit=3.0)
    assert len(timed) > 100  # every module of app/ was read
    assert not over, f"these patterns backtrack: {over}"


def test_the_hostile_texts_reach_the_splits_that_hung() -> None:
    # The patterns as they were: each of these texts kept Python's engine busy for minutes or forever.
    long_word = re.compile(r"(?<![^\W\u4e00-\u9fff]|[._\-/+])(?:[^\W\u4e00-\u9fff]|[._\-/+]){257,}")
    answer = re.compile(r"^\s*(?:\*\*\s*(?:A|Answer)\s*\d*\s*[:：]?\s*\*\*\s*[:：]?|(?:A|Answer)\s*\d*\s*[:：])\s*")
    tag = re.compile(r"""<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']+|"[^"]*"|'[^']*')*)>""")
    assert "_" * 256 + "\x00" in backtracking.hostile_texts(long_word, 2000)
    assert "**A" + " " * 2000 + "\x00" in backtracking.hostile_texts(answer, 2000)
    assert "<a" + "0" * 2000 + "\x00" in backtracking.hostile_texts(tag, 2000)
