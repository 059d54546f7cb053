"""The exact-odds engine (rules_dsl.odds) against brute force over every roll.

The brute force is independent of the engine: it runs the mechanic on every
*sequence* of faces (pools are ordered; a custom die's face weighs its count of
physical faces), finds which rolls a path needs by running with a roller that stops
at the first roll not yet given, and computes each value with the public
`mech.run(..., rolls=...)`.
"""
from __future__ import annotations

import json
import shutil
import time
from collections import defaultdict
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl.compiler import Ctx
from rules_dsl.language.dice import GivenRoller
from rules_dsl.errors import EvaluationError, InputError, NotFound, RulesError
from rules_dsl.odds import NoDice, OrMore, distribution, page_odds

HERE = Path(__file__).resolve().parent
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

ODDS_BOOK = """book oddsbook {
  title "Odds test book"
  dice d6, d10
  die dust { army: 2, target: 2, shield: 2 }
}
section all "All" {
  rule everything "Everything" {
    \"\"\"Mechanics exercising the exact-odds engine.\"\"\"
    enum morale { steady, shaken, broken }
    enum outcome2 { ok2, pinned2, out2 }
    mechanic roll_under(stat: 0..10) -> bool {
      roll die: d10
      return die <= stat
    }
    mechanic degree(stat: 0..10, modifier: -3..3 = 0) -> int {
      roll die: d10
      return if die + modifier <= stat then stat - die - modifier else -1
    }
    mechanic reroll_failure(target: 2..6) -> bool {
      roll first: d6
      roll again: d6
      return if first >= target then true else again >= target
    }
    mechanic reroll_ones(n: 0..4, target: 2..6) -> int {
      roll dice: n of d6
      let ones = count(d for d in dice if d == 1)
      roll rerolled: ones of d6
      return count(d for d in dice if d >= target) + count(d for d in rerolled if d >= target)
    }
    mechanic survivors(dice: list of 1..10, stat: 0..10, opposing: list of 1..10, opposing_stat: 0..10) -> int {
      let theirs = [0] + [d for d in opposing if d <= opposing_stat]
      return count(d for d in dice if d <= stat and d >= max(theirs))
    }
    mechanic opposed(attack: 0..10, firepower: 0..3, their_attack: 0..10, their_firepower: 0..3) -> list of int {
      roll mine: firepower of d10
      roll theirs: their_firepower of d10
      return [survivors(mine, attack, theirs, their_attack), survivors(theirs, their_attack, mine, attack)]
    }
    mechanic opposed_best(attack: 0..10, firepower: 0..3, their_attack: 0..10, their_firepower: 0..3) -> int {
      roll mine: firepower of d10
      roll theirs: their_firepower of d10
      let best = max([0] + [d for d in theirs if d <= their_attack])
      return count(d for d in mine if d <= attack and d >= best)
    }
    mechanic keep_highest(n: 1..3) -> int {
      roll dice: n of d10
      return max(dice)
    }
    mechanic total(n: 0..3) -> int {
      roll dice: n of d6
      return sum(dice)
    }
    mechanic first_beats_last() -> bool {
      roll dice: 3d6
      return dice[0] > dice[2]
    }
    mechanic in_order(n: 1..3) -> list of bool {
      roll dice: n of d6
      let big = [d >= 4 for d in dice]
      return [big[i] and (i == 0 or not big[i - 1]) for i in 0..(n - 1)]
    }
    mechanic morale_step(state: morale, leadership: 2..12) -> morale {
      roll dice: 2d6
      let t = sum(dice)
      return if t <= leadership then (if state == broken then shaken else steady)
             else if state == steady then shaken else broken
    }
    mechanic dust_hits(n: 0..6, cover: bool = false) -> int {
      roll dice: n of dust
      return count(f for f in dice if f in (if cover then {army} else {army, target}))
    }
    mechanic dust_faces(n: 0..3) -> list of dust {
      roll dice: n of dust
      return dice
    }
    mechanic parity(stat: 0..10) -> outcome2 {
      roll die: d10
      return if die <= stat then ok2 else if odd(die) then pinned2 else out2
    }
    mechanic shot(skill: 2..6) -> bool {
      roll die: d6
      return die >= skill
    }
    mechanic volley(skill: 2..6) -> int = count(x for x in [shot(skill), shot(skill)] if x)
    mechanic two_shots(skill: 2..6) -> list of bool {
      let a = shot(skill)
      let b = shot(skill, die=6)
      return [a, b]
    }
    mechanic needs(n: 0..3) -> int {
      require n != 2 "two is not allowed"
      roll dice: n of d6
      return count(d for d in dice if d == 6)
    }
    mechanic laser_hits(n: 0..3) -> int {
      roll c: chain n of dust on {army, target} then {army}
      return c
    }
    mechanic laser_capped(n: 0..3) -> int {
      roll c: chain n of dust on {army}
      return min(c, 3)
    }
    mechanic laser_doubled() -> int {
      roll c: chain of d6 on {5, 6} then {6}
      return 2 * c + 1
    }
    mechanic laser_negated() -> int {
      roll c: chain of d6 on {6}
      return 10 - c
    }
    mechanic laser_threshold(k: 0..40) -> bool {
      roll c: chain of d6 on {4, 5, 6} then {6}
      return c >= k
    }
    mechanic laser_saves() -> int {
      roll c: chain of dust on {army, target} then {army}
      roll saves: c of dust
      return c - count(f for f in saves if f == shield)
    }
    mechanic finite_chain(n: 0..3) -> int {
      roll c: chain n of d6 on {6} then []
      return c
    }
    mechanic no_dice(x: 0..3) -> int = x + 1
    mechanic aggregates(n: 0..3, m: 0..2, t: 1..6) -> list of int {
      roll a: n of d6
      roll b: m of d6
      let low = min([7] + [d for d in b if d >= t])
      return [sum(d for d in a if d < low), len(a), count(d > 3 for d in a), min([d for d in a] + [9]),
              if any(d == 6 for d in b) then 1 else 0, if all(d >= t for d in a) then 1 else 0]
    }
    mechanic ties_with_best(n: 1..3) -> int {
      roll a: n of d6
      return count(d for d in a if d == max(a))
    }
    mechanic at_least(dice: list of 1..6, need: 1..6 = 4) -> int = count(d for d in dice if d >= need)
    mechanic helper_default(n: 0..3) -> int {
      roll a: n of d6
      return at_least(a) + at_least(a, 6)
    }
    mechanic per_threshold(n: 0..2) -> list of int {
      roll a: n of d6
      return [count(d for d in a if d >= t) for t in 1..3]
    }
    mechanic beaten(n: 1..2) -> int {
      roll a: n of d6
      roll b: n of d6
      return count(d for d in a if count(e for e in b if e < d) > 0)
    }
    mechanic relay(n: 1..2) -> int {
      roll a: n of d6
      roll b: n of d6
      roll c: n of d6
      return count(d for d in c if d >= max([0] + [e for e in b if e <= max(a)]))
    }
  }
}
"""


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def books(tmp_path_factory):
    folder = tmp_path_factory.mktemp("odds-books")
    shutil.copy(HERE / "demo_book.rules", folder / "demo.rules")
    (folder / "oddsbook.rules").write_text(ODDS_BOOK)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RULES_DSL_BOOKS", str(folder))
        mp.setenv("RULES_DSL_CACHE", str(tmp_path_factory.mktemp("odds-cache")))
        yield {"demo": rules_dsl.load("demo"), "odds": rules_dsl.load("oddsbook"), "folder": folder}


