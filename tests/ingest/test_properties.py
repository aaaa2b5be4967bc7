"""Property tests: whatever markdown arrives, segmentation and rendering never break.

Hypothesis writes the documents: headings, list items, questions, code fences, HTML, odd
Unicode, in any order. Each property is one promise of the ingest.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.ingest.render import render_markdown
from app.ingest.segment.decide import segment_markdown

PIECES = st.sampled_from([
    "# Title", "## How do I fix it?", "### 为什么显存不足？", "- Why does it crash?", "  indented answer",
    "1. What is FSDP?", "**问题1：** 如何安装？", "**回答1：** 这样。", "Q: Can I?", "A: Yes.", "```", "```python",
    "x = 1  # not a heading", "<details><summary>Why?</summary>", "</details>", "<script>alert(1)</script>",
    "| error | fix |", "|---|---|", "| `OOM` | smaller batch |", "> quoted", "---", "", "*", "**", "_", "`",
    "[link](javascript:alert(1))", "![img](http://tracker.example/x.png)", "<h2>Q?</h2>", "\t", "\u200b", "\ufeff",
])
DOCUMENTS = st.lists(st.one_of(PIECES, st.text(max_size=40)), max_size=40).map("\n".join)
# What the renderer may emit: markup of its own, never anything a content author smuggles in.
ALLOWED_TAGS = {
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "pre", "code", "span", "div", "a", "em",
    "strong", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "s",
    "del", "sup", "sub", "mark", "img", "input", "button",
}
TAG = re.compile(r"<\s*/?\s*([a-zA-Z][a-zA-Z0-9]*)")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
@example("`\n`\n---\n- Why does it crash?")  # found by hypothesis: a setext heading of one backtick
def test_segmentation_never_fails_and_every_entry_asks_something(text: str) -> None:
    parsed = segment_markdown(text, fallback_title="doc")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for entry in parsed.entries:
        assert entry.question.strip() and entry.title.strip()
        assert 1 <= entry.line <= len(lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_rendering_emits_only_allowed_tags_and_no_script(text: str) -> None:
    html = render_markdown(text)
    assert {tag.lower() for tag in TAG.findall(html)} <= ALLOWED_TAGS
    assert "<script" not in html.lower()
    assert not re.search(r"""(?:href|src)\s*=\s*["']?\s*javascript:""", html, re.IGNORECASE)
    assert 'src="http' not in html  # no image or script from elsewhere
