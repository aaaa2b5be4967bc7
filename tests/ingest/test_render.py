"""Rendering answers: raw HTML escaped, code highlighted, unreachable links marked."""

from __future__ import annotations

import pytest

from app.ingest.render import LinkContext, render_markdown


def test_render_escapes_raw_html_from_content() -> None:
    html = render_markdown('<script>alert("x")</script>\n\n<img src=x onerror=alert(1)>\n')
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html


def test_render_highlights_code_on_the_server() -> None:
    html = render_markdown("```python\nimport os\n```\n")
    assert '<span class="kn">import</span>' in html


def test_render_marks_links_outside_the_portal_as_broken() -> None:
    html = render_markdown("see [train_utils.py](../src/train_utils.py) and [here](Dataset.md)")
    assert 'href="../src' not in html and 'href="Dataset.md"' not in html
    assert html.count('class="broken-link"') == 2


def test_render_rewrites_links_to_other_ingested_documents() -> None:
    context = LinkContext(document_path="en/faq.md", document_urls={"en/setup.md": "/documents/en-setup"})
    html = render_markdown("[setup](setup.md) [web](https://example.org/x)", context)
    assert 'href="/documents/en-setup"' in html
    assert 'href="https://example.org/x" rel="noopener noreferrer"' in html


def test_render_never_emits_script_urls_or_remote_images() -> None:
    html = render_markdown("[x](javascript:alert(1)) ![tracker](https://t.example/p.gif)")
    assert "javascript:" not in html.replace("[x](javascript:alert(1))", "")
    assert "<img" not in html


def test_github_shortcodes_become_emoji_in_prose_but_not_in_code() -> None:
    html = render_markdown(":exclamation: Note `:warning:` at 12:30:45, :not_an_emoji:\n\n```\n:+1:\n```")
    assert html.startswith("<p>❗ Note <code>:warning:</code> at 12:30:45, :not_an_emoji:</p>")
    assert ":+1:" in html


def test_allowed_inline_html_is_rendered_and_any_other_tag_reads_as_written() -> None:
    html = render_markdown('## <a name="1"></a> 1. Why?\n\n| Error | Fix |\n|---|---|\n'
                           "| a<br />b | <kbd>Ctrl</kbd>+<kbd>C</kbd> |\n\n"
                           "H<sub>2</sub>O uses List<String> when a < b.\n\n"
                           "<details><summary>More</summary>\n\nhidden **text**\n\n</details>\n<!-- editors only -->\n")
    assert html.startswith("<h2><a></a> 1. Why?</h2>")  # the anchor is markup, never text
    assert '<td data-label="Error">a<br>b</td>' in html and "<kbd>Ctrl</kbd>+<kbd>C</kbd>" in html
    assert "H<sub>2</sub>O uses List&lt;String&gt; when a &lt; b." in html
    assert "<details><summary>More</summary>" in html and "<strong>text</strong>" in html
    assert "editors only" not in html


def test_raw_links_and_images_follow_the_portal_policy() -> None:
    context = LinkContext("docs/faq.md", {"docs/setup.md": "/documents/setup"})
    html = render_markdown('<a href="setup.md">in</a> <a href="https://example.org" onclick="x()">out</a> '
                           '<a href="JaVaScRiPt:alert(1)">js</a> <a href="missing.md">gone</a> '
                           '<img src="https://t.example/p.gif" alt="chart">', context)
    assert '<a href="/documents/setup">in</a>' in html
    assert '<a href="https://example.org" rel="noopener noreferrer">out</a>' in html
    assert "<a>js</a>" in html and "<a>gone</a>" in html and "onclick" not in html
    assert '<span class="image-placeholder">[chart]</span>' in html and "t.example" not in html


def test_the_sanitiser_built_once_cleans_as_the_allow_lists_say() -> None:
    """The prepared cleaner gives what `nh3.clean` with the allow-lists gives, on hostile and ordinary HTML."""
    import nh3

    from app.ingest.render import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, SAFE_SCHEMES, sanitise

    samples = [
        '<p onclick="x()">a <a href="javascript:alert(1)" rel="x">b</a> <a href="https://e.org" title="t">c</a></p>',
        '<script>alert(1)</script><!-- note --><img src="https://t.example/p.gif"><iframe src="x"></iframe>',
        '<pre class="highlight"><code data-lang="bash" style="x">export A=1</code></pre><td data-label="K">v</td>',
        '<details open><summary>Q?</summary><span class="broken-link" title="t">x</span></details><u>u</u>',
        '<a href="mailto:a@b.c">m</a><a href="ftp://x">f</a><ol start="3" type="a"><li>i</li></ol>',
    ]
    for html in samples:
        assert sanitise(html) == nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES,
                                           url_schemes=SAFE_SCHEMES, link_rel=None, strip_comments=True)


def test_prose_without_a_colon_is_not_looked_through_for_shortcodes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only text that can hold a `:shortcode:` goes to emoji; everything else is escaped as it is."""
    import emoji

    asked: list[str] = []
    real = emoji.emojize

    def emojize(text: str, **kwargs: object) -> str:
        asked.append(text)
        return real(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(emoji, "emojize", emojize)
    html = render_markdown("Set `a<b` to 5 & go.\n\nThen :warning: watch <i>it</i>.")
    assert html == "<p>Set <code>a&lt;b</code> to 5 &amp; go.</p>\n<p>Then ⚠️ watch <i>it</i>.</p>\n"
    assert asked == ["Then :warning: watch "]
