"""When each document last changed: its last commit when the content folder is a git work tree, else (or when
the file has uncommitted edits) its modification time. One `git log` for the whole folder, not one per file."""

from __future__ import annotations

import datetime as dt
import subprocess
from collections.abc import Iterable
from pathlib import Path

GIT_SECONDS = 30  # a huge history must not hold up an ingest: past this, modification times are used


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=GIT_SECONDS,
                              check=False)
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
    top = _git(folder, "rev-parse", "--show-toplevel")
    if not top:
        return dates
    root = Path(top.strip()).resolve()
    edited = _git(folder, "status", "--porcelain", "-z", "--untracked-files=all", "--", ".") or ""
    dirty = {(root / line[3:]).resolve() for line in edited.split("\0") if len(line) > 3}
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
