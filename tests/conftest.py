"""Shared fixtures: a real ingest of content/ into a temporary data directory, and clients."""

from __future__ import annotations

import atexit
import itertools
import logging
import os
import shutil
import subprocess
import tempfile
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
SAMPLE = REPO / "content"  # the bundled sample users start with: the five seeds, byte for byte, and a glossary
# The seed whose text is mojibake (its UTF-8 once read through a Windows code page): the ingest repairs it.
DAMAGED_SEED = SAMPLE / "hf-transformers-deepspeed-notes.zh.md"


def _test_content() -> Path:
    """The sample, copied into a folder of this test run (a test that edits its content edits the copy)."""
    folder = Path(tempfile.mkdtemp(prefix="faq-test-content-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    shutil.copytree(SAMPLE, folder, dirs_exist_ok=True)
    return folder


CONTENT = _test_content()
# Corpora and query sets that live outside the repository: FAQ_TEST_SHARED_DIR, else ../shared beside the checkout.
SHARED = Path(os.environ.get("FAQ_TEST_SHARED_DIR") or REPO.parent / "shared")
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


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_content(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    """Settings with an empty content folder of this test's own, on SQLite and on a fresh PostgreSQL database."""
    content = tmp_path / "content"
    content.mkdir()
    if request.param == "sqlite":
        yield settings_for(tmp_path, content)
        return
    for url in fresh_postgres_database(request.getfixturevalue("postgres_server")):
        yield pg_settings_for(tmp_path, url, content)


@pytest.fixture
def one_ingest_a_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ingest recorded one day after the previous one, from 2026-11-10 (histories are kept to the second)."""
    from app.lineage import Lineage

    days = (f"2026-11-{day:02d}T09:00:00+00:00" for day in itertools.count(10))
    monkeypatch.setattr(Lineage, "now", staticmethod(lambda: next(days)))


def ids_by_question(settings: Settings) -> dict[str, str]:
    """Ingest the content folder; the served entries' ids by question."""
    from sqlmodel import Session, select

    from app.db import DataStore
    from app.models import Entry

    run_ingest(settings, progress=False)
    store = DataStore(settings)
    try:
        with Session(store.current().engine) as session:
            return {entry.title: entry.id for entry in session.exec(select(Entry))}
    finally:
        store.close()


LOGGERS_SET_UP = ("", "app", "faq", "uvicorn", "uvicorn.access", "uvicorn.error")  # what `faq serve` configures


@pytest.fixture(autouse=True)
def logging_as_it_was() -> Iterator[None]:
    """Each test leaves logging as it found it: a test that runs `faq serve` in-process sets it up for the whole
    process (INFO lines to standard error), which other commands' one-line outputs must not then carry."""
    loggers = [logging.getLogger(name) for name in LOGGERS_SET_UP]
    saved = [(logger.level, logger.handlers[:], logger.propagate, logger.disabled) for logger in loggers]
    yield
    for logger, (level, handlers, propagate, disabled) in zip(loggers, saved, strict=True):
        logger.setLevel(level)
        logger.handlers[:] = handlers
        logger.propagate, logger.disabled = propagate, disabled


def git(folder: Path, *args: str, day: str = "") -> str:
    """Run git in `folder` as an editor would (commits dated `day` at noon UTC when given); its output."""
    when = {"GIT_AUTHOR_DATE": f"{day}T12:00:00+00:00", "GIT_COMMITTER_DATE": f"{day}T12:00:00+00:00"} if day else {}
    return subprocess.run(["git", "-C", str(folder), "-c", "user.name=Editor", "-c", "user.email=editor@example.org",
                           "-c", "init.defaultBranch=main", *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **when}).stdout
