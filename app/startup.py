"""What `faq serve` checks before it serves, each answer one line that says what to do."""

from __future__ import annotations

import errno
import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import IO

LOW_DISK_BYTES = 50 * 1024 * 1024  # below this a new generation or the statistics may not fit
WATCH_LOCK = ".watch.lock"


def listen_problem(host: str, port: int) -> str | None:
    """Why `faq serve` could not listen on host:port (unknown host, port in use, no right), or None."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) else str(exc)
        return (f"cannot listen on {host}: no such host or address here ({reason}); give one of this machine's "
                "addresses with --host: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no conflict
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (f"port {port} on {host} is in use by another program (another `faq serve`?); stop it, "
                        "or choose a free port with --port")
            if exc.errno == errno.EACCES:
                return (f"port {port} needs root (ports below 1024); choose --port 1024 or above "
                        "(8000 is the default), or put a proxy in front")
            if exc.errno == errno.EADDRNOTAVAIL:
                return (f"{host} is not an address of this machine; give one of its addresses with --host: "
                        "127.0.0.1 (this machine only) or 0.0.0.0 (every interface)")
            return f"cannot listen on {host}:{port} ({exc.strerror}); choose another --host or --port"
    return None


def writable_problem(folder: Path) -> str | None:
    """Why nothing can be written in `folder` (read-only, not ours, a full disk), or None; creates it if missing."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return f"{folder} is read-only" if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM) else \
            f"{folder} cannot be written ({exc.strerror})"
    return None


def free_space_problem(folder: Path) -> str | None:
    """A warning when the disk of `folder` is (nearly) full, or None."""
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return None
    if free >= LOW_DISK_BYTES:
        return None
    return f"only {free // (1024 * 1024)} MB free on the disk of {folder}"


def claim_watch(data_dir: Path) -> IO[str] | None:
    """Become the one `faq serve --watch` of this data folder: the open lock file, or None if another has it.

    Two watchers of one folder would both re-ingest every change; the second serves without watching.
    The lock is released when the process ends, however it ends.
    """
    import fcntl

    data_dir.mkdir(parents=True, exist_ok=True)
    handle = (data_dir / WATCH_LOCK).open("a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    handle.truncate(0)
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def watcher_pid(data_dir: Path) -> str:
    """The pid written by the process that watches for `data_dir`, or '?'."""
    try:
        return (data_dir / WATCH_LOCK).read_text(encoding="utf-8").strip() or "?"
    except OSError:
        return "?"
