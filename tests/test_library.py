"""The `Library` object and the one cache policy (`rules_dsl.library.cachekeys`)."""
from __future__ import annotations

import os
import time

import pytest

import rules_dsl
from rules_dsl.library import cachekeys

from conftest import write_book

BODY = 'rule r "R" {\n    """Alpha."""\n    mechanic f() -> int = 1\n}\n'


def test_a_library_has_its_own_folders(tmp_path):
    books = tmp_path / "any-name"
    books.mkdir()
    write_book(books, "t", BODY)
    lib = rules_dsl.Library(books, cache=tmp_path / "c")
    assert lib.book_ids() == ["t"]
    assert lib.load("t").f() == 1
    assert lib.load("t") is lib.load("t")
    assert list((tmp_path / "c" / "ast").glob("*.pickle"))
    assert os.environ.get("RULES_DSL_BOOKS") != str(books)      # nothing global was touched


def test_load_path_and_loads(tmp_path, library):
    path = write_book(tmp_path, "elsewhere", BODY)
    assert library.load_path(path).f() == 1
    text = path.read_text().replace("elsewhere", "fromtext").replace("= 1", "= 3")
    book = library.loads(text)
    assert (book.id, book.f()) == ("fromtext", 3)
    with pytest.raises(rules_dsl.NotFound):
        library.load_path(tmp_path / "missing.rules")


def test_the_default_library_follows_the_environment(demo_books):
    assert rules_dsl.book_ids() == ["demo"]
    assert rules_dsl.load("demo").id == "demo"


def test_an_edited_file_replaces_its_cached_ast(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    path = write_book(books, "t", BODY)
    lib = rules_dsl.Library(books, cache=tmp_path / "c")
    lib.load("t")
    path.write_text(path.read_text().replace("= 1", "= 22"))
    assert lib.load("t").f() == 22
    assert len(list((tmp_path / "c" / "ast").glob("*.pickle"))) == 1     # the old entry went


def test_keys_change_with_content_and_code():
    assert cachekeys.key(b"a", "p", code="x") != cachekeys.key(b"b", "p", code="x")
    assert cachekeys.key(b"a", "p", code="x") != cachekeys.key(b"a", "p", code="y")
    assert cachekeys.key("ab", "c", code="x") != cachekeys.key("a", "bc", code="x")
    scopes = {s: cachekeys.code_fingerprint(s) for s in ("parse", "engine", "index", "site", "all")}
    assert len(set(scopes.values())) == 5


def test_a_code_change_rebuilds_the_index(demo_books, monkeypatch):
    from rules_dsl.faces import index
    before = index.source_fingerprint()
    import json
    assert json.loads(before)[-1] == cachekeys.code_stamps("index")     # the code's stamps, compared whole
    real = cachekeys.code_stamps
    monkeypatch.setattr(cachekeys, "code_stamps", lambda *a, **k: real(*a, **k) + "-edited")
    assert index.source_fingerprint() != before


def test_the_code_fingerprint_is_the_hash_of_the_code_stamps():
    import hashlib
    for scope in ("parse", "index"):
        stamps = cachekeys.code_stamps(scope)
        assert "grammar.lark:" in stamps and "index.py:" in stamps or scope == "parse"
        assert cachekeys.code_fingerprint(scope) == hashlib.sha256(stamps.encode()).hexdigest()[:20]


def test_the_parse_scope_stamps_everything_a_parse_reads():
    """A parsed file's cache key covers the code it was parsed by: every module a parse
    module imports (statically, at any depth of function) and the stop words a book's
    `vocabulary` is checked against.  A file left out would let an edit to it serve
    a parse the new code would not make."""
    import ast
    from pathlib import Path
    pkg = Path(cachekeys.__file__).resolve().parent.parent
    stamps = cachekeys.code_stamps("parse")
    for rel in sorted(cachekeys.PARSE_FILES):
        assert str(pkg / rel) + ":" in stamps, f"{rel} is listed but not stamped"
    assert str(pkg / "language" / "searchdata" / "stopwords.txt") + ":" in stamps
    missing = set()
    for rel in sorted(f for f in cachekeys.PARSE_FILES if f.endswith(".py")):
        here = Path(rel).parent.parts
        for node in ast.walk(ast.parse((pkg / rel).read_text())):
            if not isinstance(node, ast.ImportFrom) or not (node.level or (node.module or "").startswith("rules_dsl")):
                continue
            base = list(here[:len(here) - node.level + 1]) if node.level else []
            mod = base + (node.module.split(".") if node.module else [])
            if not node.level:
                mod = mod[1:]                     # rules_dsl.x.y -> x/y
            for name in [a.name for a in node.names] + [None]:
                parts = mod + ([name] if name else [])
                target = Path(*parts).with_suffix(".py") if parts else None
                if target and (pkg / target).is_file():
                    if target.as_posix() not in cachekeys.PARSE_FILES:
                        missing.add((rel, target.as_posix()))
    assert not missing, f"parse modules import files the parse cache's key does not cover: {sorted(missing)}"


def test_sweep_drops_old_entries_once_a_day(tmp_path):
    old, new = tmp_path / "ast" / "a-1.pickle", tmp_path / "ast" / "b-2.pickle"
    old.parent.mkdir()
    old.write_bytes(b"x")
    new.write_bytes(b"y")
    long_ago = time.time() - (cachekeys.MAX_AGE_DAYS + 1) * 86400
    os.utime(old, (long_ago, long_ago))
    assert cachekeys.sweep(tmp_path) == 1
    assert not old.exists() and new.exists()
    os.utime(new, (long_ago, long_ago))
    assert cachekeys.sweep(tmp_path) == 0            # swept less than a day ago
    assert cachekeys.sweep(tmp_path, force=True) == 1


@pytest.mark.parametrize("args", [["books"], ["books", "--json"], ["lookup", "anything"], ["check"], ["show", "a:b"]])
def test_no_books_folder_says_where_it_looked(tmp_path, args):
    import subprocess
    import sys
    env = dict(os.environ, RULES_DSL_BOOKS=str(tmp_path / "nowhere"), RULES_DSL_CACHE=str(tmp_path / "c"))
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2, p
    assert str(tmp_path / "nowhere") in p.stderr and "RULES_DSL_BOOKS" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and p.stdout == ""


def test_tables_reject_unknown_keyword_arguments(demo):
    assert demo.tables["chart"](2, opposed=2) == demo.tables["chart"](yours=2, opposed=2) == 6
    with pytest.raises(rules_dsl.NotFound, match="unknown key 'oposed'.*did you mean 'opposed'"):
        demo.tables["chart"](2, oposed=2)


def test_the_pytest_plugin_collects_any_books_folder(tmp_path):
    import subprocess
    import sys
    books = tmp_path / "my-books"
    books.mkdir()
    write_book(books, "t", BODY.replace("    mechanic f() -> int = 1\n",
                                        '    mechanic f() -> int = 1\n    example """\n    >>> f()\n    1\n    """\n'))
    env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(tmp_path / "c"))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(books)],
                       capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert p.returncode == 0 and "1 passed" in p.stdout, p.stdout + p.stderr