@pytest.fixture(scope="module")
def demo(books):
    return books["demo"]


@pytest.fixture(scope="module")
def ob(books):
    return books["odds"]


# --------------------------------------------------------------- brute force
class _Need(Exception):
    def __init__(self, kind, name, die, count=1):
        super().__init__(name)
        self.kind, self.name, self.die, self.count = kind, name, die, count


class _Probe(GivenRoller):
    """Rolls only what is given; stops at the first roll that is not."""

    def one(self, name, die):
        if name not in self.given:
            raise _Need("one", name, die)
        return super().one(name, die)

    def pool(self, name, die, count):
        if name not in self.given:
            raise _Need("pool", name, die, count)
        return super().pool(name, die, count)

    def chain(self, name, die, count, on, then):  # pragma: no cover - chains have their own test
        raise AssertionError("brute force does not enumerate chains")


def brute(mech, **inputs):
    """{repr(value): probability} over every sequence of physical faces."""
    out = defaultdict(Fraction)
    bound = mech.bind([], dict(inputs))

    def rec(rolls, p):
        try:
            mech.invoke(dict(bound), Ctx(_Probe(rolls)))
        except _Need as need:
            die = need.die
            faces = [(str(f) if die.custom else f, die.weight(f)) for f in die.distinct]
            if need.kind == "one":
                for f, w in faces:
                    rec({**rolls, need.name: f}, p * w)
            else:
                for seq in product(faces, repeat=need.count):
                    w = p
                    for _, x in seq:
                        w *= x
                    rec({**rolls, need.name: [f for f, _ in seq]}, w)
            return
        value, _ = mech.run(rolls=rolls, **inputs)
        out[repr(value)] += p

    rec({}, Fraction(1))
    return dict(out)


def engine(mech, **inputs):
    d = distribution(mech, **inputs)
    assert sum(p for _, p in d.outcomes) == 1          # exactly, as fractions
    assert all(p > 0 for _, p in d.outcomes)
    return {repr(v): p for v, p in d.outcomes}, d


