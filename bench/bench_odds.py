"""Speed of the exact-odds engine, side by side with the same mechanics in icepool.

Run by hand:  python bench/bench_odds.py [--runs N]

Cases (goal: each under 50 ms, and at most 2x the icepool figure):
  * Dust sustained attack, 20 dice: roll n Dust dice, count army hits, re-roll the misses
    (the demo book's `sustained(n=20)`);
  * Xenotactics-style opposed roll, 3d10 against 3d10: a success is cancelled by a higher
    enemy success, equal rolls both hit;
  * Null-Strike-style full attack, 10 shots: hit, wound, then the defender's saves.

Each mechanic is written in the rules language in a temporary book (so the bench does
not depend on the real rulebooks); where the real books define the same mechanic
(xenotactics:opposed_hits, null-strike:resolve_attack) those are timed too.  Every
engine result is checked to equal icepool's exactly.  Times are the best and the
median of N runs in one warm process (icepool keeps its own caches between runs too);
the first (cold) run is shown apart.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BENCH_BOOK = """book bench {
  title "Bench"
  dice d6, d10
  die dust { army: 2, target: 2, shield: 2 }
}
section all "All" {
  rule mechanics "Mechanics" {
    \"\"\"Benchmark mechanics.\"\"\"
    mechanic survivors(dice: list of 1..10, stat: 0..10, opposing: list of 1..10, opposing_stat: 0..10) -> int {
      let theirs = [0] + [d for d in opposing if d <= opposing_stat]
      return count(d for d in dice if d <= stat and d >= max(theirs))
    }
    mechanic opposed(attack: 0..10, firepower: 0..10, their_attack: 0..10, their_firepower: 0..10) -> list of int
      "Xenotactics-style: higher successful rolls cancel lower enemy successes; equal rolls both hit."
    {
      roll mine: firepower of d10
      roll theirs: their_firepower of d10
      return [survivors(mine, attack, theirs, their_attack), survivors(theirs, their_attack, mine, attack)]
    }
    mechanic full_attack(shots: 0..50, to_hit: 2..6, to_wound: 2..6, save: 2..7) -> int
      "Null-Strike-style: hit, wound, then every wound the defender fails to save is a casualty."
    {
      roll hits: shots of d6
      let scored = count(d for d in hits if d >= to_hit)
      roll wounds: scored of d6
      let wounded = count(d for d in wounds if d >= to_wound)
      roll saves: wounded of d6
      return count(d for d in saves if d < save)
    }
  }
}
"""


# ------------------------------------------------------------------- icepool
def icepool_sustained(n):
    import icepool
    dust = icepool.Die(["army", "army", "target", "target", "shield", "shield"])
    hit = dust.map(lambda f: 1 if f == "army" else 0)
    return (n @ hit).map(lambda h: h + (n - h) @ hit)


def icepool_full_attack(shots, to_hit, to_wound, save):
    import icepool
    d6 = icepool.d6
    hits = shots @ (d6 >= to_hit)
    wounds = hits.map(lambda h: h @ (d6 >= to_wound))
    return wounds.map(lambda w: w @ (d6 < save))


def _cancel(mine, attack, theirs, their_attack):
    best = max([0] + [d for d in theirs if d <= their_attack])
    return sum(1 for d in mine if d <= attack and d >= best)


def icepool_opposed_map(attack, fp, their_attack, their_fp):
    """The direct translation: the same function over both pools' sorted rolls."""
    import icepool
    mine, theirs = icepool.d10.pool(fp).expand(), icepool.d10.pool(their_fp).expand()
    return icepool.map(lambda m, t: (_cancel(m, attack, t, their_attack), _cancel(t, their_attack, m, attack)),
                       mine, theirs)


def icepool_opposed_evaluator(attack, fp, their_attack, their_fp):
    """An expert rewrite: one descending sweep over the outcomes of both pools at once."""
    import icepool

    class Opposed(icepool.MultisetEvaluator):
        def initial_state(self, order, outcomes, *sizes, **kwargs):
            return (False, False, 0, 0)

        def next_state(self, state, order, outcome, mine, theirs):
            if order != icepool.Order.Descending:
                raise icepool.UnsupportedOrder()
            mine_seen, theirs_seen, hits, their_hits = state
            ms = mine if outcome <= attack else 0
            ts = theirs if outcome <= their_attack else 0
            if not theirs_seen:
                hits += ms
            if not mine_seen:
                their_hits += ts
            return (mine_seen or ms > 0, theirs_seen or ts > 0, hits, their_hits)

        def final_outcome(self, final_state, order, outcomes, *sizes, **kwargs):
            return final_state[2], final_state[3]

    return Opposed().evaluate(icepool.d10.pool(fp), icepool.d10.pool(their_fp))


def icepool_law(die):
    den = die.denominator()
    return {(tuple(o) if isinstance(o, tuple) else o): Fraction(q, den) for o, q in die.items()}


