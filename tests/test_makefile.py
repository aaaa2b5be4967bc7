"""The Makefile's first minute: the Python it needs, a .venv of another interpreter, run apart from test."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

# A python3 that says it is 3.10 (what Debian 11 or Ubuntu 22.04 have), for the Makefile's checks.
OLD_PYTHON = f"""#!/bin/sh
[ "$1" = -c ] || exit 1
exec {sys.executable} -c "import sys, platform; sys.version_info = (3, 10, 13); \\
platform.python_version = lambda: '3.10.13'
$2"
"""


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "-n", *args], capture_output=True,
                          text=True, timeout=60, check=False)


def test_an_old_python_is_one_line_before_anything_runs(tmp_path: Path) -> None:
    old = tmp_path / "python3"
    old.write_text(OLD_PYTHON, encoding="utf-8")
    old.chmod(0o755)
    for goal in ("run", "test"):
        done = _make(goal, f"PYTHON={old}")
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.strip().splitlines() == [
            f"Makefile:21: *** Python 3.11 or newer is needed and {old} is 3.10.13: install python3.11 and run "
            f"`make PYTHON=python3.11 {goal}`.  Stop."]
    done = _make("run", "PYTHON=no-such-python3")
    assert "no no-such-python3 here: install Python 3.11 or newer" in done.stderr


def test_run_installs_the_runtime_lock_and_test_the_development_tools() -> None:
    run = _make("-B", "run").stdout
    assert "-r requirements.lock" in run and "requirements-dev.lock" not in run.replace(
        "grep -E '^setuptools==' requirements-dev.lock", "")
    assert "faq ingest --if-changed" in run
    test = _make("-B", "test").stdout
    assert "-r requirements-dev.lock" in test and "pytest" in test


def test_a_venv_of_another_interpreter_is_rebuilt(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    script = str(REPO / "scripts" / "venv.sh")
    subprocess.run(["sh", script, sys.executable, str(venv)], check=True, timeout=300, capture_output=True)
    identity = (venv / ".interpreter").read_text(encoding="utf-8").strip()
    assert re.fullmatch(r"/\S+ 3\.\d+\.\d+", identity)
    marker = venv / "made-by-the-first"
    marker.write_text("", encoding="utf-8")
    again = subprocess.run(["sh", script, sys.executable, str(venv)], capture_output=True, text=True, timeout=300,
                           check=True)
    assert marker.exists() and again.stderr == ""  # the same interpreter: kept as it is
    (venv / ".interpreter").write_text("/usr/bin/python3.10 3.10.13\n", encoding="utf-8")
    rebuilt = subprocess.run(["sh", script, sys.executable, str(venv)], capture_output=True, text=True,
                             timeout=300, check=True)
    assert rebuilt.stderr.startswith(f"make: {venv} was made by another Python; rebuilding it")
    assert not marker.exists() and (venv / ".interpreter").read_text(encoding="utf-8").strip() == identity
