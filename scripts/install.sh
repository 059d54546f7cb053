#!/usr/bin/env bash
# Install the project and its pinned tools (Python 3.11 + pip is all it assumes).
# "compat" editable mode puts the checkout on sys.path with a .pth file: no import
# hook, so the `rules` command starts fast, and edits to rulebooks/ are live.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e ".[dev]" --config-settings editable_mode=compat
# pip byte-compiles a regular install, not an editable one. Python would write the bytecode
# on first use, unless PYTHONDONTWRITEBYTECODE is set (as on these machines): then every
# `rules` command and every site build would compile the package's modules again.
python3 -m compileall -q rules_dsl >/dev/null
# The site's browser test drives Debian's headless Chromium; install it when we can (root + apt).
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "note: chromium could not be installed; the browser test will be skipped" >&2
fi
