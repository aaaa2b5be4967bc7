"""When each document last changed: its last commit when the content folder is a git work tree, else (or when
the file has uncommitted edits) its modification time. One `git log` for the whole folder, not one per file.

And when an entry's lines were written, for an entry the portal has never served (its history then starts
from git, not from the day of the first ingest): one `git blame` per file holding such entries, within a
time budget.

And a document as it stood at a commit a translator names (`translation_of_commit`, app/outdated.py), within
the same budget as one git command.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

GIT_SECONDS = 30  # a huge history must not hold up an ingest: past this, modification times are used
UNCOMMITTED = "0" * 40 + " "  # git blame's commit for lines not committed yet
BLAME_SECONDS = 30  # every `git blame` of one ingest together; past it, new entries' histories start at the ingest


def _git(folder: Path, *args: str, seconds: float = GIT_SECONDS) -> str | None:
    done = _git_bytes(folder, *args, seconds=seconds)
    return None if done is None else done.decode("utf-8", "replace")


def _git_bytes(folder: Path, *args: str, seconds: float = GIT_SECONDS) -> bytes | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, timeout=seconds, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _modified(path: Path) -> str:
    try:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).date().isoformat()
    except OSError:
        return ""


def change_dates(folder: Path, files: Iterable[Path]) -> dict[Path, str]:
    """Each file's last-changed date (YYYY-MM-DD): from git where it is committed and unedited, else its mtime."""
    files = list(files)
    dates = {path: _modified(path) for path in files}
    tree = _work_tree(folder)
    if tree is None:
        return dates
    root, dirty = tree
    history = _git(folder, "log", "--format=@%cs", "--name-only", "--no-renames", "--", ".") or ""
    committed: dict[Path, str] = {}
    day = ""
    for line in history.splitlines():
        if line.startswith("@"):
            day = line[1:]
        elif line:
            committed.setdefault((root / line).resolve(), day)  # newest first: the first date seen is the last
    for path in files:
        resolved = path.resolve()
        if resolved in committed and resolved not in dirty:
            dates[path] = committed[resolved]
    return dates


def _work_tree(folder: Path) -> tuple[Path, set[Path]] | None:
    """The git work tree holding `folder` and its files with uncommitted edits (None outside git)."""
    top = _git(folder, "rev-parse", "--show-toplevel")
    if not top:
        return None
    root = Path(top.strip()).resolve()
    edited = _git(folder, "status", "--porcelain", "-z", "--untracked-files=all", "--", ".") or ""
    return root, {(root / line[3:]).resolve() for line in edited.split("\0") if len(line) > 3}


@dataclass(frozen=True)
class Span:
    """Lines of a file: `first` to `last` (1-based, inclusive; `last` 0: to the end)."""

    path: Path
    first: int
    last: int = 0


def written(folder: Path, spans: Mapping[str, Span]) -> dict[str, tuple[str, str]]:
    """For each span whose lines are all committed: when its oldest and its newest line were committed (UTC, ISO
    8601). Nothing outside a git work tree or in a shallow clone, for a file with uncommitted edits or untracked,
    or once BLAME_SECONDS are spent."""
    tree = _work_tree(folder) if spans else None
    # A shallow clone's oldest commit stands for all the history cut off: when its lines were written is unknown.
    if tree is None or (_git(folder, "rev-parse", "--is-shallow-repository") or "").strip() != "false":
        return {}
    _, dirty = tree
    by_file: dict[Path, list[str]] = {}
    for key, span in spans.items():
        by_file.setdefault(span.path, []).append(key)
    deadline = time.monotonic() + BLAME_SECONDS
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(by_file):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if path.resolve() in dirty:
            continue
        blame = _git(path.parent, "blame", "--root", "--line-porcelain", "--", path.name, seconds=left)
        if blame is None:
            continue
        lines = _line_times(blame)
        for key in by_file[path]:
            span = spans[key]
            times = lines[span.first - 1:span.last or len(lines)]
            if times and all(times):
                found[key] = (_iso(min(t for t in times if t)), _iso(max(t for t in times if t)))
    return found


def _line_times(blame: str) -> list[int | None]:
    """Each line's commit time from `git blame --line-porcelain` (None: not committed, or a boundary commit)."""
    times: list[int | None] = []
    committed: int | None = None
    unknown = False
    for line in blame.splitlines():
        if line.startswith("\t"):
            times.append(None if unknown else committed)
            committed, unknown = None, False
        elif line.startswith("committer-time "):
            committed = int(line.split()[1])
        elif line == "boundary" or line.startswith(UNCOMMITTED):
            unknown = True
    return times


def _iso(seconds: int) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat(timespec="seconds")


def files_at(folder: Path, wanted: Iterable[tuple[str, str]]) -> dict[tuple[str, str], bytes | str]:
    """Files of `folder` as they stood at commits: for each wanted (commit, path relative to `folder`), its bytes, or
    why git gives none (a sentence: not a git work tree, a commit git does not know, the file not in it, or past
    GIT_SECONDS for them all)."""
    wanted = sorted(set(wanted))
    if not wanted:
        return {}
    deadline = time.monotonic() + GIT_SECONDS
    if _git(folder, "rev-parse", "--show-toplevel") is None:
        return dict.fromkeys(wanted, "the content folder is not a git work tree")
    found: dict[tuple[str, str], bytes | str] = {}
    full: dict[str, str | None] = {}
    for commit, path in wanted:
        left = deadline - time.monotonic()
        if left <= 0:
            found[(commit, path)] = f"not looked up: git took over {GIT_SECONDS} s"
            continue
        if commit not in full:
            named = _git(folder, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}", seconds=left)
            full[commit] = named.strip() if named else None
        sha = full[commit]
        data = None if sha is None else _git_bytes(folder, "cat-file", "blob", f"{sha}:./{path}", seconds=left)
        found[(commit, path)] = data if data is not None else (
            f"git knows no commit {commit} here" if sha is None else f"{path} is not in commit {commit}")
    return found
