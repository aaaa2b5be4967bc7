"""Shared fixtures: a real ingest of content/ into a temporary data directory, and clients."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "content"
SHARED = REPO.parent / "shared"
IN_CI = os.environ.get("CI", "").lower() == "true"


def require(path: Path, what: str) -> Path:
    """`path`, or skip on a laptop without it; under CI a missing prerequisite fails."""
    if path.exists():
        return path
    message = f"{what} not found at {path}"
    if IN_CI:
        pytest.fail(message + " (required under CI=true)")
    pytest.skip(message)


def settings_for(tmp_path: Path, content: Path = CONTENT) -> Settings:
    """Settings with their own data directory (and no .env influence)."""
    return Settings(content_dir=content, data_dir=tmp_path / "data", database_url="",
                    _env_file=None)  # type: ignore[call-arg]


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings whose data directory holds an ingest of the project's content/."""
    settings = settings_for(tmp_path_factory.mktemp("seeded"))
    run_ingest(settings, progress=False)
    return settings


@pytest.fixture(scope="session")
def client(seeded: Settings) -> Iterator[InProcessClient]:
    """An HTTP client for an app serving the seeded data."""
    with InProcessClient(create_app(seeded)) as http:
        yield http


@pytest.fixture
def shared() -> Path:
    """The shared folder beside the checkout (seeds, real corpus, eval queries)."""
    return require(SHARED, "the shared/ folder")
