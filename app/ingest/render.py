"""Render answer markdown to safe HTML once, at ingest time.

Raw HTML in content is escaped, code is highlighted by Pygments on the server, and links
whose targets are not reachable from the portal are shown as text marked broken.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import emoji
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

SAFE_SCHEMES = {"http", "https", "mailto"}
_FORMATTER = HtmlFormatter(nowrap=True)


@dataclass(frozen=True)
class LinkContext:
    """Where a document lives, so its relative links can be resolved against the content."""

    document_path: str = ""
    document_urls: Mapping[str, str] = field(default_factory=dict)  # content path → portal URL


@lru_cache(maxsize=4096)  # a document's page repeats the code blocks of its entries
def _highlight(code: str, lang: str, _attrs: str) -> str:
    name = (lang or "").split()[0].strip("{}") if lang else ""
    try:
        lexer = get_lexer_by_name(name) if name else None
    except ClassNotFound:
        lexer = None
    language = escapeHtml(name)
    if lexer is None:
        return f'<pre class="highlight"><code data-lang="{language}">{escapeHtml(code)}</code></pre>\n'
    body = highlight(code, lexer, _FORMATTER)
    return f'<pre class="highlight"><code data-lang="{language}">{body}</code></pre>\n'


def _link_target(href: str, context: LinkContext) -> str | None:
    """The URL to link to, or None when the target is outside the portal's reach."""
    parts = urlsplit(href)
    if parts.scheme:
        return href if parts.scheme.lower() in SAFE_SCHEMES else None
    if not parts.path:
        return None  # in-page anchors name headings of the source file, not of this page
    base = posixpath.dirname(context.document_path)
    resolved = posixpath.normpath(posixpath.join(base, parts.path))
    return context.document_urls.get(resolved)


class _PortalRenderer(RendererHTML):
    """HTML renderer with the portal's link policy."""

    def link_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        target = _link_target(href, env.get("link_context", LinkContext()))
        stack: list[str] = env.setdefault("link_stack", [])
        if target is None:
            stack.append("</span>")
            title = escapeHtml(f"Link target not available in this portal: {href}")
            return f'<span class="broken-link" title="{title}">'
        stack.append("</a>")
        external = urlsplit(target).scheme in {"http", "https"}
        rel = ' rel="noopener noreferrer"' if external else ""
        return f'<a href="{escapeHtml(target)}"{rel}>'

    def link_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        stack: list[str] = env.get("link_stack", [])
        return stack.pop() if stack else "</a>"

    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # GitHub shortcodes (:exclamation:, :warning:) in prose, as GitHub shows them; never in code.
        return escapeHtml(emoji.emojize(tokens[idx].content, language="alias"))

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # Images are never loaded from elsewhere (intranet, no trackers): show their text.
        token = tokens[idx]
        alt = self.renderInlineAsText(token.children or [], options, env)
        src = escapeHtml(str(token.attrGet("src") or ""))
        return f'<span class="image-placeholder" title="Image: {src}">[{escapeHtml(alt or "image")}]</span>'


def _parser() -> MarkdownIt:
    md = MarkdownIt(
        "commonmark",
        {"html": False, "linkify": True, "typographer": False, "highlight": _highlight},
        renderer_cls=_PortalRenderer,
    )
    return md.enable(["table", "linkify", "strikethrough"])


_MARKDOWN = _parser()


def render_markdown(text: str, context: LinkContext | None = None) -> str:
    """Safe HTML for a piece of markdown; raw HTML in it is shown as text."""
    env: dict[str, Any] = {"link_context": context or LinkContext()}
    rendered: str = _MARKDOWN.render(text, env)
    return rendered


def render_inline(text: str, context: LinkContext | None = None) -> str:
    """Safe inline HTML for a one-line piece of markdown (a question)."""
    env: dict[str, Any] = {"link_context": context or LinkContext()}
    rendered: str = _MARKDOWN.renderInline(text, env)
    return rendered
