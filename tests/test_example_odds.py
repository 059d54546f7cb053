"""Exact odds in worked examples (issue 30): `chance(...)`, `mean(...)` and `about N%`.

A book's printed odds are checked like its other numbers: by `rules check`, pytest
and the docs build, through the one example runner, with the exact-odds engine and
its budget (past it: a clear failure, never a hang).
"""
from __future__ import annotations

import time
from fractions import Fraction

import pytest

import rules_dsl
from rules_dsl.evaluation import example_odds
from rules_dsl.language import nodes as n
from rules_dsl.errors import RulebookError

from conftest import write_book

MECHANICS = '''rule r "R" {
  """x"""
  mechanic hits(n: 1..60, target: 2..6) -> int {
    roll dice: n of d6
    return count(d for d in dice if d >= target)
  }
  mechanic in_order(n: 1..12) -> int {
    roll dice: n of d6
    return sum([dice[i] * i for i in 0..n - 1])
  }
  mechanic flat(x: 1..6) -> int = x
  EXAMPLES
}
'''


def book(demo_books, examples):
    write_book(demo_books, "t", MECHANICS.replace("EXAMPLES", examples))
    return rules_dsl.load("t")


def outcome(demo_books, lines):
    b = book(demo_books, 'example """\n' + lines + '\n  """')
    (res,) = b.run_examples()
    return res


def test_exact_chances_and_means_pass_and_fail_as_numbers(demo_books):
    assert outcome(demo_books, "  >>> chance(hits(3, 4) >= 2)\n  1/2\n  >>> mean(hits(3, 4))\n  3/2").passed
    res = outcome(demo_books, "  >>> chance(hits(3, 4) >= 2)\n  1/3")
    assert not res.passed and res.cases[0].got == "1/2"
    assert outcome(demo_books, "  >>> chance(hits(2, 6) == 2)\n  1/36\n  >>> chance(hits(2, 6, dice=[6, 6]) == 2)\n  1")\
        .passed


def test_about_rounds_as_a_book_prints(demo_books):
    # 35/36 = 97.22...%: about 97.2% and about 97% hold, about 97.3% does not
    lines = "  >>> chance(hits(2, 2) >= 1)\n  about 97.2%\n  >>> chance(hits(2, 2) >= 1)\n  about 97%"
    assert outcome(demo_books, lines).passed
    res = outcome(demo_books, "  >>> chance(hits(2, 2) >= 1)\n  about 97.3%")
    assert not res.passed and res.cases[0].got == "35/36 (about 97.2%)"
    assert outcome(demo_books, "  >>> mean(hits(3, 5))\n  about 1.0").passed
    approx = n.Approx(n.NOWHERE, Fraction(826, 10), 1, True)
    assert example_odds.about(Fraction(119, 144), approx)
    assert not example_odds.about(Fraction(120, 144), approx) and not example_odds.about(True, approx)


def test_what_the_checks_refuse_before_anything_runs(demo_books):
    def errors(lines):
        write_book(demo_books, "t", MECHANICS.replace("EXAMPLES", 'example """\n' + lines + '\n  """'))
        with pytest.raises(RulebookError) as e:
            rules_dsl.load("t")
        return [d.message for d in e.value.diagnostics]
    assert errors("  >>> chance(flat(3) > 2)\n  1") == ["chance(...) needs dice: flat rolls none"]
    assert errors("  >>> chance(hits(3, 4))\n  1/2") == [
        "chance(...) takes a condition (true or false), but this is a number"]
    assert errors("  >>> mean(hits(3, 4) > 1)\n  1/2") == ["mean(...) takes a number, but this is true/false"]
    assert errors("  >>> chance(hits(3, 4) > 1, 2)\n  1/2") == ["chance(...) takes one expression"]
    assert errors("  >>> 1 + chance(hits(3, 4) > 1)\n  1/2") == ["unknown name 'chance'"]


def test_an_exact_computation_past_its_budget_is_a_clear_failure_never_a_hang(demo_books, monkeypatch):
    monkeypatch.setattr(example_odds, "EVALUATIONS", 2_000)
    b = book(demo_books, 'example """\n  >>> mean(in_order(12))\n  0\n  """')
    start = time.monotonic()
    (res,) = b.run_examples()
    assert time.monotonic() - start < 30
    assert not res.passed and "take more than an example's budget (2,000 evaluations" in res.cases[0].got


def test_a_book_that_declares_its_own_mean_keeps_it(demo_books):
    body = MECHANICS.replace('mechanic flat(x: 1..6) -> int = x', 'mechanic mean(x: 1..6) -> int = x * 2')
    write_book(demo_books, "t", body.replace("EXAMPLES", 'example """\n  >>> mean(3)\n  6\n  """'))
    (res,) = rules_dsl.load("t").run_examples()
    assert res.passed


def test_the_tutorial_states_its_odds_and_they_hold():
    book = rules_dsl.load("skirmish-tutorial")
    sources = [c.source for _, ex in book.example_cases() for c in ex.cases]
    assert "chance(hits(3, 4) >= 2)" in sources and "chance(nerve_test(7, reroll=true))" in sources
    assert all(r.passed for r in book.run_examples())
