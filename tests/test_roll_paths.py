"""Rolls of called mechanics, given by path (issue 30): one syntax for examples and `rules call`.

The issue: `rules call` accepted `morale_test.first=6,6`, but in an example the same
form was a parse error with a wrong "compare with '=='" hint and a false "this example
has no '>>>' line", and the plain name got "did you mean 'save_dice'?".  Now the path
works in both, repeated calls are numbered (`attack[1].hit_dice`), every step of a path
is checked before anything runs, and the rolls a call prints are named the same way.
"""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl.language import rollpaths
from rules_dsl.cli import main
from rules_dsl.errors import EvaluationError, NotFound, RulebookError

from conftest import write_book

BOOK = '''rule r "R" {
  """x"""
  mechanic morale_test(nerve: 2..12) -> bool {
    roll first: 2d6
    roll second: 2d6
    return sum(first) <= nerve or sum(second) <= nerve
  }
  mechanic shot(aim: 2..6) -> int {
    roll save_dice: 2 of d6
    roll hit: d6
    return if hit >= aim then count(d for d in save_dice if d < 4) else 0
  }
  mechanic attack(aim: 2..6, nerve: 2..12) -> int = if morale_test(nerve) then shot(aim) else 0
  mechanic volley(n: 1..4, aim: 2..6) -> list of int = [shot(aim) for i in 1..n]
  mechanic battle(aim: 2..6, nerve: 2..12) -> int = attack(aim, nerve) + attack(aim, nerve)
  mechanic two_rounds(aim: 2..6, nerve: 2..12) -> int {
    let first_round = attack(aim, nerve)
    return first_round + attack(aim, nerve)
  }
  EXAMPLES
}
'''


def book_with(demo_books, examples=""):
    write_book(demo_books, "t", BOOK.replace("EXAMPLES", examples))
    return rules_dsl.load("t")


def diagnostics(demo_books, examples):
    write_book(demo_books, "t", BOOK.replace("EXAMPLES", examples))
    with pytest.raises(RulebookError) as e:
        rules_dsl.load("t")
    return e.value.diagnostics


def test_the_issue_s_example_with_a_nested_roll_passes(demo_books):
    book = book_with(demo_books, '''example """
  >>> attack(4, 7, morale_test.first=[6, 6], morale_test.second=[1, 2], shot.hit=5, shot.save_dice=[1, 6])
  1
  >>> battle(4, 7, attack[0].morale_test.first=[1, 1], attack[0].shot.hit=6, attack[0].shot.save_dice=[1, 2],
  ...            attack[1].morale_test.first=[6, 6], attack[1].morale_test.second=[6, 6])
  2
  >>> volley(3, 4, shot[0].hit=6, shot[0].save_dice=[1, 1], shot[1].hit=1, shot[1].save_dice=[1, 1],
  ...           shot[2].hit=4, shot[2].save_dice=[5, 3])
  [2, 0, 1]
  """''')
    (res,) = book.run_examples()
    assert res.passed, res.report


