"""HTML pages: the same reads as the API, rendered by Jinja2 templates."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote, urlencode, urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from app.feedback import MAX_COMMENT, TooManyVotes, entry_feedback
from app.ingest.language import HAN
from app.queries import MAX_HIGHLIGHT, NotFound
from app.search.paste import MAX_PASTE_LENGTH, is_paste
from app.web.deps import ReaderDep
from app.web.errors import BadRequest
from app.web.forms import read_form
from app.web.outline import Outline, paginated
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
CLOSEST = 5  # entries closest in meaning, offered when a search matched nothing
POPULAR = 5  # popular entries, on the start page and when a search matched nothing
RECENT = 5  # recently changed documents on the start page
MAX_FEEDBACK_BYTES = 16 * MAX_COMMENT * 9  # a comment of 16 times what is kept, percent-encoded: read, then cut
FEEDBACK_DAYS = 90  # the editors' view of an entry: its votes over this many days
OUTLINES_KEPT = 32  # parsed documents kept per generation
NO_STORE = "no-store"

READ_IN = {"zh": "阅读中文版", "en": "Read in English"}  # the switch speaks the language it leads to


def topic_name(folder: str) -> str:
    """A content folder as a topic's heading: `deep-speed_notes` → "Deep speed notes" (empty: no heading)."""
    words = folder.replace("-", " ").replace("_", " ").split()
    return " ".join(words)[:1].upper() + " ".join(words)[1:]


