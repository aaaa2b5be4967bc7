"""HTTP protocol details under hostile requests: 405 with Allow, long ids, long request lines, and schemathesis.

`python -m measure.protocol [SECONDS]` ingests `content/` into a scratch folder, starts `faq serve`,
prints each probe's status and response size, then runs schemathesis (`st run --checks all`, every
phase, for at most SECONDS, default 120) against the server's OpenAPI schema and prints its summary.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import httpx

from app.config import Settings
from app.ingest.pipeline import run_ingest
from measure.localserver import ROOT, running_server

LONG_ID = "x" * 10_000  # within the longest request target the portal answers (about 50 KB)


def raw_get(base: str, target: str, pause_after: int | None = None) -> tuple[int, int]:
    """Status and body size of `GET target`, sent as written over a socket (httpx refuses URLs over 64 KB); status 0
    when the server closed the connection without an answer.

    With `pause_after`, the request's first that many bytes are sent, and the rest a tenth of a second later: the
    server has read the first part by then, as it does when a long request crosses a network in pieces.
    """
    host, port = base.removeprefix("http://").split(":")
    request = f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    answer = b""
    with socket.create_connection((host, int(port)), timeout=60) as connection:
        try:
            connection.sendall(request[:pause_after])
            if pause_after is not None:
                time.sleep(0.1)
                connection.sendall(request[pause_after:])
            while chunk := connection.recv(65536):
                answer += chunk
        except (ConnectionResetError, BrokenPipeError):
            return 0, 0
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), len(body)


def probes(base: str) -> list[tuple[str, str]]:
    """(what was sent, what came back) for each hostile request."""
    rows = []
    with httpx.Client(base_url=base, timeout=60) as client:
        for method, path in (("POST", "/api/v1/search?q=cuda"), ("DELETE", "/api/v1/documents"), ("PUT", "/")):
            response = client.request(method, path)
            rows.append((f"{method} {path}", f"HTTP {response.status_code}, Allow: {response.headers.get('allow')}"))
    for path in (f"/entries/{LONG_ID}", f"/api/v1/entries/{LONG_ID}", f"/{LONG_ID}"):
        status, size = raw_get(base, path)
        rows.append((f"GET {path[:path.index('x')]}<{len(LONG_ID):,}-character id>", f"HTTP {status}, {size:,} bytes"))
    longest_query = quote("显" * 4000)  # the longest query the API takes, every character percent-encoded
    longest = "/api/v1/search?q=" + longest_query
    for what, path, pause_after in (
            ("100 KB request line", "/search?q=" + "a" * 100_000, None), ("100 KB path", "/" + "x" * 100_000, None),
            (f"the longest query ({len(longest_query):,}-byte request line)", longest, None),
            ("the longest query, first 20 KB 0.1 s before the rest", longest, 20_000)):
        status, size = raw_get(base, path, pause_after)
        rows.append((f"GET {what}", f"HTTP {status}, {size:,} bytes" if status else "connection closed, no answer"))
    return rows


def schemathesis_summary(base: str, seconds: int) -> list[str]:
    """The summary lines of `st run --checks all` against the server (the last lines of its report)."""
    st = shutil.which("st", path=str(Path(sys.executable).parent)) or "st"
    with tempfile.TemporaryDirectory() as scratch:  # where schemathesis keeps its own files
        run = subprocess.run([st, "run", f"{base}/openapi.json", "--checks", "all", "--max-time", str(seconds),
                              "--no-color"], capture_output=True, text=True, check=False, cwd=scratch)
    lines = [re.sub(r"\s+", " ", line).strip() for line in run.stdout.splitlines()]
    start = next((n for n, line in enumerate(lines) if line.startswith("=") and "SUMMARY" in line), 0)
    return [line for line in lines[start:] if line] + [f"exit code {run.returncode}"]


def main() -> int:
    """Print the table and schemathesis's summary."""
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    with tempfile.TemporaryDirectory() as data:
        run_ingest(Settings(content_dir=ROOT / "content", data_dir=Path(data), database_url=""), progress=False)
        with running_server({"FAQ_DATA_DIR": data}) as server:
            for sent, answer in probes(server.base):
                print(f"{sent:<62} {answer}")
            print(f"\nschemathesis, all checks, at most {seconds} s:")
            for line in schemathesis_summary(server.base, seconds):
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
