"""Rendering answers: raw HTML escaped, code highlighted, unreachable links marked."""

from __future__ import annotations

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
