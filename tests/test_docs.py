"""The README documents every setting and command users rely on."""

from __future__ import annotations

from app.cli import build_parser
from app.config import Settings
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_documents_every_setting() -> None:
    missing = [f"FAQ_{name.upper()}" for name in Settings.model_fields if f"FAQ_{name.upper()}" not in README]
    assert missing == []


def test_readme_documents_every_command() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    missing = [f"faq {name}" for name in commands if f"faq {name}" not in README]
    assert missing == []
    for target in ("make run", "make test", "make install"):
        assert target in README
