"""The container files, checked without a container engine.

The image itself is built, started and checked over HTTP by scripts/container-check.sh (run by
.ci/run). Here: the entrypoint's decisions (migrate, ingest or not, serve, health) with a stand-in
`faq`, the Dockerfile's shape, and docker-compose.yml read as data (no engine needed).
"""

from __future__ import annotations

import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

ENTRYPOINT = REPO / "docker-entrypoint.sh"

# A stand-in for the `faq` console script: logs its arguments; `ingest` publishes a generation
# the way the real one does (the CURRENT pointer), with the exit code from FAKE_INGEST_EXIT.
FAKE_FAQ = """#!/bin/sh
echo "$*" >> "$FAKE_LOG"
case "$1" in
  migrate)
    if [ "${2:-}" = --help ]; then [ -n "${FAKE_HAS_MIGRATE:-}" ] && exit 0; exit 2; fi
    [ "$(grep -c '^migrate$' "$FAKE_LOG")" -le "${FAKE_MIGRATE_FAILURES:-0}" ] && exit 1
    exit "${FAKE_MIGRATE_EXIT:-0}" ;;
  ingest)
    code=${FAKE_INGEST_EXIT:-0}
    if [ "$code" = 0 ] || [ "$code" = 3 ]; then
      mkdir -p "$FAQ_DATA_DIR"
      echo '{"generation": "g'$(wc -l < "$FAKE_LOG")'"}' > "$FAQ_DATA_DIR/CURRENT"
    fi
    exit "$code" ;;
esac
exit 0
"""


