"""The language front end: syntax errors, semantic checks, and parser properties."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl.language import nodes as n
from rules_dsl.errors import RulebookError
from rules_dsl.language.parser import parse_text
from rules_dsl.language.render import expr_text

from conftest import write_book


def errors_of(demo_books, body):
    write_book(demo_books, "t", body)
    with pytest.raises(RulebookError) as e:
        rules_dsl.load("t")
    return e.value


# ------------------------------------------------------------------ syntax
def test_syntax_error_points_at_line_and_column_with_caret_and_hint():
    src = 'book b {\n  title "x"\n}\nrule r "R" {\n  mechanic f(a: 1..3) -> int = a +\n}\n'
    with pytest.raises(RulebookError) as e:
        parse_text(src, "b.rules")
    d = e.value.diagnostics[0]
    assert (d.file, d.line) == ("b.rules", 6)
    text = e.value.render()
    assert "b.rules:6:1: error: unexpected '}'" in text
    assert "^" in text and "hint: expected" in text


def test_unclosed_string_gets_a_specific_hint():
    with pytest.raises(RulebookError) as e:
        parse_text('book b {\n  title "x\n}\n', "b.rules")
    assert "\"\"\"" in e.value.diagnostics[0].hint


def test_missing_return_in_block_is_explained():
    with pytest.raises(RulebookError) as e:
        parse_text("mechanic f(a: 1..3) -> int { let b = a  b }", "b.rules")
    assert "return" in e.value.diagnostics[0].hint


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200))
def test_parser_never_crashes_on_arbitrary_text(text):
    try:
        parse_text(text, "fuzz.rules")
    except RulebookError as e:
        assert e.diagnostics and e.diagnostics[0].line >= 1


TOKENS = ['book', 'rule', 'section', 'mechanic', 'table', 'grid', 'let', 'roll', 'return', 'of', 'chain',
          'if', 'then', 'else', 'and', 'or', 'not', 'in', 'for', 'check', 'enum', 'const', 'note', 'example',
          '{', '}', '(', ')', '[', ']', '|', ':', '=', ',', '.', '..', '->', '+', '-', '*', '/', '"s"',
          '"""p [[x]] """', '1', '3d10', 'x', 'd6', '---', '\n', '#c\n']


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_parser_never_crashes_on_token_soup(tokens):
    try:
        parse_text(" ".join(tokens), "soup.rules")
    except RulebookError:
        pass


# ------------------------------------------------------------ round trip
names = st.sampled_from(["a", "b", "hits", "army"])
ints = st.integers(min_value=0, max_value=99)


def exprs():
    leaf = st.one_of(ints.map(lambda v: n.Literal(n.NOWHERE, v)), names.map(lambda v: n.Name(n.NOWHERE, v)),
                     st.booleans().map(lambda v: n.Literal(n.NOWHERE, v)))

    def extend(inner):
        return st.one_of(
            st.tuples(st.sampled_from("+-*/%"), inner, inner).map(lambda t: n.BinOp(n.NOWHERE, *t)),
            st.tuples(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "notin"]), inner, inner)
            .map(lambda t: n.Compare(n.NOWHERE, *t)),
            st.tuples(st.sampled_from(["and", "or"]), inner, inner).map(lambda t: n.BoolOp(n.NOWHERE, *t)),
            inner.map(lambda x: n.Not(n.NOWHERE, x)),
            inner.map(lambda x: n.Neg(n.NOWHERE, x)),
            st.tuples(inner, inner, inner).map(lambda t: n.IfElse(n.NOWHERE, *t)),
            st.lists(inner, max_size=3).map(lambda xs: n.ListLit(n.NOWHERE, tuple(xs))),
            st.tuples(names, st.lists(inner, max_size=2)).map(
                lambda t: n.Call(n.NOWHERE, n.Name(n.NOWHERE, t[0]), tuple(t[1]), ())),
            st.tuples(inner, names).map(lambda t: n.Attr(n.NOWHERE, t[0], t[1])),
        )
    return st.recursive(leaf, extend, max_leaves=12)


def strip(x):
    """Compare ASTs without spans."""
    if isinstance(x, tuple):
        return tuple(strip(i) for i in x)
    if isinstance(x, n.Expr):
        return (type(x).__name__,) + tuple(strip(v) for k, v in vars(x).items() if k != "span")
    return x


@settings(max_examples=300, deadline=None)
@given(exprs())
def test_printed_expressions_parse_back_to_the_same_tree(e):
    src = f"mechanic f() -> int = {expr_text(e)}"
    sf = parse_text(src, "rt.rules")
    assert strip(sf.items[0].result) == strip(e)


# --------------------------------------------------------------- checks
def test_unknown_name_has_did_you_mean(demo_books):
    err = errors_of(demo_books, 'rule r "R" {\n  mechanic f(penalty: 0..3) -> int = penalti + 1\n}\n')
    d = err.diagnostics[0]
    assert "unknown name 'penalti'" in d.message and "penalty" in d.hint
    assert d.line == 7 and d.source_line.strip().startswith("mechanic f")


def test_several_errors_are_reported_in_one_run(demo_books):
    err = errors_of(demo_books, '''rule r "R" {
  """See [[nowhere]]."""
  note musing "x"
  mechanic f(a: 1..3) -> int = b
}
rule r "Again" { """dup""" }
''')
    messages = " | ".join(d.message for d in err.diagnostics)
    assert "unknown note kind" in messages


def test_semantic_errors_are_collected_together(demo_books):
    err = errors_of(demo_books, '''rule r "R" {
  """See [[nowher]]."""
  mechanic f(a: 1..3) -> int = b
  mechanic g(a: 1..3) -> int = f(a, 2)
}
rule r "Again" { """dup""" }
rule s "S" { """[[other-book:x]]""" }
''')
    messages = [d.message for d in err.diagnostics]
    assert any("unknown rule 'nowher'" in m for m in messages)
    assert any("unknown name 'b'" in m for m in messages)
    assert any("takes at most 1 argument" in m for m in messages)
    assert any("duplicate id 'r'" in m for m in messages)
    assert any("unknown book 'other-book'" in m for m in messages)
    assert len(messages) >= 5


def test_reference_did_you_mean(demo_books):
    err = errors_of(demo_books, 'rule opposed-rolls "R" { """x""" }\nrule s "S" { """See [[oposed-rolls]].""" }\n')
    assert "opposed-rolls" in err.diagnostics[0].hint


def test_cross_book_reference_resolves(demo_books):
    write_book(demo_books, "t", 'rule s "S" { """See [[demo:dice-rolls]]." """ }\n'.replace('." ', '.'))
    assert rules_dsl.load("t").rule("s").node.prose[0].refs[0].book == "demo"


