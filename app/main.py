"""The application factory: `create_app(settings)`; `app` is the instance uvicorn serves."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from fastapi import FastAPI, Request, Response
from fastapi.templating import Jinja2Templates
from starlette.middleware.gzip import GZipMiddleware

from app.config import Settings, get_settings
from app.db import REQUEST_THREADS, DataStore
from app.feedback import Feedback
from app.lineage import Lineage
from app.querylog import QueryLog
from app.semantic import VectorWorker
from app.web import api, feeds, pages, site, strings, suggest
from app.web.errors import install_error_handlers
from app.web.http import (
    BoundedRequestTarget,
    ConditionalGet,
    FingerprintedStatic,
    HeadAsGet,
    SecurityHeaders,
    code_fingerprint,
)
from app.web.operations import install_operations

ROOT = Path(__file__).resolve().parents[1]
log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the portal for `settings` (default: from the environment)."""
    settings = settings or get_settings()
    store = DataStore(settings, semantic=True)
    query_log = QueryLog(settings)
    feedback = Feedback(settings)
    lineage = Lineage(settings)
    vectors = VectorWorker(settings, store.model.get, store.attach_vectors)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = REQUEST_THREADS
        # The index, jieba's dictionary (~1 s), the model and the vectors are loaded while the server waits
        # for its first reader, not inside that reader's search; /readyz says ready once they are.
        threading.Thread(target=store.warm_up, name="faq-warm-up", daemon=True).start()
        if store.model.enabled:
            vectors.start()
        yield
        vectors.stop()
        try:
            query_log.close()
        except Exception as exc:  # noqa: BLE001  (a full or read-only disk must not turn a stop into a failure)
            log.warning("the search statistics of the last seconds were not written: %s", exc)
        feedback.close()
        lineage.close()
        store.close()

    app = FastAPI(
        title="FAQ portal",
        summary="Bilingual (Chinese/English) FAQ search and cross-linked entries",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.store = store
    app.state.vectors = vectors
    app.state.query_log = query_log
    app.state.feedback = feedback
    app.state.lineage = lineage
    app.state.templates = Jinja2Templates(directory=str(ROOT / "templates"))
    app.state.templates.env.filters["html_lang"] = strings.html_lang  # one rule for every lang/hreflang attribute
    # Swagger UI is vendored under static/vendor/, not fetched from a CDN: the portal runs on intranets.
    static = FingerprintedStatic(ROOT / "static")
    app.state.templates.env.globals["static_url"] = static.url  # /static/…?v=<content hash>
    app.mount("/static", static, name="static")
    install_error_handlers(app)

    @app.get("/docs", include_in_schema=False)
    def docs(request: Request) -> Response:
        # Our own page rather than FastAPI's: no inline script, so the strict CSP holds.
        response: Response = app.state.templates.TemplateResponse(request, "docs.html",
                                                                   {"paths": app.openapi().get("paths", {})})
        return response

    app.include_router(api.router)
    app.include_router(suggest.router)
    app.include_router(api.health_router)
    install_operations(app)
    app.include_router(site.router)
    app.include_router(feeds.router)
    app.include_router(pages.router)

    # Middleware runs outermost last-added: bounded target → HEAD → gzip → security headers → ETag/304 → routes.
    app.add_middleware(ConditionalGet, store=store, code=code_fingerprint(ROOT))
    app.add_middleware(SecurityHeaders)
    # Level 6, not 9: on the Swagger bundle 9 takes a third more CPU to save 0.4 %.
    app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=6)
    app.add_middleware(HeadAsGet)
    app.add_middleware(BoundedRequestTarget)
    return app


app = create_app()
