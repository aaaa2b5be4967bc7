"""FastAPI dependencies shared by pages and API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session

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


def get_reader(request: Request, store: Annotated[DataStore, Depends(get_store)],
               settings: Annotated[Settings, Depends(get_settings_dep)]) -> Iterator[Reader]:
    """A reader over the current generation, for the length of one request.

    A plain generator on purpose: FastAPI opens and closes it in the thread pool, so the
    database session is never opened or released on the event loop.
    """
    snapshot = store.current()
    with Session(snapshot.engine) as session:
        yield Reader(snapshot=snapshot, session=session, cache_size=settings.search_cache_size,
                     query_log=request.app.state.query_log)


ReaderDep = Annotated[Reader, Depends(get_reader)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
StoreDep = Annotated[DataStore, Depends(get_store)]