def test_rounds_mode_is_a_field_of_the_call_not_a_name(demo_books):
    from rules_dsl.language import nodes as n
    write_book(demo_books, "t", 'rule r "R" { mechanic f(a: 1..9) -> int = round(a / 2, up) + round(a / 2, down) }\n')
    book = rules_dsl.load("t")
    calls = [x for x in n.iter_nodes(book.compiled.ast.items) if isinstance(x, n.Call)]
    assert [(len(c.args), c.mode) for c in calls] == [(1, "up"), (1, "down")]
    assert not [x for x in book.compiled.syms.resolved if x.name in ("up", "down")]   # never resolved as names
    assert book.mechanics["f"](a=3) == 2 + 1
    from rules_dsl.language.render import expr_text
    assert expr_text(calls[0]) == "round(a / 2, up)"


@pytest.mark.parametrize("body,needle", [
    ("mechanic f(a: 1..3) -> int = round(a / 2, sideways)", "'sideways' is not a rounding mode"),
    ("mechanic f(a: 1..3) -> int = round(a / 2, 2)", "round() needs an explicit mode"),
    ("mechanic f(a: 1..3) -> int { let round = a  return round(a / 2, up) }",
     "round(..., up) needs the built-in round, hidden here by a local 'round'"),
])
def test_round_modes(demo_books, body, needle):
    err = errors_of(demo_books, 'rule r "R" { ' + body + ' }\n')
    assert needle in err.diagnostics[0].message, err.diagnostics[0].message