def as_multisets(dist):
    """Lists read as multisets: a pool's order carries no meaning."""
    out = defaultdict(Fraction)
    for k, p in dist.items():
        if k.startswith("["):
            k = "[" + ", ".join(sorted(x for x in k[1:-1].split(", ") if x)) + "]"
        out[k] += p
    return dict(out)


def check(mech, multiset=False, **inputs):
    got, d = engine(mech, **inputs)
    want = brute(mech, **inputs)
    if multiset:
        got, want = as_multisets(got), as_multisets(want)
    assert got == want, (mech.name, inputs)
    return d


# ------------------------------------------------------------ the demo book
@SETTINGS
@given(n=st.integers(1, 3))
def test_sustained_attack_matches_brute_force(demo, n):
    d = check(demo.mechanics["sustained"], n=n)
    # the re-roll makes each die an independent 5/9 hit: binomial(n, 5/9)
    assert d.mean == Fraction(5, 9) * n


@SETTINGS
@given(defence=st.integers(0, 10), hits=st.integers(0, 3))
def test_defence_outcome_lists_match_brute_force_as_multisets(demo, defence, hits):
    d = check(demo.mechanics["defence"], multiset=True, defence=defence, hits=hits)
    assert d.mean is None


def test_sustained_twenty_dice(demo):
    d = distribution(demo.mechanics["sustained"], n=20)
    assert [v for v, _ in d.outcomes] == list(range(21))
    assert d.probability(0) == Fraction(4, 9) ** 20
    assert d.probability(20) == Fraction(5, 9) ** 20
    assert d.mean == Fraction(100, 9)


# ------------------------------------------------------ the odds test book
@SETTINGS
@given(stat=st.integers(0, 10), modifier=st.integers(-3, 3))
def test_single_die_and_roll_under(ob, stat, modifier):
    d = check(ob.mechanics["roll_under"], stat=stat)
    assert d.probability(True) == Fraction(stat, 10)
    check(ob.mechanics["degree"], stat=stat, modifier=modifier)
    check(ob.mechanics["parity"], stat=stat)


@SETTINGS
@given(target=st.integers(2, 6), n=st.integers(0, 3))
def test_rerolls_match_brute_force(ob, target, n):
    d = check(ob.mechanics["reroll_failure"], target=target)
    miss = Fraction(target - 1, 6)
    assert d.probability(False) == miss * miss
    check(ob.mechanics["reroll_ones"], n=n, target=target)


@SETTINGS
@given(attack=st.integers(0, 10), fp=st.integers(0, 2), their_attack=st.integers(0, 10), their_fp=st.integers(0, 1))
def test_opposed_pools_with_cancellation_match_brute_force(ob, attack, fp, their_attack, their_fp):
    kw = dict(attack=attack, firepower=fp, their_attack=their_attack, their_firepower=their_fp)
    check(ob.mechanics["opposed"], **kw)
    check(ob.mechanics["opposed_best"], **kw)


def _without_fast_path(monkeypatch):
    from rules_dsl.odds import aggregates as odds_pools
    monkeypatch.setattr(odds_pools, "law", lambda *a, **k: None)


@SETTINGS
@given(n=st.integers(0, 3), m=st.integers(0, 2), t=st.integers(1, 6))
def test_pool_aggregates_match_brute_force(ob, n, m, t):
    check(ob.mechanics["aggregates"], n=n, m=m, t=t)


@pytest.mark.parametrize("name, inputs", [
    ("aggregates", dict(n=3, m=1, t=3)),
    ("ties_with_best", dict(n=3)),
    ("helper_default", dict(n=3)),
    ("relay", dict(n=1)),
    ("per_threshold", dict(n=2)),
    ("beaten", dict(n=2)),
    ("opposed", dict(attack=6, firepower=2, their_attack=4, their_firepower=1)),
    ("reroll_ones", dict(n=3, target=4)),
    ("dust_hits", dict(n=4, cover=True)),
])
def test_fast_path_and_general_engine_agree_with_brute_force(ob, name, inputs, monkeypatch):
    """The aggregate fast path (odds_pools) and the general engine give the same exact law."""
    mech = ob.mechanics[name]
    want = brute(mech, **inputs)
    fast, _ = engine(mech, **inputs)
    with monkeypatch.context() as mp:
        _without_fast_path(mp)
        slow, _ = engine(mech, **inputs)
    assert fast == slow == want


@SETTINGS
@given(attack=st.integers(0, 10), fp=st.integers(0, 2), their_attack=st.integers(0, 10), their_fp=st.integers(0, 1),
       n=st.integers(1, 3))
