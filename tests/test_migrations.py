"""The Alembic migrations create exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, text
from sqlmodel import SQLModel, create_engine

from app.ingest.store import head_revision, migrate

PREVIOUS = "0001"
SCHEMA = "gen_test"  # on PostgreSQL, migrations run inside a generation's schema


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Engine, str | None]:
    """An empty database of the test's own, and the schema to migrate in it (None on SQLite)."""
    if request.param == "sqlite":
        return create_engine(f"sqlite:///{tmp_path / 'm.db'}"), None
    engine = create_engine(request.getfixturevalue("postgres_url"))
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {SCHEMA}"))
    return engine, SCHEMA


def _differences(engine: Engine, schema: str | None) -> list[object]:
    with engine.connect() as connection:
        if schema:
            connection.execute(text(f"SET search_path TO {schema}"))
        return list(compare_metadata(MigrationContext.configure(connection), SQLModel.metadata))


def _revision(engine: Engine, schema: str | None) -> str:
    with engine.connect() as connection:
        table = f"{schema}.alembic_version" if schema else "alembic_version"
        return str(connection.execute(text(f"SELECT version_num FROM {table}")).scalar_one())


def test_upgrade_head_from_empty_matches_the_models(database: tuple[Engine, str | None]) -> None:
    engine, schema = database
    migrate(engine, schema)
    assert _revision(engine, schema) == head_revision()
    assert _differences(engine, schema) == []
    migrate(engine, schema)  # again: nothing to do
    engine.dispose()


def test_upgrade_head_from_the_previous_revision_keeps_the_rows(database: tuple[Engine, str | None]) -> None:
    engine, schema = database
    migrate(engine, schema, PREVIOUS)
    prefix = f"{schema}." if schema else ""
    with engine.begin() as connection:
        connection.execute(text(
            f"INSERT INTO {prefix}document (id, path, title, lang, markdown, html, encoding, entry_count) "
            "VALUES ('d', 'd.md', 'D', 'en', '# D', '<h1>D</h1>', 'utf-8', 0)"))
    migrate(engine, schema)
    assert _revision(engine, schema) == head_revision() != PREVIOUS
    with engine.connect() as connection:
        row = connection.execute(text(f"SELECT id, repaired_characters FROM {prefix}document")).one()
    assert tuple(row) == ("d", 0)
    assert _differences(engine, schema) == []
    engine.dispose()
