"""The lock files pin exactly the versions pyproject.toml asks for."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import REPO


def _pins(path: str) -> dict[str, str]:
    pins = {}
    for line in (REPO / path).read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            pins[re.sub(r"[-_.]+", "-", name.split("[")[0]).lower()] = version.strip()
    return pins


def _direct(groups: list[list[str]]) -> dict[str, str]:
    return {re.sub(r"[-_.]+", "-", spec.split("==")[0].split("[")[0]).lower(): spec.split("==")[1]
            for group in groups for spec in group}


def test_locks_pin_every_direct_dependency_at_the_declared_version() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = _direct([project["dependencies"]])
    everything = _direct([project["dependencies"], project["optional-dependencies"]["dev"]])
    runtime_lock, dev_lock = _pins("requirements.lock"), _pins("requirements-dev.lock")
    assert {name: runtime_lock.get(name) for name in runtime} == runtime
    assert {name: dev_lock.get(name) for name in everything} == everything


def test_the_dev_lock_pins_a_setuptools_that_builds_the_project() -> None:
    # `make install` builds the editable install with the venv's setuptools (no isolation, no
    # fallback): one older than the build-system asks for fails with a 100-line traceback.
    build = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    wanted = next(int(spec.split(">=")[1].split(".")[0]) for spec in build if spec.startswith("setuptools>="))
    assert int(_pins("requirements-dev.lock")["setuptools"].split(".")[0]) >= wanted


def test_the_server_starts_without_loading_the_ingest_pipeline() -> None:
    # Half a second of every cold start (pypinyin, alembic, markdown-it): a server needs them
    # only to re-ingest or to build a replica's missing index, and then imports them itself.
    import subprocess
    import sys

    probe = ("import sys, app.main; "
             "print(sorted(m for m in ('app.ingest.pipeline', 'pypinyin', 'alembic') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


def test_every_data_file_the_app_reads_is_packaged() -> None:
    # The image installs the project as a wheel: a data file no package-data pattern names is not there.
    from fnmatch import fnmatch

    patterns = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["app"]
    data = [path.relative_to(REPO / "app").as_posix() for path in (REPO / "app").glob("*/data/*") if path.is_file()]
    assert "ingest/data/technical-lexicon.tsv" in data
    assert [path for path in data if not any(fnmatch(path, pattern) for pattern in patterns)] == []
