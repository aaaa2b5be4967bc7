"""Render answer markdown to safe HTML once, at ingest time.

Inline HTML that documents use for layout (`<br />`, `<sub>`, `<kbd>`, `<details>`, anchors, tables)
is rendered through an allow-list sanitiser (nh3, Ammonia's bindings): any other tag is shown as
text, as written (`List<String>`), and no attribute can run script or load anything. Code is
highlighted by Pygments on the server, and links whose targets are not reachable from the portal
are shown as text marked broken.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import emoji
import nh3
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
# Tags content may write as HTML, and what each may carry; everything else written as a tag is shown as text.
# `class`, `title` and `data-lang` are the renderer's own (highlighted code, broken links, image placeholders).
ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small",
    "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "rel"}, "abbr": {"title"}, "code": {"data-lang"}, "details": {"open"},
    "ol": {"start"}, "pre": {"class"}, "span": {"class", "title"}, "td": {"colspan", "rowspan", "data-label"},
    "th": {"colspan", "rowspan", "scope"},
}
RAW_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)\b[^<>]*>")
RAW_IMAGE = re.compile(r"<img\b[^<>]*>", re.IGNORECASE)
RAW_ATTRIBUTE = re.compile(r"""\b(alt|href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>]+))""", re.IGNORECASE)
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


def _anchor(target: str) -> str:
    """The opening tag of a link the portal can follow; other sites get no referrer and no opener."""
    external = urlsplit(target).scheme in {"http", "https"}
    rel = ' rel="noopener noreferrer"' if external else ""
    return f'<a href="{escapeHtml(target)}"{rel}>'


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
        return _anchor(target)

    def link_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        stack: list[str] = env.get("link_stack", [])
        return stack.pop() if stack else "</a>"

    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # GitHub shortcodes (:exclamation:, :warning:) in prose, as GitHub shows them; never in code. Text without a
        # colon holds none, and is most text: emojize is not asked.
        content = tokens[idx].content
        return escapeHtml(emoji.emojize(content, language="alias") if ":" in content else content)

    def html_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return _raw_html(tokens[idx].content, env.get("link_context", LinkContext()))

    def html_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return _raw_html(tokens[idx].content, env.get("link_context", LinkContext()))

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # Images are never loaded from elsewhere (intranet, no trackers): show their text.
        token = tokens[idx]
        alt = self.renderInlineAsText(token.children or [], options, env)
        src = escapeHtml(str(token.attrGet("src") or ""))
        return f'<span class="image-placeholder" title="Image: {src}">[{escapeHtml(alt or "image")}]</span>'


def _raw_html(raw: str, context: LinkContext) -> str:
    """Raw HTML from content, ready for the sanitiser: allowed tags kept (their links under the portal's link
    policy), images shown as their text, anything else escaped so that it reads as written."""
    def tag(match: re.Match[str]) -> str:
        whole, closing, name = match.group(0), match.group(1), match.group(2).lower()
        if name == "img" and not closing:
            alt = _attribute(whole, "alt") or "image"
            return f'<span class="image-placeholder">[{escapeHtml(alt)}]</span>'
        if name not in ALLOWED_TAGS:
            return escapeHtml(whole)
        if name == "a" and not closing:
            target = _link_target(_attribute(whole, "href") or "", context)
            return _anchor(target) if target else "<a>"
        return whole

    # Comments are for editors (the sanitiser drops them); a `<` that opens no tag is text.
    pieces = re.split(r"(<!--.*?-->)", raw, flags=re.DOTALL)
    return "".join(piece if piece.startswith("<!--") else _replace_tags(piece, tag) for piece in pieces)


def _replace_tags(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """`text` with each tag replaced by `replace(tag)`, and a `<` between them escaped."""
    out: list[str] = []
    cursor = 0
    for match in RAW_TAG.finditer(text):
        out.append(text[cursor:match.start()].replace("<", "&lt;"))
        out.append(replace(match))
        cursor = match.end()
    out.append(text[cursor:].replace("<", "&lt;"))
    return "".join(out)


def _attribute(tag: str, name: str) -> str | None:
    for match in RAW_ATTRIBUTE.finditer(tag):
        if match.group(1).lower() == name:
            return next(value for value in match.groups()[1:] if value is not None)
    return None


# Built once: `nh3.clean` converts the allow-lists into a new sanitiser on every call, two thirds of its time on
# an answer of a few lines (60,000 calls in an ingest of 20,000 small files).
_CLEANER = nh3.Cleaner(tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes=SAFE_SCHEMES, link_rel=None,
                       strip_comments=True)


def sanitise(html: str) -> str:
    """Rendered HTML with only the allowed tags and attributes, and only http(s) and mailto links."""
    cleaned: str = _CLEANER.clean(html)
    return cleaned


def _label_cells(state: Any) -> None:
    """Give each body cell of a markdown table its column's heading (`data-label`): on a phone the rows are shown
    as cards, each cell under its heading, instead of a table wider than the screen."""
    headings: list[str] = []
    column = 0
    in_head = False
    for token in state.tokens:
        if token.type == "thead_open":
            headings, in_head = [], True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            column = 0
        elif token.type == "inline" and in_head:
            headings.append(re.sub(r"[*_`]|<[^>]*>", "", token.content).strip())
        elif token.type == "td_open":
            if column < len(headings) and headings[column]:
                token.attrSet("data-label", headings[column])
            column += 1


def _parser() -> MarkdownIt:
    md = MarkdownIt(
        "commonmark",
        {"html": True, "linkify": True, "typographer": False, "highlight": _highlight},
        renderer_cls=_PortalRenderer,
    )
    md.enable(["table", "linkify", "strikethrough"])
    md.core.ruler.push("label_cells", _label_cells)
    return md


_MARKDOWN = _parser()


def render_markdown(text: str, context: LinkContext | None = None) -> str:
    """Safe HTML for a piece of markdown; its allowed inline HTML rendered, any other tag shown as text."""
    env: dict[str, Any] = {"link_context": context or LinkContext()}
    return sanitise(_MARKDOWN.render(text, env))


def render_inline(text: str, context: LinkContext | None = None) -> str:
    """Safe inline HTML for a one-line piece of markdown (a question)."""
    env: dict[str, Any] = {"link_context": context or LinkContext()}
    return sanitise(_MARKDOWN.renderInline(text, env))
