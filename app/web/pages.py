"""HTML pages: the same reads as the API, rendered by Jinja2 templates."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from app.ingest.language import HAN
from app.queries import MAX_QUERY_LENGTH
from app.web.deps import ReaderDep
from app.web.errors import BadRequest
from app.web.outline import outline
from app.web.params import MAX_OFFSET, LangParam, clean_query, language_filter
from app.web.strings import (
    EXAMPLES,
    INTERFACE,
    OTHER_LANGUAGE,
    interface_context,
    reader_interface,
    remember_choice,
)

router = APIRouter(include_in_schema=False)
PAGE_SIZE = 10
OUTLINES_KEPT = 32  # parsed documents kept per generation
NO_STORE = "no-store"

READ_IN = {"zh": "阅读中文版", "en": "Read in English"}  # the switch speaks the language it leads to


def _render(request: Request, template: str, content_lang: str | None, json_url: str | None,
            context: dict[str, Any], status: int = 200) -> Response:
    """A page in the reader's interface language; `content_lang` (if any) is the language of what it shows."""
    templates = request.app.state.templates
    base = {**interface_context(request, content_lang), "json_url": json_url}
    response: Response = templates.TemplateResponse(request, template, {**base, **context}, status_code=status)
    remember_choice(request, response)
    return response


@router.get("/", response_class=HTMLResponse)
def home(request: Request, reader: ReaderDep) -> Response:
    """Search box, documents grouped by language, counts."""
    documents = reader.list_documents()
    groups: dict[str, list[Any]] = {}
    for doc in documents:
        groups.setdefault(doc.lang, []).append(doc)
    return _render(request, "pages/home.html", None, "/api/v1/documents", {
        "groups": groups, "counts": reader.entry_counts(), "documents": documents,
    })


@router.get("/search", response_class=HTMLResponse)
def search_page(
    request: Request,
    reader: ReaderDep,
    q: Annotated[str | None, Query(max_length=MAX_QUERY_LENGTH)] = None,
    lang: Annotated[LangParam, Query()] = "any",
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> Response:
    """Results with highlighted snippets; works without JavaScript."""
    ui_lang = reader_interface(request)  # `lang` filters the content; the interface stays the reader's
    if q is None or not q.strip():  # what to type, examples, and the documents to browse
        return _render(request, "pages/search.html", None, None,
                       {"q": "", "lang": lang, "page": None, "error": None, "example_queries": EXAMPLES,
                        "documents": reader.list_documents()})
    try:
        query = clean_query(q)
    except BadRequest as exc:
        return _render(request, "pages/search.html", None, None,
                       {"q": q[:200], "lang": lang, "page": None, "error": str(exc)}, status=422)
    # A reader who types Chinese reads Chinese; otherwise the browser's language decides.
    prefer = "zh" if HAN.search(query) else ui_lang
    page = reader.search(query, language_filter(lang), PAGE_SIZE, offset, prefer=prefer)

    def link(new_offset: int) -> str:
        return "/search?" + urlencode({"q": query, "lang": lang, "offset": new_offset})

    json_url = "/api/v1/search?" + urlencode({"q": query, "lang": lang, "limit": PAGE_SIZE,
                                              "offset": offset})
    response = _render(request, "pages/search.html", None, json_url, {
        "q": query, "lang": lang, "page": page, "error": None,
        "previous_url": link(max(0, offset - PAGE_SIZE)) if offset > 0 else None,
        "next_url": link(offset + PAGE_SIZE) if offset + PAGE_SIZE < page.total else None,
    })
    if page.partial:  # cut short by its time budget: the next request may find more, so no ETag
        response.headers["Cache-Control"] = NO_STORE
    return response


@router.get("/entries/{entry_id}", response_class=HTMLResponse)
def entry_page(request: Request, reader: ReaderDep, entry_id: str) -> Response:
    """One entry: question, answer, breadcrumb, translations and related entries; an old id redirects (301), a
    removed entry says so with the closest entries (410)."""
    entry = reader.get_current_entry(entry_id)
    title_html, body_html = reader.entry_html(entry_id)
    other = OTHER_LANGUAGE.get(entry.lang, "en")
    return _render(request, "pages/entry.html", entry.lang, f"/api/v1/entries/{entry.id}", {
        "entry": entry, "title_html": title_html, "body_html": body_html, "other_lang": other, "read_in": READ_IN,
        "document_label": reader.document_labels()[entry.document.id][1],
        "other_documents": [d for d in entry.document.translations if d.lang == other],
    })


@router.get("/documents/{document_id}", response_class=HTMLResponse)
def document_page(request: Request, reader: ReaderDep, document_id: str) -> Response:
    """A whole document with its entries in order."""
    document = reader.get_document(document_id)
    # Anchors on the questions and an "on this page" list that jumps to them.
    label = INTERFACE[reader_interface(request)]["permalink"]
    # Parsing a whole document is the page's costliest step: done once per generation for the
    # documents read most, not on every view.
    html, items = reader.snapshot.kept("outline", (document.id, label), OUTLINES_KEPT,
                                       lambda: outline(document.html, document.title, document.entries, label))
    return _render(request, "pages/document.html", document.lang,
                   f"/api/v1/documents/{document.id}",
                   {"document": document, "document_html": html, "outline": items})


@router.get("/opensearch.xml")
def opensearch(request: Request) -> Response:
    """OpenSearch description, so browsers can add the portal as a search engine."""
    # From configuration only: a Host header is whatever the client says.
    base = request.app.state.settings.public_url.rstrip("/")
    templates = request.app.state.templates
    response: Response = templates.TemplateResponse(
        request, "opensearch.xml", {"base": base},
        media_type="application/opensearchdescription+xml",
    )
    return response
