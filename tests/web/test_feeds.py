"""Atom feeds of changed entries: well-formed, newest first, bounded, per language, on SQLite and PostgreSQL."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from app.config import Settings
from app.ingest.pipeline import run_ingest
from app.main import create_app
from app.web import feeds
from app.web.inprocess import InProcessClient
from tests.conftest import settings_for

A = "{http://www.w3.org/2005/Atom}"
EN = [("How do I install the portal?", "Run `make install` in a clean clone."),
      ("How do I change the port?", "Pass `--port 8080` to `faq serve`."),
      ("What breaks <b>XML</b> & feeds?", "A `<script>alert(1)</script>` tag, an & sign, \"quotes\", ]]> "
       "and a control character \x01 here.")]
ZH = [("如何安装门户？", "在干净的克隆中运行 `make install`。"),
      ("如何修改端口？", "给 `faq serve` 传入 `--port 8080`。")]


@pytest.fixture
def settings(empty_content: Settings, one_ingest_a_day: None) -> Settings:
    """An empty content folder on SQLite and on a fresh PostgreSQL database; one ingest a day."""
    return empty_content

def write(settings: Settings, name: str, entries: list[tuple[str, str]]) -> None:
    body = "".join(f"### {question}\n\n{answer}\n\n" for question, answer in entries)
    (settings.content_dir / name).write_text(f"# Portal FAQ\n\n{body}", encoding="utf-8")


def parse(answer: object) -> ET.Element:
    """The feed of an HTTP answer, checked to be Atom."""
    assert answer.status_code == 200  # type: ignore[attr-defined]
    assert answer.headers["content-type"].startswith("application/atom+xml")  # type: ignore[attr-defined]
    root = ET.fromstring(answer.content)  # type: ignore[attr-defined]
    assert root.tag == f"{A}feed"
    return root


def titles(feed: ET.Element) -> list[str]:
    return [str(entry.findtext(f"{A}title")) for entry in feed.findall(f"{A}entry")]


def test_feeds_list_changed_entries_newest_first_per_language(settings: Settings) -> None:
    write(settings, "faq.md", EN)
    write(settings, "faq.zh.md", ZH)
    run_ingest(settings, progress=False)  # day 10: everything appears
    write(settings, "faq.md", [(EN[0][0], EN[0][1] + " On Windows use WSL2."), *EN[1:]])
    run_ingest(settings, progress=False)  # day 11: the install answer changes
    write(settings, "faq.zh.md", [ZH[0], (ZH[1][0], ZH[1][1] + " 启动时会打印地址。")])
    run_ingest(settings, progress=False)  # day 12: the Chinese port answer changes
    with InProcessClient(create_app(settings)) as client:
        english = parse(client.get("/feeds/en.atom"))
        assert titles(english)[0] == EN[0][0] and len(titles(english)) == 3
        first = english.find(f"{A}entry")
        assert first is not None
        assert first.findtext(f"{A}updated") == "2026-11-11T09:00:00+00:00"
        assert first.findtext(f"{A}published") == "2026-11-10T09:00:00+00:00"
        assert english.findtext(f"{A}updated") == "2026-11-11T09:00:00+00:00"
        link = first.find(f"{A}link")
        assert link is not None and link.get("href", "").startswith("/entries/")  # no FAQ_PUBLIC_URL: relative
        assert client.get(link.get("href", "")).status_code == 200
        chinese = parse(client.get("/feeds/zh.atom"))
        assert titles(chinese) == [ZH[1][0], ZH[0][0]]
        everything = parse(client.get("/feeds/all.atom"))
        assert titles(everything)[:2] == [ZH[1][0], EN[0][0]] and len(titles(everything)) == 5
        # Escaped, never markup: the hostile entry reads back as the text it was.
        hostile = next(e for e in english.findall(f"{A}entry") if "XML" in str(e.findtext(f"{A}title")))
        assert hostile.findtext(f"{A}title") == "What breaks XML & feeds?"
        assert "<p>A <code>&lt;script&gt;" in str(hostile.findtext(f"{A}content"))  # the HTML, as text (type=html)
        assert b"<script>" not in client.get("/feeds/en.atom").content
        assert "\x01" not in str(hostile.findtext(f"{A}summary"))
        assert client.request("HEAD", "/feeds/en.atom").status_code == 200
        assert client.get("/feeds/fr.atom").status_code == 404
        page = client.get("/").text
        assert '<link rel="alternate" type="application/atom+xml" href="/feeds/en.atom"' in page
        assert '<link rel="alternate" type="application/atom+xml" href="/feeds/zh.atom"' in page


def test_a_feed_is_bounded_and_uses_the_public_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "faq.md").write_text("# FAQ\n\n" + "".join(f"### Question number {n}?\n\nAnswer {n}.\n\n"
                                                          for n in range(8)), encoding="utf-8")
    settings = settings_for(tmp_path, content).model_copy(update={"public_url": "https://faq.example"})
    run_ingest(settings, progress=False)
    monkeypatch.setattr(feeds, "FEED_SIZE", 3)
    with InProcessClient(create_app(settings)) as client:
        feed = parse(client.get("/feeds/all.atom", headers={"Host": "evil.example"}))
    assert len(feed.findall(f"{A}entry")) == 3
    hrefs = [link.get("href", "") for link in feed.iter(f"{A}link")]
    assert hrefs[0] == "https://faq.example/feeds/all.atom"
    assert all(href.startswith("https://faq.example/") for href in hrefs)
