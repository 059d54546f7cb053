"""Issue 38: `rules check` passed books that crashed later.  Each defect, before anything runs:

* an argument outside the called mechanic's declared range (`saves(hits(shots))`, with
  hits able to give 10 and saves taking 0..6), at the argument, with the inputs that do
  it (a proof: the mechanic analysed again with them pinned) and the fix;
* a layer's change that pushes a result out of its declared range, at the change;
* a cycle of calls no longer hides the ranges pass (both errors in one run);
* an exploding roll's implicit limit of 20 extra dice past the 1000 dice a roll takes;
* no false errors: what the intervals cannot prove is not said (two shapes from the
  real books), and every input a report names gives the value it says (hypothesis,
  checked by running the mechanic with those inputs).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import rules_dsl
from rules_dsl.errors import RulebookError

from conftest import write_book
from test_ranges import EXPRS, RANGES

SAVES = ('rule r "R" {\n'
         ' mechanic hits(shots: 1..10) -> 0..10 {\n'
         '  roll d: shots of d6\n'
         '  return count(x for x in d if x >= 4)\n'
         ' }\n'
         ' mechanic saves(hits: 0..HIGH) -> int {\n'
         '  roll s: hits of d6\n'
         '  return count(x for x in s if x >= 5)\n'
         ' }\n'
         ' mechanic attack(shots: 1..10) -> int = saves(hits(shots))\n'
         '}\n')


def errors(demo_books, body, name="t"):
    write_book(demo_books, name, body)
    with pytest.raises(RulebookError) as e:
        rules_dsl.load(name)
    return e.value.diagnostics


def cli(args, books, cache):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200", RULES_DSL_BOOKS=str(books), RULES_DSL_CACHE=str(cache))
    return subprocess.run([sys.executable, "-m", "rules_dsl", *args], capture_output=True, text=True, env=env,
                          timeout=600)


# ------------------------------------------------------------------ 1. arguments of calls
def test_an_argument_a_call_can_push_out_of_range_is_an_error_at_the_call(demo_books):
    (d,) = errors(demo_books, SAVES.replace("HIGH", "6"))
    assert d.message == ("with shots = 10 and every die of hits's roll d showing 6, hits(shots) gives 10, "
                         "but saves takes hits 0..6")
    assert (d.line, d.column) == (15, 47) and d.source_line.strip().startswith("mechanic attack")
    assert "^" in d.render()
    assert "hits: 0..10 in saves" in d.hint and "min(hits(shots), 6)" in d.hint


def test_the_inputs_the_call_report_names_do_give_that_value(demo_books):
    """The proof is checked by running: with the parameter widened, hits(10) with every
    die a 6 gives 10, the value the report says saves cannot take."""
    write_book(demo_books, "t", SAVES.replace("HIGH", "10"))
    book = rules_dsl.load("t")
    assert book.mechanics["hits"](10, d=[6] * 10) == 10
    assert book.mechanics["saves"](10, s=[5] * 10) == 10


def test_a_call_the_range_allows_is_not_reported(demo_books):
    write_book(demo_books, "t", SAVES.replace("HIGH", "10"))
    assert rules_dsl.load("t").warnings == []


def test_what_the_intervals_cannot_decide_is_not_said(demo_books):
    """Two shapes of the real books (null-strike's poison, void's clear points): the
    interval of the argument goes outside, no run does; nothing is reported."""
    write_book(demo_books, "t", 'rule r "R" {\n'
               ' mechanic extra(clear: 0..30) -> 0..15 = floor(clear / 2)\n'
               ' mechanic shot(needed: 1..20) -> 0..15 {\n  roll die: d10\n'
               '  return if die < needed then 0 else extra(die - needed)\n }\n'
               ' mechanic easier(limit: 2..7) -> 2..7 = limit\n'
               ' mechanic poisoned(poison: 0..6) -> 2..7 {\n  require poison != 1 "no 1+ poison"\n'
               '  return easier(if poison > 0 then poison else 7)\n }\n'
               '}\n')
    book = rules_dsl.load("t")
    assert book.warnings == []
    assert book.mechanics["shot"](3, die=10) == 3 and book.mechanics["poisoned"](2) == 2


def test_an_argument_always_outside_is_an_error(demo_books):
    (d,) = errors(demo_books, 'rule r "R" {\n mechanic g(x: 0..3) -> int = x\n'
                              ' mechanic f(n: 5..9) -> int = g(n * 2)\n}\n')
    assert d.message == "n * 2 is always outside what g takes x 0..3: it is between 10 and 18"
    assert (d.line, d.column) == (8, 33) and d.source_line[32:37] == "n * 2"


def test_a_result_a_pool_pushes_out_of_range_is_found_with_its_dice(demo_books):
    """No single witness reaches a pool's count: the pinned dice do."""
    (d,) = errors(demo_books, 'rule r "R" { mechanic hits(n: 1..10) -> 0..6 {\n roll d: n of d6\n'
                              ' return count(x for x in d if x >= 4) }\n}\n')
    assert d.message == ("hits can give 10, outside its declared result 0..6: with n = 10 and every die of "
                         "the roll d showing 6")
    assert "-> 0..10" in d.hint


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                    HealthCheck.function_scoped_fixture])
@given(expr=EXPRS, ra=RANGES, rb=RANGES, lo=st.integers(-3, 2), span=st.integers(0, 4))
def test_every_argument_reported_is_real(tmp_path_factory, expr, ra, rb, lo, span):
    """An argument reported "with a = .. and the roll die showing .., EXPR gives V" is V
    when the expression runs with those inputs: the proof never guesses."""
    folder = tmp_path_factory.mktemp("args")
    lib = rules_dsl.Library(folder, cache=folder / "cache")
    head = 'book p {\n  title "P"\n  dice d6\n}\n'
    body = (f'rule r "R" {{ mechanic g(x: {lo}..{lo + span}) -> number = x\n'
            f' mechanic f(a: {ra[0]}..{ra[1]}, b: {rb[0]}..{rb[1]}) -> number {{\n'
            f'  roll die: d6\n  return g({expr})\n}} }}\n')
    try:
        lib.loads(head + body, "p.rules")
        return
    except RulebookError as e:
        diags = [d for d in e.diagnostics if "but g takes x" in d.message]
    assume(diags)
    m = re.match(r"with (.*?), .* gives (-?[0-9/]+), but g takes x", diags[0].message)
    assert m, diags[0].message
    value = Fraction(m.group(2))
    inputs = {"a": ra[0], "b": rb[0], "die": 1}
    for part in m.group(1).split(" and "):
        pm = re.match(r"(?:the roll )?(\w+)(?: =| showing) (-?\d+)$", part)
        assert pm, part
        inputs[pm.group(1)] = int(pm.group(2))
    loose = head + body.replace(f"g(x: {lo}..{lo + span})", "g(x: number)")
    book = rules_dsl.Library(folder, cache=folder / "cache2").loads(loose, "p.rules")
    assert book.mechanics["f"](inputs["a"], inputs["b"], die=inputs["die"]) == value, (expr, inputs)


