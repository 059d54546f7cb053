"""A cache a normal user cannot write (issue 31, item 4).

The cache is an optimisation only: a read-only cache folder answers from what it
can read (a complete copy: the same answers, nothing written), an empty one
computes without caching, and a cache path that is a regular file, or a folder that
cannot be made, is worked around.  Never "internal error".

These run as an unprivileged user (tests/unprivileged.py): as root every folder is
writable, so the same test would prove nothing.  CI runs as root and drops to
`nobody` for them; with no such user they skip, and under CI=true that fails.
"""
from __future__ import annotations

import os
import shutil

import pytest

from unprivileged import copy_books, make_readable, readable_tmp, run_rules, unprivileged_user

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COMMANDS = [
    (["lookup", "suppression", "--limit", "1"], "dust-tactics:suppression"),
    (["show", "dust-tactics:suppression"], "Suppression"),
    (["books"], "null-strike"),
    (["call", "null-strike:opposed_target", "yours=5", "opposed=3"], "2"),
    (["odds", "void:cd_check_passes", "needed=5"], "mean"),
    (["check", "skirmish-tutorial"], "examples pass"),
]


@pytest.fixture(scope="module")
def place():
    """A readable folder with a copy of the books (the checkout may be root's only)."""
    top = readable_tmp()
    books = copy_books(os.path.join(REPO, "rulebooks"), top / "rulebooks")
    yield top, books
    make_readable(top, writable=True)
    shutil.rmtree(top, ignore_errors=True)


def _snapshot(folder):
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in folder.rglob("*"))


def _answers(result, wanted):
    assert result.returncode == 0, result
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result
    assert wanted in result.stdout, result


@pytest.mark.parametrize("argv, wanted", COMMANDS, ids=[c[0][0] for c in COMMANDS])
def test_an_empty_read_only_cache_computes_without_caching(place, argv, wanted):
    top, books = place
    cache = top / f"ro-empty-{argv[0]}"
    cache.mkdir()
    make_readable(cache)                       # root's, read-only for everyone else
    result = run_rules(argv, {"RULES_DSL_BOOKS": str(books), "RULES_DSL_CACHE": str(cache)})
    _answers(result, wanted)
    assert list(cache.iterdir()) == []


def test_a_complete_read_only_copy_answers_from_what_it_holds(place):
    top, books = place
    cache = top / "ro-full"
    cache.mkdir()
    root = os.geteuid() == 0
    if root:                                 # the user's own: a cache others may write is not used
        os.chown(cache, *unprivileged_user())
    env = {"RULES_DSL_BOOKS": str(books), "RULES_DSL_CACHE": str(cache)}
    before = {}
    for argv, wanted in COMMANDS:            # filled by a user who may write it
        result = run_rules(argv, env)
        _answers(result, wanted)
        before[argv[0]] = result.stdout
    assert list(cache.glob("index-*.sqlite")) and list(cache.glob("ast/*"))
    if root:                                 # handed to root, as a shared read-only copy would be
        for p in [cache, *cache.rglob("*")]:
            os.chown(p, 0, 0)
    make_readable(cache)                     # now nobody but root may write it
    snap = _snapshot(cache)
    for argv, wanted in COMMANDS:
        result = run_rules(argv, env)
        _answers(result, wanted)
        assert result.stdout == before[argv[0]], argv
    assert _snapshot(cache) == snap


@pytest.mark.parametrize("argv, wanted", COMMANDS[:4], ids=[c[0][0] for c in COMMANDS[:4]])
def test_a_cache_path_that_is_a_regular_file_is_worked_around(place, argv, wanted):
    top, books = place
    blocker = top / f"file-{argv[0]}"
    blocker.write_text("not a folder")
    make_readable(top / blocker.name)
    result = run_rules(argv, {"RULES_DSL_BOOKS": str(books), "RULES_DSL_CACHE": str(blocker)})
    _answers(result, wanted)
    assert blocker.read_text() == "not a folder"


def test_a_cache_folder_that_cannot_be_made_is_worked_around(place):
    top, books = place
    parent = top / "locked"
    parent.mkdir()
    make_readable(parent)
    result = run_rules(COMMANDS[0][0], {"RULES_DSL_BOOKS": str(books),
                                        "RULES_DSL_CACHE": str(parent / "sub" / "cache")})
    _answers(result, COMMANDS[0][1])
    assert not (parent / "sub").exists()
