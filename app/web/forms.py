"""HTML forms posted to the portal (`application/x-www-form-urlencoded`), read with a bound on their size."""

from __future__ import annotations

from urllib.parse import parse_qsl

from fastapi import Request
from starlette.exceptions import HTTPException

# A 64 KB paste of Chinese is 9 bytes a character once percent-encoded (three %XX per UTF-8 byte).
MAX_FORM_BYTES = 640 * 1024


async def read_form(request: Request, limit: int = MAX_FORM_BYTES) -> dict[str, str]:
    """The fields of a posted form, the first value of each; 413 past `limit` bytes, before reading the rest."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPException(413, f"the form is over {limit // 1024} KB; paste at most 64 KB of text")
    fields: dict[str, str] = {}
    for name, value in parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True):
        fields.setdefault(name, value)
    return fields
