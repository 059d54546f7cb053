#!/usr/bin/env bash
# Install the project and its tools at the versions pinned in constraints.txt, into the
# virtual environment scripts/venv.sh picks: the one this runs in, else the checkout's
# .venv, made here (Python 3.11 and its venv module are all it assumes).
# "compat" editable mode puts the checkout on sys.path with a .pth file: no import
# hook, so the `rules` command starts fast, and edits to rulebooks/ are live.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
rules_use_venv
"$RULES_PY" -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dev]" --config-settings editable_mode=compat
# pip byte-compiles a regular install, not an editable one. Python would write the bytecode
# on first use, unless PYTHONDONTWRITEBYTECODE is set (as on these machines): then every
# `rules` command and every site build would compile the package's modules again.
"$RULES_PY" -m compileall -q rules_dsl >/dev/null
# The JavaScript back end is proven under node, and the site's browser tests drive Debian's
# headless Chromium: install whichever is missing when we can (root + apt).
missing=""
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
if [ -n "$missing" ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null) \
    || echo "note: could not install$missing; the tests that need it will say so" >&2
fi
