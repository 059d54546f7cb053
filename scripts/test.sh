#!/usr/bin/env bash
# Run every test: unit and property tests, every worked example in rulebooks/
# (one pytest item each), every book's checks, and the docs build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
. scripts/venv.sh
rules_use_venv         # the Python install.sh installed into
"$RULES_PY" -m pytest "$@"