def test_round_needs_an_explicit_mode(demo_books):
    err = errors_of(demo_books, 'rule r "R" { mechanic f(a: 1..3) -> int = round(a / 2, nearest) }\n')
    assert "'nearest' is not a rounding mode" in err.diagnostics[0].message and "half_up" in err.diagnostics[0].hint


def test_table_cells_are_type_checked(demo_books):
    err = errors_of(demo_books, 'rule r "R" { table t(k: 1..3) -> 1..6 {\n | k | v |\n | 1 | 9 |\n } }\n')
    assert "does not fit" in err.diagnostics[0].message and err.diagnostics[0].line == 8


def test_header_must_match_file_name(demo_books):
    (demo_books / "t.rules").write_text('book other { title "x" }\n')
    with pytest.raises(RulebookError) as e:
        rules_dsl.load("t")
    assert "header says book 'other'" in e.value.diagnostics[0].message


def test_rulebook_text_is_never_executed_as_python(demo_books, tmp_path):
    marker = tmp_path / "pwned"
    body = f'rule r "R" {{ mechanic f() -> text = __import__("os").system("touch {marker}") }}\n'
    err = errors_of(demo_books, body)
    assert "unknown name '__import__'" in err.diagnostics[0].message
    assert not marker.exists()


def test_dunder_attributes_are_not_reachable(demo_books):
    err = errors_of(demo_books, 'rule r "R" { mechanic f() -> text = [1].__class__ }\n')   # caught at check time
    assert "'.__class__' reads a field, but this is a list" in err.diagnostics[0].message
    write_book(demo_books, "t", 'rule r "R" { mechanic f(x: list of int | absent) -> text = x.__class__ }\n')
    with pytest.raises(rules_dsl.EvaluationError):   # and at run time when the kind is not known before
        rules_dsl.load("t").f([1])


# --------------------------------------------------------------- cache
def test_edited_source_is_recompiled(demo_books):
    path = write_book(demo_books, "t", 'rule r "R" { mechanic f() -> int = 1 }\n')
    assert rules_dsl.load("t").f() == 1
    path.write_text(path.read_text().replace("= 1", "= 1 + 1"))
    assert rules_dsl.load("t").f() == 2


def test_decimal_literals_are_exact(demo_books):
    write_book(demo_books, "t", 'rule r "R" { mechanic f() -> number = 0.1 + 0.2 }\n')
    assert rules_dsl.load("t").f() == Fraction(3, 10)


def test_pool_count_call_needs_brackets_and_says_so():
    with pytest.raises(RulebookError) as e:
        parse_text("mechanic f(a: 1..3) -> int { roll w: g(a) of d6  return 1 }", "b.rules")
    assert "(f(a)) of d6" in e.value.diagnostics[0].hint


def test_independent_syntax_errors_in_one_file_are_all_reported():
    src = '''book b { title "x" }
section s "S" {
rule a "A" {
  mechanic f(a: 1..3) -> int = a +
}
rule c "C" {
  mechanic g(a: 1..3) -> int = a a
}
rule d "D" { """fine""" }
}
rule e "E" { mechanic h() -> int = [1, }
'''
    with pytest.raises(RulebookError) as e:
        parse_text(src, "m.rules")
    assert [d.line for d in e.value.diagnostics] == [5, 7, 11]
    assert "operator" in e.value.diagnostics[1].hint


@pytest.mark.parametrize("name", ["class", "rolls", "seed"])
def test_reserved_names_cannot_name_parameters_or_rolls(demo_books, name):
    err = errors_of(demo_books, f'rule r "R" {{ mechanic f({name}: 1..3) -> int = 1 }}\n')
    assert f"'{name}' cannot name a parameter" in err.diagnostics[0].message
    err = errors_of(demo_books, f'rule r "R" {{ mechanic f() -> int {{ roll {name}: d6  return 1 }} }}\n')
    assert f"'{name}' cannot name a roll" in err.diagnostics[0].message