def engine_law(dist):
    return {(tuple(v) if isinstance(v, list) else v): p for v, p in dist.outcomes}


# ---------------------------------------------------------------------- timing
def timed(fn, runs):
    t = time.perf_counter()
    result = fn()
    cold = time.perf_counter() - t
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return result, cold, min(times), statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="bench-odds-"))
    books = tmp / "books"
    books.mkdir()
    shutil.copy(ROOT / "tests" / "demo_book.rules", books / "demo.rules")
    (books / "bench.rules").write_text(BENCH_BOOK)
    os.environ["RULES_DSL_BOOKS"] = str(books)
    os.environ["RULES_DSL_CACHE"] = str(tmp / "cache")

    import icepool
    import rules_dsl
    from rules_dsl.odds import distribution

    demo, bench = rules_dsl.load("demo"), rules_dsl.load("bench")
    real = {}
    os.environ["RULES_DSL_BOOKS"] = str(ROOT / "rulebooks")
    for book_id, name in (("xenotactics", "opposed_hits"), ("null-strike", "resolve_attack")):
        try:
            real[book_id] = rules_dsl.load(book_id).mechanics[name]
        except Exception as e:      # a real book may be missing or broken: bench the rest
            print(f"(skipping real {book_id}:{name}: {str(e).splitlines()[0]})")

    ns_inputs = dict(weapons=5, evasion=4, strength=5, toughness=4, armour=4)
    cases = [
        ("Dust sustained attack, 20 dice", "demo:sustained(n=20)",
         lambda: distribution(demo.mechanics["sustained"], n=20),
         [("icepool", lambda: icepool_sustained(20))]),
        ("Xenotactics opposed 3d10 vs 3d10", "bench:opposed(6, 3, 6, 3)",
         lambda: distribution(bench.mechanics["opposed"], attack=6, firepower=3, their_attack=6, their_firepower=3),
         [("icepool map (direct)", lambda: icepool_opposed_map(6, 3, 6, 3)),
          ("icepool evaluator (expert)", lambda: icepool_opposed_evaluator(6, 3, 6, 3))]),
        ("Null-Strike full attack, 10 shots", "bench:full_attack(10, 3, 3, 5)",
         lambda: distribution(bench.mechanics["full_attack"], shots=10, to_hit=3, to_wound=3, save=5),
         [("icepool", lambda: icepool_full_attack(10, 3, 3, 5))]),
    ]
    if "xenotactics" in real:
        cases.append(("  the same, real book", "xenotactics:opposed_hits(6, 3, 6, 3)",
                      lambda: distribution(real["xenotactics"], attack=6, firepower=3, their_attack=6,
                                           their_firepower=3),
                      [("icepool map (direct)", lambda: icepool_opposed_map(6, 3, 6, 3)),
                       ("icepool evaluator (expert)", lambda: icepool_opposed_evaluator(6, 3, 6, 3))]))
    if "null-strike" in real:
        m = real["null-strike"]
        try:
            need = [m.book.mechanics[k](*a) for k, a in (("hit_target", (5, 4)), ("wound_target", (5, 4)),
                                                          ("armour_save_target", (4, 0)))]
            cases.append(("  the same, real book", "null-strike:resolve_attack(10 shots)",
                          lambda: distribution(m, shots=10, **ns_inputs),
                          [("icepool", lambda: icepool_full_attack(10, need[0], need[1], need[2]))]))
        except Exception as e:
            print(f"(skipping real null-strike: {e})")

    print(f"exact odds engine vs icepool {icepool.__version__}; best / median of {args.runs} warm runs, "
          f"cold first run in brackets\n")
    head = f"{'case':36s} {'engine ms':>22s}   {'other':26s} {'ms':>22s}  ratio  <50ms  <=2x  same law"
    print(head)
    print("-" * len(head))
    verdicts = []
    for title, what, run_engine, others in cases:
        dist, cold, best, med = timed(run_engine, args.runs)
        for k, (name, run_other) in enumerate(others):
            law, ocold, obest, omed = timed(run_other, args.runs)
            same = engine_law(dist) == icepool_law(law)
            ratio = best / obest
            eng = f"{best * 1000:7.1f} / {med * 1000:6.1f} ({cold * 1000:5.0f})" if k == 0 else ""
            print(f"{(title if k == 0 else ''):36s} {eng:>22s}   {name:26s} "
                  f"{obest * 1000:7.1f} / {omed * 1000:6.1f} ({ocold * 1000:5.0f})  {ratio:5.2f}  "
                  f"{('yes' if best < 0.05 else 'NO'):>5s}  {('yes' if ratio <= 2 else 'NO'):>4s}  "
                  f"{'yes' if same else 'DIFFERENT'}")
            verdicts.append((title.strip(), what, best, name, obest, same))
        print(f"{'':36s} ({what}: {len(dist.outcomes)} outcomes, exact={dist.exact})")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if all(v[5] for v in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
