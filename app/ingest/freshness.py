"""Whether the published data was ingested from the content (and the portal's code) as they are now.

`faq ingest --if-changed` (what `make run` and the container's start run) ingests only when
the checksum of the content folder and the portal's code differs from the one recorded by
the last successful ingest into this data folder, or when there is no data yet.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import app
from app.config import Settings

STAMP_FILE = ".ingested-content"  # in the data folder: the checksum of the last successful ingest's inputs


def content_checksum(content_dir: Path) -> str:
    """A checksum of every file of the portal's code and of `content_dir` (names and bytes)."""
    digest = hashlib.sha256()
    for label, root in (("code", Path(app.__file__).parent), ("content", content_dir)):
        digest.update(label.encode() + b"\0")
        files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        for path in files:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def recorded_checksum(settings: Settings) -> str | None:
    """The checksum the last successful ingest into this data folder recorded, if any."""
    try:
        return (settings.data_dir / STAMP_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def record_checksum(settings: Settings, checksum: str) -> None:
    """Remember that the data now published was ingested from inputs with `checksum`."""
    stamp = settings.data_dir / STAMP_FILE
    temporary = stamp.with_suffix(".tmp")
    temporary.write_text(checksum + "\n", encoding="utf-8")
    temporary.replace(stamp)
