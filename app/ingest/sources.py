"""Find the documents under the content folder and split off their front matter."""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DOCUMENT_SUFFIXES = {".md", ".markdown", ".txt"}
# Line ends may be CRLF (files saved on Windows): the closing fence must still be found.
FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
MAX_FRONT_MATTER = 64 * 1024
TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\r?\n(.*?)\r?\n\+\+\+[ \t]*(?:\r?\n|\Z)", re.DOTALL)  # Hugo


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


def find_sources(content_dir: Path, skipped: list[tuple[str, str]] | None = None) -> Iterator[SourceFile]:
    """Yield every document file under `content_dir`, in a stable order; hidden files skipped.

    Nothing outside the content folder is ever read: a symbolic link is followed only when
    it resolves inside the folder. Links that lead out, loop or dangle, files that are not
    regular (FIFOs, devices), unreadable folders and names that are not UTF-8 are listed in
    `skipped` with the reason.
    """
    root = content_dir.resolve()
    notes = skipped if skipped is not None else []

    def unreadable(error: OSError) -> None:
        where = Path(error.filename or "").relative_to(content_dir).as_posix() if error.filename else "?"
        notes.append((where, f"folder cannot be read ({error.strerror or error}); check its permissions"))

    found: list[tuple[str, Path]] = []
    for folder, dirs, files in os.walk(content_dir, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        inside = _resolves_inside(Path(folder), root)
        for name in files:
            path = Path(folder) / name
            if name.startswith(".") or path.suffix.lower() not in DOCUMENT_SUFFIXES:
                continue
            relative = path.relative_to(content_dir).as_posix()
            try:
                relative.encode("utf-8")
            except UnicodeEncodeError:
                notes.append((relative.encode("utf-8", "replace").decode("utf-8"),
                              "file name is not valid UTF-8; rename the file"))
                continue
            # A regular file (not a link) in a folder that resolves inside the content folder is inside it: one
            # lstat instead of resolving every component of its path (20,000 files: 2.5 of 30 s reading, profiled).
            problem = None if inside and _is_plain_file(path) else _outside_or_odd(path, root)
            if problem:
                notes.append((relative, problem))
                continue
            found.append((relative, path))
    for relative, path in sorted(found):
        yield SourceFile(path=path, relative_path=relative)


def _resolves_inside(folder: Path, root: Path) -> bool:
    """Whether `folder`, its links resolved, is `root` or inside it."""
    try:
        return folder.resolve(strict=True).is_relative_to(root)
    except (OSError, RuntimeError):
        return False


def _is_plain_file(path: Path) -> bool:
    """A regular file itself: not a symbolic link, FIFO, socket or device (and there)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _outside_or_odd(path: Path, root: Path) -> str | None:
    """Why a found name must not be read, or None when it is a regular file inside `root`."""
    try:
        target = path.resolve(strict=True)
    except FileNotFoundError:
        return "symbolic link to nothing (dangling); remove it or point it at a file in the content folder"
    except (OSError, RuntimeError):
        return "symbolic link loop; remove the link"
    if not target.is_relative_to(root):
        return "symbolic link leads outside the content folder; copy the file in instead"
    if not target.is_file():
        return "not a regular file (FIFO, socket or device)"
    return None


def split_front_matter(text: str) -> FrontMatter:
    """Separate YAML (`---` … `---`) or TOML (`+++` … `+++`) front matter from the markdown body."""
    match = FRONT_MATTER.match(text) or TOML_FRONT_MATTER.match(text)
    if not match:
        return FrontMatter(body=text)
    # Blank lines keep every source line number in the body where it was in the file.
    body = "\n" * match.group(0).count("\n") + text[match.end():]
    try:
        if len(match.group(1)) > MAX_FRONT_MATTER:
            return FrontMatter(body=body, error=f"front matter is over {MAX_FRONT_MATTER // 1024} KB; it was ignored")
        loaded = tomllib.loads(match.group(1)) if text.startswith("+++") else load_yaml(match.group(1))
    except tomllib.TOMLDecodeError as exc:
        return FrontMatter(body=body, error=f"front matter is not valid TOML: {exc}")
    except yaml.YAMLError as exc:
        return FrontMatter(body=body, error=f"front matter is not valid YAML: {_one_line(exc)}")
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        return FrontMatter(body=body, error="front matter is not a mapping of keys to values")
    return FrontMatter(metadata={str(k): v for k, v in loaded.items()}, body=body)


SIDECAR_SUFFIX = ".meta.yml"


class _NoAliasLoader(yaml.SafeLoader):
    """YAML without anchors and aliases: a few hundred bytes of nested aliases expand to gigabytes."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed in metadata",
                                              event.start_mark)
        return super().compose_node(parent, index)


def _one_line(exc: Exception) -> str:
    """A YAML error as one line: what is wrong and where."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark
        return f"{exc.problem} (line {mark.line + 1})" if mark else exc.problem
    return " ".join(str(exc).split())


def load_yaml(text: str) -> Any:
    """Metadata YAML, safely: plain data only, no aliases."""
    return yaml.load(text, Loader=_NoAliasLoader)  # a SafeLoader: plain data only


def read_sidecar(document: Path) -> tuple[dict[str, Any], str | None]:
    """Metadata kept beside a document whose bytes must not change (`faq.md` → `faq.md.meta.yml`)."""
    path = document.with_name(document.name + SIDECAR_SUFFIX)
    if not path.is_file():
        return {}, None
    try:
        loaded = load_yaml(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return {}, f"{path.name} cannot be read as YAML ({_one_line(exc)}); its metadata was ignored"
    if not isinstance(loaded, dict):
        return {}, f"{path.name} is not a mapping of keys to values; its metadata was ignored"
    return {str(k): v for k, v in loaded.items()}, None
