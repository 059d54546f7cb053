"""A cache another user can write is never read (issue 38, "Caches hold pickles").

Loading a pickle runs code, so a cache folder or file that is not the user's own, or
that others can write, would run their code.  Such a cache is neither read nor written:
the command says so once (one line on stderr naming the folder and the fix) and works
without it, giving the answers a fresh private cache gives.

Each hostile cache here is a real one, made by a first run in a private folder, then
*poisoned*: every pickle replaced by one whose loading creates a marker file (lark's
grammar cache keeps its valid first line, so lark would unpickle the rest), and the
lookup index's book title forged.  Then the folder is made world-writable (0777) or
handed to another user (uid 65534, `nobody`; the tests run as root, which may chown).
"""
from __future__ import annotations

import ast
import os
import pathlib
import pickle
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEMO, REPO

WARNING = "rules: warning:"
NOBODY = 65534


class Payload:
    """Unpickling this creates `marker`: what a planted cache entry could do."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def _env(books: Path, cache: Path) -> dict:
    env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(cache), COLUMNS="100")
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _rules(books: Path, cache: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rules_dsl", *args], env=_env(books, cache),
                          capture_output=True, text=True, timeout=120, cwd=str(REPO))


def _load_twice(books: Path, cache: Path) -> subprocess.CompletedProcess:
    code = "import rules_dsl; b = rules_dsl.load('demo'); b = rules_dsl.load('demo'); print(b.title)"
    return subprocess.run([sys.executable, "-c", code], env=_env(books, cache),
                          capture_output=True, text=True, timeout=120, cwd=str(REPO))


#: `books` answers from the lookup index (forged); `lookup` finds it gone (deleted after the
#: poisoning) and rebuilds it from the book entries (pickles); `check` parses (AST pickles, lark's cache)
COMMANDS = [("books",), ("lookup", "opposed", "--limit", "1"), ("check", "demo")]


def _fill(books: Path, cache: Path) -> None:
    """A real cache: every store the commands read (AST, book entries, index, grammar)."""
    for args in COMMANDS:
        assert _rules(books, cache, *args).returncode == 0
    assert _load_twice(books, cache).returncode == 0
    names = {p.name for p in cache.rglob("*")}
    assert "grammar.lark-cache" in names and any(n.endswith(".sqlite") for n in names)
    assert list((cache / "ast").glob("*.pickle")) and list((cache / "index-books").glob("*.pickle"))


def _poison(cache: Path, marker: Path) -> None:
    payload = pickle.dumps(Payload(marker))
    for p in cache.rglob("*.pickle"):
        p.write_bytes(payload)
    grammar = cache / "grammar.lark-cache"
    first = grammar.read_bytes().split(b"\n", 1)[0]          # lark's grammar hash: lark unpickles what follows
    grammar.write_bytes(first + b"\n" + payload + payload)
    for index in cache.glob("index-*.sqlite"):
        con = sqlite3.connect(index)
        con.execute("UPDATE books SET data = replace(data, '\"Demo\"', '\"Planted\"')")
        con.commit()
        con.close()


def _snapshot(cache: Path) -> dict:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in cache.rglob("*")}


@pytest.fixture
def books(tmp_path) -> Path:
    folder = tmp_path / "books"
    folder.mkdir()
    shutil.copy(DEMO, folder / "demo.rules")
    return folder


def _hostile(tmp_path: Path, books: Path, how: str) -> tuple:
    cache, marker = tmp_path / "cache", tmp_path / "marker"
    _fill(books, cache)
    _poison(cache, marker)
    if how == "world-writable":
        cache.chmod(0o777)
    else:
        for p in [cache, *cache.rglob("*")]:
            os.chown(p, NOBODY, NOBODY)
    return cache, marker


def _fresh(tmp_path: Path, books: Path, *args) -> str:
    return _rules(books, tmp_path / "fresh-cache", *args).stdout


needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="handing a folder to another user (chown) needs root")


@pytest.mark.parametrize("how", ["world-writable", pytest.param("foreign-owned", marks=needs_root)])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_a_hostile_cache_is_not_read_by_commands(tmp_path, books, how, args):
    cache, marker = _hostile(tmp_path, books, how)
    if args[0] == "lookup":
        for index in cache.glob("index-*.sqlite"):
            index.unlink()
    before = _snapshot(cache)
    r = _rules(books, cache, *args)
    assert not marker.exists(), f"a planted cache entry ran ({how} cache, rules {' '.join(args)})"
    assert r.returncode == 0, r.stderr
    assert "Planted" not in r.stdout                         # the forged index is not read either
    assert r.stdout == _fresh(tmp_path, books, *args)        # the answers of a fresh private cache
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith(WARNING)]
    assert len(lines) == 1, r.stderr                         # said once
    assert str(cache) in lines[0] and "RULES_DSL_CACHE" in lines[0]
    assert ("chmod" if how == "world-writable" else "chown") in lines[0]
    assert _snapshot(cache) == before                        # and nothing written into it


@pytest.mark.parametrize("how", ["world-writable", pytest.param("foreign-owned", marks=needs_root)])
def test_a_hostile_cache_is_not_read_by_load(tmp_path, books, how):
    cache, marker = _hostile(tmp_path, books, how)
    before = _snapshot(cache)
    r = _load_twice(books, cache)
    assert not marker.exists(), f"a planted cache entry ran ({how} cache, rules_dsl.load)"
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Demo"
    assert sum(ln.startswith(WARNING) for ln in r.stderr.splitlines()) == 1, r.stderr
    assert _snapshot(cache) == before


def test_a_world_writable_cache_file_is_not_read(tmp_path, books):
    """A private folder holding one file others can write: that file is not unpickled."""
    cache, marker = tmp_path / "cache", tmp_path / "marker"
    _fill(books, cache)
    entry = next((cache / "ast").glob("*.pickle"))
    entry.write_bytes(pickle.dumps(Payload(marker)))
    entry.chmod(0o666)
    r = _load_twice(books, cache)
    assert not marker.exists()
    assert r.returncode == 0 and r.stdout.strip() == "Demo", r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith(WARNING)]
    assert len(lines) == 1 and str(entry) in lines[0], r.stderr


def test_a_private_cache_is_still_used(tmp_path, books, monkeypatch, capsys):
    """The check refuses only what another user could write: a second load from a
    private cache parses nothing (a cache hit) and says nothing."""
    import rules_dsl
    from rules_dsl.language import parser

    cache = tmp_path / "cache"
    assert rules_dsl.Library(books, cache=cache).load("demo").title == "Demo"
    parsed = []
    real = parser.parse_text
    monkeypatch.setattr(parser, "parse_text", lambda *a, **k: parsed.append(a) or real(*a, **k))
    assert rules_dsl.Library(books, cache=cache).load("demo").title == "Demo"
    assert parsed == []
    assert WARNING not in capsys.readouterr().err
    r = _rules(books, cache, "books")
    assert r.returncode == 0 and WARNING not in r.stderr


def test_site_caches_in_a_hostile_folder_are_not_read(tmp_path, capsys):
    """The site's own stores (doctree folder: models, navigation, furo's trees) read
    through `paths.read_pickle` too: a world-writable folder's pickle is not loaded,
    and a private one is."""
    from rules_dsl import paths
    marker = tmp_path / "marker"
    folder = tmp_path / "doctrees"
    folder.mkdir()
    (folder / "rules_dsl-nav.pickle").write_bytes(pickle.dumps(Payload(marker)))
    folder.chmod(0o777)
    with pytest.raises(paths.UntrustedCache):
        paths.read_pickle(folder / "rules_dsl-nav.pickle")
    assert not paths.write_pickle(folder / "other.pickle", 1)
    assert not marker.exists() and not (folder / "other.pickle").exists()
    assert capsys.readouterr().err.count(WARNING) == 1
    folder.chmod(0o755)
    assert paths.write_pickle(folder / "other.pickle", {"a": 1})
    assert paths.read_pickle(folder / "other.pickle") == {"a": 1}


UNPICKLERS = {("pickle", "load"), ("pickle", "loads"), ("pickle", "Unpickler"), ("marshal", "load"),
              ("marshal", "loads"), ("shelve", "open"), ("dill", "load"), ("dill", "loads")}


def test_only_paths_unpickles():
    """Every cache read goes through `paths.read_pickle`, where the trust check is: no
    other module of the package calls pickle.load/loads (nor marshal, shelve), and only
    syntax.py hands lark a cache file (lark unpickles it; syntax.py checks it first)."""
    found = []
    for path in sorted((REPO / "rules_dsl").rglob("*.py")):
        rel = path.relative_to(REPO / "rules_dsl").as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and (node.value.id, node.attr) in UNPICKLERS and rel != "paths.py":
                found.append(f"{rel}:{node.lineno}: {node.value.id}.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module in {"pickle", "marshal", "shelve"} \
                    and any((node.module, a.name) in UNPICKLERS for a in node.names):
                found.append(f"{rel}:{node.lineno}: from {node.module} import ...")
            if isinstance(node, ast.keyword) and node.arg == "cache" and rel != "language/syntax.py" \
                    and isinstance(node.value, (ast.Name, ast.Constant)) and getattr(node.value, "value", 1) not in (False, None):
                if any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Lark" for n in ast.walk(tree)):
                    found.append(f"{rel}:{node.lineno}: Lark(cache=...)")
    assert found == [], "unpickling outside paths.read_pickle:\n" + "\n".join(found)
