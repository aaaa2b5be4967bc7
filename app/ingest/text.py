"""Plain-text helpers over markdown-it inline tokens, shared by segmentation and rendering."""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.tree import SyntaxTreeNode


def plain_inline(nodes: Sequence[SyntaxTreeNode]) -> str:
    """The visible text of inline nodes: markup, raw HTML and link targets dropped."""
    parts: list[str] = []
    for node in nodes:
        if node.type in {"text", "code_inline"}:
            parts.append(node.content)
        elif node.type in {"softbreak", "hardbreak"}:
            parts.append(" ")
        elif node.type == "html_inline":
            if node.content.lower().startswith("<br"):
                parts.append(" ")
        elif node.type == "image":
            parts.append(plain_inline(node.children))
        else:
            parts.append(plain_inline(node.children))
    return "".join(parts)