# ------------------------------------------------------------ typing pass
@pytest.mark.parametrize("body,message", [
    ('rule r "R" { mechanic f(a: 1..6) -> bool = a + 1 }\n', "f is declared to return true/false, but its result is a number"),
    ('rule r "R" { mechanic f(a: 1..6) -> int = a + "x" }\n', "'+' needs numbers, but this is text"),
    ('rule r "R" { mechanic f(a: 1..6) -> int = a.value }\n', "'.value' reads a field, but this is a number"),
    ('rule r "R" { mechanic f(a: bool) -> bool = a < 3 }\n', "'<' needs numbers, but this is true/false"),
    ('rule r "R" { mechanic f(a: 1..6) -> int = a\n mechanic g() -> int = f(true) }\n', "f()'s 'a' must be a number, but it is true/false"),
    ('rule r "R" { enum e { x, y }\n mechanic f() -> int = x }\n', "f is declared to return a number, but its result is a member of e"),
    ('rule r "R" { table t(k: 1..2) -> (cost: int) {\n | k | cost |\n | 1 | 2 |\n | 2 | 3 |\n }\n'
     ' mechanic f() -> int = t(1).price }\n', "the record has no field 'price'"),
    ('rule r "R" { mechanic f() -> int {\n roll d: dust\n return d + 1 }\n }\n', "'+' needs numbers, but this is a face of dust"),
    ('rule r "R" { mechanic f(xs: list of int) -> int = -xs }\n', "'-' needs numbers, but this is a list"),
    ('rule r "R" { mechanic f(a: 1..6) -> list of int = a }\n', "f is declared to return a list, but its result is a number"),
])
def test_typing_pass_reports_at_check_time(demo_books, body, message):
    err = errors_of(demo_books, body)
    assert any(message in d.message for d in err.diagnostics), [d.message for d in err.diagnostics]
    assert all(d.line >= 6 for d in err.diagnostics)


@pytest.mark.parametrize("body", [
    'rule r "R" { mechanic f(a: 1..6, b: int | absent) -> int | absent = if is_absent(b) then absent else a + b }\n',
    'rule r "R" { enum e { x, y }\n enum g { x, z }\n mechanic f(v: g) -> bool = v == z\n mechanic h() -> bool = f(e.x) }\n',
    'rule r "R" { enum e { x, y }\n mechanic f(v: e) -> bool = v == x\n mechanic h() -> bool = f("x") }\n',
    'rule r "R" { mechanic f(xs: list of int) -> list of int = [0] + xs }\n',
    'rule r "R" { mechanic f() -> list of int = 1..3 }\n',
    'rule r "R" { table t(k: 1..2) -> (cost: int) {\n | k | cost |\n | 1 | 2 |\n | 2 | 3 |\n }\n'
    ' mechanic f() -> int = sum([row.cost + low(row.k) for row in rows(t)]) }\n',
])
def test_typing_pass_accepts_what_runs(demo_books, body):
    write_book(demo_books, "t", body)
    rules_dsl.load("t")


@pytest.mark.parametrize("body,kind", [
    ('rule r "R" { enum e { absent, x } }\n', "a member of enum 'e'"),
    ('rule r "R" { enum e { x, true } }\n', "a member of enum 'e'"),
    ('rule r "R" { mechanic f(false: int) -> int = 1 }\n', "a parameter"),
])
def test_true_false_and_absent_cannot_be_declared(demo_books, body, kind):
    err = errors_of(demo_books, body)
    assert any("is a value of the language and cannot name " + kind in d.message for d in err.diagnostics), \
        [d.message for d in err.diagnostics]


