"""HTTP plumbing: security headers, HEAD on every GET route, fingerprinted static files.

The middleware is plain ASGI: no per-request task, and whole responses stay whole, so gzip
can set Content-Length.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import parse_qs

from starlette.datastructures import MutableHeaders
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

IMMUTABLE = "public, max-age=31536000, immutable"  # the URL names the content: it never changes
SHORT = "public, max-age=300"  # an unversioned (or stale) static URL: check back soon


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:10]


def fingerprints(directory: Path) -> dict[str, str]:
    """A short content hash of every file under `directory`, by its path relative to it."""
    return {file.relative_to(directory).as_posix(): _digest(file.read_bytes())
            for file in sorted(directory.rglob("*")) if file.is_file()}


class FingerprintedStatic(StaticFiles):
    """Static files whose `?v=<hash>` URLs are cached for a year, and anything else for minutes."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=str(directory))
        self.hashes = fingerprints(directory)

    def url(self, path: str) -> str:
        """The URL of static file `path` with its content hash, e.g. /static/css/portal.css?v=1a2b3c4d5e."""
        digest = self.hashes.get(path)
        return f"/static/{path}?v={digest}" if digest else f"/static/{path}"

    async def get_response(self, path: str, scope: Scope) -> Response:
        """The file, with a Cache-Control that depends on whether the URL names this exact content."""
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("v")
            current = self.hashes.get(Path(path).as_posix())
            response.headers["Cache-Control"] = IMMUTABLE if current and asked == [current] else SHORT
        return response


class SecurityHeaders:
    """Every response: a strict Content-Security-Policy, no framing, no sniffing, same-origin referrers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Add the headers a handler has not set itself."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # Swagger UI sets inline styles on its elements; scripts stay 'self' everywhere.
        styles = "'self' 'unsafe-inline'" if scope["path"].startswith("/docs") else "'self'"
        policy = (f"default-src 'self'; img-src 'self' data:; style-src {styles}; script-src 'self'; "
                  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "same-origin")
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("Content-Security-Policy", policy)
            await send(message)

        await self.app(scope, receive, with_headers)


class HeadAsGet:
    """Answer HEAD on every GET route: run the GET and send its status and headers without the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass everything through; turn a HEAD into a GET whose body is dropped."""
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
