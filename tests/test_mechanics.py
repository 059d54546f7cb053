"""Compiled mechanics: signatures, validation, rolls, tables, checks and examples."""
from __future__ import annotations

import inspect
from decimal import ROUND_HALF_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl.language.builtins import BUILTINS
from rules_dsl.errors import EvaluationError, InputError, NotFound, RulebookError

from conftest import write_book


def test_mechanics_are_real_callables_with_signature_and_docstring(demo):
    needed = demo.mechanics["needed"]
    sig = inspect.signature(needed)
    assert list(sig.parameters) == ["yours", "opposed", "penalty"]
    assert sig.parameters["penalty"].default == 0
    assert needed.__doc__.startswith("doc") and "yours: 1..10" in needed.__doc__
    assert list(inspect.signature(demo.defence).parameters) == ["defence", "hits", "dice"]
    assert inspect.signature(demo.defence).parameters["dice"].kind is inspect.Parameter.KEYWORD_ONLY


def test_out_of_range_input_names_parameter_value_and_range(demo):
    with pytest.raises(InputError) as e:
        demo.needed(11, 3)
    assert (e.value.param, e.value.value, e.value.allowed) == ("yours", 11, "1..10")
    assert "parameter 'yours' got 11; allowed: 1..10" in str(e.value)
    with pytest.raises(InputError, match="opposed"):
        demo.needed(3, True)
    with pytest.raises(InputError, match="needs a value"):
        demo.needed(3)


def test_unknown_keyword_is_named_with_suggestion(demo):
    with pytest.raises(NotFound, match="did you mean 'penalty'"):
        demo.needed(3, 3, penaltty=1)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(yours=st.integers(1, 10), opposed=st.integers(1, 10), penalty=st.integers(0, 5))
def test_needed_is_monotone(demo, yours, opposed, penalty):
    book = demo

    def score(y, o, p):
        v = book.needed(y, o, p)
        return {"auto": 1, "never": 7}.get(v, v)
    s = score(yours, opposed, penalty)
    if yours < 10:
        assert score(yours + 1, opposed, penalty) <= s
    if opposed < 10:
        assert score(yours, opposed + 1, penalty) >= s


def test_given_rolls_are_used_and_validated(demo):
    assert demo.defence(6, 2, dice=[4, 10]) == ["ignored", "out_of_action"]
    with pytest.raises(EvaluationError, match="2 x d10, but 1 value"):
        demo.defence(6, 2, dice=[4])
    with pytest.raises(EvaluationError, match="not a face"):
        demo.defence(6, 1, dice=[11])
    with pytest.raises(NotFound, match="unknown roll 'dize'"):
        demo.mechanics["defence"].run(6, 1, rolls={"dize": [1]})


def test_seeded_rolls_repeat(demo):
    a = demo.mechanics["sustained"].run(10, seed=7)
    b = demo.mechanics["sustained"].run(10, seed=7)
    assert a == b
    result, rolls = a
    assert set(rolls) == {"first", "second"} and len(rolls["first"]) == 10
    assert result == sum(f == "army" for f in rolls["first"] + rolls["second"])


def test_chain_given_as_sequence_or_total(demo):
    assert demo.laser(c=["target", "army", "shield"]) == 2
    assert demo.laser(c=["shield"]) == 0
    assert demo.laser(c=3) == 3
    with pytest.raises(EvaluationError, match="ends on a success"):
        demo.laser(c=["army"])
    with pytest.raises(EvaluationError, match="first miss"):
        demo.laser(c=["army", "target", "army", "shield"])  # target misses after the first roll


def test_brute_force_defence_outcomes_over_all_faces(demo):
    counts = {}
    for face in range(1, 11):
        (out,) = demo.defence(5, 1, dice=[face])
        counts[out] = counts.get(out, 0) + 1
    assert counts == {"ignored": 5, "pinned": 2, "out_of_action": 3}  # 7, 9 odd; 6, 8, 10 even


