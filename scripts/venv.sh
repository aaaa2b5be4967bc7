#!/bin/sh
# Make sure VENV is a virtual environment of PYTHON (3.11 or newer); rebuild it when another
# interpreter made it. Usage: scripts/venv.sh PYTHON VENV. Says what is wrong in one line.
set -eu
python=$1 venv=$2
if ! command -v "$python" >/dev/null 2>&1; then
  echo "make: no $python on PATH; install Python 3.11 or newer and run \`make PYTHON=python3.11 …\`" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "make: Python 3.11 or newer is needed and $python is $("$python" -c 'import platform; print(platform.python_version())'); install python3.11 and run \`make PYTHON=python3.11 …\`" >&2
  exit 1
fi
# Which interpreter this is: its real path and version (a venv of another one must be rebuilt).
identity=$("$python" -c 'import os, platform, sys; print(os.path.realpath(sys.executable), platform.python_version())')
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.interpreter" 2>/dev/null)" = "$identity" ] \
    && "$venv/bin/python" -c '' 2>/dev/null; then
  exit 0
fi
if [ -e "$venv" ]; then
  echo "make: $venv was made by another Python; rebuilding it with $python ($identity)" >&2
  rm -rf "$venv"
fi
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade "pip>=24"
printf '%s\n' "$identity" > "$venv/.interpreter"
