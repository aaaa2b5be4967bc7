#!/usr/bin/env bash
# Two replicas of the image on one PostgreSQL database: a re-ingest on one is served by both.
#
#   IMAGE=faq-portal:check ENGINE=buildah|docker scripts/container-check-postgres.sh
#
# Called by scripts/container-check.sh. The database is FAQ_CHECK_POSTGRES_URL, else the one
# the test suite uses (FAQ_TEST_POSTGRES_URL, set by .ci/run); a scratch database
# `faq_replicas` is created in it (the role needs CREATEDB) and dropped at the end. The
# replicas share the host's network (buildah run has no port mapping), each with its own data
# folder for the search index inside its container.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-faq-portal:check}
ENGINE=${ENGINE:-buildah}
TOKEN=check-$$-$RANDOM
READY_SECONDS=${READY_SECONDS:-180}
say() { printf '%-5s %s\n' "$1" "$2"; }
fail() { say FAIL "$*" >&2; exit 1; }

source_url=${FAQ_CHECK_POSTGRES_URL:-${FAQ_TEST_POSTGRES_URL:-}}
if [ -z "$source_url" ]; then
  [ "${CI:-}" = true ] && fail "no PostgreSQL: set FAQ_TEST_POSTGRES_URL (.ci/run does)"
  say skip "PostgreSQL replicas: no FAQ_TEST_POSTGRES_URL or FAQ_CHECK_POSTGRES_URL"
  exit 0
fi
libpq_url=${source_url/postgresql+psycopg:/postgresql:}
export PGOPTIONS="--client-min-messages=warning"  # no NOTICE for a database that is not there
scratch_url=${source_url%/*}/faq_replicas
command -v psql >/dev/null || fail "psql is needed (apt-get install postgresql-client)"
psql -q "$libpq_url" -c "DROP DATABASE IF EXISTS faq_replicas" >/dev/null
psql -q "$libpq_url" -c "CREATE DATABASE faq_replicas" >/dev/null || fail "cannot create the scratch database"

WORK=$(mktemp -d)
containers=()
servers=()
descendants() {  # the process ids below PID
  local child
  for child in $(pgrep -P "$1" || true); do descendants "$child"; echo "$child"; done
}
cleanup() {
  local code=$? pid
  set +e
  local tree=()
  for pid in "${servers[@]}"; do
    mapfile -t tree < <(descendants "$pid")
    kill -TERM "${tree[@]}" "$pid" 2>/dev/null
    sleep 1
    kill -KILL "${tree[@]}" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  for ctr in "${containers[@]}"; do
    if [ "$ENGINE" = docker ]; then docker rm -f "$ctr" >/dev/null 2>&1; else buildah rm "$ctr" >/dev/null 2>&1; fi
  done
  psql -q "$libpq_url" -c "DROP DATABASE IF EXISTS faq_replicas" >/dev/null 2>&1
  rm -rf "$WORK"
  exit "$code"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start NAME PORT INGEST: one replica serving on 127.0.0.1:PORT.
start() {
  local name=$1 port=$2 ingest=$3
  local env=(--env "PORT=$port" --env "FAQ_DATABASE_URL=$scratch_url" --env "FAQ_INGEST=$ingest"
             --env "FAQ_ADMIN_TOKEN=$TOKEN")
  if [ "$ENGINE" = docker ]; then
    containers+=("$(docker run -d --network host "${env[@]}" "$IMAGE")")
  else
    local ctr
    ctr=$(buildah from --quiet "$IMAGE")
    containers+=("$ctr")
    buildah run --isolation chroot "${env[@]}" "$ctr" -- docker-entrypoint.sh serve >"$WORK/$name.log" 2>&1 &
    servers+=($!)
  fi
}

# http METHOD PORT PATH: the JSON body (empty on failure).
http() {
  python3 - "$1" "http://127.0.0.1:$2$3" "$TOKEN" <<'EOF' || true
import sys, urllib.request
method, url, token = sys.argv[1:4]
request = urllib.request.Request(url, method=method, headers={"Authorization": f"Bearer {token}"})
try:
    with urllib.request.urlopen(request, timeout=10) as response:
        print(response.read().decode())
except Exception:
    pass
EOF
}
field() { python3 -c 'import json, sys; print(json.loads(sys.stdin.read() or "{}").get(sys.argv[1], ""))' "$1"; }

# wait_generation PORT [NOT]: the generation /readyz names once ready (and different from NOT).
wait_generation() {
  local started=$SECONDS generation
  while [ $((SECONDS - started)) -lt "$READY_SECONDS" ]; do
    generation=$(http GET "$1" /readyz | field generation)
    if [ -n "$generation" ] && [ "$generation" != "${2:-}" ]; then echo "$generation"; return 0; fi
    sleep 1
  done
  return 1
}

port_a=$(free_port)
start a "$port_a" always
first=$(wait_generation "$port_a") || { tail -n 20 "$WORK/a.log" >&2; fail "replica a was not ready in ${READY_SECONDS} s"; }
say ok "replica a ingested into PostgreSQL: generation $first"
port_b=$(free_port)
start b "$port_b" never
seen=$(wait_generation "$port_b") || { tail -n 20 "$WORK/b.log" >&2; fail "replica b was not ready"; }
[ "$seen" = "$first" ] || fail "replica b serves $seen, replica a published $first"
say ok "replica b serves the same generation without ingesting (index built from the database)"

[ "$(http POST "$port_a" /api/v1/admin/reindex | field started)" = True ] || fail "the admin re-ingest did not start"
started=$SECONDS
while [ "$(http GET "$port_a" /api/v1/admin/reindex | field state)" = running ]; do
  [ $((SECONDS - started)) -lt "$READY_SECONDS" ] || fail "the re-ingest on replica a did not finish"
  sleep 1
done
second=$(http GET "$port_a" /api/v1/admin/reindex | field generation)
if [ -z "$second" ] || [ "$second" = "$first" ]; then fail "the re-ingest on replica a published nothing new"; fi
followed=$(wait_generation "$port_b" "$first") || fail "replica b still serves $first after a published $second"
[ "$followed" = "$second" ] || fail "replica b serves $followed, replica a published $second"
results=$(http GET "$port_b" "/api/v1/search?q=FSDP" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["results"]))')
[ "$results" -gt 0 ] || fail "replica b finds nothing for FSDP on the new generation"
say ok "a re-ingest on replica a ($second) is served by replica b within $((SECONDS - started)) s, searches included"
