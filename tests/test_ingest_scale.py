"""measure/ingest_scale.py: its rows say the wall clock, the CPU time and the load they were taken under."""

from __future__ import annotations

import re
import sys

import pytest

from measure import ingest_scale


def test_each_row_gives_wall_and_cpu_seconds_their_ratios_and_the_load(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["ingest_scale", "6", "10"])
    assert ingest_scale.main() == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split()[-6:] == ["cpu", "s", "x", "first", "load", "average"]
    row = re.compile(r"^\s+(\d+)\s+(\d+)\s+([\d.]+)\s+[\d.]+\s+(\d+)\s+([\d.]+)x\s+([\d.]+)\s+([\d.]+)x\s+"
                     r"[\d.]+ → [\d.]+$")
    parsed = [row.match(line) for line in rows]
    assert all(parsed) and [m.group(1) for m in parsed if m] == ["6", "10"]
    first = parsed[0]
    assert first is not None and first.group(5) == "1.0" and first.group(7) == "1.0"