def test_result_type_is_enforced(demo_books):
    # the declared ranges cannot bound a list's sum: checked when the mechanic runs
    write_book(demo_books, "t", 'rule r "R" { mechanic f(a: list of int) -> 1..2 = sum(a) }\n')
    book = rules_dsl.load("t")
    assert book.f([1, 1]) == 2
    with pytest.raises(EvaluationError, match="not 1..2 as declared"):
        book.f([1, 2])


def test_a_result_the_ranges_prove_outside_the_declared_type_is_an_error_before_it_runs(demo_books):
    write_book(demo_books, "t", 'rule r "R" { mechanic f(a: 1..3) -> 1..2 = a }\n')
    with pytest.raises(RulebookError) as e:
        rules_dsl.load("t")
    (d,) = e.value.diagnostics
    assert d.message == "f can give 3, outside its declared result 1..2: with a = 3"


def test_tables_with_ranges_records_absent_and_grid(demo_books):
    write_book(demo_books, "t", '''rule r "R" {
  enum grade { light, heavy }
  table vp(points: 1..3000) -> int {
    | points | vp |
    | 1..500 | 1 |
    | 501..1000 | 2 |
  }
  table profiles(unit: text) -> (w: 1..10, armour: 2..6, grade: grade) {
    | unit | W | A | G |
    | "Knights" | 5 | 3 | heavy |
    | "Ghosts" | 4 | absent | light |
  }
  mechanic armour_of(unit: text) -> 2..6 | bool = or_else(profiles(unit).armour, false)
}
''')
    book = rules_dsl.load("t")
    assert book.vp(500) == 1 and book.vp(501) == 2
    with pytest.raises(EvaluationError, match="no row for points=2000"):
        book.vp(2000)
    with pytest.raises(InputError):
        book.vp(0)
    assert book.profiles("Knights").grade == "heavy" and repr(book.profiles("Ghosts").armour) == "absent"
    assert book.armour_of("Ghosts") is False and book.armour_of("Knights") == 3
    assert [r.unit for r in book.tables["profiles"].rows()] == ["Knights", "Ghosts"]
    assert demo_books and rules_dsl.load("demo").chart(2, 1) == 3


def test_checks_report_findings_with_cases(demo):
    value, f = demo.findings
    assert (f.book, f.rule, f.kind) == ("demo", "opposed-stat-rolls", "check-summary")
    assert "y=2, o=2" in f.message and f.location.endswith(":25:5")
    # the one wrong printed value: the grid cell the claim read (row 2, column 2), on its own line
    assert (value.kind, value.rule, value.check, value.cases) == ("disagreement", "opposed-stat-rolls",
                                                                  "chart_is_formula", f.cases)
    assert value.location.endswith("demo.rules:19:17") and value.printed == "chart(yours=2, opposed=2)"


def test_examples_run_and_fail_visibly(demo_books):
    write_book(demo_books, "t", 'rule r "R" {\n mechanic f() -> int = 1\n example """\n >>> f()\n 2\n """\n}\n')
    (res,) = rules_dsl.load("t").run_examples()
    assert not res.passed
    assert res.report.split("\n")[:5] == [
        f"{demo_books / 't.rules'}:9:6: this example fails",
        "   9 | >>> f()",
        "     |     ^",
        "    expected: 2",
        "    got:      1"]
    assert "write '1' as the expected line" in res.report.split("\n")[5]   # the value that passes
    assert res.location.endswith("t.rules:9")


def _py_round(x: Fraction, mode):
    d = Decimal(x.numerator) / Decimal(x.denominator)
    import math
    if mode == "up":
        return math.ceil(x)
    if mode == "down":
        return math.floor(x)
    rounding = {"half_up": ROUND_HALF_UP, "half_down": ROUND_HALF_DOWN, "half_even": ROUND_HALF_EVEN}[mode]
    return int(d.quantize(Decimal(1), rounding=rounding))


@given(st.fractions(min_value=0, max_value=1000, max_denominator=12),
       st.sampled_from(["up", "down", "half_up", "half_down", "half_even"]))
def test_round_modes_agree_with_decimal(x, mode):
    assert BUILTINS["round"][0](x, mode) == _py_round(x, mode)


