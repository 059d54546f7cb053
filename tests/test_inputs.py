"""Inputs as people type them (issue 31, item 5): `NAME=VALUE` on the command line,
the values in error messages, `--limit` and `--out`.

A list of one needs no brackets, a trailing comma is fine, a name given twice is
refused, an unknown name lists the valid ones, and every value a message shows is
written as the book writes values (`values.literal`), never as Python's repr.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction

import pytest

import rules_dsl
from rules_dsl.faces.cli_inputs import BadInput, parse_value
from rules_dsl.errors import InputError, NotFound

PYTHON_REPRS = re.compile(r"Fraction\(|\bNone\b|\bTrue\b|\bFalse\b|Rational\(|\[\'|'\]|Sym\(|range\(")


def _cli(*args, env=None, timeout=120):
    full = dict(os.environ, **(env or {}))
    full.pop("COLUMNS", None)
    return subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True,
                          env=full, timeout=timeout)


def _one_line_error(p, *wanted):
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr, p.stderr
    assert not PYTHON_REPRS.search(lines[0]), lines[0]
    for w in wanted:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# ------------------------------------------------------------ the value syntax
@pytest.mark.parametrize("typed, value", [
    ("3", 3), ("-1", -1), ("7/2", Fraction(7, 2)), ("2.5", Fraction(5, 2)), ("4/2", 2), ("true", True),
    ("false", False), ("army", "army"), ("Plasma Rifle", "Plasma Rifle"), ('"a, b"', "a, b"),
    ("4,10", [4, 10]), ("[4,10]", [4, 10]), ("[]", []), ("2,", [2]), ("1,2,", [1, 2]), ("[1, 2,]", [1, 2]),
    ("[[1,6],[3]]", [[1, 6], [3]]), (" 5 ", 5), ("1e9", "1e9"), ("absent", "absent"),
])
def test_values_read_as_typed(typed, value):
    got = parse_value(typed)
    assert got == value and type(got) is type(value) or (isinstance(value, Fraction) and got == value)
    if isinstance(value, int) and not isinstance(value, bool):
        assert type(got) is int


@pytest.mark.parametrize("typed, why", [("", "no value"), ("1,,2", "empty item"), ("[1,2", "unclosed"),
                                        ("1]", "no '['"), ("1/0", "over 0"), ("9" * 5000, "5000 digits"),
                                        ('"open', "unclosed quote")])
def test_values_that_cannot_be_read_say_why(typed, why):
    with pytest.raises(BadInput, match=re.escape(why)):
        parse_value(typed)


# ------------------------------------------------------------------ the CLI
def test_a_list_of_one_needs_no_brackets():
    base = ("call", "--json", "xenotactics:surviving_successes", "stat=5", "opposing_stat=4")
    for typed in (["opposing=2", "dice=3"], ["opposing=2,", "dice=3,"], ["opposing=[2]", "dice=[3]"]):
        p = _cli(*base, *typed)
        assert p.returncode == 0, (typed, p.stderr)
        assert '"result"' in p.stdout
    p1, p2 = _cli(*base, "opposing=2", "dice=3"), _cli(*base, "opposing=[2]", "dice=[3]")
    assert p1.stdout == p2.stdout


def test_a_name_given_twice_is_refused():
    p = _cli("call", "void:damage_dodged", "needed=7", "points=3", "points=4")
    _one_line_error(p, "points is given twice", "points=3", "points=4")


def test_an_unknown_name_lists_the_valid_ones():
    p = _cli("call", "void:damage_dodged", "needed=7", "points=3", "roll=7")
    _one_line_error(p, "unknown parameter 'roll'", "its parameters: needed, points", "dice")
    p = _cli("odds", "void:damage_dodged", "needed=7", "points=3", "roll=7")
    _one_line_error(p, "its parameters: needed, points")
    p = _cli("call", "warhammer-40k:bunker_hit_table", "rol=1")
    _one_line_error(p, "unknown key 'rol'", "its keys: roll")


@pytest.mark.parametrize("args, shown", [
    (["needed=1e9", "points=3"], "got \"1e9\""),
    (["needed=1000000000", "points=3"], "got 1000000000; allowed: 1..11"),
    (["needed=7/2", "points=3"], "got 7/2; allowed: 1..11"),
    (["needed=2.5", "points=3"], "got 5/2"),
    (["needed=true", "points=3"], "got true; allowed: 1..11"),
    (["needed=1,2", "points=3"], "got [1, 2]"),
    (["needed=x", "points=3"], 'got "x"'),
    (["needed=7"], "parameter 'points' needs a value (1..20)"),
])
def test_values_in_messages_are_shown_as_the_book_shows_them(args, shown):
    for command in ("call", "explain", "odds"):
        p = _cli(command, "void:damage_dodged", *args)
        _one_line_error(p, shown)


def test_python_callers_see_book_values_too(tmp_path):
    lib = rules_dsl.Library(tmp_path, cache=tmp_path / "cache")
    book = lib.loads('book t {\n  title "T"\n  dice d6\n}\nrule r "R" {\n    """R."""\n'
                     '    mechanic f(n: 1..6, xs: list of 1..6) -> int = n + len(xs)\n}\n')
    f = book.mechanics["f"]
    for kwargs, shown in (({"n": Fraction(10 ** 9)}, "got 1000000000;"), ({"n": Fraction(7, 2)}, "got 7/2;"),
                          ({"n": True}, "got true;"), ({"n": "x"}, 'got "x";'), ({"xs": [1]}, "needs a value (1..6)"),
                          ({"n": None}, "got nothing")):
        with pytest.raises(InputError) as e:
            f(**{"xs": [1], **kwargs}) if "xs" not in kwargs else f(**kwargs)
        assert shown in str(e.value), (kwargs, str(e.value))
        assert not PYTHON_REPRS.search(str(e.value).replace("got nothing", "")), str(e.value)
    with pytest.raises(NotFound, match=r"its parameters: n, xs"):
        f(n=1, xs=[1], m=2)


def test_limit_is_bounded():
    p = _cli("lookup", "suppression", "--limit", "99999999999999999999", "--json")
    assert p.returncode == 0 and "internal error" not in p.stderr, p.stderr
    assert '"rule": "suppression"' in p.stdout
    for bad in ("0", "-3", "abc", "9" * 100):
        p = _cli("lookup", "suppression", "--limit", bad)
        assert p.returncode == 2 and "Traceback" not in p.stderr and "internal error" not in p.stderr, p.stderr
        assert "--limit" in p.stderr


@pytest.mark.parametrize("command", ["export", "js"])
@pytest.mark.parametrize("out", ["", "   "])
def test_an_empty_out_is_refused(tmp_path, command, out):
    p = subprocess.run([sys.executable, "-m", "rules_dsl", command, "void", "--out", out], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    _one_line_error(p, "--out needs a folder")
    assert list(tmp_path.iterdir()) == []
