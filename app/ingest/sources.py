"""Find the documents under the content folder and split off their front matter."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DOCUMENT_SUFFIXES = {".md", ".markdown", ".txt"}
FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\n(.*?)\n\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)  # Hugo


@dataclass(frozen=True)
class SourceFile:
    """One document file found under the content folder."""

    path: Path
    relative_path: str  # POSIX path relative to the content folder, the document's identity


@dataclass(frozen=True)
class FrontMatter:
    """A document's metadata and its body, with line numbers kept (front matter blanked)."""

    metadata: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    error: str | None = None


def find_sources(content_dir: Path) -> Iterator[SourceFile]:
    """Yield every document file under `content_dir`, in a stable order; hidden files skipped."""
    for path in sorted(content_dir.rglob("*")):
        relative = path.relative_to(content_dir)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.is_file() and path.suffix.lower() in DOCUMENT_SUFFIXES:
            yield SourceFile(path=path, relative_path=relative.as_posix())


def split_front_matter(text: str) -> FrontMatter:
    """Separate YAML (`---` … `---`) or TOML (`+++` … `+++`) front matter from the markdown body."""
    match = FRONT_MATTER.match(text) or TOML_FRONT_MATTER.match(text)
    if not match:
        return FrontMatter(body=text)
    # Blank lines keep every source line number in the body where it was in the file.
    body = "\n" * match.group(0).count("\n") + text[match.end():]
    try:
        loaded = tomllib.loads(match.group(1)) if text.startswith("+++") else yaml.safe_load(match.group(1))
    except tomllib.TOMLDecodeError as exc:
        return FrontMatter(body=body, error=f"front matter is not valid TOML: {exc}")
    except yaml.YAMLError as exc:
        return FrontMatter(body=body, error=f"front matter is not valid YAML: {exc}")
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        return FrontMatter(body=body, error="front matter is not a mapping of keys to values")
    return FrontMatter(metadata={str(k): v for k, v in loaded.items()}, body=body)


SIDECAR_SUFFIX = ".meta.yml"


def read_sidecar(document: Path) -> tuple[dict[str, Any], str | None]:
    """Metadata kept beside a document whose bytes must not change (`faq.md` → `faq.md.meta.yml`)."""
    path = document.with_name(document.name + SIDECAR_SUFFIX)
    if not path.is_file():
        return {}, None
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return {}, f"{path.name} cannot be read as YAML ({exc}); its metadata was ignored"
    if not isinstance(loaded, dict):
        return {}, f"{path.name} is not a mapping of keys to values; its metadata was ignored"
    return {str(k): v for k, v in loaded.items()}, None
