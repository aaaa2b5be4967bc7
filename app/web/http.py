"""HTTP plumbing: security headers, HEAD on every GET route, fingerprinted static files, ETags, and the
server's HTTP/1.1 protocol with Nagle's algorithm off.

The middleware is plain ASGI (no per-request task, and whole responses stay whole, so gzip
can set Content-Length); its one blocking call, `DataStore.current()`, runs in the thread
pool like the handlers' own reads.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
from functools import lru_cache
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from urllib.parse import parse_qs

import anyio.to_thread
from starlette.datastructures import Headers, MutableHeaders, QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.db import DataStore
from app.limits import MAX_QUERY_LENGTH, MAX_REQUEST_TARGET
from app.web.errors import problem
from app.web.strings import UI_COOKIE, interface_language

IMMUTABLE = "public, max-age=31536000, immutable"  # the URL names the content: it never changes
SHORT = "public, max-age=300"  # an unversioned (or stale) static URL: check back soon
REVALIDATE = "no-cache"  # pages and API: keep, but ask (If-None-Match) before every use
NO_ETAG_PREFIXES = ("/static/", "/healthz", "/readyz", "/metrics", "/favicon.ico")
PAGE_PREFIXES = ("/search", "/entries/", "/documents/")  # HTML whose words follow the reader's language


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:10]


def fingerprints(directory: Path) -> dict[str, str]:
    """A short content hash of every file under `directory`, by its path relative to it."""
    return {file.relative_to(directory).as_posix(): _digest(file.read_bytes())
            for file in sorted(directory.rglob("*")) if file.is_file() and "__pycache__" not in file.parts}


@lru_cache(maxsize=4)
def code_fingerprint(root: Path) -> str:
    """One hash of the code, templates and static files: a deploy changes every ETag, a restart none."""
    parts = [f"{path}:{digest}" for folder in ("app", "templates", "static")
             for path, digest in fingerprints(root / folder).items()]
    return _digest("\n".join(parts).encode())


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


class BoundedRequestTarget:
    """414 URI Too Long, with a short page, for a path and query longer than any the portal answers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse an over-long target before any route reads it."""
        if scope["type"] == "http":
            length = len(scope.get("raw_path") or scope["path"].encode()) + len(scope.get("query_string", b""))
            if length > MAX_REQUEST_TARGET:
                detail = (f"the address is {length:,} bytes long; the portal answers addresses of at most "
                          f"{MAX_REQUEST_TARGET:,} bytes (a query of at most {MAX_QUERY_LENGTH:,} characters)")
                await problem(Request(scope), 414, detail)(scope, receive, send)
                return
        await self.app(scope, receive, send)


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


def _matches(if_none_match: str, etag: str) -> bool:
    """Weak comparison (RFC 9110 §13.1.2): the tags match whatever their W/ prefix."""
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag.removeprefix("W/") in tags


class ConditionalGet:
    """ETag on pages and API answers, and 304 Not Modified when the client already has them.

    What a GET returns depends only on the data generation, the code, the path and query and,
    for pages, the reader's language: the ETag hashes exactly those, so a 304 is decided
    before the handler runs. The tag is weak because gzip may change the bytes, not the meaning.
    """

    def __init__(self, app: ASGIApp, store: DataStore, code: str) -> None:
        self.app = app
        self.store = store
        self.code = code

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 304 when If-None-Match names the current tag; else tag the 200 on its way out."""
        path: str = scope.get("path", "")
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") or path.startswith(NO_ETAG_PREFIXES):
            await self.app(scope, receive, send)
            return
        try:
            # The open snapshot answers without I/O; only a generation switch needs the thread pool.
            snapshot = self.store.open_snapshot()
            if snapshot is None:
                snapshot = await anyio.to_thread.run_sync(self.store.current)
            generation = snapshot.generation.name
        except Exception:  # noqa: BLE001  (no or damaged data: the handler answers with the reason)
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        page = path == "/" or path.startswith(PAGE_PREFIXES)
        try:
            cookies = SimpleCookie(headers.get("cookie", ""))
        except CookieError:  # a malformed Cookie header: as if none were sent
            cookies = SimpleCookie()
        remembered = cookies[UI_COOKIE].value if UI_COOKIE in cookies else None
        chosen = QueryParams(scope.get("query_string", b"")).get("ui")
        language = interface_language(chosen, remembered, headers.get("accept-language", "")) if page else ""
        query = scope.get("query_string", b"").decode("latin-1")
        etag = 'W/"' + _digest(f"{self.code}\n{generation}\n{path}\n{query}\n{language}".encode()) + '"'
        vary = "Accept-Language, Cookie" if page else None
        if _matches(headers.get("if-none-match", ""), etag):
            not_modified = Response(status_code=304, headers={"ETag": etag, "Cache-Control": REVALIDATE})
            if vary:
                not_modified.headers["Vary"] = vary
            await not_modified(scope, receive, send)
            return

        async def tagged(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                out = MutableHeaders(scope=message)
                if "no-store" not in out.get("cache-control", ""):  # e.g. a search cut short by its budget
                    out["ETag"] = etag
                    out.setdefault("Cache-Control", REVALIDATE)
                    if vary:
                        out.add_vary_header(vary)
            await send(message)

        await self.app(scope, receive, tagged)


class NoDelayProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with TCP_NODELAY set on every connection.

    `--workers N` serves on a socket uvicorn binds itself without naming TCP, so asyncio leaves Nagle's
    algorithm on (uvicorn issue 3149): each answer's body then waited for the client's delayed ACK, and
    every request on a kept-alive connection took 40 ms more than with one worker.
    """

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as H11Protocol
        """Turn Nagle's algorithm off, then take the connection as uvicorn does."""
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
