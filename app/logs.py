"""One log format for the server: plain readable lines by default, JSON lines when asked.

Every record (the portal's own messages, the access log, uvicorn's) goes to standard error
through one handler. Plain: `2025-11-27 06:41:02 INFO  message`. JSON: one object per line,
`{"time": "2025-11-27T06:41:02.123+01:00", "level": "info", "logger": …, "message": …}` plus
the record's fields (an access line adds method, route, path, status and ms).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
from typing import Any

LOG_FORMATS = ("plain", "json")
# Fields a record may carry for the JSON format (`log.info(..., extra={"fields": {...}})`).
FIELDS = "fields"


def _local_time(record: logging.LogRecord) -> dt.datetime:
    return dt.datetime.fromtimestamp(record.created).astimezone()


class PlainFormatter(logging.Formatter):
    """`2025-11-27 06:41:02 INFO  message`: for people reading a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one readable line (an exception adds only its one-line summary)."""
        line = f"{_local_time(record):%Y-%m-%d %H:%M:%S} {record.levelname:<7} {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            line += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line with an ISO 8601 time: for log collectors."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one JSON line."""
        line: dict[str, Any] = {
            "time": _local_time(record).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update(getattr(record, FIELDS, None) or {})
        if record.exc_info and record.exc_info[1] is not None:
            line["error"] = f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
        return json.dumps(line, ensure_ascii=False)


class StandardError(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to `sys.stderr` as it is when a record comes, not as it was when logging was set up: a stream that
    was replaced and closed since (a redirected or captured standard error) must not turn records into errors."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        """The current standard error."""
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def logging_config(log_format: str) -> dict[str, Any]:
    """A `logging.config.dictConfig` for `log_format` (uvicorn applies it in every worker process)."""
    formatter = JsonFormatter if log_format == "json" else PlainFormatter
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"faq": {"()": f"{formatter.__module__}.{formatter.__qualname__}"}},
        "handlers": {"stderr": {"()": f"{StandardError.__module__}.{StandardError.__qualname__}", "formatter": "faq"}},
        "root": {"handlers": ["stderr"], "level": "WARNING"},
        "loggers": {
            # The portal's own loggers and uvicorn's start-up lines; uvicorn's access log is replaced by ours.
            "app": {"level": "INFO"},
            "faq": {"level": "INFO"},
            "uvicorn": {"level": "INFO"},
            "uvicorn.access": {"level": "WARNING"},
        },
    }
