"""FastAPI dependencies shared by pages and API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session

from app.config import Settings
from app.db import DataStore
from app.queries import Reader


def get_store(request: Request) -> DataStore:
    """The app's data store (one per process)."""
    store: DataStore = request.app.state.store
    return store


def get_settings_dep(request: Request) -> Settings:
    """The settings the app was built with."""
    settings: Settings = request.app.state.settings
    return settings


async def get_reader(store: Annotated[DataStore, Depends(get_store)],
                     settings: Annotated[Settings, Depends(get_settings_dep)]) -> AsyncIterator[Reader]:
    """A reader over the current generation, for the length of one request.

    Async on purpose: the work is short and CPU-bound (SQLite, Whoosh), so running it on
    the event loop saves two thread-pool hops per request; scale with `--workers`.
    """
    snapshot = store.current()
    with Session(snapshot.engine) as session:
        yield Reader(snapshot=snapshot, session=session, cache_size=settings.search_cache_size)


ReaderDep = Annotated[Reader, Depends(get_reader)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