# ------------------------------------------------------------------ 2. a layer's change
BASE = ('book lb {\n  title "LB"\n  dice d6\n}\n'
        'rule r "R" {\n const bonus = 1\n mechanic save(a: 2..5) -> 2..6 = a + bonus\n'
        ' example "Saves" """\n    >>> save(5)\n    6\n    """\n}\n')


def test_a_layer_that_pushes_a_result_out_of_range_is_reported_at_its_change(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    (books / "lb.rules").write_text(BASE)
    layer = books / "lb+h.rules"
    layer.write_text('layer h on lb {\n  title "LB house"\n}\nchange bonus to 3\nbecause "tougher"\n')
    with pytest.raises(RulebookError) as e:
        rules_dsl.Library(books, cache=tmp_path / "cache").load("lb+h")
    (d,) = e.value.diagnostics
    assert (d.file, d.line, d.column) == (str(layer), 4, 1)
    assert d.message == "after this change (change bonus to 3), save can give 8, outside its declared result 2..6: with a = 5"
    assert "widen the declared result after '->' (-> 2..8)" in d.hint and "Error:" not in d.hint
    assert [(r.file, r.line) for r in d.related] == [(str(books / "lb.rules"), 7)]
    p = cli(["check", "lb+h"], books, tmp_path / "cache")
    assert p.returncode != 0 and f"{layer}:4:1: error: after this change" in p.stdout + p.stderr
    assert "write 'Error:" not in p.stdout + p.stderr


def test_a_layer_that_replaces_a_mechanic_with_an_exploding_pool_is_caught(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    (books / "lb.rules").write_text(BASE.replace(' example "Saves"', ' mechanic hits(n: 1..6) -> 0..6 {\n'
                                                 '  roll d: n of d6\n  return count(x for x in d if x >= 4)\n }\n'
                                                 ' example "Saves"'))
    layer = books / "lb+p.rules"
    layer.write_text('layer p on lb {\n  title "LB pool"\n}\nreplace mechanic hits(n: 1..6) -> 0..6 {\n'
                     '  roll d: n of d6 explode on {6}\n  return count(x for x in d if x >= 4)\n}\n'
                     'because "sixes explode"\n')
    with pytest.raises(RulebookError) as e:
        rules_dsl.Library(books, cache=tmp_path / "cache").load("lb+p")
    (d,) = e.value.diagnostics
    assert d.file == str(layer) and d.line == 6
    assert d.message.startswith("hits can give 21, outside its declared result 0..6: with n = 1 and every die")


# ------------------------------------------------------------------ 3. one error does not hide another
def test_a_cycle_of_calls_does_not_hide_a_negative_dice_count(demo_books):
    diags = errors(demo_books, 'rule r "R" {\n mechanic morale(n: 2..12) -> bool = test(n)\n'
                               ' mechanic test(n: 2..12) -> bool {\n  roll d: 2d6\n'
                               '  return sum(d) <= n or morale(n)\n }\n'
                               ' mechanic f(n: 1..3) -> int {\n  roll x: (n - 5) of d6\n  return sum(x)\n }\n}\n')
    assert [d.message for d in diags] == [
        "mechanic 'morale' calls itself through morale -> test -> morale: an evaluation of it never ends",
        "roll 'x': the number of dice, n - 5, is always negative (between -4 and -2)"]


# ------------------------------------------------------------------ 4. implicit limits
def test_an_exploding_roll_past_the_implicit_limit_is_an_error_at_the_dice(demo_books):
    (d,) = errors(demo_books, 'rule r "R" { mechanic boom(n: 1..1000) -> int {\n'
                              ' roll x: n of d6 explode on {6}\n return sum(x) }\n}\n')
    assert d.message.startswith("roll 'x': n dice and 20 extra can be more than 1000 in all: 1020 with n = 1000")
    assert "without 'up to', an exploding roll adds up to 20 extra dice" in d.message
    assert "up to (min(20, 1000 - n))" in d.hint
    assert (d.line, d.column) == (7, 10)


def test_the_limit_written_as_the_hint_says_passes_and_runs(demo_books):
    write_book(demo_books, "t", 'rule r "R" { mechanic boom(n: 1..1000) -> int {\n'
                                ' roll x: n of d6 explode on {6} up to (min(20, 1000 - n))\n return len(x) }\n}\n')
    book = rules_dsl.load("t")
    assert book.mechanics["boom"](1000, x=[1] * 1000) == 1000


def test_an_explicit_up_to_past_the_dice_a_roll_takes_is_an_error(demo_books):
    (d,) = errors(demo_books, 'rule r "R" { mechanic boom(n: 1..600, k: 0..600) -> int {\n'
                              ' roll x: n of d6 explode on {6} up to k\n return sum(x) }\n}\n')
    assert d.message.startswith("roll 'x': n dice and up to k extra can be more than 1000 in all: 1200 with "
                                "n = 600 and k = 600")


def test_a_range_past_the_values_a_range_holds_is_an_error_at_the_range(demo_books):
    diags = errors(demo_books, 'rule r "R" {\n'
                               ' mechanic wide(n: 1..2000000) -> int = count(x for x in 1..n if x > 3)\n'
                               ' mechanic huge(n: 2000000..3000000) -> int = len(1..n)\n'
                               ' mechanic fine(n: 1..1000000) -> int = len(1..n)\n}\n')
    assert [(d.line, d.message) for d in diags] == [
        (7, "with n = 2000000, the range 1..n has 2000000 values: more than the 1,000,000 a range holds"),
        (8, "the range 1..n always has more than 1,000,000 values")]
    assert "1..min(n, 1 + 999999)" in diags[0].hint


def test_the_largest_range_allowed_runs(demo_books):
    write_book(demo_books, "t", 'rule r "R" { mechanic fine(n: 1..1000000) -> int = len(1..n) }\n')
    assert rules_dsl.load("t").mechanics["fine"](1000000) == 1000000


def _chain(n_mechanics):
    lines = [f' mechanic m{i}(x: 0..5) -> 0..5 = m{i + 1}(x)' for i in range(n_mechanics - 1)]
    return 'rule r "R" {\n' + "\n".join(lines) + f'\n mechanic m{n_mechanics - 1}(x: 0..5) -> 0..5 = x\n}}\n'


def test_a_chain_of_calls_past_the_depth_limit_is_a_warning_at_its_first_call(demo_books):
    write_book(demo_books, "t", _chain(52))
    book = rules_dsl.load("t")
    (w,) = book.warnings
    assert w.message.startswith("mechanic 'm0' starts a chain of 51 calls or more, one inside the next: "
                                "an evaluation that follows it stops past 50 levels")
    assert (w.line, w.column) == (7, 33)
    with pytest.raises(rules_dsl.errors.EvaluationError, match="more than 50 levels deep"):
        book.mechanics["m0"](3)


def test_a_chain_within_the_depth_limit_says_nothing(demo_books):
    write_book(demo_books, "t", _chain(50))
    book = rules_dsl.load("t")
    assert book.warnings == [] and book.mechanics["m0"](3) == 3


def test_a_layer_that_narrows_a_parameter_is_reported_at_its_change_with_the_call_noted(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    (books / "s.rules").write_text('book s {\n  title "S"\n  dice d6\n}\n' + SAVES.replace("HIGH", "10"))
    layer = books / "s+n.rules"
    layer.write_text('layer n on s {\n  title "S narrow"\n}\nreplace mechanic saves(hits: 0..6) -> int {\n'
                     '  roll s: hits of d6\n  return count(x for x in s if x >= 5)\n}\nbecause "fewer saves"\n')
    with pytest.raises(RulebookError) as e:
        rules_dsl.Library(books, cache=tmp_path / "cache").load("s+n")
    (d,) = e.value.diagnostics
    assert (d.file, d.line, d.column) == (str(layer), 4, 1)
    assert d.message.endswith("with shots = 10 and every die of hits's roll d showing 6, hits(shots) gives 10, "
                              "but saves takes hits 0..6")
    assert [(r.file, r.line, r.column) for r in d.related] == [(str(books / "s.rules"), 14, 47)]
    assert "hits: 0..10 in saves" in d.hint
