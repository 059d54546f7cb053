#!/usr/bin/env bash
# Run every test: unit and property tests, every worked example in rulebooks/
# (one pytest item each), every book's checks, and the docs build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
. scripts/venv.sh
rules_use_venv         # the Python install.sh installed into
# one worker per core (pytest-xdist); a module's tests stay on one worker, so a module's
# site build or browser (module-scoped fixtures) is made once, not once per worker.
# Arguments come after and win: `bash scripts/test.sh -n 0 tests/test_cli.py` runs in one process.
"$RULES_PY" -m pytest -n auto --dist loadscope "$@"
