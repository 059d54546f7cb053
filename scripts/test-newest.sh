#!/usr/bin/env bash
# Test against the newest Sphinx, furo, lark, myst-parser and pygls that install on this
# Python (within the ranges pyproject.toml declares), the libraries whose API the project
# leans on; everything else stays at its pin in constraints.txt unless one of those needs
# a newer one.  Runs in a throwaway virtualenv in a temporary folder (removed at the end):
# nothing else on the machine changes.  Not part of scripts/test.sh: CI may run it too.
#
#   bash scripts/test-newest.sh              # the site tests (-m site), the Sphinx/furo compat, LSP and grammar tests
#   bash scripts/test-newest.sh -k hover     # or any pytest arguments instead
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
newest=(sphinx furo lark myst-parser pygls)
venv="$(mktemp -d "${TMPDIR:-/tmp}/rules-dsl-newest.XXXXXX")"
trap 'rm -rf "$venv"' EXIT
. scripts/venv.sh      # made with python3 (or $PYTHON), as scripts/install.sh makes .venv
rules_check_base
rules_make_venv "$venv" || exit 2
py="$venv/bin/python"
pip=("$py" -m pip install --quiet --disable-pip-version-check)
# 1. the project at its pins, as scripts/install.sh installs it
"${pip[@]}" -c constraints.txt -e "$repo[dev]" --config-settings editable_mode=compat
# 2. the newest of those five, and whatever they need (no constraints for them)
"${pip[@]}" --upgrade --upgrade-strategy only-if-needed -e "$repo[dev]" --config-settings editable_mode=compat \
    "${newest[@]}"
"$py" -m compileall -q rules_dsl >/dev/null
echo "testing with:" $("$py" -m pip list --format=freeze 2>/dev/null \
    | grep -iE '^(sphinx|furo|lark|myst-parser|pygls|lsprotocol|docutils)==' | tr '\n' ' ')
cd "$repo"
if [ "$#" -gt 0 ]; then
  exec "$py" -m pytest "$@"
fi
status=0
"$py" -m pytest -q -n auto --dist loadscope -m "not site" tests/test_lsp.py tests/test_lsp_protocol.py tests/test_lsp_compat.py tests/test_language.py \
    tests/test_diagnostics_teach.py tests/test_sphinx_compat.py || status=1
"$py" -m pytest -q -n auto --dist loadscope -m "site and not install" || status=1
exit $status