def test_exact_arithmetic_and_rational_printing(demo_books):
    write_book(demo_books, "t", 'rule r "R" { mechanic half(x: int) -> number = x / 2 }\n')
    book = rules_dsl.load("t")
    assert book.half(4) == 2 and isinstance(book.half(4), int)
    assert repr(book.half(7)) == "7/2"


def test_book_api(demo):
    assert [r.id for r in demo.rules] == ["opposed-stat-rolls", "dice-rolls"]
    assert demo.rule("dice-rolls").section == "The Basics"
    assert demo.rule_of("needed") == "opposed-stat-rolls"
    assert demo.notes[0][1].kind == "erratum"
    with pytest.raises(NotFound, match="did you mean 'dice-rolls'"):
        demo.rule("dice-roll")
    assert rules_dsl.book_ids() == ["demo"]


def test_absent_as_a_type_and_range_key_builtins(demo_books):
    write_book(demo_books, "t", '''rule r "R" {
  table vp(points: 1..3000) -> int {
    | points | vp |
    | 1..500 | 1 |
    | 501 | 2 |
  }
  mechanic door(grade: 1..3) -> 5..20 | absent = if grade == 3 then absent else 10 + grade
  check keys_partition "Bands are contiguous" {
    for p in 1..501: count(r for r in rows(vp) if covers(r.points, p)) == 1
  }
  mechanic bounds() -> list of int = [low(r.points) for r in rows(vp)] + [high(r.points) for r in rows(vp)]
}
''')
    book = rules_dsl.load("t")
    assert book.door(1) == 11 and repr(book.door(3)) == "absent"
    assert book.findings == []
    assert book.bounds() == [1, 501, 500, 501]


def test_a_mechanic_can_give_a_callees_roll_by_name(demo_books):
    write_book(demo_books, "t", '''rule r "R" {
  mechanic save(level: 0..3) -> bool {
    roll die: d10
    return die + level >= 10
  }
  mechanic faces_that_save(level: 0..3) -> int = count(f for f in 1..10 if save(level, die=f))
  mechanic half(x: number) -> number = x / 2
}
''')
    book = rules_dsl.load("t")
    assert [book.faces_that_save(k) for k in range(4)] == [1, 2, 3, 4]
    assert book.half(9.5) == Fraction(19, 4)


def test_a_name_cannot_be_both_a_mechanic_and_an_enum_member(demo_books):
    write_book(demo_books, "t", 'rule r "R" {\n enum kind { morale_check }\n mechanic morale_check() -> int = 1\n}\n')
    with pytest.raises(rules_dsl.RulebookError, match="names a mechanic and also a member of kind"):
        rules_dsl.load("t")


def test_where_guards_later_bindings(demo_books):
    write_book(demo_books, "t", '''rule r "R" {
  table price(item: text) -> int | absent {
    | item | gc |
    | "a" | 3 |
    | "b" | absent |
  }
  mechanic doubled(gc: int) -> int = gc * 2
  check doubles "Doubled prices are even" {
    for row in rows(price), d in [doubled(row.value)] where not is_absent(row.value): even(d)
  }
}
''')
    book = rules_dsl.load("t")
    assert book.findings == []


def test_rows_remember_where_they_are_printed_without_changing_equality(demo):
    import pickle
    from rules_dsl.compiler import Ctx, origin
    from rules_dsl.language.values import Record
    t = demo.tables["chart"]
    rows = t.rows()
    first = rows[0]
    plain = Record(first.as_dict())
    assert first == plain and hash(first) == hash(plain) and repr(first) == repr(plain)
    assert pickle.loads(pickle.dumps(first)) == plain and origin(pickle.loads(pickle.dumps(first))) is None
    o = origin(first)
    assert (o.table, o.span.line, o.keys) == ("chart", 18, (1, 1))
    assert [origin(r).span.line for r in rows] == [18, 18, 19, 19]     # a grid: one entry per cell
    # a lookup records where its value is printed only in a context that asks for it
    reads = []
    assert t.read(reads, 2, 2) == 6 and reads == [t.printed(3)]
    assert Ctx(None).reads is None and Ctx(None, reads=[]).child("m").reads is None
