#!/bin/sh
# The portal image's entrypoint.
#
#   serve [ARGS]   (default) 1. `faq migrate`, when this build has that command;
#                  2. `faq ingest --if-changed` of FAQ_CONTENT_DIR: when there is no data yet, or
#                     when the content or the portal's code changed since the last ingest here
#                     (checksum kept in FAQ_DATA_DIR/.ingested-content); FAQ_INGEST=always|never overrides;
#                  3. `faq serve` on 0.0.0.0:$PORT with $FAQ_WORKERS processes (ARGS appended).
#   healthcheck    exit 0 when /readyz answers 200 (the image's HEALTHCHECK).
#   anything else  a `faq` subcommand: ingest, check, reindex, migrate, inspect FILE, …
#
# A failed ingest does not stop the server: it keeps serving the previous data, or answers 503
# on /readyz (with the reason) when there is none yet. A database that does not answer is
# waited for (backoff 1, 2, 4, 8, 15 s … up to FAQ_DB_WAIT, default 120 s); a migration that
# still fails then stops the container.
set -eu

say() { echo "docker-entrypoint: $*" >&2; }

healthcheck() {
  exec python3 - "${PORT:-8000}" <<'EOF'
import sys
import urllib.request

try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/readyz", timeout=4) as response:
        sys.exit(0 if response.status == 200 else 1)
except Exception as exc:  # any failure means "not ready"
    print(f"not ready: {exc}", file=sys.stderr)
    sys.exit(1)
EOF
}

prepare() {
  case ${FAQ_DATABASE_URL:-} in
    *://*:@*)  # compose interpolated an empty POSTGRES_PASSWORD
      say "FAQ_DATABASE_URL has an empty password: set POSTGRES_PASSWORD in .env (see .env.example)"
      exit 5 ;;
  esac
  data=${FAQ_DATA_DIR:-./data}
  mkdir -p "$data" 2>/dev/null || true
  if [ ! -d "$data" ] || [ ! -w "$data" ]; then
    say "$data is not a writable folder for uid $(id -u): give the volume to $(id -u):$(id -g)" \
        "(e.g. chown -R $(id -u):$(id -g) on the host folder)"
    exit 1
  fi

  if faq migrate --help >/dev/null 2>&1; then
    # A database that is still starting (compose, a restarted server) is waited for with
    # backoff, up to FAQ_DB_WAIT seconds, rather than restarting the container in a loop.
    waited=0 pause=1
    until faq migrate; do
      if [ "$waited" -ge "${FAQ_DB_WAIT:-120}" ]; then
        say "faq migrate failed for ${waited} s (see above); not serving an unmigrated database"
        exit 1
      fi
      say "database not ready; trying again in ${pause} s"
      sleep "$pause"
      waited=$((waited + pause))
      pause=$((pause * 2 > 15 ? 15 : pause * 2))
    done
  fi

  mode=${FAQ_INGEST:-auto}
  case $mode in
    auto | always) ;;
    never) return 0 ;;
    *) say "FAQ_INGEST=$mode: expected auto, always or never"; exit 2 ;;
  esac
  if [ "$mode" = always ]; then
    say "ingesting ${FAQ_CONTENT_DIR:-./content}: FAQ_INGEST=always"
    set -- --quiet
  else
    set -- --quiet --if-changed  # ingests when there is no data yet or the content or the portal changed
  fi
  code=0
  faq ingest "$@" || code=$?
  case $code in
    0 | 3) ;;  # 3: published, but some files were skipped (listed above)
    *) say "ingest failed (exit $code; see above): the previous data is served, or, when there is none yet, pages and /readyz answer 503 until an ingest succeeds" ;;
  esac
}

case ${1:-serve} in
  serve)
    [ $# -gt 0 ] && shift
    prepare
    exec faq serve --host 0.0.0.0 --port "${PORT:-8000}" --workers "${FAQ_WORKERS:-1}" "$@"
    ;;
  healthcheck)
    healthcheck
    ;;
  *)
    exec faq "$@"
    ;;
esac
