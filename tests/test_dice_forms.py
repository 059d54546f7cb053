"""Re-roll once (`DICE reroll FACES`) and exploding dice (`DICE explode on FACES [up to N]`).

The exact odds are checked against brute force that is independent of the engine:
the mechanic itself is run with a random generator that walks every sequence of
`choice` results depth first (each die the real `GivenRoller` rolls, re-rolls and
explosions included), weighting each path by 1/len(faces) per choice.  So the
engine's closed forms are held to the random roller's physical process."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rules_dsl
from rules_dsl.language import nodes as n
from rules_dsl.language.dice import EXPLODE_CAP, explode_law, explode_more
from rules_dsl.errors import EvaluationError, RulebookError
from rules_dsl.odds import distribution
from rules_dsl.language.parser import parse_text
from rules_dsl.language.render import dice_text
from rules_dsl.language.wording import dice_phrase

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

HEADER = """book dicebook {
  title "Dice forms"
  dice d4, d6
  die dust { army: 2, target: 2, shield: 2 }
}
"""

BODY = '''rule forms "Forms" {
  """Re-rolls and exploding dice."""
  mechanic save(target: 2..6) -> bool {
    roll die: d6 reroll {1}
    return die >= target
  }
  mechanic face(lo: 1..4, hi: 1..4) -> int {
    roll die: d4 reroll lo..hi
    return die
  }
  mechanic plain_face() -> int {
    roll die: d4
    return die
  }
  mechanic hits(shots: 0..20, target: 2..6) -> int {
    roll dice: shots of d6 reroll 1..target - 1
    return count(f for f in dice if f >= target)
  }
  mechanic hits_listed(shots: 0..20, target: 2..6) -> int {
    roll dice: shots of d6 reroll [f for f in 1..6 if f < target]
    return count(f for f in dice if f >= target)
  }
  mechanic kept(n: 0..3) -> list of int {
    roll dice: n of d4 reroll {1, 2}
    return dice
  }
  mechanic dust_kept(n: 0..3) -> int {
    roll dice: n of dust reroll {shield}
    return count(f for f in dice if f == army)
  }
  mechanic burst(n: 0..3, most: 0..4) -> list of int {
    roll attack: n of d4 explode on {4} up to most
    return attack
  }
  example """
  >>> burst(2, 4, attack=[4, 1, 4, 2])
  [4, 1, 4, 2]
  >>> hits(3, 4, dice=[1, 5, 6])
  2
  >>> save(4, die=4)
  true
  """
  mechanic burst_sum(n: 0..3, most: 0..4) -> int {
    roll attack: n of d4 explode on {3, 4} up to most
    return sum(attack)
  }
  mechanic burst_kept(n: 0..3, most: 0..4) -> int {
    roll attack: n of d4 explode on {3, 4} up to most
    let big = count(f for f in attack if f >= 3)
    return big * 10 + sum(f for f in attack if f < 3)
  }
  mechanic burst_fast(n: 0..3, most: 0..4) -> int {
    roll attack: n of d4 explode on {3, 4} up to most
    return count(f for f in attack if f >= 3) * 10 + sum(f for f in attack if f < 3)
  }
  mechanic strike(n: 0..8) -> int {
    roll attack: n of d6 explode on {6}
    return count(f for f in attack if f >= 5)
  }
  mechanic attack_len(n: 0..5) -> int {
    roll attack: n of d6 explode on {5, 6}
    return len(attack)
  }
  mechanic attack_sum(n: 0..5, most: 0..30) -> int {
    roll attack: n of d6 explode on {6} up to most
    return sum(f for f in attack)
  }
  mechanic storm(n: 0..3) -> int {
    roll attack: n of dust explode on {army} up to 3
    return count(f for f in attack if f == target)
  }
  mechanic single(dummy: 0..1 = 0) -> list of int {
    roll die: d4 explode on {4} up to 2
    return die
  }
  mechanic first(n: 1..3) -> int {
    roll attack: n of d6 explode on {6}
    return attack[0]
  }
  mechanic explode_from(low: 1..6) -> int {
    roll attack: 2 of d6 explode on low..6
    return len(attack)
  }
  mechanic reroll_above(hi: 1..7) -> int {
    roll die: d6 reroll 1..hi
    return die
  }
}
'''


@pytest.fixture
def book(tmp_path, monkeypatch):
    books = tmp_path / "books"
    books.mkdir()
    (books / "dicebook.rules").write_text(HEADER + BODY)
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    return rules_dsl.load("dicebook")


def errors_of(tmp_path, monkeypatch, body):
    books = tmp_path / "bad"
    books.mkdir(exist_ok=True)
    (books / "bad.rules").write_text(HEADER.replace("dicebook", "bad") + body)
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    with pytest.raises(RulebookError) as e:
        rules_dsl.load("bad")
    return e.value


# ------------------------------------------------------------- brute force
class _PathRng:
    """A `random.Random` stand-in whose `choice` follows a recorded path of indices."""

    def __init__(self, path):
        self.path, self.pos, self.seen, self.weight = path, 0, [], Fraction(1)

    def choice(self, seq):
        i = self.path[self.pos] if self.pos < len(self.path) else 0
        self.seen.append((i, len(seq)))
        self.pos += 1
        self.weight /= len(seq)
        return seq[i]


def brute(mech, *args, **kwargs):
    """{result key: probability} over every sequence of die rolls the random roller makes."""
    out = defaultdict(Fraction)
    path = []
    while True:
        rng = _PathRng(path)
        value = mech.run(*args, rng=rng, **kwargs)[0]
        out[_canon(value)] += rng.weight
        seen = rng.seen
        i = len(seen) - 1
        while i >= 0 and seen[i][0] + 1 >= seen[i][1]:
            i -= 1
        if i < 0:
            return dict(out)
        path = [c for c, _ in seen[:i]] + [seen[i][0] + 1]


def _canon(v):
    # a pool's order is the roll's; the engine shows an unordered pool in a canonical order
    return tuple(sorted(v, key=str)) if isinstance(v, list) else v


def engine(mech, *args, **kwargs):
    dist = distribution(mech, *args, **kwargs)
    out = defaultdict(Fraction)
    for v, p in dist.outcomes:
        out[_canon(v)] += p
    return dict(out), dist


# ----------------------------------------------------------- syntax, round trip
def test_forms_parse_to_their_own_kinds():
    sf = parse_text(HEADER + BODY, "d.rules")
    rolls = {r.name + ":" + m.name: r.dice for m in n.iter_nodes(sf) if isinstance(m, n.Mechanic)
             for r in m.body if isinstance(r, n.Roll)}
    assert rolls["die:save"].kind == "reroll" and rolls["die:save"].count is None
    assert rolls["dice:hits"].kind == "reroll" and isinstance(rolls["dice:hits"].on, n.RangeExpr)
    spec = rolls["attack:burst"]
    assert (spec.kind, spec.die, spec.count.name, spec.cap.name) == ("explode", "d4", "n", "most")
    assert rolls["attack:strike"].cap is None


def test_dice_text_of_each_form():
    sf = parse_text(HEADER + BODY, "d.rules")
    texts = [dice_text(r.dice) for m in n.iter_nodes(sf) if isinstance(m, n.Mechanic)
             for r in m.body if isinstance(r, n.Roll)]
    assert "d6 reroll {1}" in texts
    assert "shots of d6 reroll 1..target - 1" in texts
    assert "n of d4 explode on {4} up to most" in texts
    assert "d4 explode on {4} up to 2" in texts


def _strip(x):
    if isinstance(x, tuple):
        return tuple(_strip(i) for i in x)
    if isinstance(x, (n.Expr, n.DiceSpec)):
        return (type(x).__name__,) + tuple(_strip(v) for k, v in vars(x).items() if k != "span")
    return x


_lit = st.integers(min_value=0, max_value=30).map(lambda v: n.Literal(n.NOWHERE, v))
_name = st.sampled_from(["n", "target", "most"]).map(lambda v: n.Name(n.NOWHERE, v))
_sum = st.tuples(_name, _lit).map(lambda t: n.BinOp(n.NOWHERE, "-", *t))
_faces = st.one_of(
    st.lists(st.integers(min_value=1, max_value=6).map(lambda v: n.Literal(n.NOWHERE, v)), min_size=1, max_size=3)
    .map(lambda xs: n.SetLit(n.NOWHERE, tuple(xs))),
    st.tuples(st.one_of(_lit, _name), st.one_of(_lit, _name, _sum)).map(lambda t: n.RangeExpr(n.NOWHERE, *t)),
    _name)
_count = st.one_of(st.none(), _lit, _name, _sum)


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["reroll", "explode"]), die=st.sampled_from(["d6", "dust"]), count=_count,
       faces=_faces, cap=st.one_of(st.none(), _lit, _name, _sum))
def test_printed_dice_parse_back_to_the_same_spec(kind, die, count, faces, cap):
    spec = n.DiceSpec(n.NOWHERE, kind, die, count, faces, cap=cap if kind == "explode" else None)
    src = f"mechanic f() -> int {{\n roll x: {dice_text(spec)}\n return 1\n}}"
    back = parse_text(src, "rt.rules").items[0].body[0].dice
    assert _strip(back) == _strip(spec)


def test_words_for_each_form(book):
    sf = parse_text(HEADER + BODY, "d.rules")
    specs = {r.name + ":" + m.name: r.dice for m in n.iter_nodes(sf) if isinstance(m, n.Mechanic)
             for r in m.body if isinstance(r, n.Roll)}
    assert dice_phrase(specs["die:save"]) == "roll a d6, re-rolling it once if it shows 1 (the new face is kept)"
    assert dice_phrase(specs["dice:hits"]).startswith("roll shots d6, re-rolling each die once if it shows 1..target - 1")
    said = dice_phrase(specs["attack:strike"])
    assert "each die showing 6 adds another die, again and again" in said and f"at most {EXPLODE_CAP} extra" in said
    assert "at most most extra dice" in dice_phrase(specs["attack:burst"])


# ---------------------------------------------------------------- checks
def test_a_reroll_face_that_is_not_on_the_die_is_an_error_with_a_caret(tmp_path, monkeypatch):
    err = errors_of(tmp_path, monkeypatch, 'rule r "R" {\n  mechanic f() -> int {\n    roll x: 2 of d6 reroll {1, 7}\n'
                                           '    return sum(x)\n  }\n}\n')
    d = err.diagnostics[0]
    assert "7 is not a face of d6 (faces 1..6), so it cannot be re-rolled" in d.message
    assert d.line == 8 and d.column == d.source_line.index("7") + 1
    assert "reroll {1}" in d.hint
    assert "^" in err.render()


def test_an_explode_range_off_the_die_is_an_error(tmp_path, monkeypatch):
    err = errors_of(tmp_path, monkeypatch, 'rule r "R" {\n  mechanic f() -> int {\n    roll x: d4 explode on 3..5\n'
                                           '    return sum(x)\n  }\n}\n')
    assert "5 is not a face of d4 (faces 1..4), so it cannot be exploding" in err.diagnostics[0].message


def test_a_custom_face_that_is_not_on_the_die_is_an_error(tmp_path, monkeypatch):
    err = errors_of(tmp_path, monkeypatch, 'rule r "R" {\n  mechanic f() -> int {\n    roll x: 2 of dust explode on {army, armmy}\n'
                                           '    return len(x)\n  }\n}\n')
    assert any("armmy is not a face of dust (faces army, target, shield)" in d.message for d in err.diagnostics)


@pytest.mark.parametrize("faces", ["{1, 2, 3, 4}", "1..4", "{4, 3, 2, 1, 4}"])
def test_exploding_on_every_face_is_an_error(tmp_path, monkeypatch, faces):
    err = errors_of(tmp_path, monkeypatch, f'rule r "R" {{\n  mechanic f() -> int {{\n    roll x: d4 explode on {faces}\n'
                                           '    return sum(x)\n  }\n}\n')
    d = err.diagnostics[0]
    assert "exploding on every face of d4 would never stop" in d.message and "explode on {4}" in d.hint


def test_the_roll_value_types_are_checked(tmp_path, monkeypatch):
    """An exploding roll is a list (even of one die); a single re-rolled die is a face."""
    err = errors_of(tmp_path, monkeypatch, 'rule r "R" {\n  mechanic f() -> int {\n    roll x: d4 explode on {4}\n'
                                           '    return x + 1\n  }\n}\n')
    assert "list" in err.render()


def test_computed_faces_are_checked_when_rolled(book):
    with pytest.raises(EvaluationError, match=r"7 is not a face of d6 \(faces 1..6\), so it cannot be re-rolled"):
        book.mechanics["reroll_above"](7, die=3)
    with pytest.raises(EvaluationError, match="exploding on every face of d6 would never stop"):
        book.mechanics["explode_from"](1)
    with pytest.raises(EvaluationError, match="never stop"):
        distribution(book.mechanics["explode_from"], 1)
    assert book.mechanics["reroll_above"](6, die=3) == 3


# ------------------------------------------------------------ given rolls
def test_a_given_reroll_is_the_kept_faces(book):
    assert book.mechanics["save"](4, die=1) is False       # a kept 1: the re-roll showed 1 again
    assert book.mechanics["hits"](3, 4, dice=[1, 5, 6]) == 2
    with pytest.raises(EvaluationError, match=r"roll 'dice' is 3 x d6, but 2 value\(s\) were given"):
        book.mechanics["hits"](3, 4, dice=[5, 6])
    with pytest.raises(EvaluationError, match=r"7 is not a face of d6 \(faces 1..6\)"):
        book.mechanics["hits"](2, 4, dice=[5, 7])
    with pytest.raises(EvaluationError, match=r"7 is not a face of d6 \(faces 1..6\)"):
        distribution(book.mechanics["save"], 4, die=7)
    assert distribution(book.mechanics["hits"], 2, 4, dice=[1, 5]).outcomes == [(1, 1)]
    assert distribution(book.mechanics["save"], 4, die=4).outcomes == [(True, 1)]


def test_a_given_explosion_lists_every_face_in_order(book):
    burst = book.mechanics["burst"]
    assert burst(2, 4, attack=[4, 1, 4, 2]) == [4, 1, 4, 2]     # 4 adds a die (4), which adds one more (2)
    assert burst(2, 1, attack=[4, 4, 3]) == [4, 4, 3]           # up to 1: only the first 4 adds a die
    with pytest.raises(EvaluationError, match=r"3 faces were given, but 2 dice and the 2 extra dice their explode "
                                              r"faces add make 4: list the extra dice after the first 2"):
        burst(2, 4, attack=[4, 1, 4])
    with pytest.raises(EvaluationError, match=r"4 faces were given, but 2 dice and the 1 extra die their explode faces add make 3$"):
        burst(2, 4, attack=[4, 1, 2, 3])
    with pytest.raises(EvaluationError, match="9 is not a face of d4"):
        burst(1, 4, attack=[9])
    assert book.mechanics["single"](die=3) == [3]                # one value for a single die


def test_given_rolls_through_the_cli(tmp_path, book):
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    p = subprocess.run([sys.executable, "-m", "rules_dsl", "call", "dicebook:burst", "n=2", "most=4", "attack=4,1,4"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "list the extra dice after the first 2" in p.stderr
    p = subprocess.run([sys.executable, "-m", "rules_dsl", "odds", "dicebook:strike", "n=2", "--json"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    caps = data["explode_caps"]
    assert caps[0]["roll"] == "attack" and caps[0]["cap"] == EXPLODE_CAP
    assert Fraction(caps[0]["probability_more"]) == explode_more(2, Fraction(1, 6), EXPLODE_CAP)
    assert sum(Fraction(o["probability"]) for o in data["outcomes"]) == 1


# -------------------------------------------------------- exact odds, brute force
@pytest.mark.parametrize("name,args", [("save", (4,)), ("face", (1, 2)), ("face", (2, 4)), ("kept", (2,)),
                                       ("kept", (3,)), ("dust_kept", (3,)), ("hits", (3, 4)), ("hits", (2, 2))])
def test_reroll_odds_equal_brute_force(book, name, args):
    mech = book.mechanics[name]
    got, dist = engine(mech, *args)
    assert got == brute(mech, *args)
    assert sum(p for _, p in dist.outcomes) == 1


@pytest.mark.parametrize("name,args", [("burst", (1, 0)), ("burst", (1, 3)), ("burst", (2, 2)), ("burst", (3, 1)),
                                       ("burst_sum", (2, 3)), ("burst_sum", (3, 2)), ("storm", (2,)),
                                       ("single", ()), ("burst", (0, 2)), ("burst_kept", (2, 3)),
                                       ("burst_fast", (2, 3)), ("burst_fast", (3, 4))])
def test_explode_odds_equal_brute_force(book, name, args):
    mech = book.mechanics[name]
    got, dist = engine(mech, *args)
    assert got == brute(mech, *args)
    assert sum(p for _, p in dist.outcomes) == 1


def test_the_aggregate_fast_path_and_the_replay_agree_on_exploding_pools(book):
    from rules_dsl.odds.plan import plan_of
    assert plan_of(book.mechanics["burst_fast"]).fast_result is not None
    assert plan_of(book.mechanics["burst_kept"]).fast_result is None and not any(plan_of(book.mechanics["burst_kept"]).fast)
    for args in [(1, 4), (3, 2), (3, 4), (2, 0)]:
        fast = distribution(book.mechanics["burst_fast"], *args)
        slow = distribution(book.mechanics["burst_kept"], *args)
        assert fast.outcomes == slow.outcomes and fast.explode_caps == slow.explode_caps


def test_a_large_rerolled_pool_is_binomial(book):
    """20 dice re-rolling failures against 4+: each hits with 1/2 + 1/2 * 1/2 (the fast path's size)."""
    dist = distribution(book.mechanics["hits"], 20, 4)
    p = Fraction(3, 4)
    for k, got in dist.outcomes:
        assert got == math.comb(20, k) * p ** k * (1 - p) ** (20 - k)
    assert dist.mean == 15


def test_reading_an_exploding_pools_order_has_no_odds_but_says_why(book):
    assert book.mechanics["first"](2, attack=[3, 6, 2]) == 3
    with pytest.raises(EvaluationError, match="exploding roll whose order the mechanic reads"):
        distribution(book.mechanics["first"], 2)


def test_the_odds_table_says_how_often_the_limit_bites(book):
    dist = distribution(book.mechanics["strike"], 3)
    cap, more = dist.explode_caps["attack"]
    assert cap == EXPLODE_CAP and more == explode_more(3, Fraction(1, 6), EXPLODE_CAP) and 0 < more < Fraction(1, 10**12)
    assert f"explode: roll attack adds at most {EXPLODE_CAP} extra dice (exact for that rule)" in dist.table()
    assert dist.mean == Fraction(3 * 6, 5) / 3 - _capped_shortfall(3, Fraction(1, 6), EXPLODE_CAP) / 3


def _capped_shortfall(n, p, cap):
    """E[X] - E[min(X, cap)] for X extra dice, negative binomial (failures = n)."""
    if n == 0:
        return Fraction(0)
    q = 1 - p
    mean_x = n * p / q
    e_min = sum((min(x, cap) * math.comb(x + n - 1, x) * p ** x * q ** n for x in range(cap)), Fraction(0))
    e_min += cap * (1 - sum((math.comb(x + n - 1, x) * p ** x * q ** n for x in range(cap)), Fraction(0)))
    return mean_x - e_min


# ------------------------------------------------------------ properties
@SETTINGS
@given(n=st.integers(0, 6), num=st.integers(0, 5), cap=st.integers(0, 30))
def test_explode_law_sums_to_one_and_its_sizes_fit(n, num, cap):
    p = Fraction(num, 6)
    law = explode_law(n, p, cap)
    assert sum(pr for _, pr in law) == 1
    for (a, b, c), pr in law:
        assert pr > 0 and b + c == n or (a, b, c) == (0, 0, 0)
        assert a <= cap and (c == 0 or a == cap)


@SETTINGS
@given(n=st.integers(0, 5), most=st.sampled_from([0, 1, 2, 3, 5, 8, 30]))
def test_explode_mean_is_walds_identity_within_the_cap(book, n, most):
    """E[sum] = E[dice rolled] * 7/2 exactly, with E[dice] = n + E[min(X, most)]; and
    below n * 3.5 / (1 - 1/6), the mean of dice exploding forever."""
    dist = distribution(book.mechanics["attack_sum"], n, most)
    p = Fraction(1, 6)
    e_dice = n + n * p / (1 - p) - _capped_shortfall(n, p, most) if n else 0
    assert dist.mean == e_dice * Fraction(7, 2)
    assert dist.mean <= n * Fraction(7, 2) / (1 - p)
    assert sum(q for _, q in dist.outcomes) == 1
    if most == 30:
        assert n * Fraction(7, 2) / (1 - p) - dist.mean < Fraction(1, 10**15)


@SETTINGS
@given(n=st.integers(0, 5))
def test_explode_len_mean_is_n_over_one_minus_p_within_the_cap(book, n):
    dist = distribution(book.mechanics["attack_len"], n)
    p = Fraction(1, 3)
    assert dist.mean == n + n * p / (1 - p) - _capped_shortfall(n, p, EXPLODE_CAP)
    assert all(v >= n for v, _ in dist.outcomes)


@SETTINGS
@given(lo=st.integers(1, 4), hi=st.integers(1, 4))
def test_reroll_never_raises_the_chance_of_a_rerolled_face(book, lo, hi):
    with_ = distribution(book.mechanics["face"], lo, hi)
    plain = distribution(book.mechanics["plain_face"])
    assert sum(p for _, p in with_.outcomes) == 1
    for f in range(1, 5):
        if lo <= f <= hi:
            assert with_.probability(f) <= plain.probability(f)
        else:
            assert with_.probability(f) >= plain.probability(f)


# ------------------------------------------------------------ the working
def test_the_working_shows_rerolls_and_extra_dice(book):
    ex = book.explain("burst", 2, 4, seed=0)
    roll = next(s for s in ex.steps if s.step == "roll")
    working = roll.detail["working"]
    assert working.startswith("rolled ")
    if len(ex.result) > 2:
        assert "showing 4 added" in working
    assert ex.as_json()["explanation"]["children"][0]["detail"]["working"] == working
    # a fixed path: every roll in a sequence we choose
    rng = _PathRng([3, 0, 3, 1])        # 4, 1; the 4 adds 4; that adds 2
    value, _ = book.mechanics["burst"].run(2, 4, rng=rng)
    assert value == [4, 1, 4, 2]
    from rules_dsl.language.dice import GivenRoller
    r = GivenRoller(rng=_PathRng([3, 0, 3, 1]))
    r.explode("attack", book.compiled.dice["d4"], 2, frozenset({4}), 4)
    assert r.working["attack"] == "rolled 4, 1; 1 die showing 4 added 4; 1 die showing 4 added 2"
    r = GivenRoller(rng=_PathRng([0, 3, 1, 2]))
    r.reroll("dice", book.compiled.dice["d4"], 2, frozenset({1, 2}))
    assert r.made["dice"] == [2, 4]
    assert r.working["dice"] == "rolled 1, 4; re-rolled 1 -> 2 (once each; the new face is kept)"
    r = GivenRoller(rng=_PathRng([3, 3, 3]))
    r.explode("attack", book.compiled.dice["d4"], 1, frozenset({4}), 2)
    assert r.made["attack"] == [4, 4, 4] and r.working["attack"].endswith("the limit of 2 extra dice was reached")


def test_explain_text_has_the_working(book):
    text = book.explain("hits", 3, 4, seed=1).text()
    assert "roll dice (shots of d6 reroll 1..target - 1): " in text
    assert "re-rolled" in text or "none showed 1, 2 or 3, so none was re-rolled" in text


def test_the_site_odds_block_says_the_limit(book):
    from rules_dsl.sphinxext.data import compute_odds_one
    from rules_dsl.sphinxext.render_decls import odds_nodes
    rows, err, _ = compute_odds_one(book.mechanics["strike"])
    assert err is None and rows
    assert all(any(f"adds at most {EXPLODE_CAP} extra dice" in s for s in r["limits"]) for r in rows)
    text = "".join(x.astext() for x in odds_nodes({"odds": rows}))
    assert f"explode: roll attack adds at most {EXPLODE_CAP} extra dice (exact for that rule)" in text
    rows, err, _ = compute_odds_one(book.mechanics["hits"])
    assert err is None and all(r["limits"] == [] for r in rows)


def test_worked_examples_give_the_new_rolls_by_name(book, tmp_path, monkeypatch):
    assert [r.passed for r in book.run_examples()] == [True]
    books = tmp_path / "ex"
    books.mkdir()
    (books / "ex.rules").write_text(HEADER.replace("dicebook", "ex") + BODY.replace(
        "burst(2, 4, attack=[4, 1, 4, 2])\n  [4, 1, 4, 2]", "burst(2, 4, attack=[4, 1, 4])\n  [4, 1, 4]"))
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    res = rules_dsl.load("ex").run_examples()
    assert not res[0].passed
    assert "3 faces were given, but 2 dice and the 2 extra dice their explode faces add make 4" in res[0].report
    assert "Traceback" not in res[0].report


def test_side_by_side_says_each_sides_limit(book):
    from rules_dsl.odds import side_by_side
    a = distribution(book.mechanics["burst_fast"], 2, 2)
    b = distribution(book.mechanics["burst_fast"], 2, 4)
    text = side_by_side(a, b)
    assert "A: explode: roll attack adds at most 2 extra dice" in text
    assert "B: explode: roll attack adds at most 4 extra dice" in text


@pytest.mark.parametrize("shots,target", [(3, 4), (5, 2), (4, 6)])
def test_reroll_failures_by_range_or_by_comprehension_agree(book, shots, target):
    a = distribution(book.mechanics["hits"], shots, target)
    b = distribution(book.mechanics["hits_listed"], shots, target)
    p = Fraction(7 - target, 6)
    p = p + (1 - p) * p                  # a failure is re-rolled once
    assert a.outcomes == b.outcomes == [(k, math.comb(shots, k) * p ** k * (1 - p) ** (shots - k)) for k in range(shots + 1)]


def test_a_custom_face_named_by_a_parameter_is_checked_when_rolled(tmp_path, monkeypatch):
    books = tmp_path / "p"
    books.mkdir()
    (books / "p.rules").write_text(HEADER.replace("dicebook", "p") + '''rule r "R" {
  mechanic f(face: dust) -> int {
    roll x: 3 of dust reroll {face}
    return count(f for f in x if f == army)
  }
}
''')
    monkeypatch.setenv("RULES_DSL_BOOKS", str(books))
    monkeypatch.setenv("RULES_DSL_CACHE", str(tmp_path / "cache"))
    b = rules_dsl.load("p")
    p = Fraction(1, 3) + Fraction(1, 3) * Fraction(1, 3)      # army, or shield re-rolled into army
    assert distribution(b.mechanics["f"], "shield").mean == 3 * p