def test_general_engine_alone_matches_brute_force(ob, attack, fp, their_attack, their_fp, n):
    """Without the fast path: classes split per path, max decided lazily."""
    with pytest.MonkeyPatch.context() as mp:
        _without_fast_path(mp)
        check(ob.mechanics["opposed"], attack=attack, firepower=fp, their_attack=their_attack,
              their_firepower=their_fp)
        check(ob.mechanics["keep_highest"], n=n)
        check(ob.mechanics["ties_with_best"], n=n)


def test_which_statements_take_the_fast_path(ob):
    from rules_dsl.odds.plan import plan_of
    assert plan_of(ob.mechanics["opposed"]).fast_result is not None        # across two pools
    assert plan_of(ob.mechanics["helper_default"]).fast_result is not None  # through a helper's default
    assert plan_of(ob.mechanics["first_beats_last"]).fast_result is None    # reads the pool's order
    assert plan_of(ob.mechanics["relay"]).fast_result is None               # c reads b, which reads a
    assert plan_of(ob.mechanics["ties_with_best"]).fast_result is not None  # a test reading its own pool
    assert plan_of(ob.mechanics["per_threshold"]).fast_result is None       # reads an outer loop's variable
    assert plan_of(ob.mechanics["beaten"]).fast_result is None              # an inner count reads the outer die


def test_opposed_three_against_three(ob):
    kw = dict(attack=6, firepower=3, their_attack=6, their_firepower=3)
    d = distribution(ob.mechanics["opposed"], **kw)
    # figures from an independent icepool MultisetEvaluator (descending sweep)
    assert d.probability([0, 0]) == Fraction(4096, 10 ** 6)
    assert d.probability([1, 1]) == Fraction(137115, 10 ** 6)
    assert d.probability([3, 3]) == Fraction(6, 10 ** 6)
    swapped = {tuple(v): p for v, p in d.outcomes}
    assert all(swapped[(b, a)] == p for (a, b), p in swapped.items())   # the duel is symmetric


@SETTINGS
@given(n=st.integers(1, 3))
def test_highest_sum_and_order_statistics(ob, n):
    d = check(ob.mechanics["keep_highest"], n=n)
    assert d.probability(lambda v: v <= 5) == Fraction(1, 2) ** n
    d = check(ob.mechanics["total"], n=n)
    assert d.mean == Fraction(7, 2) * n


def test_a_mechanic_that_reads_pool_order_is_enumerated_in_order(ob):
    d = check(ob.mechanics["first_beats_last"])
    assert d.probability(True) == Fraction(15, 36)
    for n in (1, 2, 3):
        check(ob.mechanics["in_order"], n=n)


@SETTINGS
@given(state=st.sampled_from(["steady", "shaken", "broken"]), leadership=st.integers(2, 12))
def test_state_transitions(ob, state, leadership):
    d = check(ob.mechanics["morale_step"], state=state, leadership=leadership)
    assert {str(v) for v, _ in d.outcomes} <= {"steady", "shaken", "broken"}


@SETTINGS
@given(n=st.integers(0, 4), cover=st.booleans())
def test_dust_custom_faces(ob, n, cover):
    d = check(ob.mechanics["dust_hits"], n=n, cover=cover)
    assert d.mean == n * Fraction(1 if cover else 2, 3)


def test_dust_faces_as_multisets(ob):
    d = check(ob.mechanics["dust_faces"], multiset=True, n=2)
    probs = sorted(p for _, p in d.outcomes)
    assert probs == [Fraction(1, 9)] * 3 + [Fraction(2, 9)] * 3
    assert {tuple(map(str, v)) for v, _ in d.outcomes} >= {("army", "army"), ("army", "target")}


def test_nested_mechanics_roll_independently(ob):
    # two calls of `shot` are two dice (a brute force with one value per name cannot say so)
    d = distribution(ob.mechanics["volley"], skill=4)
    assert d.outcomes == [(0, Fraction(1, 4)), (1, Fraction(1, 2)), (2, Fraction(1, 4))]
    assert d.mean == 1
    d = check(ob.mechanics["two_shots"], skill=3)       # the second shot's die is given by name
    assert {repr(v) for v, _ in d.outcomes} == {"[False, True]", "[True, True]"}


def test_require_and_inputs(ob, demo):
    check(ob.mechanics["needs"], n=3)
    with pytest.raises(RulesError, match="two is not allowed"):
        distribution(ob.mechanics["needs"], n=2)
    with pytest.raises(InputError) as e:
        distribution(demo.mechanics["sustained"], n=31)
    assert e.value.param == "n"
    with pytest.raises(InputError, match="needs a value"):
        distribution(demo.mechanics["sustained"])
    with pytest.raises(NotFound, match="unknown parameter 'nonsense'"):
        distribution(demo.mechanics["sustained"], n=2, nonsense=3)


