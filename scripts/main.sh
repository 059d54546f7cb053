#!/usr/bin/env bash
# Set up and run the main job: install, compile and check every book, build the
# lookup index, and build the reference website.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# the Python install.sh installed into, its bin first on PATH: `rules` below is that environment's
. scripts/venv.sh
rules_use_venv
rules check
rules books
if [ -f conf.py ]; then
  "$RULES_PY" -m sphinx -q -W --keep-going -n -b html -d _build/doctrees -j auto . _build/html
  echo "website: $(pwd)/_build/html/index.html"
fi
if [ "$RULES_VENV_MADE" = 1 ]; then
  echo "rules: installed in $RULES_VENV; put it on your PATH with: . $RULES_VENV/bin/activate (or run $RULES_VENV/bin/rules)"
else
  echo "rules: installed in the virtual environment you are in, $RULES_VENV ($RULES_VENV/bin/rules)"
fi
