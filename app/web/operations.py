"""Operations: Prometheus `/metrics`, access logs, and the admin re-ingest behind a token."""

from __future__ import annotations

import base64
import logging
import secrets
import time
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request, Response
from fastapi.responses import HTMLResponse
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.db import DataStore
from app.feedback import entry_feedback
from app.live import Reingester
from app.logs import FIELDS
from app.metrics import observe_generation, observe_request, render
from app.models import Problem
from app.querylog import top_queries
from app.report import Report, build_report
from app.web.deps import ReaderDep
from app.web.errors import problem
from app.web.pages import entry_response
from app.web.strings import interface_context

access_log = logging.getLogger("faq.access")
metrics_router = APIRouter(tags=["operations"])


@metrics_router.get("/metrics", response_class=Response, responses={
    200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}})
def metrics(request: Request) -> Response:
    """Requests by route and status, latencies, searches, zero-result searches, ingests, the generation."""
    store: DataStore = request.app.state.store
    snapshot = store.open_snapshot()
    if snapshot is not None:
        observe_generation(snapshot.generation.name)
    return Response(render(), media_type=CONTENT_TYPE_LATEST)


def _require_token(request: Request, authorization: Annotated[str | None, Header()] = None) -> None:
    """Admit `Authorization: Bearer <FAQ_ADMIN_TOKEN>`, or Basic with the token as password (browsers); else 401."""
    expected = request.app.state.settings.admin_token.encode()
    scheme, _, given = (authorization or "").partition(" ")
    secret = given.strip().encode()
    if scheme.lower() == "basic":
        try:
            secret = base64.b64decode(secret, validate=True).partition(b":")[2]
        except ValueError:
            secret = b""
    if scheme.lower() not in ("bearer", "basic") or not secrets.compare_digest(secret, expected):
        raise Unauthorized()


class Unauthorized(Exception):
    """A missing or wrong admin token."""


UNAUTHORIZED: dict[int | str, dict[str, Any]] = {
    401: {"model": Problem, "description": "no admin token, or the wrong one",
          "content": {"application/problem+json": {}}}}
admin_router = APIRouter(prefix="/api/v1/admin", tags=["admin"], dependencies=[Depends(_require_token)],
                         responses=UNAUTHORIZED)


@admin_router.post("/reindex", status_code=202)
def reindex(request: Request) -> dict[str, Any]:
    """Re-ingest content/ in the background; readers keep the current data until the new one is published."""
    reingester: Reingester = request.app.state.reingester
    started = reingester.start()
    return {"started": started, **asdict(reingester.status)}


@admin_router.get("/reindex")
def reindex_status(request: Request) -> dict[str, Any]:
    """How the last re-ingest went: idle, running, done (with its generation) or failed (with why)."""
    reingester: Reingester = request.app.state.reingester
    return asdict(reingester.status)


Days = Annotated[int, Query(ge=1, le=3650, description="how many days back (today included)")]
Limit = Annotated[int, Query(ge=1, le=500, description="how many queries in each list")]


@admin_router.get("/queries")
def query_statistics(request: Request, days: Days = 30, limit: Limit = 20) -> dict[str, Any]:
    """What readers searched for most, what found nothing (so editors know which FAQ to write next), and which
    entries readers found least helpful, with their comments."""
    settings = request.app.state.settings
    request.app.state.query_log.flush()  # include the last few seconds
    return {"days": days,
            "top": [asdict(c) for c in top_queries(settings, days, limit)],
            "zero_results": [asdict(c) for c in top_queries(settings, days, limit, zero_only=True)],
            "feedback": [asdict(f) for f in entry_feedback(settings, days, limit)]}


ReportLimit = Annotated[int, Query(ge=1, le=500, description="searches that found nothing, the most frequent first")]


@admin_router.get("/report")
def editors_report(request: Request, reader: ReaderDep, days: Days = 30, limit: ReportLimit = 50) -> dict[str, Any]:
    """The editors' report (as `faq report`): per document and language, untranslated entries, entries readers found
    unhelpful, searches that found nothing with the closest entries, uncertain repairs, structure close calls,
    broken links."""
    return asdict(_report(request, reader, days, limit))


def _report(request: Request, reader: ReaderDep, days: int, limit: int) -> Report:
    request.app.state.query_log.flush()  # include the last few seconds
    return build_report(reader, request.app.state.settings, days, limit)


admin_pages = APIRouter(prefix="/admin", include_in_schema=False, dependencies=[Depends(_require_token)])
FINDINGS_SHOWN = 100  # per document and section on the page; `faq report` lists them all


@admin_pages.get("", response_class=HTMLResponse)
def editors_page(request: Request, reader: ReaderDep, days: Days = 30, limit: ReportLimit = 50) -> Response:
    """The editors' report as a page: each entry linked to its editors' view and its reader's page."""
    response: Response = request.app.state.templates.TemplateResponse(
        request, "pages/admin.html", {**interface_context(request), "json_url": None,
                                      "report": _report(request, reader, days, limit), "limit": FINDINGS_SHOWN})
    return response


@admin_pages.get("/queries", response_class=HTMLResponse)
def query_statistics_page(request: Request, days: Days = 30, limit: Limit = 20) -> Response:
    """The same statistics as a page, for editors in a browser."""
    data = query_statistics(request, days, limit)
    response: Response = request.app.state.templates.TemplateResponse(
        request, "pages/admin_queries.html", {**interface_context(request), "json_url": None, **data})
    return response


@admin_pages.get("/entries/{entry_id}", response_class=HTMLResponse)
def entry_for_editors(request: Request, reader: ReaderDep, entry_id: str) -> Response:
    """An entry as readers see it, with where it comes from: file and line, encoding repairs."""
    return entry_response(request, reader, entry_id, editors=True)


def install_operations(app: FastAPI) -> None:
    """Metrics, access logs and (when FAQ_ADMIN_TOKEN is set) the admin routes, on `app`."""
    app.include_router(metrics_router)
    if app.state.settings.admin_token:
        app.state.reingester = Reingester(app.state.settings)
        app.include_router(admin_router)
        app.include_router(admin_pages)

    @app.exception_handler(Unauthorized)
    async def unauthorized(request: Request, _exc: Unauthorized) -> Response:
        response = problem(request, 401, "send the admin token: Authorization: Bearer $FAQ_ADMIN_TOKEN "
                                         "(in a browser: any user name, the token as password)")
        response.headers["WWW-Authenticate"] = 'Basic realm="FAQ portal admin", charset="UTF-8"' \
            if request.url.path == "/admin" or request.url.path.startswith("/admin/") else "Bearer"
        return response

    app.add_middleware(Observe)


class Observe:
    """Counts and logs every request (plain ASGI: it must not make responses stream, which gzip would pay for)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; count and log it when answered."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            seconds = time.perf_counter() - started
            route = getattr(scope.get("route"), "path", "unmatched")  # the template: no ids, no queries
            observe_request(scope["method"], route, status, seconds)
            if access_log.isEnabledFor(logging.INFO):
                ms = round(seconds * 1000, 1)
                access_log.info("%s %s %d %.1f ms", scope["method"], scope["path"], status, ms, extra={FIELDS: {
                    "method": scope["method"], "route": route, "path": scope["path"], "status": status, "ms": ms}})
