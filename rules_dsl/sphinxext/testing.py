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


def output_files(out: Path) -> dict:
    """{path relative to `out` (posix): bytes} of every file under an output folder."""
    out = Path(out)
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def output_differences(rebuilt: Path, clean: Path, context: int = 160) -> list:
    """What differs between two output folders, every file byte for byte (nothing is left
    out: a file that may legitimately differ must be made not to): one line per file only
    in one of them, and per file whose bytes differ, where it first differs (`context`
    characters either side: pages and search indexes are long lines)."""
    a, b = output_files(rebuilt), output_files(clean)
    out = [f"only in the rebuild: {name}" for name in sorted(a.keys() - b.keys())]
    out += [f"only in the clean build: {name}" for name in sorted(b.keys() - a.keys())]
    for name in sorted(a.keys() & b.keys()):
        x, y = a[name], b[name]
        if x == y:
            continue
        at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        line = x[:at].count(b"\n") + 1
        show = [v[max(0, at - context):at + context].decode("utf-8", "replace") for v in (x, y)]
        out.append(f"differs: {name} (from line {line}, byte {at})\n    rebuild: ...{show[0]!r}...\n"
                   f"    clean:   ...{show[1]!r}...")
    return out
