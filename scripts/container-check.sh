#!/usr/bin/env bash
# Build the portal's image, start it, and check it over HTTP on 127.0.0.1. Exit 0 when it serves.
#
#   bash scripts/container-check.sh
#
# Engine: `docker` when an engine answers (`docker info`), else buildah with chroot isolation
# (apt-get install buildah podman debootstrap). With buildah, the base image debian:bookworm-slim
# cannot be pulled here: it is debootstrapped (minbase, trimmed like the official slim image),
# kept as a tarball under $FAQ_CHECK_CACHE and imported under its official name, so the
# Dockerfile stays standard. Builds use buildah's layer cache, so unchanged steps are reused.
#
# One line per check, then the figures; on failure, `FAIL: <reason>` and a non-zero exit. The
# container and the server are removed/killed on every exit path.
#
# Settings: FAQ_CHECK_IMAGE (faq-portal:check), FAQ_CHECK_PORT (a free port from 18000),
# FAQ_CHECK_CACHE (/var/cache/faq-portal), FAQ_CHECK_BASE_MAX_DAYS (30: older bases are made
# again), FAQ_CHECK_READY_SECONDS (180), FAQ_CHECK_ENGINE (docker|buildah: skip the detection).
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${FAQ_CHECK_IMAGE:-faq-portal:check}
CACHE=${FAQ_CHECK_CACHE:-/var/cache/faq-portal}
READY_SECONDS=${FAQ_CHECK_READY_SECONDS:-180}
BASE_MAX_DAYS=${FAQ_CHECK_BASE_MAX_DAYS:-30}
BASE=docker.io/library/debian:bookworm-slim
BASE_TAR=$CACHE/debian-bookworm-slim.tar
HOST_CA=/etc/ssl/certs/ca-certificates.crt
WORK=$(mktemp -d "${TMPDIR:-/tmp}/faq-container-check.XXXXXX")
STARTED=$SECONDS

ctr=""          # the container (docker id or buildah working container)
server_pid=""   # buildah: the `buildah run` serving the portal

say() { printf '%-5s %s\n' "$1" "$2"; }
ok() { say ok "$*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
show_log() {  # the last lines of a log file, indented, on stderr
  [ -s "$1" ] && tail -n "${2:-25}" "$1" | sed 's/^/    | /' >&2
  return 0
}

descendants() {  # the process ids below PID, deepest last
  python3 - "$1" <<'EOF'
import os, sys
children = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        ppid = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
    except (OSError, IndexError):
        continue
    children.setdefault(ppid, []).append(pid)
todo, found = [sys.argv[1]], []
while todo:
    for child in children.get(todo.pop(), []):
        found.append(child)
        todo.append(child)
print(" ".join(found))
EOF
}

cleanup() {
  local code=$?
  set +e
  if [ "$engine" = buildah ] && [ -n "$ctr" ]; then
    # The server: `buildah run` and everything it started (by process id; nothing else).
    local pids=()
    [ -n "$server_pid" ] && read -ra pids <<<"$(descendants "$server_pid") $server_pid"
    if [ "${#pids[@]}" -gt 0 ]; then
      kill -TERM "${pids[@]}" 2>/dev/null
      for _ in 1 2 3 4 5 6 7 8 9 10; do  # up to 5 s to stop, then KILL
        alive=""
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ -z "$alive" ] && break
        sleep 0.5
      done
      kill -KILL "${pids[@]}" 2>/dev/null
    fi
    [ -n "$server_pid" ] && wait "$server_pid" 2>/dev/null
    buildah rm "$ctr" >/dev/null 2>&1 || echo "warning: could not remove container $ctr" >&2
  elif [ "$engine" = docker ] && [ -n "$ctr" ]; then
    docker rm -f "$ctr" >/dev/null 2>&1 || echo "warning: could not remove container $ctr" >&2
  fi
  rm -rf "$WORK" "$CACHE/rootfs.$$"
  exit "$code"
}
engine=""
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- engine
if [ -n "${FAQ_CHECK_ENGINE:-}" ]; then
  engine=$FAQ_CHECK_ENGINE
elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  engine=docker
elif command -v buildah >/dev/null 2>&1; then
  engine=buildah
else
  fail "no container engine: \`docker info\` fails and buildah is missing (apt-get install buildah podman debootstrap)"
fi
case $engine in docker | buildah) ;; *) fail "FAQ_CHECK_ENGINE=$engine: expected docker or buildah" ;; esac
ok "engine: $engine"

