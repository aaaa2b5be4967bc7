"""The JSON API under /api/v1 (see CONTRACT.md).

Routes are plain `def`: their database and Whoosh work runs in the thread pool, never on
the event loop, so one slow search cannot hold up `/healthz` or any other request.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field, TypeAdapter
from sqlmodel import Session

from app.db import DataStore, NoDataError
from app.generations import REBUILD_ADVICE
from app.limits import MAX_QUERY_LENGTH
from app.models import DocumentBrief, DocumentDetail, EntryDetail, Health, Problem, Readiness, SearchPage
from app.queries import Reader
from app.search.engine import Mode
from app.search.paste import MAX_PASTE_LENGTH
from app.web.deps import ReaderDep, get_store
from app.web.pages import NO_STORE
from app.web.params import MAX_OFFSET, QUERY_PATTERN, LangParam, clean_query, language_filter


def _problem(description: str) -> dict[str, Any]:
    return {"model": Problem, "description": description, "content": {"application/problem+json": {}}}


NO_DATA: dict[int | str, dict[str, Any]] = {
    503: _problem("no usable data yet (run `faq ingest`), or the data is damaged; the detail says which"),
}
router = APIRouter(prefix="/api/v1", tags=["api"], responses={
    404: _problem("no entry or document with that id"),
    422: _problem("a parameter cannot be used; the detail says why and what to send"),
    **NO_DATA,
})
health_router = APIRouter(tags=["health"], responses=NO_DATA)
_DOCUMENT_LIST = TypeAdapter(list[DocumentBrief])


def _json(content: BaseModel | list[DocumentBrief]) -> Response:
    """The answer as JSON, serialised in the route's thread.

    A plain-`def` route that returns a model has FastAPI validate it again in one more trip
    to the thread pool before serialising it on the event loop: a third of a search's cost
    beyond its own work under load. The `response_model` still documents the shape.
    """
    body = _DOCUMENT_LIST.dump_json(content) if isinstance(content, list) else content.model_dump_json().encode()
    return Response(body, media_type="application/json")


@router.get("/search", response_model=SearchPage)
def search(
    reader: ReaderDep,
    q: Annotated[str, Query(description="words, an identifier, or a pasted error", max_length=MAX_QUERY_LENGTH,
                            pattern=QUERY_PATTERN)],
    lang: Annotated[LangParam, Query(description="en, zh or any")] = "any",
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    document: Annotated[str | None, Query(description="only entries of this document id", max_length=200)] = None,
    prefer: Annotated[Literal["en", "zh"] | None, Query(
        description="with lang=any, show a translated entry in this language (default: the query's: zh when it "
                    "holds Chinese, else en)")] = None,
    syntax: Annotated[Literal["plain", "raw"], Query(
        description="plain (default): the query is text; raw: Whoosh query syntax (field:term, AND, OR, NOT, *)",
    )] = "plain",
    mode: Annotated[Mode, Query(description=(
        "hybrid (default): by words and meaning, once the vectors are made; lexical: by words only "
        "(what the search box's instant results use); semantic: by meaning only"))] = "hybrid",
    correct: Annotated[bool, Query(description=(
        "true (default): a query that finds little and looks misspelled is searched as corrected when that finds "
        "more (`corrected` says so); false: search the query as typed"))] = True,
) -> Response:
    """Search entries in both languages, best first; "quoted words" must appear together.

    An entry and its translation come back as one result (its `translations` name the other).
    """
    return _search(reader, SearchRequest(q=q, lang=lang, limit=limit, offset=offset, document=document,
                                         prefer=prefer, syntax=syntax, mode=mode, correct=correct), MAX_QUERY_LENGTH)


class SearchRequest(BaseModel):
    """A search sent as JSON: the same parameters as `GET /api/v1/search`, with room for a whole pasted log."""

    q: str = Field(description="words, an identifier, or a pasted traceback or log (up to 64 KB)",
                   max_length=MAX_PASTE_LENGTH, pattern=QUERY_PATTERN)
    lang: LangParam = "any"
    limit: int = Field(default=10, ge=1, le=50)
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)
    document: str | None = Field(default=None, max_length=200)
    prefer: Literal["en", "zh"] | None = None
    syntax: Literal["plain", "raw"] = "plain"
    mode: Mode = "hybrid"
    correct: bool = True


@router.post("/search", response_model=SearchPage)
def search_pasted(reader: ReaderDep, body: SearchRequest) -> Response:
    """The same search with the query in a JSON body, for text too long for a URL: a whole traceback or log of up
    to 64 KB is searched by its error lines and last frames, and `error` names the error it was read as."""
    return _search(reader, body, MAX_PASTE_LENGTH)


def _search(reader: Reader, asked: SearchRequest, limit: int) -> Response:
    page = reader.search(clean_query(asked.q, limit), language_filter(asked.lang), asked.limit, asked.offset,
                         asked.document or None, asked.prefer, raw=asked.syntax == "raw", mode=asked.mode,
                         correct=asked.correct)
    answer = _json(page)
    if page.partial:  # cut short by its time budget: the next request may find more, so no ETag
        answer.headers["Cache-Control"] = NO_STORE
    return answer


@router.get("/entries/{entry_id}", response_model=EntryDetail, responses={
    301: _problem("the id was replaced: `Location` and `moved_to` name the entry's current id"),
    410: _problem("the entry was removed: `question` was its last question, `closest` the closest current entries"),
})
def entry(reader: ReaderDep, entry_id: str) -> Response:
    """One entry with its answer, translations and related entries; an old id answers 301 to its current one,
    a removed entry's 410."""
    return _json(reader.get_current_entry(entry_id))