def test_duplicates_point_at_the_first_declaration(demo_books):
    err = errors_of(demo_books, 'rule r "R" { const a = 1\n const a = 2 }\n')
    (d,) = [d for d in err.diagnostics if "already declared" in d.message]
    assert d.severity == "error" and d.line == 7
    (rel,) = d.related
    assert (rel.line, rel.message) == (6, "first declared here, as a const")
    assert "= note: first declared here, as a const at" in d.render() and ": error: " in d.render()


def test_an_unused_let_or_roll_is_a_warning_not_an_error(demo_books, tmp_path):
    write_book(demo_books, "t", 'rule r "R" { mechanic f(x: 1..6) -> int {\n let y = x + 1\n roll d: d6\n return x }\n}\n')
    book = rules_dsl.load("t")
    assert book.f(3) == 3
    msgs = [(w.severity, w.line, w.message) for w in book.warnings]
    assert msgs == [("warning", 7, "'y' (let) is never used in f"), ("warning", 8, "'d' (roll) is never used in f")]
    import json
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "rules_dsl", "check", "t", "--json"], capture_output=True, text=True)
    assert p.returncode == 0
    report = json.loads(p.stdout)
    assert [w["message"] for w in report["warnings"]] == ["'y' (let) is never used in f", "'d' (roll) is never used in f"]
    assert report["warnings"][0]["severity"] == "warning" and report["warnings"][0]["line"] == 7


def test_semantic_checks_run_despite_tree_builder_errors(demo_books):
    # an unknown note kind (found by the tree builder) and an unknown name (a semantic pass): one run, both
    err = errors_of(demo_books, 'rule r "R" {\n note sidenote "x"\n mechanic f() -> int = nope\n}\n')
    msgs = [d.message for d in err.diagnostics]
    assert any("unknown note kind 'sidenote'" in m for m in msgs) and any("unknown name 'nope'" in m for m in msgs)


@pytest.mark.parametrize("body,hint", [
    ('rule my_rule "R" { """x""" }\n', "ids are kebab-case"),
    ('rule MyRule "R" { """x""" }\n', "ids are kebab-case"),
    ('rule r "R" { mechanic roll-dice() -> int = 1 }\n', "snake_case names"),
    ('rule r "R" { mechanic f(): int = 1 }\n', "result type follows '->'"),
    ("rule r 'R' { }\n", "strings use double quotes"),
    ('rule r "R" { mechanic f(x: int) -> bool = x == 1 == 2 }\n', "comparisons do not chain"),
    ('rule r "R" { mechanic f(a: bool) -> bool = a && true }\n', "write 'and' / 'or'"),
    ('rule r "R" { mechanic f(a: int) -> bool = a = 1 }\n', "compare with '=='"),
])
def test_syntax_errors_teach(demo_books, body, hint):
    err = errors_of(demo_books, body)
    assert hint in err.diagnostics[0].hint, err.diagnostics[0].render()
    assert "__ANON" not in err.render()


@pytest.mark.parametrize("book_id", rules_dsl.book_ids())
def test_every_name_of_the_real_books_resolves_once(book_id):
    """The resolution map covers every name occurrence, and agrees with what the compiled book holds."""
    from rules_dsl.language import nodes as n
    from rules_dsl.analysis.resolve import KINDS
    book = rules_dsl.load(book_id)
    resolved = book.compiled.syms.resolved
    assert resolved and all(r.kind in KINDS[:-2] for r in resolved.values())
    for name, r in resolved.items():
        assert isinstance(name, n.Name) and name.name == r.name
        if r.kind == "mechanic":
            assert r.name in book.mechanics
        elif r.kind == "table":
            assert r.name in book.tables
        elif r.kind == "const":
            assert r.name in book.constants
        elif r.kind == "member":
            assert r.owner in book.enums or r.owner in book.dice


def test_resolution_follows_scope(demo_books):
    write_book(demo_books, "t", 'rule r "R" { enum e { x, y }\n const k = 1\n'
                                ' mechanic f(k: int) -> int = k + len([x for x in [1]]) + (if x == x then 0 else 1)\n}\n')
    resolved = rules_dsl.load("t").compiled.syms.resolved
    kinds = sorted((name.span.column, r.kind) for name, r in resolved.items() if name.name in ("k", "x"))
    # the parameter k shadows the constant; the comprehension's x shadows the member; outside it, x is the member
    assert [k for _, k in kinds] == ["local", "local", "member", "member"]


