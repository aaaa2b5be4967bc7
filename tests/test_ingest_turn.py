"""One ingest at a time per data folder (SQLite) or database (PostgreSQL); a killed one never blocks the next."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import cli
from app.config import Settings
from app.generations import INGEST_LOCK_FILE, IngestRunning, current_name, ingest_turn
from app.ingest.pipeline import run_ingest
from app.live import Reingester
from tests.conftest import REPO, pg_settings_for, settings_for

FAQ = "# FAQ\n\n## Why {word}?\n\nBecause {word}.\n"


def _content(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    (content / "faq.md").write_text(FAQ.format(word="first"), encoding="utf-8")
    return content


def _second_ingest_is_refused(settings: Settings, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """While this process holds the turn, every other way of writing a generation is refused and changes nothing."""
    published = current_name(settings)
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    with ingest_turn(settings):
        (settings.content_dir / "faq.md").write_text(FAQ.format(word="second"), encoding="utf-8")
        assert cli.main(["ingest", "--quiet"]) == 1
        ingest_error = capsys.readouterr().err
        assert cli.main(["reindex"]) == 1
        reindex_error = capsys.readouterr().err
        with pytest.raises(IngestRunning):
            run_ingest(settings, progress=False)
        status = Reingester(settings).run()  # what `serve --watch` and the admin route run
        assert current_name(settings) == published  # both used to publish: the last one won
    for error in (ingest_error, reindex_error):
        assert "another ingest" in error and "nothing was changed" in error and error.count("\n") == 1
    assert status.state == "failed" and "another ingest" in (status.error or "")
    assert cli.main(["ingest", "--quiet"]) == 0  # the turn is free again
    assert current_name(settings) != published


def test_a_second_ingest_into_the_same_data_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    settings = settings_for(tmp_path, _content(tmp_path))
    run_ingest(settings, progress=False)
    _second_ingest_is_refused(settings, monkeypatch, capsys)
    with ingest_turn(settings), pytest.raises(IngestRunning, match=f"pid {os.getpid()}"):
        run_ingest(settings, progress=False)  # the message names the process holding the turn


def test_a_second_ingest_into_the_same_database_is_refused(tmp_path: Path, postgres_url: str,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    settings = pg_settings_for(tmp_path, postgres_url, _content(tmp_path))
    run_ingest(settings, progress=False)
    _second_ingest_is_refused(settings, monkeypatch, capsys)
    other_replica = settings.model_copy(update={"data_dir": tmp_path / "other-replica"})
    with ingest_turn(settings), pytest.raises(IngestRunning, match="database session"):
        run_ingest(other_replica, progress=False)  # another machine's data folder, the same database


def test_the_lock_of_a_killed_ingest_is_no_lock(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, _content(tmp_path))
    script = ("import time\nfrom pathlib import Path\nfrom app.generations import ingest_turn\n"
              "from tests.conftest import settings_for\n"
              f"with ingest_turn(settings_for(Path({str(tmp_path)!r}), Path({str(settings.content_dir)!r}))):\n"
              "    print('held', flush=True)\n    time.sleep(60)\n")
    with subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
            with pytest.raises(IngestRunning, match=f"pid {holder.pid}"):
                run_ingest(settings, progress=False)
        finally:
            holder.send_signal(signal.SIGKILL)  # killed mid-ingest: its lock file stays behind
    assert f"pid {holder.pid}" in (settings.data_dir / INGEST_LOCK_FILE).read_text(encoding="utf-8")
    started = time.monotonic()
    assert run_ingest(settings, progress=False).documents == 1  # taken over at once, never waited for
    assert time.monotonic() - started < 60
