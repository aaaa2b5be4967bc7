"""The outdated-translation notice in a real Chromium: axe-clean in both interface languages and colour schemes,
on a phone and a desktop, and its link leads to the newer version."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.ingest.pipeline import run_ingest
from app.lineage import Lineage
from app.outdated import outdated_translations
from measure.localserver import running_server
from tests.conftest import settings_for
from tests.web.test_readers import AXE, AXE_ALL

pytestmark = pytest.mark.browser
EN = "# FAQ\n\n### How do I install the portal?\n\nRun `make install` in a clean clone.\n\n" \
     "### How do I change the port?\n\nPass `--port 8080` to `faq serve`.\n"
EN_CHANGED = EN.replace("in a clean clone.", "in a clean clone; on Windows use WSL2.")
ZH = "# 常见问题\n\n### 如何安装门户？\n\n在干净的克隆中运行 `make install`。\n\n" \
     "### 如何修改端口？\n\n给 `faq serve` 传入 `--port 8080`。\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """A served FAQ whose Chinese install entry fell behind its English one: (base URL, its id, the English id)."""
    root = tmp_path_factory.mktemp("outdated")
    content = root / "content"
    content.mkdir()
    settings = settings_for(root, content)
    days = (f"2026-11-{day:02d}T09:00:00+00:00" for day in itertools.count(19))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Lineage, "now", staticmethod(lambda: next(days)))
        (content / "faq.md").write_text(EN, encoding="utf-8")
        (content / "faq.zh.md").write_text(ZH, encoding="utf-8")
        run_ingest(settings, progress=False)
        (content / "faq.md").write_text(EN_CHANGED, encoding="utf-8")
        run_ingest(settings, progress=False)
    [item] = outdated_translations(settings)
    env = {"FAQ_DATA_DIR": str(settings.data_dir), "FAQ_CONTENT_DIR": str(Path(content))}
    with running_server(env) as (base, _, _):
        yield base, item.entry_id, item.partner_id



@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("locale", "width"), [("en-US", 1366), ("zh-CN", 320)])
def test_the_outdated_notice_is_axe_clean_and_leads_to_the_newer_version(
        browser: Any, served: tuple[str, str, str], locale: str, width: int, scheme: str) -> None:
    base, behind, newer = served
    context = browser.new_context(viewport={"width": width, "height": 800}, locale=locale, bypass_csp=True)
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    try:
        page.goto(f"{base}/entries/{behind}")
        notice = page.locator("p.notice.outdated")
        expected = ("The English version changed on 2026-11-20" if locale == "en-US" else "英文版已于 2026-11-20 修改")
        assert expected in notice.inner_text()
        page.add_script_tag(path=str(AXE))
        assert page.evaluate(AXE_ALL) == []
        notice.locator("a").click()
        page.wait_for_url(f"{base}/entries/{newer}")
        assert page.locator("p.notice.outdated").count() == 0  # the newer version says nothing of the kind
    finally:
        context.close()
