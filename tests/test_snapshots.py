"""A generation replaced while requests still read it: those requests finish on it."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import text
from whoosh.query import Every

from app.db import DataStore
from app.ingest.pipeline import run_ingest
from tests.conftest import CONTENT, settings_for


def test_a_replaced_snapshot_stays_readable_for_requests_in_flight(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    settings = settings_for(tmp_path, content)
    run_ingest(settings, progress=False)
    store = DataStore(settings)
    in_flight = store.current()  # a request that started before the new generation
    run_ingest(settings, progress=False)
    assert store.current().generation.name != in_flight.generation.name  # the store switched
    assert len(in_flight.searcher.search(Every(), limit=None)) > 0  # its searcher is still open
    with in_flight.engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM entry")).scalar_one() > 0
    store.close()
