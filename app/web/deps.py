"""FastAPI dependencies shared by pages and API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from app.config import Settings
from app.db import DataStore
from app.queries import Reader


async def get_store(request: Request) -> DataStore:
    """The app's data store (one per process).

    `async` because it only reads the app's state: FastAPI runs a plain function dependency
    in the thread pool, a hop per request for nothing.
    """
    store: DataStore = request.app.state.store
    return store


async def get_settings_dep(request: Request) -> Settings:
    """The settings the app was built with (`async`: no work, so no hop to the thread pool)."""
    settings: Settings = request.app.state.settings
    return settings


async def get_reader(request: Request) -> AsyncIterator[Reader]:
    """A reader over the current generation, for the length of one request.

    The snapshot comes from the event loop when it is open (a `stat` at most), else from the
    thread pool; the session connects on its first query, in the route's thread. On a server
    database closing it is a round trip, so it happens in the thread pool; a SQLite session
    closes in microseconds, right here. A plain generator cost two hops to the thread pool
    per request besides the route's own.
    """
    state = request.app.state
    store: DataStore = state.store
    snapshot = store.open_snapshot()
    if snapshot is None:
        snapshot = await run_in_threadpool(store.current)
    session = Session(snapshot.engine)
    try:
        yield Reader(snapshot=snapshot, session=session, cache_size=state.settings.search_cache_size,
                     query_log=state.query_log, lineage=state.lineage)
    finally:
        if store.local:
            session.close()
        else:
            await run_in_threadpool(session.close)


ReaderDep = Annotated[Reader, Depends(get_reader)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
StoreDep = Annotated[DataStore, Depends(get_store)]
