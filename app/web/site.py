"""What crawlers and browsers ask a site for: /sitemap.xml, /robots.txt, /favicon.ico.

Absolute links come from `FAQ_PUBLIC_URL` only, never from the request's Host header.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, PlainTextResponse, Response

from app.web.api import NO_DATA
from app.web.deps import ReaderDep, SettingsDep

STATIC = Path(__file__).resolve().parents[2] / "static"
ICON_CACHE = "public, max-age=86400"  # /favicon.ico cannot carry a version: a day
router = APIRouter(tags=["browser integration"])


@router.get("/sitemap.xml", response_class=Response, responses={
    200: {"description": "sitemap (sitemaps.org 0.9): home, every document and entry, "
                         "with `xhtml:link rel=alternate hreflang` for their translations",
          "content": {"application/xml": {"schema": {"type": "string"}}}},
    **NO_DATA,
})
def sitemap(request: Request, reader: ReaderDep, settings: SettingsDep) -> Response:
    """Every page a crawler should index, with translations linked as language alternates."""
    base = settings.public_url.rstrip("/")
    def render() -> bytes:
        template = request.app.state.templates.get_template("sitemap.xml")
        body: bytes = template.render(base=base, pages=[("/", "", []), *reader.site_pages()]).encode()
        return body

    return Response(reader.snapshot.kept("sitemap", base, 1, render), media_type="application/xml")


@router.get("/robots.txt", response_class=PlainTextResponse, responses={
    200: {"description": "crawlers may read everything; the sitemap's address",
          "content": {"text/plain": {"schema": {"type": "string"}}}},
})
def robots(settings: SettingsDep) -> PlainTextResponse:
    """Allow every crawler everywhere, and point at the sitemap."""
    base = settings.public_url.rstrip("/")
    note = "" if base else "# Set FAQ_PUBLIC_URL to give crawlers an absolute sitemap address.\n"
    return PlainTextResponse(f"User-agent: *\nAllow: /\n{note}Sitemap: {base}/sitemap.xml\n")


@router.get("/favicon.ico", response_class=FileResponse, responses={
    200: {"description": "the portal's icon (16, 32 and 48 px)", "content": {"image/x-icon": {}}},
})
async def favicon() -> FileResponse:
    """The icon browsers ask for without being told where it is."""
    return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon", headers={"Cache-Control": ICON_CACHE})
