"""The interface language is the reader's: chosen, remembered, and never taken from the content."""

from __future__ import annotations

import re

from app.config import Settings
from app.main import create_app
from app.web.inprocess import InProcessClient
from app.web.strings import ENDONYMS, INTERFACE, UI_COOKIE

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
EN = {"Accept-Language": "en-US,en;q=0.9"}


def _chrome(page: str) -> str:
    """The text of the header and footer: the interface around the content."""
    parts = re.findall(r"<(header|footer)[^>]*>(.*?)</\1>", page, re.S)
    return re.sub(r"<[^>]+>", " ", " ".join(body for _, body in parts))


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return [value] if isinstance(value, str) else []


def test_every_interface_string_exists_in_both_languages() -> None:
    assert set(INTERFACE["en"]) == set(INTERFACE["zh"])
    for key, value in INTERFACE["en"].items():
        if isinstance(value, dict):
            assert set(value) == set(INTERFACE["zh"][key]), key


def test_a_chinese_interface_shows_no_english_interface_string(client: InProcessClient) -> None:
    # The switch speaks the language it leads to ("English", and its title): those stay.
    english = {s for s in _strings(INTERFACE["en"]) if s not in _strings(INTERFACE["zh"]) and len(s) > 3} - {
        INTERFACE["en"]["interface_name"], INTERFACE["en"]["switch_title"], *ENDONYMS.values()}
    pages = ["/", "/search", "/search?q=zzqxv", "/search?q=FSDP", "/no-such-page",
             client.get("/api/v1/search", params={"q": "FSDP"}).json()["results"][0]["url"]]
    for path in pages:
        page = client.get(path, headers=ZH).text
        chrome = _chrome(page)
        assert "搜索" in chrome, path
        leaked = [s for s in english if s in chrome]
        assert leaked == [], (path, leaked)
    empty = client.get("/search", headers=ZH).text  # the whole page is interface: no English at all
    assert [s for s in english if s in empty] == []


def test_the_content_filter_and_the_entry_language_leave_the_interface_alone(client: InProcessClient) -> None:
    filtered = client.get("/search", params={"q": "显存", "lang": "zh"}, headers=EN).text
    assert 'placeholder="Search questions' in filtered  # Chinese results, English chrome
    chinese_entry = client.get("/api/v1/search", params={"q": "显存", "lang": "zh"}).json()["results"][0]["url"]
    page = client.get(chinese_entry, headers=EN).text
    assert '<html lang="zh-Hans">' in page and '<header class="site" lang="en">' in page


def test_the_switch_changes_the_interface_and_it_is_remembered(seeded: Settings) -> None:
    with InProcessClient(create_app(seeded)) as client:  # its own cookie jar: the choice stays in this test
        _switch_and_come_back(client)


def _switch_and_come_back(client: InProcessClient) -> None:
    home = client.get("/", headers=EN)
    switch = re.search(r'<a class="ui-switch" href="([^"]+)"', home.text)
    assert switch and switch.group(1).endswith("ui=zh")
    chosen = client.get(switch.group(1).replace("&amp;", "&"), headers=EN)
    assert 'placeholder="搜索问题' in chosen.text
    assert chosen.cookies.get(UI_COOKIE) == "zh"
    later = client.get("/search?q=FSDP", headers=EN)  # the jar sends the remembered choice
    assert 'placeholder="搜索问题' in later.text
    english = client.get("/search?q=FSDP&ui=en", headers=EN)
    assert later.headers["etag"] != english.headers["etag"] and "Cookie" in later.headers["vary"]
    broken = client.get("/search?q=FSDP", headers={**EN, "Cookie": 'x="\\'})  # a malformed header: ignored
    assert broken.status_code == 200