command -v python3 >/dev/null 2>&1 || fail "python3 is needed on the host for the HTTP checks"

free_port() {
  python3 - <<'EOF'
import socket
for port in range(18000, 18100):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(port)
        break
EOF
}
PORT=${FAQ_CHECK_PORT:-$(free_port)}
[ -n "$PORT" ] || fail "no free port between 18000 and 18099 on 127.0.0.1"

# ---------------------------------------------------------------- base image (buildah only)
# Trim a debootstrapped root the way the official debian:*-slim images are trimmed (no docs,
# man pages or locales; apt caches and lists removed after each install) and add the updates
# and security suites, so the base is close to what `docker pull` would give.
make_base_tar() {
  local rootfs=$CACHE/rootfs.$$
  command -v debootstrap >/dev/null 2>&1 || fail "debootstrap is missing (apt-get install debootstrap)"
  rm -rf "$rootfs"
  if ! debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1; then
    show_log "$WORK/debootstrap.log"
    rm -rf "$rootfs"
    fail "debootstrap of bookworm failed (log above)"
  fi
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
  echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$rootfs/etc/apt/apt.conf.d/docker-autoremove-suggests"
  cat >"$rootfs/etc/apt/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$rootfs"/usr/share/{man,groff,info,lintian,linda,locale}/* \
    "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/bootstrap.log
  tar --numeric-owner -C "$rootfs" -cf "$BASE_TAR.tmp" . && mv "$BASE_TAR.tmp" "$BASE_TAR"
  rm -rf "$rootfs"
}

if [ "$engine" = buildah ]; then
  command -v podman >/dev/null 2>&1 || fail "podman is missing (apt-get install podman): it imports the base image"
  mkdir -p "$CACHE"
  base_started=$SECONDS
  # A base older than BASE_MAX_DAYS is made again, so the image gets Debian's updates.
  if [ -s "$BASE_TAR" ] && [ -z "$(find "$BASE_TAR" -mtime +"$BASE_MAX_DAYS")" ]; then
    if buildah inspect --type image "$BASE" >/dev/null 2>&1; then
      how="present"
    else
      how="imported from $BASE_TAR"
    fi
  else
    make_base_tar
    how="debootstrapped into $BASE_TAR"
  fi
  if [ "$how" != present ]; then
    podman import --quiet "$BASE_TAR" "$BASE" >/dev/null || fail "podman import of $BASE_TAR failed"
  fi
  ok "base image $BASE: $how ($((SECONDS - base_started)) s)"
fi

# ---------------------------------------------------------------- build
build_started=$SECONDS
if [ "$engine" = docker ]; then
  build=(docker build -t "$IMAGE" .)
else
  # --format docker: the OCI format has no HEALTHCHECK and buildah would drop it.
  build=(buildah bud --isolation chroot --format docker --layers -t "$IMAGE")
  # Package traffic may go through a TLS-inspecting proxy whose CA only the host trusts.
  [ -s "$HOST_CA" ] && build+=(--volume "$HOST_CA:/run/host-ca.crt:ro" --build-arg PIP_CERT=/run/host-ca.crt)
  build+=(.)
fi
if ! "${build[@]}" >"$WORK/build.log" 2>&1; then
  show_log "$WORK/build.log" 40
  fail "image build failed: ${build[*]} (log above)"
fi
build_seconds=$((SECONDS - build_started))
ok "build $IMAGE ($build_seconds s)"

# ---------------------------------------------------------------- image configuration
if [ "$engine" = docker ]; then
  docker image inspect "$IMAGE" >"$WORK/inspect.json" || fail "docker image inspect $IMAGE failed"
  image_bytes=$(docker image inspect -f '{{.Size}}' "$IMAGE")
else
  buildah inspect --type image "$IMAGE" >"$WORK/inspect.json" || fail "buildah inspect $IMAGE failed"
  image_bytes=$(podman image inspect --format '{{.Size}}' "$IMAGE")
fi
# One field of the image's (Docker-format) configuration: strings as they are, lists one item a
# line, anything else as JSON.
config() {
  python3 - "$WORK/inspect.json" "$1" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
config = data[0]["Config"] if isinstance(data, list) else (data.get("Docker") or {}).get("config") or {}
value = config.get(sys.argv[2])
if isinstance(value, str):
    print(value)
elif isinstance(value, list):
    print("\n".join(value))
elif value is not None:
    print(json.dumps(value))
EOF
}
health=$(config Healthcheck)
health_test=$(python3 -c 'import json, sys; print("\n".join(json.loads(sys.argv[1] or "{}").get("Test") or []))' "$health")
case $(echo "$health_test" | head -n 1) in
  CMD | CMD-SHELL) ;;
  *) fail "the image has no HEALTHCHECK in its configuration (OCI format? build with --format docker): ${health:-none}" ;;
esac
ok "HEALTHCHECK kept in the image config: $(echo "$health_test" | tr '\n' ' ')"
user=$(config User)
case $user in
  "" | root | 0 | 0:* | root:*) fail "the image runs as root (USER is '${user:-unset}')" ;;
esac
ok "image USER is $user"

# ---------------------------------------------------------------- start
entry_cmd() {  # ENTRYPOINT followed by CMD, one word a line
  config Entrypoint
  config Cmd
}

start_started=$SECONDS
start_ns=$(date +%s%N)
if [ "$engine" = docker ]; then
  ctr=$(docker run -d -p "127.0.0.1:$PORT:8000" "$IMAGE") || fail "docker run $IMAGE failed"
else
  ctr=$(buildah from --quiet "$IMAGE") || fail "buildah from $IMAGE failed"
  mapfile -t command_line < <(entry_cmd | sed '/^$/d')
  [ "${#command_line[@]}" -gt 0 ] || fail "the image has neither ENTRYPOINT nor CMD"
  # buildah run has no port mapping: the server shares the host's network, on port $PORT.
  buildah run --isolation chroot --env "PORT=$PORT" "$ctr" -- "${command_line[@]}" >"$WORK/server.log" 2>&1 &
  server_pid=$!
fi

server_log() {
  if [ "$engine" = docker ]; then docker logs "$ctr" >"$WORK/server.log" 2>&1; fi
  show_log "$WORK/server.log"
}

# GET a URL on the portal; prints the HTTP status, then saves the body and headers under $WORK.
get() {
  python3 - "http://127.0.0.1:$PORT$1" "$WORK/body" "$WORK/headers" <<'EOF'
import sys, urllib.error, urllib.request
url, body, headers = sys.argv[1:4]
try:
    with urllib.request.urlopen(url, timeout=10) as response:
        status, data, head = response.status, response.read(), response.headers
except urllib.error.HTTPError as exc:
    status, data, head = exc.code, exc.read(), exc.headers
except OSError:
    status, data, head = 0, b"", {}
open(body, "wb").write(data)
open(headers, "w").write("".join(f"{k}: {v}\n" for k, v in head.items()))
print(status)
EOF
}

ready=""
while [ $((SECONDS - start_started)) -lt "$READY_SECONDS" ]; do
  if [ "$engine" = buildah ] && ! kill -0 "$server_pid" 2>/dev/null; then
    server_log
    fail "the container's server exited before it was ready (log above)"
  fi
  if [ "$engine" = docker ] && [ "$(docker inspect -f '{{.State.Running}}' "$ctr")" != true ]; then
    server_log
    fail "the container exited before it was ready (log above)"
  fi
  if [ "$(get /readyz)" = 200 ]; then
    ready=$(( ($(date +%s%N) - start_ns) / 1000000 ))
    break
  fi
  sleep 0.2
done
if [ -z "$ready" ]; then
  server_log
  fail "/readyz did not answer 200 within $READY_SECONDS s of the start (last: $(head -c 200 "$WORK/body" 2>/dev/null))"
fi
ready_seconds=$(printf '%d.%01d' $((ready / 1000)) $(((ready % 1000) / 100)))
ok "/readyz 200 after $ready_seconds s: $(head -c 120 "$WORK/body")"

# ---------------------------------------------------------------- HTTP checks
json() {  # evaluate a Python expression on the last body, bound to `d`
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$WORK/body" "$1"
}

status=$(get /healthz)
[ "$status" = 200 ] || fail "/healthz answered $status: $(head -c 200 "$WORK/body")"
[ "$(json 'd["status"] == "ok" and d["entries"] > 0')" = True ] \
  || fail "/healthz is not ok with entries: $(head -c 200 "$WORK/body")"
ok "/healthz 200: $(json 'str(d["documents"]) + " documents, " + str(d["entries"]) + " entries"')"

status=$(get '/api/v1/search?q=FSDP')
[ "$status" = 200 ] || fail "/api/v1/search?q=FSDP answered $status: $(head -c 200 "$WORK/body")"
[ "$(json 'len(d["results"]) > 0')" = True ] || fail "/api/v1/search?q=FSDP found nothing: $(head -c 200 "$WORK/body")"
entry=$(json 'd["results"][0]["url"]')
ok "/api/v1/search?q=FSDP: $(json 'd["total"]') results, first $entry"

status=$(get "$entry")
[ "$status" = 200 ] || fail "entry page $entry answered $status"
grep -qi '^content-type: text/html' "$WORK/headers" || fail "entry page $entry is not text/html"
grep -q '<html lang="' "$WORK/body" || fail "entry page $entry has no <html lang=…>"
stylesheet=$(grep -o 'href="/static/[^"]*\.css[^"]*"' "$WORK/body" | head -n 1 | cut -d'"' -f2)
ok "entry page $entry: 200 text/html"
if [ -n "$stylesheet" ]; then
  status=$(get "$stylesheet")
  [ "$status" = 200 ] || fail "the page's stylesheet $stylesheet answered $status (static files missing from the image?)"
  ok "stylesheet $stylesheet: 200"
else
  fail "entry page $entry links no /static/ stylesheet"
fi

# Search by meaning: the model ships in the image (nothing is downloaded); the server embeds the content in
# the background and then ranks by words and meaning.
semantic_started=$SECONDS
semantic=""
while [ $((SECONDS - semantic_started)) -lt "$READY_SECONDS" ]; do
  [ "$(get /readyz)" = 200 ] && semantic=$(json 'd["semantic"]')
  case "$semantic" in ready*) break ;; lexical\ until*) sleep 1 ;; *) fail "search by meaning will not start: $semantic" ;; esac
done
case "$semantic" in ready*) ;; *) fail "search by meaning not ready within $READY_SECONDS s: $semantic" ;; esac
ok "search by meaning $semantic, $((SECONDS - semantic_started)) s after the server was ready"
status=$(get '/api/v1/search?q=how%20to%20keep%20GPU%20memory%20from%20running%20out')
[ "$status" = 200 ] && [ "$(json 'd["ranking"]')" = hybrid ] && [ "$(json 'len(d["results"]) > 0')" = True ] \
  || fail "a search was not ranked by words and meaning: $(head -c 200 "$WORK/body")"
ok "/api/v1/search ranked hybrid: first $(json 'd["results"][0]["title"]')"

# ---------------------------------------------------------------- the running container
in_container() {
  if [ "$engine" = docker ]; then docker exec "$ctr" "$@"; else buildah run --isolation chroot --env "PORT=$PORT" "$ctr" -- "$@"; fi
}
mapfile -t health_argv < <(echo "$health_test" | tail -n +2)
if [ "$(echo "$health_test" | head -n 1)" = CMD-SHELL ]; then
  health_argv=(/bin/sh -c "${health_argv[*]}")
fi
in_container "${health_argv[@]}" >"$WORK/health.log" 2>&1 || {
  show_log "$WORK/health.log"
  fail "the HEALTHCHECK command fails inside the running container: ${health_argv[*]}"
}
ok "HEALTHCHECK command passes inside the container"

if [ "$engine" = docker ]; then
  uids=$(docker top "$ctr" -eo uid | tail -n +2 | sort -u | tr '\n' ' ')
else
  # Processes below `buildah run` that live in the container's root (the runtime itself does not).
  uids=""
  for pid in $(descendants "$server_pid"); do
    if [ "$(readlink "/proc/$pid/root" 2>/dev/null)" != / ]; then
      uids="$uids $(awk '/^Uid:/ {print $2}' "/proc/$pid/status" 2>/dev/null)"
    fi
  done
  uids=$(echo "$uids" | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
fi
[ -n "${uids// /}" ] || fail "found no process of the running container"
case " $uids " in *" 0 "*) fail "a process in the container runs as root (uids: $uids)" ;; esac
ok "server processes run as uid ${uids% }"

# ---------------------------------------------------------------- PostgreSQL replicas (hook)
# Two replicas on one PostgreSQL database: a re-ingest on one is served by the other.
IMAGE=$IMAGE ENGINE=$engine scripts/container-check-postgres.sh || fail "the PostgreSQL replica check failed"

# ---------------------------------------------------------------- figures
image_mb=$(python3 -c "print(round($image_bytes / 1e6))")
base=""
if [ "$engine" = buildah ]; then
  base=" (base $(python3 -c "print(round($(podman image inspect --format '{{.Size}}' "$BASE") / 1e6))") MB)"
fi
echo "image $IMAGE: $image_mb MB$base; build $build_seconds s; start to ready $ready_seconds s; whole check $((SECONDS - STARTED)) s"