def test_a_mechanic_without_dice_has_no_odds(ob, demo):
    with pytest.raises(NoDice, match="rolls no dice"):
        distribution(ob.mechanics["no_dice"], x=1)
    assert issubclass(NoDice, RulesError)
    assert page_odds(demo.mechanics["cost"]) == []


def test_given_rolls_condition_the_distribution(demo):
    d = distribution(demo.mechanics["sustained"], n=3, first=["army", "shield", "target"])
    # one hit kept, two misses re-rolled
    assert d.outcomes == [(1, Fraction(4, 9)), (2, Fraction(4, 9)), (3, Fraction(1, 9))]
    with pytest.raises(EvaluationError, match=r"roll 'first' is 3 x \w+, but 1 value\(s\) were given"):
        distribution(demo.mechanics["sustained"], n=3, first=["army"])


# -------------------------------------------------------------------- chains
def _one_chain_by_enumeration(die, on, then, length):
    """P(successes = s) for s < length by listing every face sequence up to `length` rolls."""
    faces = list(die.faces)
    probs = defaultdict(Fraction)

    def rec(i, s, p):
        if i >= length:
            return
        for f in faces:
            q = p / len(faces)
            if f in (on if i == 0 else then):
                rec(i + 1, s + 1, q)
            else:
                probs[s] += q
    rec(0, 0, Fraction(1))
    return probs


def _convolve(a, b, limit):
    out = defaultdict(Fraction)
    for i, p in a.items():
        for j, q in b.items():
            if i + j < limit:
                out[i + j] += p * q
    return out


@pytest.mark.parametrize("n", [1, 2, 3])
def test_chain_closed_form_matches_long_truncated_enumeration(demo, ob, n):
    mech = ob.mechanics["laser_hits"]
    die = ob.dice["dust"]
    on, then = {"army", "target"}, {"army"}
    L = 14
    one = _one_chain_by_enumeration(die, on, then, L)     # exact for s < L - 1... and the rest is lost
    total = {0: Fraction(1)}
    for _ in range(n):
        total = _convolve(total, one, L - 1)
    d = distribution(mech, n=n)
    assert sum(p for _, p in d.outcomes) == 1
    got = dict(d.outcomes)
    for s in range(L - 1):
        assert got[s] == total.get(s, 0), s
    last, tail = d.outcomes[-1]
    assert isinstance(last, OrMore) and last.up and tail < Fraction(1, 10 ** 12)
    assert tail == 1 - sum(p for v, p in d.outcomes[:-1])
    # closed form of the mean: n * p1 / (1 - p2) with p1 = 2/3, p2 = 1/3
    assert d.mean == n
    assert d.exact


def test_the_demo_laser_chain(demo):
    d = distribution(demo.mechanics["laser"])
    p = dict(d.outcomes)
    assert p[0] == Fraction(1, 3)
    for k in range(1, 10):    # P(k) = p1 * p2^(k-1) * (1 - p2)
        assert p[k] == Fraction(2, 3) * Fraction(1, 3) ** (k - 1) * Fraction(2, 3)
    assert d.mean == 1 and d.exact


@SETTINGS
@given(on=st.sets(st.integers(1, 6), min_size=1, max_size=5), then=st.sets(st.integers(1, 6), max_size=5),
       m=st.integers(1, 3))
def test_chain_law_is_the_sum_of_geometric_chains(on, then, m):
    from rules_dsl.odds.chains import ChainLaw
    p1, p2 = Fraction(len(on), 6), Fraction(len(then), 6)
    law = ChainLaw(m, p1, p2, Fraction(1, 10 ** 12))
    one = {0: 1 - p1}
    for k in range(1, 40):
        one[k] = p1 * p2 ** (k - 1) * (1 - p2)
    total = {0: Fraction(1)}
    for _ in range(m):
        total = _convolve(total, one, 40)
    pm, tail = law.upto(30)
    assert pm == [total.get(s, Fraction(0)) for s in range(30)][:len(pm)]
    assert sum(pm) + tail == 1
    assert law.mean == m * p1 / (1 - p2)


def test_chains_in_arithmetic_and_comparisons_stay_exact(ob):
    d = distribution(ob.mechanics["laser_doubled"])
    assert d.exact and d.mean == 1 + 2 * Fraction(1, 3) / Fraction(5, 6)
    assert d.probability(1) == Fraction(2, 3) and d.probability(2) == 0
    assert isinstance(d.outcomes[-1][0], OrMore)
    d = distribution(ob.mechanics["laser_negated"])
    low = d.outcomes[0][0]
    assert isinstance(low, OrMore) and not low.up and d.mean == 10 - Fraction(1, 6) / Fraction(5, 6)
    d = distribution(ob.mechanics["laser_threshold"], k=30)
    assert d.exact and d.probability(True) == Fraction(1, 2) * Fraction(1, 6) ** 29
    d = distribution(ob.mechanics["laser_capped"], n=2)
    assert d.exact and [v for v, _ in d.outcomes] == [0, 1, 2, 3]
    assert distribution(ob.mechanics["finite_chain"], n=3).outcomes[-1] == (3, Fraction(1, 216))


