"""Shared fixtures and a hermetic session.

* The whole session uses a private cache folder (`RULES_DSL_CACHE`, set in
  `pytest_configure` before any test or plugin runs), so no test reads or
  writes the user's cache, and subprocesses inherit it.
* Subprocesses run this checkout's code (`PYTHONPATH` starts with the repository),
  never whatever `rules` or `rules_dsl` the machine's `PATH` or site-packages hold.
* The seed texts (the books' original text, `../shared/seeds` beside the
  repository, or `RULES_DSL_SEEDS`) come through the one `seeds` fixture.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: a deadline is a timed test, and on a shared or busy machine
# (CI included) a slow example is not a failing one. Budgets are tested as budgets.
settings.register_profile("rules-dsl", deadline=None)
settings.load_profile("rules-dsl")

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEMO = HERE / "demo_book.rules"
SEEDS = Path(os.environ.get("RULES_DSL_SEEDS") or REPO.parent / "shared" / "seeds")

_SESSION_CACHE = None


# Under pytest-xdist (scripts/test.sh runs -n auto) pytest_configure runs in the controller
# and again in each worker, a process of its own: each makes and removes its own cache
# folder (a worker starts with the controller's RULES_DSL_CACHE and replaces it), so no
# process deletes a folder another one uses.
def pytest_configure(config):
    global _SESSION_CACHE
    if _SESSION_CACHE is None:
        _SESSION_CACHE = tempfile.mkdtemp(prefix="rules-dsl-test-cache-")
        os.environ["RULES_DSL_CACHE"] = _SESSION_CACHE
        os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])


def pytest_unconfigure(config):
    if _SESSION_CACHE is not None:
        shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


@pytest.fixture(scope="session")
def seeds() -> Path:
    """The folder of seed texts; skips, saying where it looked, when it is not there."""
    if not SEEDS.is_dir():
        pytest.skip(f"the seed texts are not at {SEEDS} (put them at ../shared/seeds beside the "
                    "repository or set RULES_DSL_SEEDS to their folder)")
    return SEEDS


@pytest.fixture
def demo_books(tmp_path, monkeypatch):
    """RULES_DSL_BOOKS -> a temp folder with `demo.rules` (and a private cache); returns that folder."""
    books = tmp_path / "books"
    books.mkdir()
    shutil.copy(DEMO, books / "demo.rules")
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    return books


@pytest.fixture
def library(demo_books):
    """A `Library` of the demo books folder, with its own cache."""
    import rules_dsl
    return rules_dsl.Library(demo_books, cache=demo_books.parent / "cache")


@pytest.fixture
def demo(library):
    return library.load("demo")


def write_book(folder: Path, book_id: str, body: str, header: str = "") -> Path:
    """Write a small book: a header (with d6, d10 and the Dust die) and `body`."""
    head = header or f"""book {book_id} {{
  title "T"
  dice d6, d10
  die dust {{ army: 2, target: 2, shield: 2 }}
}}
"""
    path = folder / f"{book_id}.rules"
    path.write_text(head + body)
    return path


def mutated_book(tmp_path: Path, book_id: str, old: str, new: str, filename: str = ""):
    """A copy of a real book with `old` (which must occur exactly once) replaced by `new`,
    compiled from source in its own Library: how the audits prove that a misprint in a
    printed value becomes a finding.  Returns (compiled book, the edited file's path,
    the original text of that file)."""
    from rules_dsl.library.loader import Library
    src = REPO / "rulebooks"
    if filename:
        shutil.copytree(src / book_id, tmp_path / book_id, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
        path = tmp_path / book_id / filename
    else:
        path = tmp_path / f"{book_id}.rules"
        shutil.copyfile(src / f"{book_id}.rules", path)
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))
    return Library(tmp_path, cache=tmp_path / "cache").compile_book(book_id, use_cache=False), path, text


# Under CI=true a skip that hides a whole back end or runtime is a failure: the JavaScript
# back end is proven only under node, the site's behaviour only in Chromium:
# scripts/install.sh installs both, so in CI they are there.  Likewise the tests that
# need a normal user (tests/unprivileged.py: CI runs as root, and drops to one).
_CI_REQUIRED = ("node is not", "chromium is not", "no unprivileged user")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI", "").lower() == "true":
        reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)
        if any(token in reason for token in _CI_REQUIRED):
            report.outcome = "failed"
            report.longrepr = f"skipped under CI=true, where it must run: {reason}"