@router.get("/documents", response_model=list[DocumentBrief])
def documents(reader: ReaderDep) -> Response:
    """Every document."""
    return _json(reader.list_documents())


@router.get("/documents/{document_id}", response_model=DocumentDetail)
def document(reader: ReaderDep, document_id: str) -> Response:
    """One document: its entries in order, its text and its translations."""
    return _json(reader.get_document(document_id))


@health_router.get("/healthz", response_model=Health)
async def healthz(request: Request) -> Health:
    """Liveness and counts, from the event loop once counted: a monitor must not queue behind searches."""
    # No dependencies: FastAPI runs plain-function dependencies in the (possibly busy) thread pool.
    store: DataStore = request.app.state.store
    snapshot = store.open_snapshot()
    counted: Health | None = snapshot.cache.get("health") if snapshot is not None else None
    return counted if counted is not None else await run_in_threadpool(_count, store)


def _count(store: DataStore) -> Health:
    """The counts of the current generation, read from the database (in the thread pool)."""
    snapshot = store.current()
    with Session(snapshot.engine) as session:
        return Reader(snapshot=snapshot, session=session).health()


@health_router.get("/readyz", response_model=Readiness)
def readyz(store: Annotated[DataStore, Depends(get_store)]) -> Readiness:
    """Whether the data, index and database are usable and warm; says so when a damaged generation was replaced,
    and how search by meaning stands."""
    if not store.warm.is_set():
        raise NoDataError("starting: loading the index, the dictionaries and the model; ready in a few seconds")
    snapshot = store.current()  # NoDataError → 503 with the reason
    semantic = store.semantic_state(snapshot)
    damaged = store.fallback
    if damaged is not None:
        return Readiness(status="degraded", generation=snapshot.generation.name, semantic=semantic,
                         note=f"generation {damaged[0]} is damaged ({damaged[2]}); serving {damaged[1]}; "
                              f"{REBUILD_ADVICE}")
    if store.pointer_problem is not None:
        return Readiness(status="degraded", generation=snapshot.generation.name, semantic=semantic,
                         note=store.pointer_problem)
    return Readiness(status="ok", generation=snapshot.generation.name, semantic=semantic)