def test_a_chain_used_as_a_pool_size_is_truncated_with_a_bound(ob):
    d = distribution(ob.mechanics["laser_saves"])
    assert not d.exact and 0 < d.error_bound < Fraction(1, 10 ** 12)
    assert sum(p for _, p in d.outcomes) == 1
    # exact law: c from the chain, then each of c dice saves on a shield (1/3)
    law_c = {0: Fraction(1, 3)}
    for k in range(1, 60):
        law_c[k] = Fraction(2, 3) * Fraction(1, 3) ** (k - 1) * Fraction(2, 3)
    exact = defaultdict(Fraction)
    for c, pc in law_c.items():
        for s in range(c + 1):
            exact[c - s] += pc * Fraction(__import__("math").comb(c, s)) * Fraction(1, 3) ** s * Fraction(2, 3) ** (c - s)
    for v, p in d.outcomes:
        assert abs(p - exact[v]) <= d.error_bound + Fraction(1, 10 ** 20)
    assert "truncated" in d.table()
    assert d.as_json()["exact"] is False


# ------------------------------------------------------------- presentation
def test_json_table_and_probability(demo):
    d = distribution(demo.mechanics["sustained"], n=3)
    j = d.as_json()
    json.dumps(j)
    assert j["outcomes"][0] == {"value": 0, "probability": "64/729", "float": 64 / 729,
                                "probability_at_least": "1/1", "probability_at_most": "64/729"}
    assert j["mean"] == "5/3" and abs(j["mean_float"] - 5 / 3) < 1e-12
    assert [o["value"] for o in j["outcomes"]] == [0, 1, 2, 3]
    t = d.table()
    assert "64/729" in t and "8.78%" in t and "mean: 5/3" in t
    assert d.probability(lambda v: v >= 2) == Fraction(100, 243) + Fraction(125, 729)
    j = distribution(demo.mechanics["defence"], defence=6, hits=2).as_json()
    assert j["mean"] is None and j["outcomes"][0]["value"] == ["ignored", "ignored"]
    j = distribution(demo.mechanics["laser"]).as_json()
    assert j["outcomes"][-1]["value"] == {"at_least": 26}


def test_at_least_and_at_most_are_the_tail_sums(demo):
    """The 'at least' and 'at most' columns equal the probability of the event they name."""
    for mech, kw in (("sustained", {"n": 5}), ("laser", {})):
        d = distribution(demo.mechanics[mech], **kw)
        cum = d.cumulative()
        assert [v for v, *_ in cum] == [v for v, _ in d.outcomes]
        for i, (v, p, ge, le) in enumerate(cum):
            assert p == d.outcomes[i][1]
            assert ge == sum((q for _, q in d.outcomes[i:]), Fraction(0))
            assert le == sum((q for _, q in d.outcomes[:i + 1]), Fraction(0))
            if isinstance(v, int):
                assert ge == d.probability(lambda x, v=v: not isinstance(x, int) or x >= v)
        assert cum[0][2] == 1 and cum[-1][3] == 1
    t = distribution(demo.mechanics["sustained"], n=3).table()
    assert "at least" in t.splitlines()[2] and "at most" in t.splitlines()[2]
    assert distribution(demo.mechanics["defence"], defence=6, hits=2).cumulative() is None   # not a number


def test_book_odds_and_page_odds(demo):
    d = demo.odds("sustained", n=4)
    assert d.mean == Fraction(20, 9)
    start = time.monotonic()
    pages = page_odds(demo.mechanics["sustained"])
    assert time.monotonic() - start < 2
    assert pages and all(isinstance(inp, dict) and sum(p for _, p in dist.outcomes) == 1 for inp, dist in pages)
    assert [inp["n"] for inp, _ in pages] == [2, 1, 4]       # a number of dice starts small
    pages = page_odds(demo.mechanics["defence"])
    shown = [(inp["defence"], inp["hits"]) for inp, _ in pages]
    assert shown[0] == (5, 2) and {(0, 2), (5, 4)} <= set(shown)
    # rows whose result is certain say nothing about the dice: no hits (nothing rolled), and
    # defence 10 (every die is ignored) are left out
    assert (5, 0) not in shown and (10, 2) not in shown
    assert all(len(dist.outcomes) > 1 for _, dist in pages)


