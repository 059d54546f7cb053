"""The sweep table's "K or more" columns (odds_text.thresholds) are chosen in one pass
down each row; this holds them to the sum per K and row they replace (issue 38: the
per-K sums made a 1000-row sweep's table outlast its --time-limit by seconds)."""
from fractions import Fraction
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from rules_dsl.faces.odds_text import thresholds


def brute(dists, most=6):
    values = sorted({v for d in dists for v, _ in d.outcomes})
    if len(values) < 2:
        return values
    keep = [k for k in values[1:]
            if any(sum((p for v, p in d.outcomes if v >= k), Fraction(0)) >= Fraction(1, 200) for d in dists)]
    if len(keep) > most:
        step = (len(keep) - 1) / (most - 1)
        keep = [keep[round(i * step)] for i in range(most)]
    return keep


def dist(weights):
    total = sum(w for _, w in weights)
    return SimpleNamespace(outcomes=[(v, Fraction(w, total)) for v, w in weights])


rows = st.dictionaries(st.integers(-5, 60), st.integers(1, 400), min_size=1, max_size=25).map(
    lambda d: dist(sorted(d.items())))


@settings(max_examples=300)
@given(st.lists(rows, min_size=1, max_size=6))
def test_thresholds_agree_with_the_sum_per_k(dists):
    assert thresholds(dists) == brute(dists)
