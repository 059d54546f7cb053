# Sourced (". scripts/venv.sh", from the checkout's root) by install.sh, main.sh, test.sh
# and test-newest.sh.  `rules_use_venv` picks the Python every later command of those
# scripts runs and puts its bin folder (where pip puts `rules`) first on PATH;
# `rules_make_venv FOLDER` makes a virtual environment (test-newest.sh's throwaway one).
#
# A stock Debian or Ubuntu python3 refuses `pip install` outside a virtual environment
# (PEP 668, "externally-managed-environment"), so the scripts never install into the
# Python they find:
# - inside a virtual environment (VIRTUAL_ENV set, or sys.prefix != sys.base_prefix) they
#   use it;
# - outside one they make one in the checkout, `.venv` (gitignored), with python3 (or
#   $PYTHON), and use that.  Debian ships the venv module apart (python3-venv): when
#   making the environment fails and we are root with apt, it is installed and tried again.
#
# rules_use_venv sets: RULES_PY (that Python's path), RULES_VENV (its environment's folder) and
# RULES_VENV_MADE (1 when it is the checkout's .venv, 0 when it is one the caller was in).

rules_base_python="${PYTHON:-python3}"

rules_python_ok() {
  "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null
}

# rules_make_venv FOLDER: a virtual environment with pip at FOLDER, made by the base Python;
# installs Debian's venv module once when that is what is missing and we can (root + apt).
rules_make_venv() {
  local folder="$1"
  if "$rules_base_python" -m venv "$folder" >/dev/null 2>&1 && "$folder/bin/python" -m pip --version >/dev/null 2>&1; then
    return 0
  fi
  rm -rf "$folder"
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    local minor
    minor="$("$rules_base_python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
    echo "note: $rules_base_python -m venv failed; installing Debian's python3-venv and python$minor-venv" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv "python$minor-venv" >/dev/null) \
      || echo "note: could not install python3-venv with apt-get" >&2
    if "$rules_base_python" -m venv "$folder" >/dev/null 2>&1 && "$folder/bin/python" -m pip --version >/dev/null 2>&1; then
      return 0
    fi
    rm -rf "$folder"
  fi
  echo "error: could not make a virtual environment with '$rules_base_python -m venv $folder';" \
       "install the venv module (Debian, Ubuntu: apt-get install python3-venv) or run this inside a virtual environment" >&2
  return 1
}

rules_check_base() {
  if ! command -v "$rules_base_python" >/dev/null 2>&1; then
    echo "error: $rules_base_python is not on PATH: install Python 3.11 or newer (or set PYTHON to one)" >&2
    exit 2
  fi
  if ! rules_python_ok "$rules_base_python"; then
    echo "error: $("$rules_base_python" --version 2>&1) is too old: rules-dsl needs Python 3.11 or newer (set PYTHON to one)" >&2
    exit 2
  fi
}

rules_use_venv() {
  rules_check_base
  if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
    RULES_VENV="$VIRTUAL_ENV"
    RULES_VENV_MADE=0
  elif "$rules_base_python" -c 'import sys; sys.exit(0 if sys.prefix != sys.base_prefix else 1)'; then
    RULES_VENV="$("$rules_base_python" -c 'import sys; print(sys.prefix)')"
    RULES_VENV_MADE=0
  else
    RULES_VENV="$PWD/.venv"
    RULES_VENV_MADE=1
    if ! { [ -x "$RULES_VENV/bin/python" ] && rules_python_ok "$RULES_VENV/bin/python" \
           && "$RULES_VENV/bin/python" -m pip --version >/dev/null 2>&1; }; then
      rm -rf "$RULES_VENV"
      rules_make_venv "$RULES_VENV" || exit 2
    fi
  fi
  RULES_PY="$RULES_VENV/bin/python"
  if ! rules_python_ok "$RULES_PY"; then
    echo "error: the virtual environment's Python ($RULES_PY) is missing or older than 3.11" >&2
    exit 2
  fi
  PATH="$RULES_VENV/bin:$PATH"
  export PATH RULES_PY RULES_VENV RULES_VENV_MADE
}
