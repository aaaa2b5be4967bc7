"""One place decides how errors look: problem+json under /api, an HTML page elsewhere."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.db import NoDataError
from app.queries import EntryMoved, EntryRemoved, NotFound
from app.search.engine import IndexDamaged
from app.search.ranking import QueryTooComplex
from app.web.strings import interface_context

log = logging.getLogger(__name__)
PROBLEM_TYPES = "about:blank"
SHOWN_CHARACTERS = 80  # of an id or path quoted in an error
HTTP_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
MAX_REPEATED_ADDRESS = 1024  # a longer address is not repeated in an error (as `instance`, or in a link)


class BadRequest(ValueError):
    """A parameter the user sent cannot be used; the message says why and what to send."""


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.url.path in ("/healthz", "/readyz")


def problem(request: Request, status: int, detail: str, headers: Mapping[str, str] | None = None,
            extra: dict[str, Any] | None = None) -> Response:
    """The error response for `request`, in the format its surface uses (with `headers`, e.g. Allow; `extra`:
    more members of the JSON)."""
    title = HTTPStatus(status).phrase
    if _wants_json(request):
        path = request.url.path
        return JSONResponse(
            {"type": PROBLEM_TYPES, "title": title, "status": status, "detail": detail,
             **({"instance": path} if len(path) <= MAX_REPEATED_ADDRESS else {}), **(extra or {})},
            status_code=status, media_type="application/problem+json", headers=headers,
        )
    chrome = interface_context(request)
    if len(chrome["switch_url"]) > MAX_REPEATED_ADDRESS:  # the language switch leads home, not back to it
        chrome["switch_url"] = f"/?ui={chrome['switch_lang']}"
    templates = request.app.state.templates
    response: Response = templates.TemplateResponse(
        request, "pages/error.html",
        {**chrome, "status": status, "title": title, "detail": detail, "json_url": None},
        status_code=status, headers=headers,
    )
    return response


def shortened(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """`text`, cut to `limit` characters with an ellipsis: an error quotes what was asked, never 100 KB of it."""
    return text if len(text) <= limit else text[:limit] + "…"


def moved_entry(request: Request, exc: EntryMoved) -> Response:
    """301 to the entry's current address, the same surface (page or API) and query; the API's body says where."""
    prefix = "/api/v1/entries/" if _wants_json(request) else "/entries/"
    location = prefix + quote(exc.moved_to, safe="")
    if request.url.query:
        location += "?" + request.url.query
    if not _wants_json(request):
        return RedirectResponse(location, status_code=301)
    response = problem(request, 301, f"{exc}; follow the Location header",
                       extra={"moved_to": exc.moved_to, "url": f"/entries/{quote(exc.moved_to, safe='')}"})
    response.headers["Location"] = location
    return response


def removed_entry(request: Request, exc: EntryRemoved) -> Response:
    """410: the entry was removed; its last question and the closest current entries (a page, or problem JSON)."""
    detail = f"{exc}; see `closest` for the nearest current entries, or search for it"
    if _wants_json(request):
        return problem(request, 410, detail, extra={
            "question": exc.gone.question, "lang": exc.gone.lang, "removed_since": exc.gone.since,
            "closest": [ref.model_dump() for ref in exc.closest]})
    templates = request.app.state.templates
    response: Response = templates.TemplateResponse(
        request, "pages/removed.html",
        {**interface_context(request, exc.gone.lang or None), "question": exc.gone.question,
         "question_lang": exc.gone.lang, "since": exc.gone.since[:10], "closest": exc.closest,
         "json_url": f"/api/v1/entries/{quote(exc.gone.id, safe='')}"},
        status_code=410,
    )
    return response


MISSING_HINTS = {"q": "give a search query, e.g. ?q=CUDA+out+of+memory"}
PATTERN_HINTS = {"q": "the query is empty; type a word, an error message or an identifier"}


def _validation_detail(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in {"query", "path", "body"})
        kind = error.get("type")
        if kind == "missing":
            message = MISSING_HINTS.get(where, "required")
        elif kind == "string_pattern_mismatch" and where in PATTERN_HINTS:
            message = PATTERN_HINTS[where]
        else:
            message = error.get("msg")
        parts.append(f"{where}: {message or 'invalid'}" if where else str(message))
    return "; ".join(parts) or "invalid request"


def _allowed_methods(request: Request) -> str:
    """Every method some route of this path takes (Starlette names only the first route's: a path served by a
    GET and a POST route answered PUT with `Allow: GET`)."""
    routes = request.app.router.routes
    return ", ".join(method for method in HTTP_METHODS
                     if any(route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes))


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers on `app`."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400 and exc.__cause__ is not None:
            # FastAPI's answer to a body it could not decode (bytes that are not UTF-8, JSON nested too deep): a body
            # that is not JSON is 422 (`json_invalid`), and the schema promises 422 for what cannot be used.
            return problem(request, 422, f"body: cannot be read as JSON ({type(exc.__cause__).__name__}); send UTF-8 "
                                         'JSON such as {"q": "CUDA out of memory"}')
        detail = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"nothing at {shortened(request.url.path)}"
        headers = exc.headers
        if exc.status_code == 405:
            headers = {**(headers or {}), "Allow": _allowed_methods(request)}
        return problem(request, exc.status_code, detail, headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        return problem(request, 422, _validation_detail(exc))

    @app.exception_handler(BadRequest)
    async def bad_request(request: Request, exc: BadRequest) -> Response:
        return problem(request, 422, str(exc))

    @app.exception_handler(QueryTooComplex)
    async def too_complex(request: Request, exc: QueryTooComplex) -> Response:
        return problem(request, 422, str(exc))

    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound) -> Response:
        return problem(request, 404, exc.detail or f"no {exc.kind} with id {shortened(exc.id)!r}")

    @app.exception_handler(EntryMoved)
    async def moved(request: Request, exc: EntryMoved) -> Response:
        return moved_entry(request, exc)

    @app.exception_handler(EntryRemoved)
    async def removed(request: Request, exc: EntryRemoved) -> Response:
        return removed_entry(request, exc)

    @app.exception_handler(NoDataError)
    async def no_data(request: Request, exc: NoDataError) -> Response:
        return problem(request, 503, str(exc))

    @app.exception_handler(IndexDamaged)
    async def index_damaged(request: Request, exc: IndexDamaged) -> Response:
        # The data store notices it too: the next request is served from the newest good generation, in this
        # process and (told now) in the other workers.
        log.error("the search index proved damaged on %s: %s", request.url.path, exc)
        await run_in_threadpool(request.app.state.store.note_damage)
        return problem(request, 503, "the search index proved damaged while serving; the previous good data is "
                                     "served from now on: try again (`faq reindex` rebuilds it)",
                       headers={"Retry-After": "1"})

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s", request.url.path)
        return problem(request, 500, "internal error; the server log has the details")
