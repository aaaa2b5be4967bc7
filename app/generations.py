"""Generations: each ingest builds a complete database and index, then one rename publishes it.

`<data_dir>/CURRENT` names the generation readers should use. It is written to a temporary
name and renamed, so a reader sees the old generation or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from app.config import Settings

POINTER_NAME = "CURRENT"
KEEP_GENERATIONS = 3
COMPLETE_MARKER = "COMPLETE"  # written once a generation is built and verified
BUILDER_MARKER = "BUILDING"  # the pid of the ingest building it


@dataclass(frozen=True)
class Generation:
    """Where one generation's database and index live."""

    name: str
    directory: Path
    database_url: str
    index_dir: Path


def is_sqlite(url: str) -> bool:
    """True for SQLite URLs (one file per generation); others share one database."""
    return make_url(url).get_backend_name() == "sqlite"


def generation(settings: Settings, name: str) -> Generation:
    """The locations of generation `name`."""
    directory = settings.data_dir / "generations" / name
    url = settings.resolved_database_url
    if is_sqlite(url):
        url = f"sqlite:///{directory / 'faq.db'}"
    return Generation(name=name, directory=directory, database_url=url, index_dir=directory / "index")


def pointer_path(settings: Settings) -> Path:
    """The file that names the current generation."""
    return settings.data_dir / POINTER_NAME


def current_name(settings: Settings) -> str | None:
    """The current generation's name, or None before the first ingest."""
    try:
        return str(json.loads(pointer_path(settings).read_text(encoding="utf-8"))["generation"])
    except (FileNotFoundError, KeyError, ValueError):
        return None


def complete_generations(settings: Settings) -> list[str]:
    """Names of the generations marked complete, newest first."""
    root = settings.data_dir / "generations"
    if not root.is_dir():
        return []
    return sorted((p.name for p in root.iterdir() if (p / COMPLETE_MARKER).is_file()), reverse=True)


def start_building(new: Generation) -> None:
    """Create `new`'s folder, marked with the pid of the process building it."""
    new.directory.mkdir(parents=True)
    (new.directory / BUILDER_MARKER).write_text(str(os.getpid()), encoding="utf-8")


def publish(settings: Settings, new: Generation) -> None:
    """Mark `new` complete, make it the current generation (atomic rename), then tidy up old ones."""
    (new.directory / COMPLETE_MARKER).write_text(new.name, encoding="utf-8")
    (new.directory / BUILDER_MARKER).unlink(missing_ok=True)
    pointer = pointer_path(settings)
    temporary = pointer.with_name(f".{POINTER_NAME}.{os.getpid()}")
    temporary.write_text(json.dumps({"generation": new.name}), encoding="utf-8")
    os.replace(temporary, pointer)
    _link_configured_database(settings, new)
    _remove_old(settings, keep=new.name)


def _link_configured_database(settings: Settings, new: Generation) -> None:
    """Point the configured SQLite path (default data/faq.db) at the current file, for tools."""
    url = settings.resolved_database_url
    if not is_sqlite(url) or not make_url(url).database:
        return
    link = Path(str(make_url(url).database))
    if link.exists() and not link.is_symlink():
        return  # a real file someone put there: leave it alone
    temporary = link.with_name(f".{link.name}.{os.getpid()}")
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(os.path.relpath(new.directory / "faq.db", link.parent))
    os.replace(temporary, link)


def _remove_old(settings: Settings, keep: str) -> None:
    """Keep the newest complete generations; remove older ones and what killed ingests left."""
    root = settings.data_dir / "generations"
    current = current_name(settings)
    complete, abandoned = [], []
    for path in root.iterdir():
        if not path.is_dir():
            continue
        if (path / COMPLETE_MARKER).exists() or path.name in (keep, current):
            complete.append(path.name)
        elif not _being_built(path):
            abandoned.append(path.name)
    # Readers that opened an older generation a moment ago keep working: keep a few.
    for name in sorted(complete, reverse=True)[KEEP_GENERATIONS:] + abandoned:
        if name not in (keep, current):
            shutil.rmtree(root / name, ignore_errors=True)


def _being_built(directory: Path) -> bool:
    """Whether an ingest that is still running is building this folder."""
    try:
        pid = int((directory / BUILDER_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False  # no marker: a half-built generation from before markers, or its writer died early
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, someone else's
    return True


def discard(new: Generation) -> None:
    """Remove a generation that failed to build."""
    shutil.rmtree(new.directory, ignore_errors=True)
