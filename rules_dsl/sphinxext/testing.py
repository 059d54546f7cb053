"""Helpers to build the site from a scratch copy (tests, benchmarks).

The site's pages are generated into the source folder, so a test or a
benchmark builds a *copy* of the project (conf.py and docs/, without the
generated docs/books/) with its own books and cache folders, and never
touches the working tree.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def make_project(dest: Path, repo: Path = REPO) -> Path:
    """Copy conf.py and docs/ (without generated pages and builds) into dest."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(repo / "conf.py", dest / "conf.py")
    shutil.copytree(repo / "docs", dest / "docs", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("books", "_build", "__pycache__"))
    return dest


def build_command(project: Path, out: Path, *extra, builder="html"):
    """The documented command; the doctrees go beside the output (`<out>.doctrees`),
    never inside the published folder."""
    out = Path(out)
    return [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-b", builder,
            "-d", str(out.with_name(out.name + ".doctrees")), *extra, str(project), str(out)]


def build(project: Path, out: Path, books: Path, cache: Path, *extra, timeout=600, builder="html"):
    """Run the documented build command in a subprocess; return CompletedProcess."""
    env = dict(os.environ)
    env["RULES_DSL_BOOKS"] = str(books)
    env["RULES_DSL_CACHE"] = str(cache)
    env.setdefault("PYTHONHASHSEED", "0")
    env["NO_COLOR"] = "1"       # Sphinx colours its log when CI=true: the tests read that log as text
    return subprocess.run(build_command(project, out, *extra, builder=builder), env=env, cwd=str(project),
                          capture_output=True, text=True, timeout=timeout)
