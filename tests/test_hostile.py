"""measure/hostile.py: a row for each hostile query, with its engine and page times."""

from __future__ import annotations

import re
import sys

import pytest

from measure import hostile


def test_each_query_gets_its_engine_and_page_milliseconds(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["hostile"])
    assert hostile.main() == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split() == ["query", "engine", "ms", "page", "ms"]
    parsed = [re.fullmatch(r"(.+?)\s+(\d+\.\d\d)\s+(\d+\.\d\d)", row) for row in rows]
    assert [match.group(1) for match in parsed if match] == list(hostile.QUERIES)
