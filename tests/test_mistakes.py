"""Every ordinary mistake is one line that says what to do, with its own exit code (README: "Exit codes").

The commands run as real processes, as users run them: a traceback anywhere fails the test.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from app.cli import (
    EXIT_INTERRUPTED,
    EXIT_LISTEN,
    EXIT_OK,
    EXIT_SETTINGS,
    EXIT_TERMINATED,
    EXIT_USAGE,
)
from app.config import Settings
from app.generations import INGEST_LOCK_FILE, current_name
from app.ingest.pipeline import run_ingest
from measure.localserver import free_port
from tests.conftest import CONTENT, IN_CI, REPO, SAMPLE, settings_for


def faq(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `faq ARGS` as a process, away from the checkout's .env, with only the FAQ_* settings given."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("FAQ_")}
    return subprocess.run([sys.executable, "-m", "app.cli", *args], env={**clean, **(env or {})},
                          cwd=cwd or REPO / "tests", capture_output=True, text=True, timeout=timeout, check=False)


def one_line(text: str) -> str:
    """The only line of `text`; fails on more, or on a traceback."""
    lines = text.strip().splitlines()
    assert "Traceback" not in text and len(lines) == 1, text
    return lines[0]


@pytest.fixture
def data(tmp_path: Path) -> dict[str, str]:
    return {"FAQ_DATA_DIR": str(tmp_path / "data"), "FAQ_CONTENT_DIR": str(SAMPLE), "FAQ_SEMANTIC": "false"}


@pytest.mark.parametrize(("args", "code", "says"), [
    (["serve", "--port", "99999"], EXIT_USAGE, "faq serve: argument --port: 99999 is out of range: give a TCP port "
                                              "1 to 65535; see `faq serve --help`"),
    (["serve", "--port", "http"], EXIT_USAGE, "'http' is not a whole number"),
    (["serve", "--workers", "0"], EXIT_USAGE, "argument --workers: 0 is out of range: give a number 1 or more"),
    (["stats", "--days", "-5"], EXIT_USAGE, "argument --days: -5 is out of range: give a number 1 or more"),
    (["stats", "--limit", "0"], EXIT_USAGE, "argument --limit: 0 is out of range"),
    (["embed", "--threads", "0"], EXIT_USAGE, "argument --threads: 0 is out of range"),
    (["serve", "--log-format", "xml"], EXIT_USAGE, "invalid choice: 'xml'"),
    (["serve", "--host", "no-such-host.invalid"], EXIT_LISTEN, "cannot listen on no-such-host.invalid: no such host"),
    (["serve", "--host", "192.0.2.1"], EXIT_LISTEN, "192.0.2.1 is not an address of this machine"),
])
def test_a_wrong_option_is_one_line_with_its_exit_code(data: dict[str, str], args: list[str], code: int,
                                                       says: str) -> None:
    done = faq(*args, env=data)
    assert done.returncode == code
    assert says in one_line(done.stderr)
    assert done.stdout == ""  # nothing else was said before


def test_faq_version_prints_the_version() -> None:
    done = faq("--version")
    assert done.returncode == EXIT_OK
    assert one_line(done.stdout) == "faq 0.1.0"


def test_a_port_in_use_is_said_before_anything_else(data: dict[str, str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = faq("serve", "--port", str(port), env=data)
    assert done.returncode == EXIT_LISTEN
    assert one_line(done.stderr) == (f"faq serve: port {port} on 127.0.0.1 is in use by another program (another "
                                     "`faq serve`?); stop it, or choose a free port with --port")
    assert done.stdout == ""  # not "open http://…" first


def test_watching_a_folder_that_does_not_exist(data: dict[str, str], tmp_path: Path) -> None:
    done = faq("serve", "--watch", "--port", str(free_port()), env={**data, "FAQ_CONTENT_DIR": str(tmp_path / "nope")})
    assert done.returncode == EXIT_SETTINGS
    assert one_line(done.stderr) == (f"faq serve: --watch: no content folder at {tmp_path / 'nope'}; create it, or "
                                     "set FAQ_CONTENT_DIR to your folder of markdown")


@pytest.mark.parametrize(("setting", "value", "says"), [
    ("FAQ_DATABASE_URL", "postgresql+pg8000://faq:secret@db.intranet/faq",
     "needs the driver pg8000, which is not installed: install the package pg8000"),
    ("FAQ_DATABASE_URL", "postgresql+psycopg2://faq:secret@db.intranet/faq",
     "needs the driver psycopg2, which is not installed: install the package psycopg2-binary"),
    ("FAQ_DATABASE_URL", "mysql://faq:secret@db.intranet/faq", "names mysql; the portal runs on SQLite or PostgreSQL"),
    ("FAQ_DATABASE_URL", "db.intranet:5432", "FAQ_DATABASE_URL is not a database URL"),
    ("FAQ_SEARCH_CACHE_SIZE", "-1", "FAQ_SEARCH_CACHE_SIZE=-1: Input should be greater than or equal to 0; fix it "
                                    "in the environment or .env"),
    ("FAQ_SEMANTIC", "perhaps", "FAQ_SEMANTIC=perhaps: Input should be a valid boolean"),
    ("FAQ_PUBLIC_URL", "faq.intranet", "FAQ_PUBLIC_URL=faq.intranet: give the address readers use, with http:// or "
                                       "https://"),
    ("FAQ_LOG_FORMAT", "xml", "FAQ_LOG_FORMAT=xml: Input should be 'plain' or 'json'"),
])
def test_a_wrong_setting_is_one_line_that_names_it(data: dict[str, str], setting: str, value: str, says: str) -> None:
    done = faq("ingest", env={**data, setting: value})
    assert done.returncode == EXIT_SETTINGS
    line = one_line(done.stderr)
    assert line.startswith("faq ingest: ") and says in line
    assert "secret" not in line  # a password in the URL is never repeated


@pytest.mark.parametrize("command", ["serve", "stats", "check", "migrate", "reindex", "embed"])
def test_every_command_that_opens_the_database_checks_its_driver_first(data: dict[str, str], command: str) -> None:
    done = faq(command, env={**data, "FAQ_DATABASE_URL": "postgresql+pg8000://faq:secret@db.intranet/faq"})
    assert done.returncode == EXIT_SETTINGS
    assert one_line(done.stderr).startswith(f"faq {command}: FAQ_DATABASE_URL (postgresql+pg8000) needs the driver "
                                            "pg8000, which is not installed")


@pytest.mark.parametrize("semantic", ["false", "true"])
def test_eval_before_any_ingest_is_one_line(data: dict[str, str], semantic: str) -> None:
    done = faq("eval", str(REPO / "eval" / "queries-project.tsv"), env={**data, "FAQ_SEMANTIC": semantic})
    assert done.returncode == 1
    assert one_line(done.stderr) == "faq eval: no data yet: run `faq ingest` first"
    assert done.stdout == ""


def test_an_empty_public_url_means_relative_links(tmp_path: Path) -> None:
    settings = Settings(public_url="  ", _env_file=None)  # type: ignore[call-arg]
    assert settings.public_url == ""
    assert Settings(public_url="https://faq.intranet/", _env_file=None).public_url == (  # type: ignore[call-arg]
        "https://faq.intranet")


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` as a reader that may not write there sees it: immutable for root (chattr), else mode 0555."""
    if os.geteuid() == 0:
        made = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True, check=False)
        if made.returncode != 0:
            if IN_CI:
                pytest.fail(f"chattr +i: {made.stderr.strip()} (required under CI=true)")
            pytest.skip(f"cannot make a folder read-only for root here: {made.stderr.strip()}")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
    else:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)


