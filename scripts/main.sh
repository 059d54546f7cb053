#!/usr/bin/env bash
# Set up and run the main job: install, compile and check every book, build the
# lookup index, and build the reference website.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
rules check
rules books
if [ -f conf.py ]; then
  python3 -m sphinx -q -W --keep-going -n -b html -d _build/doctrees -j auto . _build/html
  echo "website: $(pwd)/_build/html/index.html"
fi
