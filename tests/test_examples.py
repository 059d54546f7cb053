"""Worked examples are expressions of the rules language (issue 11).

They are parsed by the book grammar, checked like mechanics (names, arity,
literal arguments against ranges) and run by one evaluator; nothing in an
example ever reaches Python's doctest, eval or exec.  The attack tests prove
that a book whose examples try to run Python fails with a diagnostic and that
nothing runs, through `rules check`, pytest and the site build.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

import rules_dsl
from rules_dsl.errors import RulebookError
from rules_dsl.evaluation.examples import same
from rules_dsl.language.values import ABSENT, Record, Sym, literal

from conftest import REPO, write_book

MECHS = '''
rule r "R" {
    """Text."""
    enum outcome { hit, miss }
    const base = 3
    mechanic needed(yours: 1..10, theirs: 1..10) -> 2..10 = max(2, min(10, 6 - yours + theirs))
    mechanic shot(skill: 1..10) -> outcome {
        roll die: d10
        return if die <= skill then hit else miss
    }
    mechanic half(x: 0..20) -> number = x / 2
    mechanic label(x: 1..2) -> text = if x == 1 then "one" else "two"
    mechanic gated(x: 0..9) -> int {
        require x != 4 "four is not allowed"
        return x
    }
    mechanic both(a: bool, b: bool = false) -> bool = a and not b
    table costs(item: text) -> (price: int, note: text | absent) {
        | item | price | note |
        |---|---|---|
        | "Gun" | 10 | "loud" |
        | "Knife" | 2 | absent |
    }
    example """
    EXAMPLE
    """
}
'''


def book_with(demo_books, example: str, book_id="t"):
    body = MECHS.replace("    EXAMPLE\n", textwrap.indent(textwrap.dedent(example).strip("\n"), "    ") + "\n")
    write_book(demo_books, book_id, body)
    return rules_dsl.load(book_id)


def result_of(demo_books, example: str):
    book = book_with(demo_books, example)
    (res,) = book.run_examples()
    return res


def diagnostics_of(demo_books, example: str):
    with pytest.raises(RulebookError) as e:
        book_with(demo_books, example)
    return e.value.diagnostics


# ------------------------------------------------------------------ passing
def test_values_of_every_kind_pass(demo_books):
    res = result_of(demo_books, '''
        Prose lines before a case are allowed.
        >>> needed(5, 3)
        4
        >>> half(7)
        7/2
        >>> shot(6, die=7)
        miss
        >>> shot(skill=6, die=2)
        outcome.hit
        >>> label(1)
        "one"
        >>> both(true)
        true
        >>> [needed(y, 3) for y in 1..3]
        [8, 7, 6]
        >>> {1, 2} == {2, 1}
        true
        >>> costs("Knife").note
        absent
        >>> base + 1
        4
        >>> -base
        -3

        And more prose between cases (after a blank line: the expected value ends there).
        >>> needed(
        ...     10,
        ...     1)
        2
    ''')
    assert res.passed, res.report
    assert len(res.cases) == 12
    assert all(c.passed for c in res.cases)


def test_case_locations_are_the_source_positions(demo_books):
    book = book_with(demo_books, '''
        >>> needed(5, 3)
        4
          >>>   half(7)
          7/2
    ''')
    (rule_id, ex), = book.example_cases()
    path = str(demo_books / "t.rules")
    lines = (demo_books / "t.rules").read_text().splitlines()
    spans = [c.span for c in ex.cases]
    assert [(s.file, lines[s.line - 1][s.column - 1:]) for s in spans] == [
        (path, "needed(5, 3)"), (path, "half(7)")]


# ------------------------------------------------------------------ failing
def test_a_wrong_value_reports_expected_and_got_at_file_line_col(demo_books):
    res = result_of(demo_books, '''
        >>> needed(5, 3)
        5
    ''')
    assert not res.passed
    line, col = next((i, l.index("needed") + 1)
                     for i, l in enumerate((demo_books / "t.rules").read_text().splitlines(), 1) if "needed(5, 3)" in l)
    assert f"t.rules:{line}:{col}: this example fails" in res.report
    assert f"{line:>4} | >>> needed(5, 3)\n     |     ^" in res.report
    assert "expected: 5" in res.report and "got:      4" in res.report


@pytest.mark.parametrize("expr,expected", [
    ("both(true)", "1"),              # true is not 1
    ("needed(9, 1)", "true"),         # 2 is not true
    ("label(1)", "one"),              # text is not a name  (one is unknown -> diagnostic, see below)
    ("shot(6, die=1)", '"hit"'),      # an enum member is not text
    ("half(7)", "3"),
    ("[needed(9, 1)]", "[2, 2]"),
    ("costs(\"Gun\").note", "absent"),
])
def test_kinds_are_compared_strictly(demo_books, expr, expected):
    if expected == "one":
        diags = diagnostics_of(demo_books, f">>> {expr}\n{expected}\n")
        assert "unknown name 'one'" in diags[0].message
        return
    res = result_of(demo_books, f">>> {expr}\n{expected}\n")
    assert not res.passed, (expr, expected)


def test_expected_errors(demo_books):
    res = result_of(demo_books, '''
        >>> needed(11, 3)
        InputError: yours
        >>> needed(theirs=0, yours=3)
        InputError: theirs 1..10
        >>> gated(4)
        Error: four is not allowed
    ''')
    assert res.passed, res.report


@pytest.mark.parametrize("example", [
    ">>> needed(11, 3)\nInputError: theirs\n",       # another parameter
    ">>> needed(5, 3)\nInputError: yours\n",         # no error at all
    ">>> gated(4)\nError: five\n",                   # another message
    ">>> gated(4)\n4\n",                             # an error where a value was expected
])
def test_expected_errors_that_do_not_happen_fail(demo_books, example):
    try:
        res = result_of(demo_books, example)
    except RulebookError as e:   # needed(11, ...) with another parameter expected: caught before running
        assert "gets 11 for 'yours'" in e.diagnostics[0].message
    else:
        assert not res.passed


# ------------------------------------------------------------- diagnostics
def _diag(diags, text):
    hits = [d for d in diags if text in d.message]
    assert hits, [d.message for d in diags]
    return hits[0]


def test_out_of_range_literal_is_a_diagnostic_at_the_argument(demo_books):
    diags = diagnostics_of(demo_books, ">>> needed(5, 11)\n4\n")
    d = _diag(diags, "needed() gets 11 for 'theirs'; allowed: 1..10")
    assert d.source_line[d.column - 1:].startswith("11)")
    assert "InputError: theirs" in d.hint


@pytest.mark.parametrize("example,message", [
    (">>> shot(6, die=1)\nhit\n>>> shot(true)\nmiss\n", "gets true for 'skill'"),
    (">>> both(3)\ntrue\n", "gets 3 for 'a'"),
    (">>> needed(5, 3)\nneeded\n", "'needed' is a mechanic, not a value"),
    (">>> needed(5, 3)\n2 + 2\n", "an expected value must be a value"),
    (">>> needed(5, 3, 2)\n4\n", "takes at most 2 argument(s)"),
    (">>> needed(5)\n4\n", "missing 'theirs'"),
    (">>> nedded(5, 3)\n4\n", "unknown name 'nedded'"),
    (">>> both(True)\ntrue\n", "unknown name 'True' (Python's spelling)"),
    (">>> needed(5, 3)\n", "has no expected value"),
    (">>> \n4\n", "needs an expression"),
    (">>> needed(5, \n4\n", "unexpected"),
    ("no prompt at all\n", "has no '>>>' line"),
])
def test_example_mistakes_are_diagnostics(demo_books, example, message):
    diags = diagnostics_of(demo_books, example)
    d = _diag(diags, message)
    assert d.file.endswith("t.rules") and d.line > 0 and d.column > 0 and d.source_line


# ----------------------------------------------------------------- attacks
ATTACKS = [
    '>>> __import__("os").system("touch MARKER")\n0\n',
    '>>> open("MARKER", "w")\n0\n',
    '>>> exec("open(\'MARKER\', \'w\')")\n0\n',
    '>>> eval("1")\n1\n',
    '>>> import os\n0\n',
    '>>> from os import system\n0\n',
    '>>> x = 1\n1\n',
    '>>> needed.__globals__\n0\n',
    '>>> costs("Gun").__class__\n0\n',
    '>>> costs("Gun")._fields\n0\n',
    '>>> [c for c in ().__class__.__base__.__subclasses__()]\n[]\n',
    '>>> lambda: 1\n0\n',
    '>>> needed(5, 3)\n__import__("os").system("touch MARKER")\n',
    '>>> print(1)\n1\n',
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_examples_that_try_to_run_python_never_do(demo_books, tmp_path, monkeypatch, attack):
    monkeypatch.chdir(tmp_path)
    attack = attack.replace("MARKER", str(tmp_path / "pwned"))
    try:
        book = book_with(demo_books, attack)
    except RulebookError as e:
        assert e.diagnostics  # a diagnostic, with file:line:col
        assert all(d.line > 0 for d in e.diagnostics)
    else:
        (res,) = book.run_examples()
        assert not res.passed
    assert not (tmp_path / "pwned").exists()


def test_record_fields_are_reachable_but_not_python_attributes(demo_books):
    res = result_of(demo_books, '>>> costs("Gun").price\n10\n>>> costs("Gun").as_dict\n0\n')
    assert [c.passed for c in res.cases] == [True, False]
    assert "no field 'as_dict'" in res.cases[1].got


EVIL_BOOK = '''book evil {
  title "Evil"
  dice d6
}
rule r "R" {
    """Text."""
    mechanic one() -> int = 1
    example """
    >>> __import__("os").system("touch MARKER")
    0
    >>> one()
    1
    """
}
'''


def _env(books, cache):
    env = dict(os.environ, RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(cache), PYTHONPATH=str(REPO))
    env.pop("CI", None)
    return env


def test_nothing_runs_through_rules_check_and_pytest(tmp_path):
    books = tmp_path / "rulebooks"
    books.mkdir()
    marker = tmp_path / "pwned"
    (books / "evil.rules").write_text(EVIL_BOOK.replace("MARKER", str(marker)))
    env = _env(books, tmp_path / "cache")
    check = subprocess.run([sys.executable, "-m", "rules_dsl", "check", "evil"], capture_output=True, text=True,
                           env=env, timeout=120, cwd=tmp_path)
    assert check.returncode != 0
    assert "evil.rules:9:9: error: unknown name '__import__'" in check.stderr + check.stdout
    pyt = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(books)],
                         capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert pyt.returncode != 0 and "unknown name '__import__'" in pyt.stdout
    assert not marker.exists()


@pytest.mark.site
def test_nothing_runs_through_the_site_build(tmp_path):
    from rules_dsl.sphinxext.testing import build, make_project

    books = tmp_path / "books"
    books.mkdir()
    marker = tmp_path / "pwned"
    (books / "evil.rules").write_text(EVIL_BOOK.replace("MARKER", str(marker)))
    project = make_project(tmp_path / "project")
    proc = build(project, tmp_path / "out", books, tmp_path / "cache")
    assert proc.returncode != 0
    assert "rulebook 'evil' does not compile" in proc.stderr
    assert not marker.exists()


# ----------------------------------------------------------- properties
values = st.recursive(
    st.one_of(st.integers(-50, 50), st.booleans(), st.just(ABSENT),
              st.fractions(min_value=-10, max_value=10, max_denominator=7),
              st.sampled_from([Sym("hit", "outcome"), Sym("miss", "outcome")]),
              st.text(alphabet="abc \"\\", max_size=5)),
    lambda inner: st.lists(inner, max_size=4), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(values)
def test_same_is_reflexive_and_literal_reads_back(demo_books_for_property, v):
    v = _norm(v)
    assert same(v, v)
    book = demo_books_for_property
    res = book.run_example("r", _case_for(book, literal(v)))
    assert res.passed, (literal(v), res.report)


def _norm(v):
    from rules_dsl.language.values import number
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return number(v) if isinstance(v, Fraction) else v


@pytest.fixture(scope="module")
def demo_books_for_property(tmp_path_factory):
    books = tmp_path_factory.mktemp("prop") / "books"
    books.mkdir()
    write_book(books, "t", MECHS.replace("    EXAMPLE\n", "    >>> 1\n    1\n"))
    return rules_dsl.Library(books, cache=books.parent / "cache").load("t")


def _case_for(book, text):
    """An Example whose one case is `>>> VALUE` expecting the same VALUE, parsed by the book grammar."""
    from rules_dsl.language import nodes as n
    from rules_dsl.language.example_parser import parse_example
    from rules_dsl.language.tree_builder import TreeBuilder

    class Tok(str):
        line, column = 1, 1
    body = f'"""\n>>> {text}\n{text}\n"""'
    b = TreeBuilder("<prop>", body)
    cases = parse_example(b, Tok(body))
    assert not b.errors, b.errors
    return n.Example(n.Span("<prop>", 1, 1), "", body, 2, cases)


def test_records_compare_by_fields():
    assert same(Record({"a": 1}), Record({"a": 1}))
    assert not same(Record({"a": 1}), Record({"a": True}))
    assert literal(Record({"a": "x", "b": ABSENT})) == '(a: "x", b: absent)'


def test_expected_errors_are_explained_up_to_the_error(demo_books):
    """An example line that expects an error: its working stops there, with the message."""
    book = book_with(demo_books, '''
        >>> gated(4)
        Error: four is not allowed
        >>> needed(5, 3)
        4
    ''')
    (rule_id, example), = book.example_cases()
    gated, needed = book.explain_example(rule_id, example)
    assert gated.error is not None and "four is not allowed" in gated.error
    assert gated.lines()[-1].startswith("stopped:") and "four is not allowed" in gated.lines()[-1]
    assert any(s.step == "require" and s.value is False for s in gated.steps)
    assert needed.error is None and needed.result == 4