@contextmanager
def serving(*args: str, env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`faq serve ARGS` as a process on a free port, once /healthz answers; stopped with SIGTERM."""
    port = free_port()
    clean = {key: value for key, value in os.environ.items() if not key.startswith("FAQ_")}
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port), *args],
                               env={**clean, **env}, cwd=REPO / "tests", stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "faq serve did not answer within 60 s"
            time.sleep(0.1)
        yield base, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.communicate(timeout=20)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_a_read_only_data_folder_serves_with_statistics_off(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, SAMPLE)
    run_ingest(settings, progress=False)
    env = {"FAQ_DATA_DIR": str(settings.data_dir), "FAQ_CONTENT_DIR": str(SAMPLE), "FAQ_SEMANTIC": "false"}
    with read_only(settings.data_dir), serving(env=env) as (base, process):
        for query in ("FSDP", "显存", "nothing like this zzqx"):
            assert httpx.get(f"{base}/api/v1/search", params={"q": query}, timeout=10).status_code == 200
        time.sleep(6)  # past the statistics' flush interval: nothing may fail in the background
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert f"faq serve: {settings.data_dir} is read-only: serving the data it holds; search statistics are off" in out
    assert "Traceback" not in err and "ERROR" not in err
    assert not (settings.data_dir / "queries.db").exists()


def test_two_watching_servers_of_one_data_folder_re_ingest_once(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, SAMPLE)
    run_ingest(settings, progress=False)
    env = {"FAQ_DATA_DIR": str(settings.data_dir), "FAQ_CONTENT_DIR": str(SAMPLE), "FAQ_SEMANTIC": "false"}
    with serving("--watch", env=env) as (_, first), serving("--watch", env=env) as (base, second):
        assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200  # the second one serves all the same
        second.send_signal(signal.SIGTERM)
        out, _ = second.communicate(timeout=20)
    assert (f"another `faq serve --watch` (pid {first.pid}) already re-ingests {SAMPLE} for this data folder; "
            "this one serves without watching") in out


def test_json_logs_are_one_object_per_line_with_iso_times(tmp_path: Path) -> None:
    import datetime as dt
    import json

    settings = settings_for(tmp_path, SAMPLE)
    run_ingest(settings, progress=False)
    env = {"FAQ_DATA_DIR": str(settings.data_dir), "FAQ_CONTENT_DIR": str(SAMPLE), "FAQ_SEMANTIC": "false"}
    with serving("--log-format", "json", env=env) as (base, process):
        httpx.get(f"{base}/api/v1/search", params={"q": "private words"}, timeout=10)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    lines = [json.loads(line) for line in (out + err).splitlines()]  # every line, start-up ones too, is JSON
    assert all(dt.datetime.fromisoformat(line["time"]).tzinfo is not None for line in lines)
    access = [line for line in lines if line["logger"] == "faq.access" and line["route"] == "/api/v1/search"]
    assert access and access[0]["status"] == 200 and access[0]["ms"] >= 0 and access[0]["method"] == "GET"
    assert "private" not in out + err  # what readers typed is never logged
    assert any("open http://127.0.0.1:" in line["message"] for line in lines)


def test_plain_logs_are_readable_lines(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, SAMPLE)
    run_ingest(settings, progress=False)
    env = {"FAQ_DATA_DIR": str(settings.data_dir), "FAQ_CONTENT_DIR": str(SAMPLE), "FAQ_SEMANTIC": "false"}
    with serving(env=env) as (base, process):
        httpx.get(f"{base}/entries/no-such-entry", timeout=10)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=20)
    assert any(line.endswith("INFO    GET /entries/no-such-entry 404") or " GET /entries/no-such-entry 404 " in line
               for line in err.splitlines()), err
    assert "{" not in err and "Traceback" not in err


def test_sigterm_during_an_ingest_publishes_nothing_and_says_so(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, SAMPLE)
    run_ingest(settings, progress=False)
    before = current_name(settings)
    env = {"FAQ_DATA_DIR": str(settings.data_dir), "FAQ_CONTENT_DIR": str(CONTENT), "FAQ_SEMANTIC": "false"}
    clean = {key: value for key, value in os.environ.items() if not key.startswith("FAQ_")}
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "ingest", "--quiet"], env={**clean, **env},
                               cwd=REPO / "tests", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # inside the ingest: CONTENT holds the damaged seed, whose repair alone takes longer
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == EXIT_TERMINATED, (out, err)
    assert one_line(err) == "faq ingest: stopped (SIGTERM); nothing was published: the data served before is unchanged"
    assert current_name(settings) == before


def test_sigterm_while_a_server_starts_is_one_line(data: dict[str, str]) -> None:
    clean = {key: value for key, value in os.environ.items() if not key.startswith("FAQ_")}
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(free_port())],
                               env={**clean, **data}, cwd=REPO / "tests", stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    out = process.stdout.readline() if process.stdout else ""  # its first word: the start-up has begun
    process.send_signal(signal.SIGTERM)
    rest, err = process.communicate(timeout=30)
    assert process.returncode == EXIT_TERMINATED, (out, rest, err)
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "faq serve: stopped (SIGTERM)"


def test_ctrl_c_is_one_line(data: dict[str, str]) -> None:
    clean = {key: value for key, value in os.environ.items() if not key.startswith("FAQ_")}
    # Ctrl+C as a terminal delivers it: a shell without job control starts background commands (CI here) with
    # SIGINT ignored, and Python then never turns it into KeyboardInterrupt, so the ingest ran to its end.
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "ingest", "--quiet"],
                               env={**clean, **data, "FAQ_CONTENT_DIR": str(CONTENT)}, cwd=REPO / "tests",
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lock = Path(data["FAQ_DATA_DIR"]) / INGEST_LOCK_FILE  # taken when the ingest starts reading: then interrupt it
    deadline = time.monotonic() + 60
    while not lock.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    running = process.poll() is None
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert running, ("the ingest ended before it could be interrupted", out, err)
    assert process.returncode == EXIT_INTERRUPTED, (out, err)
    assert one_line(err) == "faq ingest: stopped (Ctrl+C); nothing was published: the data served before is unchanged"


def test_ctrl_c_while_faq_starts_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    from app import cli

    def interrupted(arguments: object) -> int:
        raise KeyboardInterrupt  # as when Ctrl+C comes while the settings or the portal's modules load

    monkeypatch.setattr(cli, "_run", interrupted)
    assert cli.main(["ingest", "--quiet"]) == EXIT_INTERRUPTED
    assert one_line(capsys.readouterr().err) == (
        "faq ingest: stopped (Ctrl+C); nothing was published: the data served before is unchanged")


def test_faq_loads_only_the_standard_library_before_it_hears_signals() -> None:
    # A slow import before `main` is a window in which Ctrl+C prints a traceback (1.5 s on a loaded machine).
    probe = ("import sys, app.cli\n"
             "print(sorted(m for m in ('pydantic', 'sqlalchemy', 'app.config') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=REPO / "tests", capture_output=True, text=True,
                            timeout=60, check=True)
    assert result.stdout.strip() == "[]"


@contextmanager
def full_disk(folder: Path, size_mb: int) -> Iterator[Path]:
    """A small filesystem mounted at `folder` (root only), to be filled up by the test."""
    folder.mkdir(parents=True)
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("a full disk needs root to mount a small tmpfs (required under CI=true)")
        pytest.skip("a full disk needs root to mount a small tmpfs")
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> None:
    """Write into `folder` until its disk is full."""
    with (folder / "filler").open("wb") as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        except OSError:
            pass


def test_a_full_disk_fails_the_ingest_in_one_line_and_keeps_serving(tmp_path: Path) -> None:
    import shutil

    built = settings_for(tmp_path, SAMPLE)
    run_ingest(built, progress=False)
    with full_disk(tmp_path / "disk", 64) as disk:
        shutil.copytree(built.data_dir, disk / "data", symlinks=True)
        fill(disk)
        env = {"FAQ_DATA_DIR": str(disk / "data"), "FAQ_CONTENT_DIR": str(SAMPLE), "FAQ_SEMANTIC": "false"}
        done = faq("ingest", "--quiet", env=env)
        assert done.returncode == 1
        line = one_line(done.stderr)
        assert "No space left on device" in line and "is still being served" in line
        with serving(env=env) as (base, process):
            assert httpx.get(f"{base}/api/v1/search", params={"q": "FSDP"}, timeout=10).json()["total"] > 0
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=20)
    assert f"only 0 MB free on the disk of {disk / 'data'}: serving the data it holds" in out
    assert "Traceback" not in err


def test_output_cut_short_by_its_reader_is_no_error(tmp_path: Path) -> None:
    big = tmp_path / "content" / "faq.md"
    big.parent.mkdir()
    big.write_text("# FAQ\n\n" + "".join(f"## Why does step {k} fail?\n\nRetry step {k}.\n\n" for k in range(3000)),
                   encoding="utf-8")
    clean = {key: value for key, value in os.environ.items() if not key.startswith("FAQ_")}
    env = {**clean, "FAQ_CONTENT_DIR": str(big.parent), "FAQ_DATA_DIR": str(tmp_path / "data")}
    # `faq inspect faq.md | head -1`: the reader goes after one line, with 300 KB still to come
    with subprocess.Popen([sys.executable, "-m", "app.cli", "inspect", str(big)], env=env, cwd=REPO / "tests",
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b"faq.md")
        process.stdout.close()
        error = process.stderr.read().decode()
        assert process.wait(timeout=120) == EXIT_OK and error == ""