def test_a_member_named_like_a_builtin_is_a_value_but_calls_reach_the_builtin(demo_books):
    """resolve_callee: in a call, the built-in wins over an enum member of the same name;
    as a bare name, the member wins. Checks, typing, compiler and odds agree."""
    write_book(demo_books, "t", 'rule r "R" { enum e { max, low }\n'
                                ' mechanic f(a: 1..6) -> int = max(a, 3)\n'
                                ' mechanic g() -> e = max\n'
                                ' mechanic h() -> int { roll d: d6  return max(d, 4) }\n}\n')
    book = rules_dsl.load("t")
    kinds = {(name.span.column, r.kind) for name, r in book.compiled.syms.resolved.items() if name.name == "max"}
    assert sorted(k for _, k in kinds) == ["builtin", "builtin", "member"]
    assert book.mechanics["f"](a=5) == 5 and book.mechanics["f"](a=1) == 3
    assert str(book.mechanics["g"]()) == "max"
    from fractions import Fraction
    from rules_dsl.odds import distribution
    assert distribution(book.mechanics["h"]).outcomes == [(4, Fraction(4, 6)), (5, Fraction(1, 6)), (6, Fraction(1, 6))]


def test_calling_an_enum_member_is_a_diagnostic_not_a_runtime_error(demo_books):
    err = errors_of(demo_books, 'rule r "R" { enum e { x, y }\n mechanic f() -> int = x(1) }\n')
    assert "'x' cannot be called" in err.diagnostics[0].message


def test_table_keys_can_be_signed_ranges(demo_books):
    write_book(demo_books, "t", 'rule r "R" { table mods(k: -9..9) -> int {\n | k | v |\n | -9..-2 | 1 |\n'
                                ' | -1..9 | 2 |\n }\n mechanic f(k: -9..9) -> int = mods(k) }\n')
    book = rules_dsl.load("t")
    assert [book.mechanics["f"](k=k) for k in (-9, -2, -1, 9)] == [1, 1, 2, 2]


LOOKED_UP = ' mechanic f(k: {keytype}) -> int = t(k)\n'


# the table is on line 7 of the written book, its rows from line 9: a missing row is
# reported where it goes (before the row that follows it, or after the last row)
@pytest.mark.parametrize("rows,keytype,needle,line", [
    ("| 1..3 | 1 |\n | 5..6 | 2 |", "1..6", "table t has no row for k=4: it goes before this row", 10),  # a gap
    ("| 1 | 1 |\n | 2 | 2 |", "1..3", "table t has no row for k=3: it goes after this row", 10),     # a missing row
    ("| 1..4 | 1 |\n | 4..6 | 2 |", "1..6", "table t: this row repeats k=4", 10),         # overlapping ranges
    ("| a | 1 |\n | a | 2 |\n | b | 3 |", "e", "table t: this row repeats k=a", 10),       # a duplicated key
    ("| a | 1 |", "e", "table t has no row for k=b: it goes after this row", 9),           # an enum member left out
    ("| b | 1 |", "e", "table t has no row for k=a: it goes before this row", 9),          # in the enum's order
])
def test_table_rows_cover_each_key_once(demo_books, rows, keytype, needle, line):
    src = (f'rule r "R" {{ enum e {{ a, b }}\n table t(k: {keytype}) -> int {{\n | k | v |\n {rows}\n }}\n'
           + LOOKED_UP.format(keytype=keytype) + '}\n')
    err = errors_of(demo_books, src)
    (d,) = [d for d in err.diagnostics if needle in d.message]
    assert d.line == line, (d.line, line)
    assert d.hint


