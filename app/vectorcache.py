"""Vectors kept across generations, by the hash of the text embedded and the model that embedded it.

A re-ingest embeds only the entries whose text changed; a generation's vector file is assembled
from here. With SQLite it is one file beside the generations (`<data_dir>/vectors.db`), shared
by the processes of this machine. With PostgreSQL it is the table `public.vector_cache` of the
shared database: one replica embeds, every replica assembles its own vector file from it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Column, Engine, LargeBinary, MetaData, NullPool, String, Table, create_engine, event, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.config import Settings
from app.generations import is_sqlite
from app.search.embedding import Vectors

CACHE_FILE = "vectors.db"
LOOKUP_CHUNK = 500  # keys asked for at a time
STORED_DTYPE = np.float16  # half the bytes; its rounding (5e-4) is below the int8 file's (2e-3)

_metadata = MetaData()
vector_cache = Table(
    "vector_cache", _metadata,
    Column("key", String(64), primary_key=True),  # sha256 of model, recipe and text
    Column("vector", LargeBinary, nullable=False),
)


def vector_key(model: str, recipe: str, text: str) -> str:
    """The cache key of `text` embedded by `model` with `recipe`."""
    return hashlib.sha256(f"{model}\n{recipe}\n{text}".encode("utf-8", "replace")).hexdigest()


class VectorCache:
    """Vectors by key, in a SQLite file of this machine or a table of the shared server database."""

    def __init__(self, settings: Settings, dimensions: int) -> None:
        self.dimensions = dimensions
        url = settings.resolved_database_url
        self._sqlite = is_sqlite(url)
        if self._sqlite:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = create_engine(f"sqlite:///{settings.data_dir / CACHE_FILE}", poolclass=NullPool,
                                                connect_args={"timeout": 30})
            event.listen(self.engine, "connect", _wal)
        else:
            self.engine = create_engine(url, pool_size=1, max_overflow=1, pool_pre_ping=True)
        _metadata.create_all(self.engine, checkfirst=True)

    def get(self, keys: Sequence[str]) -> dict[str, Vectors]:
        """The vectors held for `keys` (those not held are left out)."""
        found: dict[str, Vectors] = {}
        with self.engine.connect() as connection:
            for start in range(0, len(keys), LOOKUP_CHUNK):
                chunk = list(keys[start:start + LOOKUP_CHUNK])
                rows = connection.execute(select(vector_cache.c.key, vector_cache.c.vector)
                                          .where(vector_cache.c.key.in_(chunk)))
                for key, blob in rows:
                    vector = np.frombuffer(blob, dtype=STORED_DTYPE)
                    if len(vector) == self.dimensions:  # a row of another size is not this model's: embed again
                        found[key] = vector.astype(np.float32)
        return found

    def held(self, keys: Sequence[str]) -> set[str]:
        """Which of `keys` have a vector (without reading the vectors)."""
        present: set[str] = set()
        with self.engine.connect() as connection:
            for start in range(0, len(keys), LOOKUP_CHUNK):
                chunk = list(keys[start:start + LOOKUP_CHUNK])
                present.update(connection.execute(select(vector_cache.c.key).where(vector_cache.c.key.in_(chunk)))
                               .scalars())
        return present

    def put(self, items: Iterable[tuple[str, Vectors]]) -> None:
        """Keep these vectors (a key already held keeps its vector: the same text gives the same vector)."""
        rows = [{"key": key, "vector": np.asarray(vector, dtype=STORED_DTYPE).tobytes()} for key, vector in items]
        if not rows:
            return
        insert = sqlite_insert if self._sqlite else pg_insert
        with self.engine.begin() as connection:
            connection.execute(insert(vector_cache).on_conflict_do_nothing(index_elements=["key"]), rows)

    def prune(self, keep: Iterable[str]) -> int:
        """Forget every vector not in `keep` (the keys of the generations still kept); how many went."""
        wanted = set(keep)
        with self.engine.connect() as connection:
            stale = [key for key in connection.execute(select(vector_cache.c.key)).scalars() if key not in wanted]
        with self.engine.begin() as connection:
            for start in range(0, len(stale), LOOKUP_CHUNK):
                chunk = stale[start:start + LOOKUP_CHUNK]
                connection.execute(vector_cache.delete().where(vector_cache.c.key.in_(chunk)))
        return len(stale)

    def close(self) -> None:
        """Close the connections."""
        self.engine.dispose()


def _wal(dbapi_connection: Any, _record: Any) -> None:
    # Readers assembling a generation's file must not wait on the embedder's writes, nor it on them.
    dbapi_connection.execute("PRAGMA journal_mode = WAL")
    dbapi_connection.execute("PRAGMA synchronous = NORMAL")
