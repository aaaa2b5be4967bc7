"""The README documents every setting and command users rely on."""

from __future__ import annotations

from pathlib import Path

from app.cli import build_parser
from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web.inprocess import InProcessClient
from tests.conftest import REPO, settings_for

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


def test_every_id_the_readme_shows_resolves(client: InProcessClient, tmp_path: Path) -> None:
    import re

    shown = set(re.findall(r"/(entries|documents)/([A-Za-z0-9][A-Za-z0-9_\-]*)", README))
    assert shown, "the README shows no example ids"
    colliding = tmp_path / "content"  # the README's example of two names giving one id
    colliding.mkdir()
    for name in ("实验.md", "试验.md"):
        (colliding / name).write_text("# 实验\n\n## 为什么？\n\n因为。\n", encoding="utf-8")
    settings = settings_for(tmp_path, colliding)
    run_ingest(settings, progress=False)
    with InProcessClient(create_app(settings)) as other:
        for kind, item in sorted(shown):
            answers = [client.get(f"/api/v1/{kind}/{item}").status_code,
                       other.get(f"/api/v1/{kind}/{item}").status_code]
            assert 200 in answers, f"README shows /{kind}/{item}, which answers {answers}"
