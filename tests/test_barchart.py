"""The terminal's bar charts (rules_dsl/faces/barchart.py) and `rules odds` drawing them."""
from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

from hypothesis import given, strategies as st

from rules_dsl.faces import barchart
from rules_dsl.language.values import percent_text

from conftest import REPO

BLOCK = "█▉▊▋▌▍▎▏"


def _cells(line: str) -> int:
    """A bar's length in eighths of a character."""
    return sum(8 if c == "█" else 8 - BLOCK.index(c) for c in line if c in BLOCK)


@st.composite
def laws(draw, min_size=1, max_size=30):
    weights = draw(st.lists(st.integers(0, 50), min_size=min_size, max_size=max_size).filter(lambda w: sum(w) > 0))
    total = sum(weights)
    return [(str(i), Fraction(w, total)) for i, w in enumerate(weights)]


@given(laws(), st.integers(30, 160))
def test_bars_are_in_proportion_and_fit_the_width(rows, width):
    lines = barchart.bars(rows, width)
    assert len(lines) == len(rows) and all(len(x) <= max(width, 40) for x in lines)
    top = max(p for _, p in rows)
    longest = max(_cells(x) for x in lines)
    assert longest == 8 * min(barchart.MAX_BAR, longest // 8)          # the likeliest row is whole characters
    for line, (_, p) in zip(lines, rows):
        assert line.endswith(percent_text(p))
        if p == 0:
            assert _cells(line) == 0
        else:                                                       # to the nearest eighth, and never empty
            assert _cells(line) >= 1 and abs(_cells(line) - float(p / top) * longest) <= 1


def test_ascii_bars_where_unicode_cannot_print():
    lines = barchart.bars([("hit", Fraction(3, 4)), ("miss", Fraction(1, 4))], 60, unicode=False)
    assert all(set(x) <= set(" #hitmss.0123456789%") for x in lines), lines
    assert lines[0].count("#") == 3 * lines[1].count("#")


def test_grouped_bars_draw_a_then_b_then_c_on_every_row():
    lines = barchart.grouped([("0", [Fraction(1, 2), Fraction(1, 4), Fraction(1, 8)]),
                              ("1", [Fraction(1, 2), Fraction(3, 4), Fraction(7, 8)])], 120, names=("A", "B", "C"))
    assert len(lines) == 6 and lines[0].split()[:2] == ["0", "A"] and [x.split()[0] for x in lines[1:3]] == ["B", "C"]
    assert lines[1].rstrip().endswith("25.00%") and _cells(lines[5]) == 8 * barchart.MAX_BAR
    assert abs(_cells(lines[2]) * 7 - _cells(lines[5])) <= 8


@given(laws(min_size=1, max_size=40), st.booleans())
def test_the_chart_has_the_rows_of_the_table(rows, exact):
    """`rules odds` draws the rows its table shows: a numeric tail under 0.1% folded into one
    row (odds_text.fold), every row with --exact."""
    import re
    from rules_dsl.faces import odds_text
    from rules_dsl.odds import Distribution
    outcomes = [(int(label), p) for label, p in rows if p]
    dist = Distribution(None, {}, outcomes, sum((v * p for v, p in outcomes), Fraction(0)), Fraction(0))
    lines = odds_text.distribution_chart(dist, str, 100, exact=exact)
    table = odds_text.distribution_lines(dist, exact=exact, title=lambda d: "t")
    body = table[4:]
    body = [re.split(r"\s{2,}", x.strip()) for x in body[:body.index("")]]
    assert [re.split(r"\s{2,}", x.strip())[0] for x in lines] == [r[0] for r in body]
    assert [x.split()[-1] for x in lines] == [r[1] for r in body]
    if not exact and len(outcomes) >= 6:
        assert len(lines) <= len(outcomes)


def _rules(*words):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="80", RULES_DSL_BOOKS=str(REPO / "rulebooks"), PYTHONPATH=str(REPO))
    p = subprocess.run([sys.executable, "-m", "rules_dsl", *words], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_rules_odds_draws_its_law_under_the_table():
    out = _rules("odds", "null-strike:morale_check", "morale=3").rstrip("\n").splitlines()
    chart = out[out.index("") + 1:][-2:]
    assert chart[0].split()[0] == "steady" and chart[0].endswith("66.67%") and chart[1].endswith("33.33%")
    assert _cells(chart[0]) == 2 * _cells(chart[1])


def test_rules_odds_vs_draws_both_laws():
    out = _rules("odds", "null-strike:morale_check", "morale=3", "--vs", "morale=4").rstrip("\n").splitlines()
    a, b = out[-4:-2]
    assert a.split()[:2] == ["steady", "A"] and a.endswith("66.67%") and b.split()[0] == "B" and b.endswith("50.00%")