def test_the_same_paths_on_the_command_line(demo_books, capsys):
    book_with(demo_books)
    assert main(["call", "t:attack", "aim=4", "nerve=7", "morale_test.first=6,6", "morale_test.second=1,2",
                 "shot.hit=5", "shot.save_dice=1,6", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["result"] == 1
    assert main(["call", "t:volley", "n=2", "aim=4", "--seed", "3"]) == 0
    rolls = " ".join(x.strip() for x in capsys.readouterr().out.splitlines()[1:])     # in words: the roll, whose call it was
    assert rolls.startswith("rolled: save dice (shot, call 1) ") and "hit (shot, call 2) " in rolls
    assert main(["call", "t:volley", "n=2", "aim=4", "--seed", "3", "--json"]) == 0
    assert {"shot[0].save_dice", "shot[1].hit"} <= set(json.loads(capsys.readouterr().out)["rolls"])
    assert main(["call", "t:volley", "n=2", "aim=4", "shot[0].hit=1", "shot[1].hit=6", "shot[1].save_dice=1,2",
                 "--seed", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Volley: 0, 2"
    assert main(["explain", "t:volley", "n=2", "aim=4", "shot[1].hit=6", "--seed", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rolls"]["shot[1].hit"] == 6


def test_a_misspelt_path_is_said_before_anything_runs(demo_books):
    (d,) = diagnostics(demo_books, 'example """\n  >>> attack(4, 7, morale_tst.first=[6, 6])\n  true\n  """')
    assert d.message == "attack does not call 'morale_tst', so 'morale_tst.first' names no roll of attack"
    assert d.hint == "did you mean 'morale_test'?"
    (d,) = diagnostics(demo_books, 'example """\n  >>> attack(4, 7, morale_test.frist=[6, 6])\n  true\n  """')
    assert d.message == "'frist' is not a roll of morale_test (in the path 'morale_test.frist')"
    assert d.hint == "did you mean 'first'?"


def test_a_roll_s_bare_name_gets_its_path_as_the_hint(demo_books):
    """Issue 30: the plain name got "did you mean 'save_dice'?"."""
    (d,) = diagnostics(demo_books, 'example """\n  >>> attack(4, 7, first=[6, 6])\n  1\n  """')
    assert d.message == "attack() has no parameter or roll 'first'"
    assert d.hint == "'first' is a roll of morale_test, which attack calls: give it by its path, morale_test.first=..."
    assert d.column == len("  >>> attack(4, 7, ") + 1


def test_no_false_no_prompt_diagnostic_beside_a_line_that_does_not_parse(demo_books):
    """Issue 30: the CLI's `first=6,6` in an example got a wrong hint and a false
    "this example has no '>>>' line"."""
    diags = diagnostics(demo_books, 'example """\n  >>> attack(4, 7, morale_test.first=6, 6)\n  1\n  """')
    (d,) = [d for d in diags if d.message == "a positional argument cannot follow a named one"]
    assert d.hint == "a list of dice is written in brackets: morale_test.first=[..., 6]"
    diags = diagnostics(demo_books, 'example """\n  >>> attack(4, 7, morale test.first=[6, 6])\n  1\n  """')
    assert [d.message for d in diags] == ["unexpected 'test'"]
    assert "compare with" not in diags[0].hint


def test_a_roll_given_that_no_roll_takes_is_an_error_when_it_runs(demo_books):
    book = book_with(demo_books, '''example """
  >>> attack(4, 7, morale_test.first=[6, 6], morale_test.second=[6, 6], shot.hit=3)
  Error: made no roll of that name
  """''')
    (res,) = book.run_examples()
    assert res.passed, res.report       # the morale test failed: `shot` was never called
    with pytest.raises(EvaluationError, match=r"attack\(\) was given the roll 'shot.hit'"):
        from rules_dsl.compiler import Ctx, compile_expr
        from rules_dsl.language.dice import GivenRoller
        case = book.rules[0].examples[0].cases[0]
        compile_expr(book.compiled, case.expr, frozenset())({}, Ctx(GivenRoller(rng=random.Random(0))))
    with pytest.raises(NotFound, match="unknown roll 'shot.hit'"):
        book.mechanics["attack"].run(4, 7, **{"morale_test.first": [6, 6], "morale_test.second": [6, 6],
                                             "shot.hit": 3})


def test_exact_odds_take_a_path_through_one_statement(demo_books):
    from rules_dsl.odds import distribution
    from rules_dsl.odds.budget import Budget
    book = book_with(demo_books)
    untimed = Budget(seconds=None)      # counts still bound it; a busy machine must not fail it
    d = distribution(book.mechanics["volley"], n=2, aim=4, **{"shot[1].hit": 1})
    assert all(v[1] == 0 for v, _ in d.outcomes)
    d = distribution(book.mechanics["battle"], aim=4, nerve=7, _budget=untimed, **{"attack[1].shot.hit": 1})
    assert max(v for v, _ in d.outcomes) == 2        # the second attack's shot never hits
    with pytest.raises(EvaluationError, match="cannot fix the roll 'attack\\[1\\].shot.hit'"):
        distribution(book.mechanics["two_rounds"], aim=4, nerve=7, **{"attack[1].shot.hit": 1})


# ------------------------------------------------------------------ names
def test_paths_read_write_and_show():
    assert rollpaths.parse("attack[1].hits.dice") == ([("attack", 1), ("hits", 0)], "dice")
    assert rollpaths.parse("dice[1]") is None and rollpaths.parse("a..b") is None
    assert rollpaths.canonical("attack[0].hit[0].dice") == "attack.hit.dice"
    made = {"attack.hit_dice": 1, "attack[1].hit_dice": 2, "save.die": 3, "save.x.y": 4}
    assert list(rollpaths.shown_names(made)) == ["attack[0].hit_dice", "attack[1].hit_dice", "save.die", "save.x.y"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_roll_a_call_prints_can_be_given_back_for_the_same_result(demo_books, data):
    """The names printed are the names accepted: a call given every roll another call
    made gives that call's result, with no roll left to chance."""
    book = book_with(demo_books) if "t" not in _cache else _cache["t"]
    _cache["t"] = book
    name = data.draw(st.sampled_from(["attack", "volley", "battle", "two_rounds"]))
    m = book.mechanics[name]
    args = {p.name: data.draw(st.integers(p.type.low, p.type.high)) for p in m.params}
    result, rolls = m.run(seed=data.draw(st.integers(0, 10 ** 6)), **args)
    again, rolls2 = m.run(rng=random.Random(-1), **args, **rolls)
    assert again == result and rolls2 == rolls


_cache = {}
