"""ruff, configured in pyproject.toml, is clean over the package and the tests."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO


def test_ruff_is_clean():
    try:
        import ruff  # noqa: F401
    except ImportError:
        pytest.fail("ruff is not installed: pip install -e '.[test]' (pyproject pins it)")
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "rules_dsl", "tests"],
                       capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
