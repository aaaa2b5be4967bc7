"""Atom feeds of changed entries (RFC 4287): `/feeds/en.atom`, `/feeds/zh.atom` and `/feeds/all.atom`.

Each lists the entries whose question or answer changed last (a new entry counts from when it
appeared), newest first, from the entries' histories (app/lineage.py). Links are absolute with
`FAQ_PUBLIC_URL`; without it they are relative to the feed's own address (never taken from the
Host header). Every text is escaped by the XML writer, and characters XML cannot carry are dropped,
so the feed is well-formed whatever the content.
"""

from __future__ import annotations

import re
import uuid
import xml.etree.ElementTree as ET

from fastapi import APIRouter
from fastapi.responses import Response

from app.queries import ChangedEntry, Reader
from app.web.api import NO_DATA
from app.web.deps import ReaderDep, SettingsDep

ATOM = "http://www.w3.org/2005/Atom"
MEDIA_TYPE = "application/atom+xml"
FEED_SIZE = 50  # entries per feed
SUMMARY_CHARS = 300
FEEDS = {"en": "English", "zh": "中文", "all": ""}  # feed name → the language named in the feed's title
NAMESPACE = uuid.UUID("5d0c8a4e-2f0b-4d55-9a55-2b7f1f0e6b1a")  # the portal's ids of feed items (uuid5)
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed in XML 1.0
EPOCH = "1970-01-01T00:00:00+00:00"

router = APIRouter(tags=["feeds"])
ET.register_namespace("", ATOM)


def _text(value: str) -> str:
    return NOT_XML.sub("", value)


def _add(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", {key: _text(value) for key, value in attributes.items()})
    if text is not None:
        element.text = _text(text)
    return element


def _summary(text: str) -> str:
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS].rsplit(" ", 1)[0] + " …"


def render_feed(name: str, base: str, entries: list[ChangedEntry]) -> bytes:
    """The Atom document of feed `name` (en, zh, all) listing `entries`, links under `base` ("" for relative)."""
    feed = ET.Element(f"{{{ATOM}}}feed")
    if name in ("en", "zh"):
        feed.set("{http://www.w3.org/XML/1998/namespace}lang", "zh-Hans" if name == "zh" else "en")
    language = FEEDS[name]
    _add(feed, "id", f"urn:uuid:{uuid.uuid5(NAMESPACE, f'feed:{base}:{name}')}")
    _add(feed, "title", f"FAQ: changed entries ({language})" if language else "FAQ: changed entries")
    _add(feed, "subtitle", "Entries whose question or answer changed, newest first")
    _add(feed, "updated", entries[0].changed if entries else EPOCH)
    _add(feed, "link", rel="self", type=MEDIA_TYPE, href=f"{base}/feeds/{name}.atom")
    _add(feed, "link", rel="alternate", type="text/html", href=f"{base}/")
    _add(_add(feed, "author"), "name", "FAQ portal")
    _add(feed, "generator", "FAQ portal")
    for entry in entries:
        item = _add(feed, "entry")
        item.set("{http://www.w3.org/XML/1998/namespace}lang", "zh-Hans" if entry.lang == "zh" else entry.lang)
        # One item per change: a reader shows an entry again when it changes again.
        _add(item, "id", f"urn:uuid:{uuid.uuid5(NAMESPACE, f'entry:{entry.id}@{entry.changed}')}")
        _add(item, "title", entry.title, type="text")
        _add(item, "link", rel="alternate", type="text/html", href=f"{base}{entry.url}")
        _add(item, "updated", entry.changed)
        _add(item, "published", entry.first_seen)
        _add(item, "category", term=entry.lang, label=entry.document_title)
        _add(item, "summary", _summary(entry.body_text), type="text")
        _add(item, "content", entry.body_html, type="html")
    body: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return body


def _feed_route(name: str) -> None:
    def feed(reader: ReaderDep, settings: SettingsDep) -> Response:
        base = settings.public_url.rstrip("/")
        body = _cached_feed(reader, name, base)
        return Response(body, media_type=MEDIA_TYPE)

    what = f"in {FEEDS[name]}" if FEEDS[name] else "in every language"
    feed.__doc__ = f"The {FEED_SIZE} entries {what} whose question or answer changed last, newest first (Atom)."
    router.add_api_route(f"/feeds/{name}.atom", feed, methods=["GET"], response_class=Response,
                         name=f"feed_{name}", summary=f"Atom feed of changed entries {what}", responses={
                             200: {"description": "Atom 1.0 (RFC 4287)", "content": {MEDIA_TYPE: {}}}, **NO_DATA})


def _cached_feed(reader: Reader, name: str, base: str) -> bytes:
    """A generation's feed never changes: built once per feed and address."""
    lang = None if name == "all" else name
    return reader.snapshot.kept("feed", (name, base), len(FEEDS) * 2,
                                lambda: render_feed(name, base, reader.changed_entries(lang, FEED_SIZE)))


for _name in FEEDS:
    _feed_route(_name)
