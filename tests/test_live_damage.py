"""measure/live_damage.py with two workers: the index damaged under both, one failed search at most, then the
previous generation, and /readyz says degraded."""

from __future__ import annotations

import re
import sys

import pytest

from measure import live_damage


def test_two_workers_fail_one_search_at_most_after_the_damage(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["live_damage", "40", "--workers", "2"])
    assert live_damage.main() == 0
    out = capsys.readouterr().out
    assert "faq serve --workers 2" in out
    assert re.search(r"first failed request: (none|#1, HTTP 503)", out)
    assert "5xx or dropped (0) after the first failed request: 0" in out
    assert re.search(r"/readyz after: HTTP 200 degraded", out)
