"""Under CI=true a skip that hides a whole back end or runtime fails (tests/conftest.py):
a CI machine without node would otherwise pass while test_jsgen proved nothing."""
from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).with_name("conftest.py").read_text(encoding="utf-8")

TESTS = '''
import pytest

@pytest.mark.skipif(True, reason="node is not on PATH: the JavaScript back end is tested under node")
def test_needs_node():
    pass

def test_needs_chromium():
    pytest.skip("chromium is not installed")

def test_needs_a_user():
    pytest.skip("no unprivileged user to run as")

def test_skips_for_another_reason():
    pytest.skip("the seed texts are not at /nowhere")

def test_runs():
    pass
'''


def _run(pytester, monkeypatch, ci):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_skips=TESTS)
    return pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")


def test_under_ci_a_missing_node_chromium_or_user_fails(pytester, monkeypatch):
    result = _run(pytester, monkeypatch, "true")
    # a skipif marker skips at setup: that report fails as an error; pytest.skip() in the body, as a failure
    result.assert_outcomes(passed=1, failed=2, errors=1, skipped=1)
    assert result.ret != 0
    out = result.stdout.str()
    assert out.count("skipped under CI=true, where it must run: ") == 3
    assert "ERROR test_skips.py::test_needs_node" in out
    for name in ("test_needs_chromium", "test_needs_a_user"):
        assert f"FAILED test_skips.py::{name}" in out


def test_elsewhere_they_skip_saying_why(pytester, monkeypatch):
    for ci in (None, "false"):
        result = _run(pytester, monkeypatch, ci)
        result.assert_outcomes(passed=1, skipped=4)


def test_the_jsgen_tests_skip_with_the_reason_ci_refuses():
    """The reason test_jsgen skips with when node is missing is one CI turns into a failure."""
    import re
    source = Path(__file__).with_name("test_jsgen.py").read_text(encoding="utf-8")
    reason = re.search(r'skipif\(NODE is None, reason="([^"]+)"', source).group(1)
    tokens = re.search(r"_CI_REQUIRED = \(([^)]*)\)", CONFTEST).group(1)
    assert any(t.strip(' "') in reason for t in tokens.split(",") if t.strip(' "')), reason