def test_cli_odds(books, capsys, monkeypatch):
    from rules_dsl.cli import main
    assert main(["odds", "demo:sustained", "n=3"]) == 0
    out = capsys.readouterr().out
    assert "8.78%" in out and "mean: 1.67" in out and "64/729" not in out     # a player's table: decimals
    assert main(["odds", "demo:sustained", "n=3", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "64/729" in out and "mean: 1.67 (exactly 5/3)" in out
    assert main(["odds", "demo:sustained", "n=3", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["mean"] == "5/3"
    with pytest.raises(SystemExit) as e:
        main(["odds", "demo:cost", "m=4", "a=6", "d=3", "q=6"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["odds", "demo:sustained", "n=99"])
    assert e.value.code == 2
    assert "'n'" in capsys.readouterr().err


# ------------------------------------------------------ the real rulebooks
def _real(book_id, mechanic):
    real = HERE.parent / "rulebooks"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RULES_DSL_BOOKS", str(real))
        book = rules_dsl.load(book_id)      # a real book that does not compile fails here
    assert mechanic in book.mechanics, f"{book_id}:{mechanic} was renamed or removed: update this test"
    return book.mechanics[mechanic]


@pytest.mark.parametrize("book_id, mechanic, inputs, multiset", [
    ("xenotactics", "opposed_hits", dict(attack=6, firepower=2, their_attack=4, their_firepower=1), False),
    ("void", "dodge_turn", dict(needed=6, points=3), False),
    ("void", "damage_dodged", dict(needed=7, points=3), False),
    ("null-strike", "resolve_attack", dict(shots=1, weapons=5, evasion=4, strength=5, toughness=4, armour=4), False),
    ("xenotactics", "experience_gained", dict(victory_points=2), False),
])
def test_real_books_against_brute_force(books, book_id, mechanic, inputs, multiset):
    mech = _real(book_id, mechanic)
    check(mech, multiset=multiset, **inputs)     # a changed parameter fails: update the inputs


def test_real_full_attack_is_binomial(books):
    """Ten shots, each independently hit, wound and fail its save: binomial(10, q)."""
    mech = _real("null-strike", "resolve_attack")
    book = mech.book
    need = [book.mechanics[m](*a) for m, a in (("hit_target", (5, 4)), ("wound_target", (5, 4)),
                                               ("armour_save_target", (4, 0)))]
    d = distribution(mech, shots=10, weapons=5, evasion=4, strength=5, toughness=4, armour=4)
    assert all(isinstance(x, int) for x in need), need
    hit, wound, save = (Fraction(7 - x, 6) for x in need)
    q = hit * wound * (1 - save)
    from math import comb
    assert d.outcomes == [(k, comb(10, k) * q ** k * (1 - q) ** (10 - k)) for k in range(11)]


def test_real_dice_mechanics_have_odds(books):
    """Every dice mechanic of the six real books gets page odds: at least one real
    distribution (the page's first inputs), each exact, summing to exactly 1."""
    from rules_dsl.library import loader
    real = HERE.parent / "rulebooks"
    seen = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RULES_DSL_BOOKS", str(real))
        ids = loader.book_ids()
        assert set(ids) >= {"null-strike", "xenotactics", "dust-tactics", "void", "warhammer-40k", "skirmish-tutorial"}, ids
        for bid in ids:
            book = rules_dsl.load(bid)
            for mech in book.mechanics.values():
                if not mech.has_dice:
                    continue
                rows = page_odds(mech)
                assert rows, f"{bid}:{mech.name} gets no odds on its page"
                for inputs, dist in rows:
                    assert len(dist.outcomes) >= 1 and dist.evaluations > 0, (bid, mech.name, inputs)
                    assert all(0 < p <= 1 for _, p in dist.outcomes), (bid, mech.name, inputs)
                    assert sum(p for _, p in dist.outcomes) == 1, (bid, mech.name, inputs)
                seen[f"{bid}:{mech.name}"] = len(rows)
    assert len(seen) >= 80, len(seen)          # 84 dice mechanics today, 275 distributions
    assert sum(seen.values()) >= 250, sum(seen.values())

# ------------------------------------------- the stand-in protocol (rules_dsl.language.symbolic)
STANDIN_BOOK = """book standins {
  title "Every builtin on stand-ins"
  dice d6
}
section all "All" {
  rule builtins "Builtins" {
    \"\"\"One dice mechanic per builtin, each handing the builtin a roll's value.\"\"\"
    table t(k: 1..6) -> int {
      | k | value |
      |---|---|
      | 1..3 | 10 |
      | 4..6 | 20 |
    }
    mechanic b_count() -> int { roll d: d6  roll e: d6  return count([d - 3, e - 4]) }
    mechanic b_sum() -> int { roll d: d6  roll e: d6  return sum([d, e]) }
    mechanic b_max() -> int { roll d: d6  roll e: d6  return max(d, e) + max([d, 3]) }
    mechanic b_min() -> int { roll d: d6  roll e: d6  return min(d, e) + min([d, 3]) }
    mechanic b_len() -> int { roll d: d6  return len([d, d]) + d }
    mechanic b_any() -> bool { roll d: d6  roll e: d6  return any([d - 3, e - 4]) }
    mechanic b_all() -> bool { roll d: d6  roll e: d6  return all([d - 3, e - 4]) }
    mechanic b_abs() -> int { roll d: d6  return abs(d - 4) }
    mechanic b_floor() -> int { roll d: d6  return floor(d) + floor(d / 2) }
    mechanic b_ceil() -> int { roll d: d6  return ceil(d) + ceil(d / 4) }
    mechanic b_round() -> int { roll d: d6  return round(d, half_even) + round(d / 4, half_even) + round(d / 3, up) }
    mechanic b_clamp() -> int { roll d: d6  return clamp(d, 2, 5) }
    mechanic b_even() -> bool { roll d: d6  return even(d) }
    mechanic b_odd() -> bool { roll d: d6  return odd(d) }
    mechanic b_sorted() -> list of int { roll d: d6  roll e: d6  return sorted([d, e, 3]) }
    mechanic b_highest() -> list of int { roll d: d6  roll e: d6  return highest([d, e, 3], 2) }
    mechanic b_lowest() -> list of int { roll d: d6  roll e: d6  return lowest([d, e, 3], 2) }
    mechanic b_rows() -> int { roll d: d6  return count([r for r in rows(t) if r.value > d]) }
    mechanic b_is_absent() -> bool { roll d: d6  return is_absent(d) or d > 4 }
    mechanic b_or_else() -> int { roll d: d6  return or_else(d, 0) }
    mechanic b_field() -> int { roll d: d6  return field(rows(t)[0], "value") + d }
    mechanic b_covers() -> bool { roll d: d6  return covers(2..4, d) }
    mechanic b_low() -> int { roll d: d6  return low(d) }
    mechanic b_high() -> int { roll d: d6  return high(d) }
    mechanic b_defined() -> bool { roll d: d6  return defined("Builtins") and d > 2 }
  }
}
"""

# builtins whose arguments are never dice values (a table, a record, a name): their
# mechanics still go through the engine and are checked against brute force
_NOT_DICE_ARGS = {"rows", "field", "defined"}


def test_every_builtin_on_stand_ins(tmp_path, monkeypatch):
    """Each builtin gets an exact-odds stand-in (`rules_dsl.language.symbolic.Symbolic`) as an
    argument, and the distribution equals brute-force enumeration of the rolls.
    A new builtin must get a mechanic here (the test fails until it does)."""
    from rules_dsl.language import builtins
    from rules_dsl.library import loader
    from rules_dsl.language.symbolic import Symbolic
    got_standin = set()

    def watch(name, fn):
        def wrapped(*args):
            for a in args:
                if isinstance(a, Symbolic) or (isinstance(a, list) and any(isinstance(x, Symbolic) for x in a)):
                    got_standin.add(name)
            return fn(*args)
        return wrapped
    for name, (fn, *rest) in list(builtins.BUILTINS.items()):
        monkeypatch.setitem(builtins.BUILTINS, name, (watch(name, fn), *rest))
    (tmp_path / "standins.rules").write_text(STANDIN_BOOK)
    book = loader.Library(tmp_path, cache=tmp_path / "cache").load("standins")
    assert {m[2:] for m in book.mechanics} == set(builtins.BUILTINS), "one mechanic per builtin"
    for mech in book.mechanics.values():
        check(mech)
    missing = set(builtins.BUILTINS) - _NOT_DICE_ARGS - got_standin
    assert not missing, f"these builtins never received a stand-in: {sorted(missing)}"


def test_side_by_side_shows_both_laws_and_their_difference(demo):
    from rules_dsl.odds import side_by_side
    a = distribution(demo.mechanics["sustained"], n=2)
    b = distribution(demo.mechanics["sustained"], n=3)
    text = side_by_side(a, b)
    assert text.splitlines()[1] == "B: the same with n=3"
    rows = {line.split()[0]: line.split() for line in text.splitlines()[5:] if line and line[0].isdigit()}
    assert set(rows) == {"0", "1", "2", "3"}                      # every result either side can give
    assert rows["3"][1] == "0%" and rows["3"][2] == "0%"          # A never gives 3: shown as 0, not left out
    for v, cells in rows.items():
        pa, pb = a.probability(int(v)), b.probability(int(v))
        assert cells[-1] == ("0" if pa == pb else f"{float(pb - pa) * 100:+.2f}")
    assert "mean: A" in text and ", B 5/3" in text
