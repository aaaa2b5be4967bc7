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

router = APIRouter(include_in_schema=False)
PAGE_SIZE = 10
NO_STORE = "no-store"

UI = {
    "en": {"search": "Search", "placeholder": "Search questions, errors, identifiers…",
           "documents": "Documents", "entries": "entries", "results": "results for",
           "no_results": "No entry matches. Try fewer words, another spelling, or the other language.",
           "translation": "Translation", "related": "Related", "in_document": "In",
           "any": "Any language", "language_names": {"en": "English", "zh": "Chinese"},
           "no_entry_translation": "This entry has no {language} version.",
           "translated_document": "The document is translated: {title}",
           "previous": "Previous", "next": "Next", "json": "JSON", "source": "Source line",
           "repaired": "This text was repaired from a damaged encoding ({n} characters restored).",
           "uncertain": "{n} of them are a best guess; `faq check` lists them for the editor."},
    "zh": {"search": "搜索", "placeholder": "搜索问题、报错信息、标识符……",
           "documents": "文档", "entries": "条", "results": "的搜索结果",
           "no_results": "没有匹配的条目。试试更少的词、别的写法或另一种语言。",
           "translation": "译文", "related": "相关条目", "in_document": "所属文档",
           "any": "所有语言", "language_names": {"en": "英文", "zh": "中文"},
           "no_entry_translation": "此条目没有{language}版本。",
           "translated_document": "所属文档有译文：{title}",
           "previous": "上一页", "next": "下一页", "json": "JSON", "source": "源文件行",
           "repaired": "本文由损坏的编码修复而来（已恢复 {n} 个字符）。",
           "uncertain": "其中 {n} 个为推测结果，`faq check` 会列出供编辑核对。"},
}
LANG_NAMES = {"en": "English", "zh": "中文"}
OTHER_LANGUAGE = {"en": "zh", "zh": "en"}
PERMALINK = {"en": "Link to this question", "zh": "本问题的链接"}
READ_IN = {"zh": "阅读中文版", "en": "Read in English"}  # the switch speaks the language it leads to


def html_lang(lang: str) -> str:
    """The value of <html lang> for a content language."""
    return "zh-Hans" if lang == "zh" else "en"


def reader_language(accept_language: str) -> str:
    """The reader's language from an Accept-Language header: zh if they prefer Chinese, else en."""
    first = accept_language.lower().split(",")[0].strip()
    return "zh" if first.startswith("zh") else "en"


def _render(request: Request, template: str, lang: str, json_url: str | None,
            context: dict[str, Any], status: int = 200) -> Response:
    templates = request.app.state.templates
    base = {"page_lang": html_lang(lang), "ui": UI.get(lang, UI["en"]), "ui_lang": lang,
            "json_url": json_url, "lang_names": LANG_NAMES}
    response: Response = templates.TemplateResponse(request, template, {**base, **context},
                                                    status_code=status)
    return response


@router.get("/", response_class=HTMLResponse)
def home(request: Request, reader: ReaderDep) -> Response:
    """Search box, documents grouped by language, counts."""
    documents = reader.list_documents()
    groups: dict[str, list[Any]] = {}
    for doc in documents:
        groups.setdefault(doc.lang, []).append(doc)
    lang = reader_language(request.headers.get("accept-language", ""))
    return _render(request, "pages/home.html", lang, "/api/v1/documents", {
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
    ui_lang = lang if lang != "any" else reader_language(request.headers.get("accept-language", ""))
    if q is None or not q.strip():  # what to type, examples, and the documents to browse
        return _render(request, "pages/search.html", ui_lang, None,
                       {"q": "", "lang": lang, "page": None, "error": None,
                        "documents": reader.list_documents()})
    try:
        query = clean_query(q)
    except BadRequest as exc:
        return _render(request, "pages/search.html", ui_lang, None,
                       {"q": q[:200], "lang": lang, "page": None, "error": str(exc)}, status=422)
    # A reader who types Chinese reads Chinese; otherwise the browser's language decides.
    prefer = "zh" if HAN.search(query) else ui_lang
    page = reader.search(query, language_filter(lang), PAGE_SIZE, offset, prefer=prefer)

    def link(new_offset: int) -> str:
        return "/search?" + urlencode({"q": query, "lang": lang, "offset": new_offset})

    json_url = "/api/v1/search?" + urlencode({"q": query, "lang": lang, "limit": PAGE_SIZE,
                                              "offset": offset})
    response = _render(request, "pages/search.html", ui_lang, json_url, {
        "q": query, "lang": lang, "page": page, "error": None,
        "previous_url": link(max(0, offset - PAGE_SIZE)) if offset > 0 else None,
        "next_url": link(offset + PAGE_SIZE) if offset + PAGE_SIZE < page.total else None,
    })
    if page.partial:  # cut short by its time budget: the next request may find more, so no ETag
        response.headers["Cache-Control"] = NO_STORE
    return response


@router.get("/entries/{entry_id}", response_class=HTMLResponse)
def entry_page(request: Request, reader: ReaderDep, entry_id: str) -> Response:
    """One entry: question, answer, breadcrumb, translations and related entries."""
    entry = reader.get_entry(entry_id)
    title_html, body_html = reader.entry_html(entry_id)
    other = OTHER_LANGUAGE.get(entry.lang, "en")
    return _render(request, "pages/entry.html", entry.lang, f"/api/v1/entries/{entry.id}", {
        "entry": entry, "title_html": title_html, "body_html": body_html, "other_lang": other, "read_in": READ_IN,
        "other_documents": [d for d in entry.document.translations if d.lang == other],
    })


@router.get("/documents/{document_id}", response_class=HTMLResponse)
def document_page(request: Request, reader: ReaderDep, document_id: str) -> Response:
    """A whole document with its entries in order."""
    document = reader.get_document(document_id)
    # Anchors on the questions and an "on this page" list that jumps to them.
    label = PERMALINK.get(document.lang, PERMALINK["en"])
    html, items = outline(document.html, document.title, document.entries, label)
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
