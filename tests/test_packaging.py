"""Every file of the package that is not Python reaches a wheel: pyproject.toml's
package-data names it.  A data file left out (the grammar, the search's words, a
schema, a JavaScript back end) imports fine from a checkout and breaks an install."""
from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _package_data() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]


def _shipped(rel: str, data: dict) -> bool:
    """Whether `rel` (rules_dsl/x/y.txt) matches a package-data glob of its package."""
    for package, globs in data.items():
        folder = package.replace(".", "/") + "/"
        if rel.startswith(folder) and any(fnmatch.fnmatch(rel[len(folder):], g) for g in globs):
            return True
    return False


def test_every_data_file_of_the_package_is_in_its_package_data():
    data_files = [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "rules_dsl").rglob("*"))
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".py", ".pyc")]
    assert any(f.endswith("grammar.lark") for f in data_files)      # the listing sees the data
    left_out = [f for f in data_files if not _shipped(f, _package_data())]
    assert not left_out, f"not in pyproject.toml's package-data (a wheel would lack them): {left_out}"


def test_the_check_finds_a_file_left_out():
    data = {"rules_dsl.language": ["grammar.lark"]}
    assert _shipped("rules_dsl/language/grammar.lark", data)
    assert not _shipped("rules_dsl/language/searchdata/stopwords.txt", data)
    assert not _shipped("rules_dsl/faces/grammar.lark", data)
