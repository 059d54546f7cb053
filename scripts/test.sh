#!/usr/bin/env bash
# Run every test: unit and property tests, every worked example in rulebooks/
# (one pytest item each), every book's checks, and the docs build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
python3 -m pytest "$@"
