"""Design views (issue 30): sweeps, several variants, cost views, and odds that read well.

* `rules odds BOOK:M --sweep NAME=LO..HI`: one row per value, each equal to the single
  `rules odds` of those inputs (a hypothesis property); text with a bar chart, and JSON;
* `--vs` several times: a column per variant, JSON keys a, b, c...;
* `rules cost BOOK[:NAME]`: a book's `priced` views, with their formulas and exact
  numbers (checked by hand for the tutorial's roster and Xenotactics);
* `rules odds` folds a numeric tail under 0.1% and shows decimals; `--exact` every
  row and the fractions;
* the website's charts: inline SVG, role="img" with a title and a description, every
  text escaped.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl.evaluation import design
from rules_dsl.faces import odds_text
from rules_dsl.cli import main
from rules_dsl.odds import distribution

from conftest import write_book


@pytest.fixture(scope="module")
def tutorial():
    return rules_dsl.load("skirmish-tutorial")


@pytest.fixture(scope="module")
def xeno():
    return rules_dsl.load("xenotactics")


# ------------------------------------------------------------------ sweeps
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 4), lo=st.integers(2, 6), span=st.integers(0, 4))
def test_each_sweep_row_is_the_distribution_of_those_inputs(tutorial, n, lo, span):
    hi = min(6, lo + span)
    sw = design.sweep(tutorial.mechanics["hits"], "target", (lo, hi), n=n)
    assert [v for v, _, _ in sw.rows] == list(range(lo, hi + 1))
    for v, d, err in sw.rows:
        single = distribution(tutorial.mechanics["hits"], n=n, target=v)
        assert err is None and d.outcomes == single.outcomes and d.mean == single.mean


def test_sweep_on_the_command_line(capsys):
    assert main(["odds", "skirmish-tutorial:hits", "n=3", "--sweep", "target=2..6"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Hits, with n 3: target from 2 to 6"
    assert lines[2].split() == ["target", "mean", "1", "or", "more", "2", "or", "more", "3", "or", "more"]
    assert lines[4].split() == ["2", "2.50", "99.54%", "92.59%", "57.87%"]
    assert "mean hits by target" in out and "█" in out
    assert main(["odds", "skirmish-tutorial:hits", "n=3", "--sweep", "target=2..6", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["sweep"] == {"name": "target", "values": [2, 3, 4, 5, 6]}
    assert [r["distribution"]["mean"] for r in j["rows"]] == ["5/2", "2/1", "3/2", "1/1", "1/2"]


def test_a_sweep_over_a_whole_declared_range_and_over_listed_values(capsys):
    assert main(["odds", "skirmish-tutorial:nerve_test", "--sweep", "nerve"]) == 0
    out = capsys.readouterr().out
    assert "Nerve test: nerve from 2 to 12" in out and "chance of yes (holds), by nerve" in out
    assert main(["odds", "skirmish-tutorial:nerve_test", "nerve=7", "--sweep", "reroll=true,false"]) == 0
    out = capsys.readouterr().out
    assert "re-roll allowed from yes to no" in out and "82.64%" in out and "58.33%" in out


def test_sweep_mistakes_are_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        main(["odds", "skirmish-tutorial:hits", "n=3", "--sweep", "targt=2..6"])
    assert e.value.code == 2 and "unknown parameter 'targt'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["odds", "skirmish-tutorial:hits", "n=3", "target=4", "--sweep", "target=2..6"])
    assert "both set 'target'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["odds", "skirmish-tutorial:hits", "n=3", "--sweep", "target=2..9"])
    assert "'target' got 7" in capsys.readouterr().err


def test_an_enum_result_sweeps_as_the_chance_of_each_result(capsys):
    assert main(["odds", "xenotactics:defence_roll", "--sweep", "defence=0..10"]) == 0
    out = capsys.readouterr().out
    assert "no effect" in out and "Pinned down" in out and "Out of action" in out
    assert "chance of each result by Defence" in out


# ------------------------------------------------------------------ variants
def test_several_variants_side_by_side(capsys):
    assert main(["odds", "skirmish-tutorial:hits", "n=3", "target=4", "--vs", "target=3",
                 "--vs", "target=3", "n=4"]) == 0
    out = capsys.readouterr().out
    assert "A: Hits, with n 3, target 4" in out
    assert "B: the same with target 3" in out and "C: the same with n 4, target 3" in out
    assert "C - A (points)" in out and "mean: A 1.50, B 2.00, C 2.67" in out
    assert main(["odds", "skirmish-tutorial:hits", "n=3", "target=4", "--vs", "target=3", "--vs", "n=4",
                 "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert sorted(j) == ["a", "b", "c"] and j["c"]["mean"] == "2/1"


# ------------------------------------------------------------------ one distribution
def test_a_long_tail_is_folded_and_the_mean_is_a_decimal(demo_books, capsys):
    write_book(demo_books, "t", 'rule r "R" { mechanic total(n: 1..10) -> int {\n roll d: n of d6\n'
                                ' return sum(d) }\n}\n')
    book = rules_dsl.load("t")
    d = distribution(book.mechanics["total"], n=6)
    rows, low, high = odds_text.fold(d)
    assert low and high and low[1] < Fraction(1, 1000) and high[1] < Fraction(1, 1000)
    assert sum(p for _, p in rows) + low[1] + high[1] == 1
    assert main(["odds", "t:total", "n=6"]) == 0
    out = capsys.readouterr().out
    # 6, 7 and 8 together 28/46656 (0.06%); with 9, 84/46656 would be over 0.1%
    assert "8 or less" in out and "34 or more" in out and "mean: 21.00" in out
    assert "folded: 3 results up to 8, 0.06% in all; 3 results from 34, 0.06% in all" in out
    assert main(["odds", "t:total", "n=6", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "1/46656" in out and len([ln for ln in out.splitlines() if ln[:2].strip().isdigit()]) == 31


def test_percentages_and_bars():
    assert odds_text.pct(Fraction(1, 3)) == "33.33%" and odds_text.pct(Fraction(1, 10 ** 9)) == "<0.01%"
    assert odds_text.pct(Fraction(0)) == "0%" and odds_text.pct(Fraction(1)) == "100%"
    assert odds_text.bar(Fraction(1, 2), 1, 8) == "████" and odds_text.bar(0, 1, 8) == ""


# ------------------------------------------------------------------ cost views
def test_the_tutorial_roster_is_priced_per_unsaved_wound(tutorial):
    (view,) = design.price(tutorial, "points_per_wound")
    rows = {str(r.bindings["kind"]): r for r in view.rows}
    # scout: aim 3+ (2/3), strength 3 against toughness 3 wounds on 4+ (1/2), armour 4+ fails
    # half the time: two attacks give 2 x 2/3 x 1/2 x 1/2 = 1/3 unsaved wounds, 21 points
    assert rows["scout"].expected == Fraction(1, 3) and rows["scout"].ratio == 63
    assert rows["trooper"].expected == Fraction(1, 4) and rows["trooper"].ratio == 92
    assert view.best().bindings["kind"] == "scout"
    assert view.cost_text == "roster(kind)"


def test_cost_on_the_command_line(capsys):
    assert main(["cost", "skirmish-tutorial"]) == 0
    out = capsys.readouterr().out
    assert "cost:      roster(kind)" in out
    assert "expected:  the mean of attack(2, profile(kind).aim, profile(kind).strength, 3, 4)" in out
    assert "best value: scout at 63.0 per expected result" in out
    assert main(["cost", "skirmish-tutorial:points_per_wound", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    (v,) = j["views"]
    assert v["rows"][0] == {"case": {"kind": "scout"}, "cost": 21, "expected": "1/3", "expected_float": 1 / 3,
                            "ratio": "63/1", "ratio_float": 63.0, "note": ""}
    with pytest.raises(SystemExit) as e:
        main(["cost", "null-strike"])
    assert e.value.code == 1 and "prices nothing" in capsys.readouterr().err


def test_xenotactics_prices_per_hit_and_per_model_out_of_action(xeno):
    views = {v.name: v for v in design.price(xeno)}
    assert set(views) == {"gc_per_hit", "gc_per_out_of_action", "terran_melee_gc_per_hit"}
    hit = {str(r.bindings["f"]): r for r in views["gc_per_hit"].rows}
    # Terrans: 37 gc and an autogun at Attack 6 (A x 5 = 30): 67 gc; 2d10 hitting on 6 or less
    assert hit["terrans"].cost == 67 and hit["terrans"].expected == Fraction(6, 5)
    out = {str(r.bindings["f"]): r for r in views["gc_per_out_of_action"].rows}
    assert views["gc_per_out_of_action"].chance
    # two dice at 6 hit with 6/10 each; each hit puts a Defence 3 model out of action on 4, 6, 8 or 10
    p = 1 - (1 - Fraction(6, 10) * Fraction(4, 10)) ** 2
    assert out["terrans"].expected == p
    melee = {str(r.bindings["row"].as_dict()["item"]): r for r in views["terran_melee_gc_per_hit"].rows}
    assert melee["Sword"].ratio == 10 and melee["Crowbar"].ratio == 20


def test_a_priced_view_must_buy_something_the_dice_decide(demo_books):
    from rules_dsl.errors import RulebookError
    write_book(demo_books, "t", 'rule r "R" { mechanic f(x: 1..3) -> int = x\n'
                                ' priced p "P" { for x in 1..3: x per f(x) } }\n')
    with pytest.raises(RulebookError) as e:
        rules_dsl.load("t")
    assert e.value.diagnostics[0].message == "priced 'p' is per an expected result, but this rolls no dice"


# ------------------------------------------------------------------ the website's charts
def test_a_chart_is_accessible_and_escapes_every_text():
    from rules_dsl.sphinxext.charts import bar_chart
    html = bar_chart("b:x<y", "Cost <per> hit", [("<script>alert(1)</script>", 2.0, "2.0"), ("b & c", 1.0, "1.0")],
                     caption="a \"caption\"")
    assert "<script>" not in html and "&lt;script&gt;" in html and "b &amp; c" in html
    assert 'role="img"' in html and "<title id=" in html and "<desc id=" in html
    assert 'aria-labelledby="rules-chart-b-x-y-t rules-chart-b-x-y-d"' in html
    assert "Largest: <script>" not in html and "Largest: &lt;script&gt;alert(1)&lt;/script&gt;, 2.0" in html
    assert html == bar_chart("b:x<y", "Cost <per> hit", [("<script>alert(1)</script>", 2.0, "2.0"),
                                                          ("b & c", 1.0, "1.0")], caption="a \"caption\"")
