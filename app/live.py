"""Live content updates: re-ingest in the background on request or when content/ changes.

The server keeps answering from the published generation meanwhile and follows the pointer
to the new one when the ingest publishes it; a failed ingest leaves the old one serving.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.config import Settings
from app.metrics import INGEST_SECONDS, INGESTS

if TYPE_CHECKING:
    from app.ingest.pipeline import IngestReport

log = logging.getLogger("faq.live")


@dataclass(frozen=True)
class IngestStatus:
    """The state of the background ingest: idle, running, done or failed, with the last outcome."""

    state: str
    generation: str | None = None
    seconds: float | None = None
    skipped: int = 0
    error: str | None = None


def _ingest_quietly(settings: Settings) -> IngestReport:
    # Imported when first needed: the ingest pipeline is half a second of a server's start-up.
    from app.ingest.pipeline import run_ingest

    return run_ingest(settings, progress=False)


class Reingester:
    """Runs one ingest at a time in a background thread and remembers how the last one ended."""

    def __init__(self, settings: Settings, ingest: Callable[[Settings], IngestReport] | None = None) -> None:
        self.settings = settings
        self._ingest = ingest or _ingest_quietly
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.status = IngestStatus(state="idle")

    def start(self) -> bool:
        """Start an ingest unless one is running; whether it started."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return False
            self.status = IngestStatus(state="running")
            self._thread = threading.Thread(target=self.run, name="faq-reingest", daemon=True)
            self._thread.start()
            return True

    def run(self) -> IngestStatus:
        """Ingest now, in this thread; the outcome is logged, counted and kept in `status`."""
        started = time.perf_counter()
        try:
            report = self._ingest(self.settings)
        except Exception as error:  # noqa: BLE001 - whatever failed, the published data keeps serving
            self.status = IngestStatus(state="failed", seconds=time.perf_counter() - started, error=str(error))
            INGESTS.labels("failed").inc()
            log.error("re-ingest failed: %s; the previous data is still served", error)
            return self.status
        seconds = time.perf_counter() - started
        INGESTS.labels("published").inc()
        INGEST_SECONDS.observe(seconds)
        self.status = IngestStatus(state="done", generation=report.generation, seconds=round(seconds, 2),
                                   skipped=len(report.skipped))
        skipped = "; ".join(f"skipped {path}: {why}" for path, why in report.skipped)
        log.info("re-ingested into generation %s in %.1f s%s", report.generation, seconds,
                 f" ({skipped})" if skipped else "")
        return self.status


def watch_content(settings: Settings, stop: threading.Event, reingester: Reingester | None = None) -> None:
    """Re-ingest whenever files under the content folder change, until `stop` is set."""
    import watchfiles

    reingester = reingester or Reingester(settings)
    for changes in watchfiles.watch(settings.content_dir, stop_event=stop, raise_interrupt=False):
        log.info("content changed (%d files); re-ingesting", len(changes))
        reingester.run()
