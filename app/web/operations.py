"""Operations: Prometheus `/metrics`, JSON access logs, and the admin re-ingest behind a token."""

from __future__ import annotations

import json
import logging
import secrets
import time
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.db import DataStore
from app.live import Reingester
from app.metrics import observe_generation, observe_request, render
from app.models import Problem
from app.web.errors import problem

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
    """Admit a request that carries `Authorization: Bearer <FAQ_ADMIN_TOKEN>`; 401 otherwise."""
    expected = request.app.state.settings.admin_token
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not secrets.compare_digest(given.encode(), expected.encode()):
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


def install_operations(app: FastAPI) -> None:
    """Metrics, access logs and (when FAQ_ADMIN_TOKEN is set) the admin routes, on `app`."""
    app.include_router(metrics_router)
    if app.state.settings.admin_token:
        app.state.reingester = Reingester(app.state.settings)
        app.include_router(admin_router)

    @app.exception_handler(Unauthorized)
    async def unauthorized(request: Request, _exc: Unauthorized) -> Response:
        response = problem(request, 401, "send the admin token: Authorization: Bearer $FAQ_ADMIN_TOKEN")
        response.headers["WWW-Authenticate"] = "Bearer"
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
                access_log.info(json.dumps({
                    "time": round(time.time(), 3), "method": scope["method"], "route": route,
                    "path": scope["path"], "status": status, "ms": round(seconds * 1000, 1),
                }, ensure_ascii=False))