def test_a_table_only_listed_by_rows_may_print_one_example(demo_books):
    """A record of what the source prints (one worked example) is not looked up in play."""
    write_book(demo_books, "t", 'rule r "R" { table printed(level: 1..20) -> 0..20 {\n | level | v |\n | 6 | 6 |\n }\n'
                                ' check c "C" { for row in rows(printed): row.value == row.level }\n}\n')
    assert rules_dsl.load("t").tables["printed"](6) == 6


def test_a_rule_id_equal_to_a_table_name_is_a_diagnostic(demo_books):
    err = errors_of(demo_books, 'rule mods "Modifiers" { table mods(k: 1..2) -> int {\n | k | v |\n | 1..2 | 0 |\n }\n}\n')
    (d,) = err.diagnostics
    assert "table 'mods' has the same name as the rule id 'mods'" in d.message and "t:mods" in d.hint
    assert d.related and "the rule 'mods' is here" in d.related[0].message


COMBINED = ('rule r "R" {\n mechanic hit(n: 1..10) -> int { roll hit_dice: n of d6  return count(d for d in hit_dice if d >= 4) }\n'
            ' mechanic attack(n: 1..10) -> int { let h = hit(n)  roll save: d6  return if save >= 5 then 0 else h }\n}\n')


def test_a_called_mechanics_roll_is_given_by_the_name_a_call_prints(demo_books):
    from fractions import Fraction
    from rules_dsl.errors import NotFound
    from rules_dsl.odds import distribution
    write_book(demo_books, "t", COMBINED)
    attack = rules_dsl.load("t").mechanics["attack"]
    result, made = attack.run(n=3, seed=1)
    assert set(made) == {"hit.hit_dice", "save"}                      # the names a call prints
    assert attack(n=3, save=1, **{"hit.hit_dice": [4, 5, 1]}) == 2
    assert attack(n=3, rolls={"hit.hit_dice": [6, 6, 6], "save": 6}) == 0
    d = distribution(attack, n=3, **{"hit.hit_dice": [4, 4, 1]})
    assert d.outcomes == [(0, Fraction(1, 3)), (2, Fraction(2, 3))]   # only the save is rolled
    with pytest.raises(NotFound, match="did you mean 'hit.hit_dice'"):
        attack(n=3, **{"hit.hitdice": [4, 4, 4]})


ODDS_RULE = ('rule attack "Attack" {\n """Roll to hit."""\n'
             ' mechanic hits(n: 1..10, target: 2..6 = 4) -> int { roll dice: n of d6  return count(d for d in dice if d >= target) }\n'
             ' mechanic flat(n: 1..10) -> int = n\n odds hits(n=3)\n LINE\n}\n')


def test_odds_lines_choose_the_inputs_of_a_mechanics_page(demo_books):
    from fractions import Fraction
    from rules_dsl.odds import page_odds
    write_book(demo_books, "t", ODDS_RULE.replace("LINE", "odds hits(n=3, target=5)"))
    book = rules_dsl.load("t")
    shown = page_odds(book.mechanics["hits"])
    assert [inp for inp, _ in shown] == [{"n": 3, "target": 4}, {"n": 3, "target": 5}]   # those, in order
    assert [d.mean for _, d in shown] == [Fraction(3, 2), Fraction(1)]
    assert book.rule("attack").node.odds[0].call.func.name == "hits"


@pytest.mark.parametrize("line,needle", [
    ("odds flat(n=3)", "'flat' rolls no dice, so it has no odds to show"),
    ("odds hitz(n=3)", "'hitz' is not a mechanic of this book"),
    ("odds hits(n=30)", "hits() gets 30 for 'n'; allowed: 1..10"),
    ("odds hits(n=1+2)", "an `odds` input must be a value, not a computation"),
    ("odds 3", "`odds` takes a call of a dice mechanic"),
    ("odds hits(m=3)", "hits() has no parameter or roll 'm'"),
])
def test_odds_lines_are_checked(demo_books, line, needle):
    err = errors_of(demo_books, ODDS_RULE.replace("LINE", line))
    assert any(needle in d.message for d in err.diagnostics), [d.message for d in err.diagnostics]
