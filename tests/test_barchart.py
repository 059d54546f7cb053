"""The terminal's bar charts (rules_dsl/barchart.py) and `rules odds` drawing them."""
from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

from hypothesis import given, strategies as st

from rules_dsl import barchart
from rules_dsl.sphinxext.data import fold_odds
from rules_dsl.values import percent_text

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


def test_paired_bars_draw_a_then_b_on_every_row():
    lines = barchart.paired([("0", Fraction(1, 2), Fraction(1, 4)), ("1", Fraction(1, 2), Fraction(3, 4))], 120)
    assert len(lines) == 4 and lines[0].split()[:2] == ["0", "A"] and lines[1].split()[0] == "B"
    assert lines[1].rstrip().endswith("25.00%") and _cells(lines[3]) == 8 * barchart.MAX_BAR


@given(laws(min_size=2, max_size=40), st.booleans())
def test_fold_is_the_site_s_fold(rows, numeric):
    """A long law is folded as the website folds its odds tables (sphinxext/data.fold_odds)."""
    got, folded = barchart.fold(rows, numeric=numeric)
    outcomes, below = [], Fraction(0)
    for label, p in rows:
        outcomes.append((label, p.numerator, p.denominator, percent_text(p), percent_text(1 - below) if numeric else ""))
        below += p
    site = fold_odds({"outcomes": outcomes})
    assert folded == site["folded"]
    assert [(label, Fraction(n, d)) for label, n, d, _, _ in site["outcomes"]] == got


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
