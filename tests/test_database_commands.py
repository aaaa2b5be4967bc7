"""`faq migrate`, and what `faq ingest` says when it fails, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import NullPool, create_engine, text

from app import cli
from app.config import Settings
from app.generations import ensure_pointer_table, generation, schema_name
from app.ingest import store as store_module
from app.ingest.store import head_revision, migrate
from measure.localserver import free_port
from tests.conftest import pg_settings_for, settings_for

OLD = "20200101T000000000000Z"  # a generation written by an earlier version, at the previous revision
UNREACHABLE = f"postgresql+psycopg://faq:faq@127.0.0.1:{free_port()}/faq"


def _run(settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
         *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_line(message: str) -> str:
    assert message.endswith("\n") and message.count("\n") == 1, message
    return message


def test_migrate_without_data_on_sqlite_says_ingest_creates_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(settings_for(tmp_path), monkeypatch, capsys, "migrate")
    assert code == 0 and "`faq ingest` creates the database" in _one_line(out)
    assert not (tmp_path / "data" / "faq.db").exists()


def test_migrate_upgrades_the_current_sqlite_generation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    settings = settings_for(tmp_path)
    old = generation(settings, OLD)
    old.directory.mkdir(parents=True)
    engine = create_engine(old.database_url)
    migrate(engine, revision="0001")
    (settings.data_dir / "CURRENT").write_text(json.dumps({"generation": OLD}), encoding="utf-8")
    code, out, _ = _run(settings, monkeypatch, capsys, "migrate")
    assert code == 0 and f"revision {head_revision()}" in _one_line(out)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == head_revision()
    engine.dispose()


def test_migrate_prepares_an_empty_postgres_database_and_upgrades_the_current_generation(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    settings = pg_settings_for(tmp_path, postgres_url)
    code, out, _ = _run(settings, monkeypatch, capsys, "migrate")
    assert code == 0 and "no data yet: run `faq ingest`" in _one_line(out) and ":faq@" not in out  # no password
    engine = create_engine(postgres_url, poolclass=NullPool)
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema_name(OLD)}"))
        ensure_pointer_table(connection)
        connection.execute(text("INSERT INTO public.current_generation (id, name) VALUES (1, :name)"), {"name": OLD})
    migrate(engine, schema_name(OLD), revision="0001")
    code, out, _ = _run(settings, monkeypatch, capsys, "migrate")
    assert code == 0 and f"generation {OLD}" in _one_line(out) and f"revision {head_revision()}" in out
    with engine.connect() as connection:
        version = connection.execute(text(f"SELECT version_num FROM {schema_name(OLD)}.alembic_version")).scalar()
    assert version == head_revision()
    engine.dispose()


def test_migrate_against_an_unreachable_database_says_where_and_what_to_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(pg_settings_for(tmp_path, UNREACHABLE), monkeypatch, capsys, "migrate")
    port = UNREACHABLE.rsplit(":", 1)[1].split("/")[0]
    assert code == 1 and out == ""
    assert _one_line(err).startswith(f"faq migrate: cannot reach the database at 127.0.0.1:{port} (")
    assert err.rstrip().endswith("check FAQ_DATABASE_URL") and "Traceback" not in err


def test_ingest_against_an_unreachable_database_fails_fast_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(pg_settings_for(tmp_path, UNREACHABLE), monkeypatch, capsys, "ingest", "--quiet")
    assert code == 1 and "cannot reach the database" in _one_line(err) and "previous data" not in err


def _small_content(tmp_path: Path) -> Settings:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "faq.md").write_text("# FAQ\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    return settings_for(tmp_path, tmp_path / "content")


def _failing_index(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_index(*_args: object, **_kwargs: object) -> int:
        raise OSError("disk full while writing the index")

    monkeypatch.setattr(store_module, "build_index", broken_index)


def test_a_failed_first_ingest_does_not_claim_previous_data_is_served(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _failing_index(monkeypatch)
    code, _, err = _run(_small_content(tmp_path), monkeypatch, capsys, "ingest", "--quiet")
    assert code == 1 and "disk full" in _one_line(err)
    assert "still being served" not in err and "no previous data" in err


def test_a_failed_later_ingest_names_the_generation_still_served(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    settings = _small_content(tmp_path)
    code, out, _ = _run(settings, monkeypatch, capsys, "ingest", "--quiet")
    assert code == 0
    served = out.split("generation:")[1].split()[0]
    _failing_index(monkeypatch)
    code, _, err = _run(settings, monkeypatch, capsys, "ingest", "--quiet")
    assert code == 1 and f"the previous data (generation {served}) is still being served" in _one_line(err)


def _revoke(url: str, *statements: str) -> None:
    """Take rights away from the test role on its own scratch database (it owns it, so it may)."""
    engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            for statement in statements:
                connection.execute(text(statement))
    finally:
        engine.dispose()


def test_a_role_without_rights_is_told_which_it_needs(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from sqlalchemy import make_url

    database, role = make_url(postgres_url).database, make_url(postgres_url).username
    _revoke(postgres_url, f'REVOKE CREATE ON DATABASE "{database}" FROM "{role}"',
            f'REVOKE CREATE ON DATABASE "{database}" FROM PUBLIC')
    settings = pg_settings_for(tmp_path, postgres_url)
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "faq.md").write_text("# FAQ\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    settings = settings.model_copy(update={"content_dir": tmp_path / "content"})
    code, _, err = _run(settings, monkeypatch, capsys, "ingest", "--quiet")
    assert code == cli.EXIT_RIGHTS and "Traceback" not in err
    line = _one_line(err)
    assert f"the database role {role} lacks a right (permission denied for database {database})" in line
    assert "it needs CONNECT and CREATE on the database" in line and "CREATE DATABASE faq OWNER faq" in line