class Box:
    """A temporary content folder, data folder and `faq` stand-in for running the entrypoint."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.content = root / "content"
        self.data = root / "data"
        self.log = root / "faq.log"
        bin_dir = root / "bin"
        bin_dir.mkdir()
        (bin_dir / "faq").write_text(FAKE_FAQ, encoding="utf-8")
        (bin_dir / "faq").chmod(0o755)
        # The test's own interpreter (its venv has `app`); a symlink would lose the venv.
        (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
        (bin_dir / "python3").chmod(0o755)
        shutil.copytree(REPO / "content", self.content)
        self.env = {
            "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
            "HOME": str(root),
            "FAQ_CONTENT_DIR": str(self.content),
            "FAQ_DATA_DIR": str(self.data),
            "FAKE_LOG": str(self.log),
        }

    def run(self, *args: str, **env: str) -> tuple[int, list[str], str]:
        """Run the entrypoint; returns its exit code, the `faq` calls made, and its stderr."""
        self.log.write_text("", encoding="utf-8")
        done = subprocess.run(["sh", str(ENTRYPOINT), *args], env={**self.env, **env}, cwd=self.root,
                              capture_output=True, text=True, timeout=60, check=False)
        return done.returncode, self.log.read_text(encoding="utf-8").splitlines(), done.stderr


@pytest.fixture
def box(tmp_path: Path) -> Box:
    if shutil.which("sh") is None:
        pytest.skip("no POSIX sh")
    return Box(tmp_path)


SERVE = "serve --host 0.0.0.0 --port 8000 --workers 1"


def test_first_start_ingests_then_serves(box: Box) -> None:
    code, calls, err = box.run()
    assert code == 0, err
    assert calls == ["migrate --help", "ingest --quiet", SERVE]
    assert "no data yet" in err
    assert (box.data / ".ingested-content").is_file()


def test_a_restart_with_the_same_content_does_not_ingest(box: Box) -> None:
    box.run()
    code, calls, err = box.run()
    assert code == 0, err
    assert calls == ["migrate --help", SERVE]
    assert "up to date" in err


@pytest.mark.parametrize("change", ["edit", "add", "delete"])
def test_changed_content_is_ingested_at_the_next_start(box: Box, change: str) -> None:
    box.run()
    target = sorted(box.content.glob("*.md"))[0]
    if change == "edit":
        target.write_bytes(target.read_bytes() + b"\n")
    elif change == "add":
        (box.content / "new.en.md").write_text("# New\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    else:
        target.unlink()
    _, calls, err = box.run()
    assert "ingest --quiet" in calls
    assert "changed since the last ingest" in err


def test_lost_data_is_ingested_again(box: Box) -> None:
    box.run()
    (box.data / "CURRENT").unlink()
    _, calls, _ = box.run()
    assert "ingest --quiet" in calls


def test_ingest_modes(box: Box) -> None:
    _, calls, _ = box.run(FAQ_INGEST="never")
    assert calls == ["migrate --help", SERVE]
    box.run()
    _, calls, _ = box.run(FAQ_INGEST="always")
    assert "ingest --quiet" in calls
    code, calls, err = box.run(FAQ_INGEST="sometimes")
    assert code == 2
    assert SERVE not in calls
    assert "FAQ_INGEST=sometimes" in err


def test_a_failed_ingest_still_serves_and_is_retried(box: Box) -> None:
    code, calls, err = box.run(FAKE_INGEST_EXIT="1")
    assert code == 0
    assert calls[-1] == SERVE
    assert "503" in err  # no data yet: says what readers will get
    assert not (box.data / ".ingested-content").exists()
    box.run()  # succeeds
    box.content.joinpath("new.en.md").write_text("# New\n\n## Why?\n\nBecause.\n", encoding="utf-8")
    _, calls, err = box.run(FAKE_INGEST_EXIT="1")
    assert calls[-1] == SERVE
    assert "serving the previous generation" in err
    _, calls, _ = box.run()
    assert "ingest --quiet" in calls  # the failed content is tried again


def test_skipped_files_count_as_ingested(box: Box) -> None:
    box.run(FAKE_INGEST_EXIT="3")
    _, calls, _ = box.run()
    assert "ingest --quiet" not in calls


def test_migrate_runs_when_the_command_exists_and_its_failure_stops_the_start(box: Box) -> None:
    _, calls, _ = box.run(FAKE_HAS_MIGRATE="1")
    assert calls[:2] == ["migrate --help", "migrate"]
    code, calls, err = box.run(FAKE_HAS_MIGRATE="1", FAKE_MIGRATE_EXIT="1", FAQ_DB_WAIT="0")
    assert code == 1
    assert calls == ["migrate --help", "migrate"]
    assert "migrate failed for 0 s" in err


def test_a_database_still_starting_is_waited_for_with_backoff(box: Box) -> None:
    code, calls, err = box.run(FAKE_HAS_MIGRATE="1", FAKE_MIGRATE_FAILURES="2", FAQ_DB_WAIT="30")
    assert code == 0, err
    assert calls[:4] == ["migrate --help", "migrate", "migrate", "migrate"] and calls[-1] == SERVE
    assert "trying again in 1 s" in err and "trying again in 2 s" in err


def test_port_workers_and_extra_arguments_reach_faq_serve(box: Box) -> None:
    _, calls, _ = box.run("serve", "--log-level", "debug", PORT="9000", FAQ_WORKERS="3")
    assert calls[-1] == "serve --host 0.0.0.0 --port 9000 --workers 3 --log-level debug"


def test_other_commands_go_to_faq(box: Box) -> None:
    code, calls, _ = box.run("check")
    assert code == 0
    assert calls == ["check"]


def test_an_unusable_data_folder_is_named(box: Box) -> None:
    box.data.write_text("not a folder", encoding="utf-8")  # as unusable as a volume root cannot write
    code, calls, err = box.run()
    assert code == 1
    assert calls == []
    assert "not a writable folder" in err


@pytest.fixture
def readyz() -> Iterator[tuple[int, list[int]]]:
    """A local server whose /readyz answers the status at the head of the list."""
    statuses = [200]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(statuses[0] if self.path == "/readyz" else 404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], statuses
    server.shutdown()
    server.server_close()


def test_healthcheck_follows_readyz(box: Box, readyz: tuple[int, list[int]]) -> None:
    port, statuses = readyz
    assert box.run("healthcheck", PORT=str(port))[0] == 0
    statuses[0] = 503
    assert box.run("healthcheck", PORT=str(port))[0] == 1
    assert box.run("healthcheck", PORT="1")[0] == 1  # nothing listening


# ---------------------------------------------------------------- Dockerfile


def _stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's build stages as (INSTRUCTION, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", (REPO / "Dockerfile").read_text(encoding="utf-8"))
    stages: list[list[tuple[str, str]]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        instruction, _, arguments = line.strip().partition(" ")
        if instruction.upper() == "FROM":
            stages.append([])
        stages[-1].append((instruction.upper(), arguments.strip()))
    return stages


def _args(stage: list[tuple[str, str]], instruction: str) -> list[str]:
    return [arguments for name, arguments in stage if name == instruction]


def test_dockerfile_builds_wheels_then_ships_a_venv_on_bookworm_slim() -> None:
    builder, runtime = _stages()
    assert _args(builder, "FROM") == ["debian:bookworm-slim AS builder"]
    assert _args(runtime, "FROM") == ["debian:bookworm-slim"]
    builder_runs = " ".join(_args(builder, "RUN"))
    assert "pip wheel" in builder_runs
    assert "--use-pep517" in builder_runs  # jieba and zhconv: no legacy setup.py install
    assert "PIP_CERT" in builder_runs
    assert any(arg.startswith("PIP_CERT") for arg in _args(builder, "ARG"))
    assert not re.search(r"(\s-e\s|--editable)", " ".join(_args(builder, "RUN") + _args(runtime, "RUN")))
    assert "DEBIAN_FRONTEND=noninteractive" in _args(builder, "ARG")
    assert "DEBIAN_FRONTEND=noninteractive" in _args(runtime, "ARG")
    assert any("--from=builder /opt/venv" in arg for arg in _args(runtime, "COPY"))
    # What the app reads beside its package at run time goes into the image.
    for folder in ("templates", "static", "migrations"):
        assert f"/src/{folder}" in builder_runs, folder


def test_dockerfile_runtime_is_non_root_with_health_port_and_volume() -> None:
    runtime = _stages()[-1]
    user = _args(runtime, "USER")[-1]
    assert user.split(":")[0] not in ("", "0", "root")
    assert _args(runtime, "EXPOSE") == ["8000"]
    assert _args(runtime, "VOLUME") == ['["/srv/faq/data"]']
    health = _args(runtime, "HEALTHCHECK")[-1]
    assert 'CMD ["docker-entrypoint.sh", "healthcheck"]' in health
    assert _args(runtime, "ENTRYPOINT") == ['["docker-entrypoint.sh"]']
    env = " ".join(_args(runtime, "ENV"))
    for setting in ("FAQ_CONTENT_DIR=/srv/faq/content", "FAQ_DATA_DIR=/srv/faq/data", "FAQ_WORKERS=1", "PORT=8000"):
        assert setting in env
    assert any(arg.startswith("content ") for arg in _args(runtime, "COPY"))  # content baked in


def test_dockerignore_keeps_local_state_and_secrets_out() -> None:
    ignored = (REPO / ".dockerignore").read_text(encoding="utf-8").split()
    for entry in (".git", ".venv", ".env", "data"):
        assert entry in ignored


def test_shell_scripts_parse_and_are_executable() -> None:
    assert subprocess.run(["sh", "-n", str(ENTRYPOINT)], check=False).returncode == 0
    assert subprocess.run(["bash", "-n", str(REPO / "scripts/container-check.sh")], check=False).returncode == 0
    for script in (ENTRYPOINT, REPO / "scripts/container-check.sh"):
        assert script.stat().st_mode & 0o111, f"{script.name} is not executable"


# ---------------------------------------------------------------- docker-compose.yml

COMPOSE_TEXT = (REPO / "docker-compose.yml").read_text(encoding="utf-8")
COMPOSE = yaml.safe_load(COMPOSE_TEXT)
SERVICES = COMPOSE["services"]
PORTALS = ("portal", "portal-a", "portal-b")


def _env(service: str) -> dict[str, str]:
    return {key: str(value) for key, value in SERVICES[service].get("environment", {}).items()}


def _volume(spec: str) -> tuple[str, str, str]:
    """SOURCE:TARGET[:MODE] of a short volume syntax, where SOURCE may be ${VAR:-default}."""
    match = re.fullmatch(r"(\$\{[^}]*\}|[^:]+):([^:]+)(?::(\w+))?", spec)
    assert match, spec
    return match[1], match[2], match[3] or "rw"


def test_compose_has_the_portal_alone_and_a_postgres_profile() -> None:
    assert "profiles" not in SERVICES["portal"]  # `docker compose up` starts it
    assert {name for name, service in SERVICES.items() if "postgres" in service.get("profiles", [])} == {
        "postgres", "portal-a", "portal-b", "lb"}
    assert SERVICES["postgres"]["image"].startswith("postgres:15")
    assert set(COMPOSE["volumes"]) == {"faq-data", "faq-data-a", "faq-data-b", "postgres-data"}


def test_every_portal_has_its_own_data_volume_and_the_content_read_only() -> None:
    data_volumes = []
    for name in PORTALS:
        service = SERVICES[name]
        assert service["image"] == "faq-portal:latest"
        assert service["build"]["context"] == "."
        mounts = {target: (source, mode) for source, target, mode in map(_volume, service["volumes"])}
        data_volumes.append(mounts["/srv/faq/data"][0])
        assert mounts["/srv/faq/content"] == ("${FAQ_CONTENT:-./content}", "ro")
        assert service["healthcheck"]["test"] == ["CMD", "docker-entrypoint.sh", "healthcheck"]
    assert data_volumes == ["faq-data", "faq-data-a", "faq-data-b"]
    assert "FAQ_DATABASE_URL" not in _env("portal")  # SQLite in its volume


def test_replicas_share_postgres_and_only_one_ingests() -> None:
    for name in ("portal-a", "portal-b"):
        url = _env(name)["FAQ_DATABASE_URL"]
        assert url.startswith("postgresql+psycopg://faq:") and url.endswith("@postgres:5432/faq")
        assert SERVICES[name]["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert "ports" not in SERVICES[name]  # reached through the balancer only
    assert sorted(_env(name)["FAQ_INGEST"] for name in ("portal-a", "portal-b")) == ["auto", "never"]
    assert "pg_isready" in SERVICES["postgres"]["healthcheck"]["test"]


def test_the_balancer_config_names_both_replicas() -> None:
    lb = SERVICES["lb"]
    assert lb["image"].startswith("nginx:")
    (source, _, mode), = (_volume(v) for v in lb["volumes"] if ":/etc/nginx/conf.d/default.conf" in v)
    assert mode == "ro"
    config = (REPO / source).read_text(encoding="utf-8")
    upstream = re.findall(r"^\s*server\s+([\w.-]+):(\d+)", config, flags=re.MULTILINE)
    assert upstream == [("portal-a", "8000"), ("portal-b", "8000")]
    assert "healthcheck" in lb
    published = [SERVICES[name]["ports"][0].rsplit(":", 1)[0] for name in ("portal", "lb")]
    assert published == ["${FAQ_PORT:-8000}", "${FAQ_LB_PORT:-8080}"]  # both can run at once


def test_every_compose_variable_has_a_default_and_is_documented() -> None:
    # `docker compose config` must work without an .env file; the header lists each setting.
    variables = re.findall(r"\$\{([A-Z_]+)(:-[^}]*)?\}", COMPOSE_TEXT)
    assert variables
    assert [name for name, default in variables if not default] == []
    header = COMPOSE_TEXT.split("\nname:", 1)[0]
    assert sorted({name for name, _ in variables if f"#   {name}" not in header}) == []

