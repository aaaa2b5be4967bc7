"""Alembic environment: migrates the database named by the caller or by the settings."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlmodel import SQLModel

import app.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from app.config import get_settings
from app.generations import is_sqlite

target_metadata = SQLModel.metadata


def run_migrations() -> None:
    """Run against a connection handed over by the ingest, else against the configured URL."""
    connection = context.config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.config.get_main_option("sqlalchemy.url") or get_settings().resolved_database_url
    if not is_sqlite(url):
        raise SystemExit("on a server database every generation has its own schema: run `faq migrate`")
    engine = create_engine(url)
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run against a database")
run_migrations()
