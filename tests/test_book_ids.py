"""Book ids are names, never paths (issue 31, item 1).

Every command and API entry that takes a book id asks `paths.check_book_id` before
it joins the id to the books folder: an empty id, `.`, `..`, anything with a
separator, and anything a `book` header could not say, is refused with one readable
line (and a did-you-mean where one fits), and nothing outside the books folder is
ever read.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import rules_dsl
from rules_dsl.errors import BadBookId, NotFound, RulesError
from rules_dsl.paths import check_book_id

from conftest import write_book

SECRET = "TOP-SECRET hunter2 do-not-print"
BAD_IDS = ["", ".", "..", "../outside/secret", "outside/secret", "a\\b", "/etc/passwd", "Null-Strike",
           "null_strike", "null strike", "x\x00y", "-x"]


def _cli(*args, env=None, cwd=None, timeout=120):
    full = dict(os.environ, **(env or {}))
    full.pop("COLUMNS", None)
    return subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=timeout)


@pytest.fixture
def walled(tmp_path):
    """A books folder `books/` with one book, and beside it `outside/secret.rules`: a
    file that must never be read through the books folder (it would not even parse,
    so reading it would print its first line in the error)."""
    books = tmp_path / "books"
    books.mkdir()
    write_book(books, "t", 'rule r "R" {\n    """A rule."""\n    mechanic x(n: 1..3) -> int {\n'
                           '        roll die: d6\n        return die + n\n    }\n}\n')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.rules").write_text(f"{SECRET}\nbook secret {{ title \"S\" }}\nrule x \"X\" {{ }}\n")
    # the id `.` or `` would read the books folder itself as one book: a folder book of its own there
    (books / "loose.rules").write_text(f"{SECRET} as well\n")
    return tmp_path


@pytest.mark.parametrize("book_id", BAD_IDS)
def test_check_book_id_refuses_what_is_not_a_name(book_id):
    with pytest.raises(BadBookId) as e:
        check_book_id(book_id, ["null-strike", "void"])
    msg = str(e.value)
    assert "\n" not in msg and ("is not a book id" in msg or "cannot be empty" in msg), msg
    assert isinstance(e.value, NotFound) and isinstance(e.value, RulesError)


@pytest.mark.parametrize("book_id", ["null-strike", "t", "warhammer-40k", "null-strike-1", "a1-b2"])
def test_check_book_id_accepts_names(book_id):
    assert check_book_id(book_id) == book_id


@pytest.mark.parametrize("typed, meant", [("Null-Strike", "null-strike"), ("null_strike", "null-strike"),
                                          ("rulebooks/void.rules", "void"), ("../void", "void")])
def test_a_mistyped_id_gets_a_did_you_mean(typed, meant):
    with pytest.raises(BadBookId, match=f"did you mean '{meant}'"):
        check_book_id(typed, ["null-strike", "void"])


COMMANDS = [
    ("call", "{id}:x"), ("odds", "{id}:x"), ("explain", "{id}:x"), ("show", "{id}:r"),
    ("export", "{id}"), ("js", "{id}"), ("lookup", "rule --book {id}"), ("check", "{id}"),
]


@pytest.mark.parametrize("command, form", COMMANDS, ids=[c for c, _ in COMMANDS])
@pytest.mark.parametrize("book_id", ["../outside/secret", ".", "..", ""], ids=["path", "dot", "dotdot", "empty"])
def test_every_command_refuses_a_path_as_a_book_id(walled, command, form, book_id):
    cache = walled / "cache"
    argv = [command] + [a.replace("{id}", book_id) for a in form.split()]
    if command in ("export", "js"):
        argv += ["--out", str(walled / "out")]
    p = _cli(*argv, env={"RULES_DSL_BOOKS": "books", "RULES_DSL_CACHE": str(cache)}, cwd=walled)
    assert p.returncode == 2, (argv, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and ("is not a book id" in lines[0] or "cannot be empty" in lines[0]), p.stderr
    assert "Traceback" not in p.stderr and SECRET not in p.stdout + p.stderr
    assert "secret.rules" not in p.stderr and "loose" not in p.stderr
    assert not (walled / "out").exists()
    # nothing was parsed, so nothing was cached: the outside file was never read
    assert not list(cache.glob("ast/*")), list(cache.glob("ast/*"))


def test_the_issue_s_attack_reads_nothing_outside(walled):
    p = _cli("call", "../outside/secret:x", env={"RULES_DSL_BOOKS": "books",
                                                 "RULES_DSL_CACHE": str(walled / "cache")}, cwd=walled)
    assert p.returncode == 2
    assert p.stderr == ("rules: '../outside/secret' is not a book id: a book id is a name, such as "
                        "null-strike, never a path\n")
    # and a real call still works
    p = _cli("call", "t:x", "n=1", "die=2", "--json", env={"RULES_DSL_BOOKS": "books",
                                                           "RULES_DSL_CACHE": str(walled / "cache")}, cwd=walled)
    assert p.returncode == 0 and '"result": 3' in p.stdout, p.stderr


@pytest.mark.parametrize("book_id", ["../outside/secret", ".", "..", "", "T"])
def test_every_api_entry_refuses_a_path(walled, monkeypatch, book_id):
    monkeypatch.setenv("RULES_DSL_BOOKS", str(walled / "books"))
    monkeypatch.setenv("RULES_DSL_CACHE", str(walled / "cache"))
    lib = rules_dsl.Library(walled / "books", cache=walled / "cache")
    for call in (lambda: rules_dsl.load(book_id), lambda: lib.load(book_id), lambda: lib.book_files(book_id),
                 lambda: lib.parse_book(book_id), lambda: lib.compile_book(book_id)):
        with pytest.raises(BadBookId) as e:
            call()
        assert SECRET not in str(e.value)
    assert not (walled / "cache" / "ast").exists()
    if book_id == "T":
        assert "did you mean 't'" in str(e.value)


def test_the_site_refuses_a_book_file_named_like_a_path(tmp_path, monkeypatch):
    """`...rules` in a books folder would be the book `..`: the site would write its pages
    one folder up.  It is reported, and left out."""
    from rules_dsl.sphinxext import models
    books = tmp_path / "books"
    books.mkdir()
    write_book(books, "t", 'rule r "R" {\n    """A rule."""\n}\n')
    (books / "...rules").write_text('book t {\n  title "Dots"\n}\nrule r "R" { """x""" }\n')
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    lazy, summaries, problems = models.load_models(models.ModelCache(tmp_path / "models"))
    assert list(summaries) == ["t"]
    (problem,) = [p for p in problems if p[1] == ".."]
    assert "'..' is not a book id" in problem[3], problem


def test_the_pytest_plugin_reports_a_file_that_no_book_id_names(tmp_path):
    books = tmp_path / "rulebooks"
    books.mkdir()
    write_book(books, "t", 'rule r "R" {\n    """A rule."""\n    mechanic f() -> int = 1\n'
                           '    example """\n    >>> f()\n    1\n    """\n}\n')
    (books / "...rules").write_text('book t {\n  title "Dots"\n}\n')
    env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(tmp_path / "cache"))
    env.pop("CI", None)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(books)],
                       capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert p.returncode == 1, p.stdout
    assert "'..' is not a book id" in p.stdout and "1 failed, 1 passed" in p.stdout, p.stdout


def test_book_id_of_is_none_outside_and_strict_inside(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    write_book(books, "t", 'rule r "R" { """x""" }\n')
    bad = books / "Bad Name.rules"
    bad.write_text("x")
    lib = rules_dsl.Library(books, cache=tmp_path / "cache")
    assert lib.book_id_of(books / "t.rules") == "t"
    assert lib.book_id_of(bad) is None
    with pytest.raises(BadBookId, match="'Bad Name' is not a book id"):
        lib.book_id_of(bad, strict=True)
    assert lib.book_id_of(Path("/etc/passwd"), strict=True) is None
