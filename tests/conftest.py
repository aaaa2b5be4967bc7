"""Shared fixtures: a real ingest of content/ into a temporary data directory, and clients."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import NullPool, create_engine, text
from sqlalchemy.exc import SQLAlchemyError

from app.config import Settings
from app.generations import current_name, describe_failure
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.search.embedding import Embedder, ModelSlot
from app.web.inprocess import InProcessClient
from measure.localserver import scratch_postgres_database

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "content"
SHARED = REPO.parent / "shared"
IN_CI = os.environ.get("CI", "").lower() == "true"
# A throwaway local cluster (.ci/run creates it); tests make and drop their own databases on it.
POSTGRES_URL = os.environ.get("FAQ_TEST_POSTGRES_URL", "")
ENGINE = os.environ.get("FAQ_TEST_ENGINE", "sqlite")  # where `seeded` (and so `client`) keeps its data


def require(path: Path, what: str) -> Path:
    """`path`, or skip on a laptop without it; under CI a missing prerequisite fails."""
    if path.exists():
        return path
    message = f"{what} not found at {path}"
    if IN_CI:
        pytest.fail(message + " (required under CI=true)")
    pytest.skip(message)


def settings_for(tmp_path: Path, content: Path = CONTENT, semantic: bool = False) -> Settings:
    """Settings with their own data directory (and no .env influence); searched by words only unless `semantic`
    (a test's own small ingest then need not wait for vectors)."""
    return Settings(content_dir=content, data_dir=tmp_path / "data", database_url="", semantic=semantic,
                    _env_file=None)  # type: ignore[call-arg]


def require_model(slot: ModelSlot) -> Embedder:
    """The embedding model of `slot`, or skip on a machine that cannot run it; under CI its absence fails."""
    model = slot.get()
    if model is not None:
        return model
    message = f"the embedding model cannot run here: {slot.problem}"
    if IN_CI:
        pytest.fail(message + " (required under CI=true)")
    pytest.skip(message)


def make_vectors(settings: Settings) -> bool:
    """Make the current generation's vectors now, as a server would in the background; False without the model
    (then search stays lexical, and the semantic tests say why)."""
    from app.semantic import build_vectors

    embedder = ModelSlot(enabled=True).get()
    if embedder is None:
        return False
    name = current_name(settings)
    assert name is not None
    build_vectors(settings, name, embedder)
    return True


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Settings]:
    """Settings holding an ingest of the project's content/: on SQLite, or with FAQ_TEST_ENGINE=postgresql
    on a fresh PostgreSQL database (`make test-postgres` runs the API and page suites that way)."""
    folder = tmp_path_factory.mktemp("seeded")
    if ENGINE == "postgresql":
        for url in fresh_postgres_database(request.getfixturevalue("postgres_server")):
            settings = pg_settings_for(folder, url, semantic=True)
            run_ingest(settings, progress=False)
            make_vectors(settings)
            yield settings
        return
    settings = settings_for(folder, semantic=True)
    run_ingest(settings, progress=False)
    make_vectors(settings)
    yield settings


@pytest.fixture(scope="session")
def client(seeded: Settings) -> Iterator[InProcessClient]:
    """An HTTP client for an app serving the seeded data."""
    with InProcessClient(create_app(seeded)) as http:
        yield http


@pytest.fixture
def shared() -> Path:
    """The shared folder beside the checkout (seeds, real corpus, eval queries)."""
    return require(SHARED, "the shared/ folder")


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """FAQ_TEST_POSTGRES_URL once it answers; skip on a laptop without PostgreSQL, fail under CI."""
    problem = "FAQ_TEST_POSTGRES_URL is not set (e.g. postgresql+psycopg://faq:faq@127.0.0.1:5432/faq)"
    if POSTGRES_URL:
        engine = create_engine(POSTGRES_URL, poolclass=NullPool)
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            return POSTGRES_URL
        except SQLAlchemyError as exc:
            reason = describe_failure(exc, POSTGRES_URL).replace("FAQ_DATABASE_URL", "FAQ_TEST_POSTGRES_URL")
            problem = f"PostgreSQL for the tests: {reason}"
        finally:
            engine.dispose()
    if IN_CI:
        pytest.fail(problem + " (required under CI=true)")
    pytest.skip(problem)


def fresh_postgres_database(server: str) -> Iterator[str]:
    """A new empty database on `server` for one test (or module), dropped afterwards."""
    with scratch_postgres_database(server, "faq_test") as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """The URL of an empty PostgreSQL database of this test's own."""
    yield from fresh_postgres_database(postgres_server)


def pg_settings_for(tmp_path: Path, url: str, content: Path = CONTENT, semantic: bool = False) -> Settings:
    """Settings on the PostgreSQL database `url`, with their own data directory for the local index."""
    return Settings(content_dir=content, data_dir=tmp_path / "data", database_url=url, semantic=semantic,
                    _env_file=None)  # type: ignore[call-arg]
