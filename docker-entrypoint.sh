#!/bin/sh
# `serve` (default): ingest the mounted content, then serve on all interfaces.
# Anything else runs as a `faq` subcommand (e.g. `ingest`, `eval FILE`).
set -e
if [ "$1" = "serve" ]; then
  shift
  # 3 = ingested with some files skipped: still serve (they are listed above).
  faq ingest --quiet || [ $? -eq 3 ] || echo "faq: ingest failed; serving the previous data if any" >&2
  exec faq serve --host 0.0.0.0 --port "${PORT:-8000}" "$@"
fi
exec faq "$@"