def fill_template(template: str, **values: str) -> str:
    """A link from a URL-template setting with `{name}` replaced by each value, URL-encoded (empty: no link)."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", quote(value, safe="/"))
    return template


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
    """The start page: search box, popular and recently changed entries, the documents by topic (the content
    folder's top-level folders, when it has them) and by language, counts."""
    documents = reader.list_documents()
    topics: dict[str, dict[str, list[Any]]] = {}
    for doc in documents:
        folder = doc.path.split("/", 1)[0] if "/" in doc.path else ""
        topics.setdefault(folder, {}).setdefault(doc.lang, []).append(doc)
    named = sorted(topic for topic in topics if topic) + ([""] if "" in topics else [])
    return _render(request, "pages/home.html", None, "/api/v1/documents", {
        "topics": [(topic_name(topic), topics[topic]) for topic in named], "counts": reader.entry_counts(),
        "documents": documents,
        "labels": reader.document_labels(), "popular": reader.popular_entries(reader_interface(request), POPULAR),
        # Recently changed: a choice among many documents, not every document listed twice.
        "recent": sorted((d for d in documents if d.changed), key=lambda d: d.changed, reverse=True)[:RECENT]
        if len(documents) > RECENT else [],
    })


@router.get("/search", response_class=HTMLResponse)
def search_page(
    request: Request,
    reader: ReaderDep,
    q: Annotated[str | None, Query(max_length=MAX_PASTE_LENGTH)] = None,
    lang: Annotated[LangParam, Query()] = "any",
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    correct: Annotated[bool, Query()] = True,
) -> Response:
    """Results with highlighted snippets; works without JavaScript."""
    if q is None or not q.strip():  # what to type, examples, and the documents to browse
        return _render(request, "pages/search.html", None, None,
                       {"q": "", "lang": lang, "page": None, "error": None, "example_queries": EXAMPLES,
                        "documents": reader.list_documents()})
    return _results(request, reader, q, lang, offset, correct)


@router.post("/search", response_class=HTMLResponse)
async def search_pasted_page(request: Request, reader: ReaderDep) -> Response:
    """The results for a pasted traceback or log sent by the page's form (POST: a long text stays out of URLs)."""
    form = await read_form(request)
    lang = form.get("lang", "any")
    response = await run_in_threadpool(_results, request, reader, form.get("q", ""),
                                       lang if lang in ("en", "zh") else "any", 0)
    response.headers["Cache-Control"] = NO_STORE
    return response


def _results(request: Request, reader: ReaderDep, q: str, lang: str, offset: int, correct: bool = True) -> Response:
    """The results page for `q`, or the search page saying why `q` cannot be searched."""
    ui_lang = reader_interface(request)  # `lang` filters the content; the interface stays the reader's
    try:
        query = clean_query(q, MAX_PASTE_LENGTH)
    except BadRequest as exc:
        return _render(request, "pages/search.html", None, None,
                       {"q": q[:200], "lang": lang, "page": None, "error": str(exc)}, status=422)
    # A reader who types Chinese reads Chinese; otherwise the browser's language decides.
    prefer = "zh" if HAN.search(query) else ui_lang
    page = reader.search(query, language_filter(lang), PAGE_SIZE, offset, prefer=prefer, correct=correct)

    def link(new_offset: int) -> str:  # a paste pages on by the part that was searched, which fits a URL
        asked = {"q": page.query, "lang": lang, "offset": new_offset}
        return "/search?" + urlencode(asked if correct else {**asked, "correct": "false"})

    json_url = "/api/v1/search?" + urlencode({"q": page.query, "lang": lang, "limit": PAGE_SIZE, "offset": offset})
    pasted = {"characters": len(query), "lines": query.count("\n") + 1} if is_paste(query) else None
    dead_end = not page.total and not page.partial  # what a reader can do next when nothing matched
    settings = request.app.state.settings
    response = _render(request, "pages/search.html", None, json_url, {
        "closest": reader.closest(page.query, language_filter(lang), prefer, CLOSEST) if dead_end else [],
        "popular": reader.popular_entries(prefer, POPULAR) if dead_end else [],
        "ask_url": fill_template(settings.ask_url, query=page.error or query[:500]) if dead_end else "",
        "as_typed_url": "/search?" + urlencode({"q": page.query, "lang": lang, "correct": "false"}),
        "q": page.error if pasted and page.error else query, "lang": lang, "page": page, "error": None,
        "pasted": pasted, "paste_text": query if pasted else "",
        "previous_url": link(max(0, offset - PAGE_SIZE)) if offset > 0 else None,
        "next_url": link(offset + PAGE_SIZE) if offset + PAGE_SIZE < page.total else None,
    })
    if page.partial:  # cut short by its time budget: the next request may find more, so no ETag
        response.headers["Cache-Control"] = NO_STORE
    return response


@router.get("/entries/{entry_id}", response_class=HTMLResponse)
def entry_page(request: Request, reader: ReaderDep, entry_id: str,
               hl: Annotated[str, Query(description="the search that led here, highlighted")] = "",
               thanks: Annotated[bool, Query()] = False) -> Response:
    """One entry: question, answer, breadcrumb, translations and related entries; `hl` is the search that led
    here, highlighted in the answer (and removable); `thanks` after a reader said whether it helped. An old id
    redirects (301), a removed entry says so with the closest entries (410)."""
    return entry_response(request, reader, entry_id, highlight=" ".join(hl[:MAX_HIGHLIGHT].split()), thanks=thanks)


@router.post("/entries/{entry_id}/feedback", response_class=HTMLResponse)
async def entry_feedback_vote(request: Request, reader: ReaderDep, entry_id: str) -> Response:
    """Count a reader's "Was this helpful?" (and comment) and lead back to the entry, thanked."""
    origin = request.headers.get("origin")
    if origin and urlsplit(origin).netloc != request.headers.get("host", ""):
        raise HTTPException(403, "feedback is taken from the portal's own pages only")
    form = await read_form(request, MAX_FEEDBACK_BYTES)
    if form.get("helpful") not in ("yes", "no"):
        raise BadRequest("helpful: say yes or no")
    await run_in_threadpool(reader.get_entry, entry_id)  # an unknown entry is a 404, and counts nothing
    client = request.client.host if request.client else ""
    try:
        await run_in_threadpool(request.app.state.feedback.vote, client, entry_id, form["helpful"] == "yes",
                                form.get("comment", ""))
    except TooManyVotes:
        raise HTTPException(429, "too many answers from here in a minute; try again later") from None
    return RedirectResponse(f"/entries/{quote(entry_id)}?thanks=true#feedback", status_code=303)


def entry_response(request: Request, reader: ReaderDep, entry_id: str, highlight: str = "",
                   editors: bool = False, thanks: bool = False) -> Response:
    """The entry page; the editors' view adds where the entry comes from (file, line, encoding repairs)."""
    entry = reader.get_current_entry(entry_id)
    title_html, body_html = reader.highlighted(entry_id, highlight) if highlight else reader.entry_html(entry_id)
    other = OTHER_LANGUAGE.get(entry.lang, "en")
    edit = fill_template(request.app.state.settings.edit_url, path=entry.document.path, line=str(entry.line))
    return _render(request, "pages/entry.html", entry.lang, f"/api/v1/entries/{entry.id}", {
        "entry": entry, "title_html": title_html, "body_html": body_html, "other_lang": other, "read_in": READ_IN,
        "document_label": reader.document_labels()[entry.document.id][1],
        "other_documents": [d for d in entry.document.translations if d.lang == other],
        "edit_url": edit, "editors": editors, "highlight": highlight, "thanks": thanks,
        "feedback": entry_feedback(request.app.state.settings, FEEDBACK_DAYS, 1, entry_id) if editors else [],
    })


@router.get("/documents/{document_id}", response_class=HTMLResponse)
def document_page(request: Request, reader: ReaderDep, document_id: str,
                  part: Annotated[int, Query(ge=1, le=100_000)] = 1) -> Response:
    """A whole document with its entries in order; a long one in parts (`part`), each with its own outline."""
    # Anchors on the questions and an "on this page" list that jumps to them.
    label = INTERFACE[reader_interface(request)]["permalink"]

    def read() -> tuple[Any, Outline]:
        # Parsing a whole document is the page's costliest step: done once per generation for the documents read
        # most, whatever their size, and kept without the document's text (its parts are what pages show).
        document = reader.get_document(document_id)
        laid_out = paginated(document.html, document.title, document.entries, label)
        return document.model_copy(update={"markdown": "", "html": ""}), laid_out

    document, laid_out = reader.snapshot.kept("outline", (document_id, label), OUTLINES_KEPT, read)
    if part > len(laid_out.parts):
        raise NotFound("document", document_id,
                       f"document {document_id!r} has {len(laid_out.parts)} part(s); there is no part {part}")
    here = [item for item in laid_out.items if item.part == part and (item.on_page or part == 1)]
    parts = [(number, next((item.entry.title for item in laid_out.items if item.on_page and item.part == number),
                           document.title)) for number in range(1, len(laid_out.parts) + 1)]
    edit = fill_template(request.app.state.settings.edit_url, path=document.path, line="1")
    return _render(request, "pages/document.html", document.lang,
                   f"/api/v1/documents/{document.id}",
                   {"document": document, "document_html": laid_out.parts[part - 1], "outline": here,
                    "parts": parts if len(parts) > 1 else [], "part": part, "edit_url": edit})


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
