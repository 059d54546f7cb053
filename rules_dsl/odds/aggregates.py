"""Exact odds, fast path: a statement that asks its pools only for aggregates.

Most dice mechanics ask a pool a few questions: how many dice pass a test
(`count`), the `sum` of some value per die, the best or worst kept die (`max`,
`min`), whether `any` or `all` pass.  When every use of every pool a statement rolls
is such an aggregate over a comprehension (after inlining the dice-free mechanics
the statement calls), the statement's law follows from the joint law of the
aggregates -- and that factorises, because the pools are independent:

* an aggregate whose test reads no other pool is a function of its own pool;
* an aggregate whose test reads another pool's aggregates (Xenotactics: a success
  survives unless the enemy's *best* success is higher) is, given those values, again
  a function of its own pool.

So each pool is enumerated on its own (as multisets of faces, weighted by
multinomials), once for each value of the aggregates it reads from other pools, and
the results are joined by those values: for 3d10 against 3d10 that is 7 x 220
multisets per side instead of 220 x 220 pairs of them.  This is the dynamic
programme an expert would write as an icepool `MultisetEvaluator`, found from the
rule as written.

The fast path uses the mechanic's own compiled expressions (tests, values, the
statement around the aggregates) and the language's own builtins on the kept
values, so it computes exactly what a call computes.  Anything it does not cover
(a pool used another way, a roll whose value is given, a test that reads an
aggregate of another pool that itself reads a third, an error while computing)
returns None, and the general engine (rules_dsl.odds.replay) runs instead.

Two modules (split in issue 32): aggregate_plan.py analyses a statement once into a
`PoolPlan` (`analyse`; its names are importable from here too); this module computes the
law from a plan for given inputs (`law`).
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

from ..compiler import Ctx
from ..language.dice import explode_law, explode_more, rerolled_die
from ..language.values import ABSENT
from . import budget
from .aggregate_plan import AGGREGATES, AggregateCompiler, PoolPlan, Unsupported, analyse
from .result import TooLarge

__all__ = ["law", "MAX_MULTISETS", "MAX_JOINS", "MAX_SUMMED",
           "AGGREGATES", "AggregateCompiler", "PoolPlan", "Unsupported", "analyse"]

MAX_MULTISETS = 20_000        # per pool and per value of what it reads; beyond, the engine runs
MAX_JOINS = 200_000           # combinations of per-pool results joined at the end
MAX_SUMMED = 200_000          # multisets of a pool read only through sums (and counts): beyond, refused
_EVERY_FACE = frozenset({"sum", "count", "len", "any", "all"})   # no max or min: no sweep can stop early


# ------------------------------------------------------------------ runtime
class _Capture:
    """A roller that records what a roll asks for instead of rolling."""

    def __init__(self):
        self.asked = None

    def pool(self, name, die, count):
        self.asked = (name, die, count)
        return []

    def reroll(self, name, die, count, faces):
        return self.pool(name, rerolled_die(die, faces), count)

    def explode(self, name, die, count, on, cap):
        self.asked = (name, die, count)
        self.boom = (on, cap)
        return []

    def one(self, *a):
        raise Unsupported

    chain = one


def _explode_denominator(die, k, on, cap):
    """One denominator for every multiset of an exploding pool, whatever its classes."""
    p = sum((die.weight(f) for f in die.distinct if f in on), Fraction(0))
    hot = sum(1 for f in die.faces if f in on)
    N = len(die.faces)
    den = 1
    for (a, b, c), pr in explode_law(k, p, cap):
        den = math.lcm(den, pr.denominator * hot ** a * (N - hot) ** b * N ** c)
    return den


def _explode_alternatives(die, groups, k, on, cap, den, pool_alternatives):
    """[(counts per class, integer weight over `den`)] of an exploding pool of k dice:
    the mixture over `dice.explode_law`'s sizes (A, B, C) of a pool of the explode faces,
    one of the other faces and one of any face, their counts per class added."""
    p = sum((die.weight(f) for f in die.distinct if f in on), Fraction(0))
    N = len(die.faces)
    faces = die.distinct
    w_hot = tuple(sum(die.faces.count(faces[i]) for i in g if faces[i] in on) for g in groups)
    w_all = tuple(sum(die.faces.count(faces[i]) for i in g) for g in groups)
    w_cold = tuple(a - h for a, h in zip(w_all, w_hot))
    hot, cold = sum(w_hot), sum(w_cold)
    m = len(groups)
    law = explode_law(k, p, cap)

    def part(weights, total, size):
        if size == 0:
            return [([0] * m, 1)]
        idx = [i for i, w in enumerate(weights) if w]
        alts, _ = pool_alternatives(tuple(weights[i] for i in idx), total, size)
        out = []
        for counts, w in alts:
            full = [0] * m
            for i, c in zip(idx, counts):
                full[i] = c
            out.append((full, w))
        return out

    parts = []
    size = 0
    for (a, b, c), pr in law:
        trio = (part(w_hot, hot, a), part(w_cold, cold, b), part(w_all, N, c))
        size += len(trio[0]) * len(trio[1]) * len(trio[2])
        if size > 50 * MAX_MULTISETS:
            raise Unsupported
        scale = pr * den / (hot ** a * cold ** b * N ** c)
        if scale.denominator != 1:       # pragma: no cover - `den` is a multiple of every part's
            raise Unsupported
        parts.append((trio, scale.numerator))
    res = {}
    for (pa, pb, pc), scale in parts:
        for ca, wa in pa:
            for cb, wb in pb:
                for cc, wc in pc:
                    counts = tuple(x + y + z for x, y, z in zip(ca, cb, cc))
                    res[counts] = res.get(counts, 0) + scale * wa * wb * wc
    return list(res.items()), size


def law(plan, env, given, fixed_ctx, pool_alternatives, key, note=None):
    """([[value, weight, denominator, 0]], work done) for the statement, or None (then
    the engine runs).  `work` counts multisets and joins, the engine's evaluations.
    `note(roll name, cap, P(more))` hears of each exploding pool's limit."""
    try:
        return _law(plan, env, given, fixed_ctx, pool_alternatives, key, note)
    except TooLarge:       # an estimate refused it: the engine would enumerate even more
        raise
    except Exception:      # any error: the engine computes it again and reports it properly
        return None


def _law(plan, env, given, ctx, pool_alternatives, key, note=None):
    book = plan.book
    dice = {}
    for name, roll in plan.rolls:
        cap = _Capture()
        roll(env, Ctx(cap))
        rname, die, k = cap.asked
        if given is not None and rname in given.given:
            return None
        boom = getattr(cap, "boom", None)
        if boom is not None:
            boom = boom + (_explode_denominator(die, k, *boom),)
            if note is not None:
                p = sum((die.weight(f) for f in die.distinct if f in boom[0]), Fraction(0))
                note(rname, boom[1], explode_more(k, p, boom[1]))
        dice[name] = (die, k, boom)
    for m, p, f in plan.checks:                 # an inlined call's arguments, checked as a call would
        v = f(env, ctx)
        c = book.mechanics[m].checks[p].convert(v)
        if type(c) is not type(v) or c != v:
            return None
    for m, p, pool in plan.pool_args:
        die, k, _ = dice[pool]
        faces = list(die.distinct)
        if book.mechanics[m].checks[p].convert(faces) != faces:
            return None

    aggs = plan.aggs
    work = [0]
    meter = budget.current()
    poll = meter.poll if meter is not None else _nothing

    def run_pool(p, ext_values, only=None):
        """{key: [out values, weight]} over the multisets of pool p, given ext values."""
        die, k, boom = dice[p]
        own = plan.own[p] if only is None else only
        out_idx = plan.out[p] if only is None else only
        local = dict(env)
        local.update(ext_values)
        face_memo = {}
        faces = die.distinct
        weights = tuple(die.faces.count(f) for f in faces)
        groups = [[fi] for fi in range(len(faces))]
        if all(aggs[j]["pool"] != p for i in own for j in aggs[i]["refs"]):
            # the tests and values read no aggregate of this pool: faces they treat alike
            # form one class (enumerated together, weighted by their number)
            classes = {}
            for fi, f in enumerate(faces):
                sig = []
                for i in own:
                    a = aggs[i]
                    refs = _bind_refs(a, {}, ext_values, local)
                    sig.append(_signature(a["kind"], _face(a, i, fi, f, refs, local, ctx, face_memo), key))
                classes.setdefault(tuple(sig), []).append(fi)
            if len(classes) < len(faces):
                groups = list(classes.values())
                faces = tuple(faces[g[0]] for g in groups)
                weights = tuple(sum(weights[fi] for fi in g) for g in groups)
                face_memo = {}
        if boom is None:
            # how many multisets, known before one is made: too many for this path, the
            # engine tries (a max may need fewer); far too many, and nothing could
            kinds = " and ".join(sorted({aggs[i]["kind"] for i in own}))
            words = f"{kinds} of {budget.pool_words(k, die.name)}"
            size = math.comb(k + len(weights) - 1, len(weights) - 1)
            budget.note(words, size)
            if size > MAX_MULTISETS:
                if size > budget.MAX_ROLLS:
                    raise budget.refuse(f"more than {budget.MAX_ROLLS:,} distinguishable rolls of one pool",
                                        words, size)
                if size > MAX_SUMMED and {aggs[i]["kind"] for i in own} <= _EVERY_FACE:
                    # a sum tells every face apart: the engine would enumerate at least as many
                    raise budget.refuse(f"more than {MAX_SUMMED:,} distinguishable rolls of one summed pool",
                                        words, size)
                raise Unsupported
            alts, _ = pool_alternatives(weights, len(die.faces), k, words)
        else:
            on, most, bden = boom
            alts, size = _explode_alternatives(die, groups, k, on, most, bden, pool_alternatives)
            work[0] += size
        if len(alts) > MAX_MULTISETS:
            raise Unsupported
        res = {}
        work[0] += len(alts)
        for counts, w in alts:
            poll()
            vals = {}
            for i in own:
                a = aggs[i]
                refs = _bind_refs(a, vals, ext_values, local)
                kept = [f(local, ctx) for f in a["pre"]]
                for fi, c in enumerate(counts):
                    if not c:
                        continue
                    hit = _face(a, i, fi, faces[fi], refs, local, ctx, face_memo)
                    if hit[0]:
                        kept.extend([hit[1]] * c)
                kept.extend(f(local, ctx) for f in a["post"])
                vals[i] = a["fn"](kept)
            kk = tuple(vals[i] for i in out_idx)
            hk = tuple(key(v, False) for v in kk)
            e = res.get(hk)
            if e is None:
                res[hk] = [kk, w]
            else:
                e[1] += w
        return res

    pools = [name for name, _ in plan.rolls]
    # 1. the values each interface aggregate can take (its pool reads nothing else)
    joint = {}
    for p in pools:
        mine = [j for j in plan.interface if aggs[j]["pool"] == p]
        if mine:
            need = sorted({j for j in plan.own[p] if j in mine or _reaches(aggs, mine, j)})
            res = run_pool(p, {}, only=need)
            joint[p] = (mine, sorted({tuple(v[need.index(j)] for j in mine) for v, _ in res.values()},
                                     key=repr))
    # 2. each pool's law, once per value of what it reads
    per = {p: {} for p in pools}
    den = 1
    for p in pools:
        die, k, boom = dice[p]
        den *= len(die.faces) ** k if boom is None else boom[2]

    def pool_law(p, assign):
        ext = {f"__agg{j}": assign[j] for j in plan.ext[p]}
        ek = tuple(key(assign[j], False) for j in plan.ext[p])
        hit = per[p].get(ek)
        if hit is None:
            hit = per[p][ek] = run_pool(p, ext)
        return hit

    # 3. join: every assignment of the interface values, every pool's matching results
    owners = [p for p in pools if p in joint]
    out, joins = {}, 0
    for combo in product(*(joint[p][1] for p in owners)):
        assign = {}
        for p, values in zip(owners, combo):
            for j, v in zip(joint[p][0], values):
                assign[j] = v
        parts = []
        for p in pools:
            entries = []
            for kk, w in pool_law(p, assign).values():
                vals = dict(zip(plan.out[p], kk))
                if all(key(vals[j], False) == key(assign[j], False) for j in plan.out[p] if j in assign):
                    entries.append((vals, w))
            if not entries:
                break
            parts.append(entries)
        else:
            for pick in product(*parts):
                poll()
                joins += 1
                if joins > MAX_JOINS:
                    raise Unsupported
                local = dict(env)
                w = 1
                for vals, pw in pick:
                    w *= pw
                    for j, v in vals.items():
                        local[f"__agg{j}"] = v
                value = plan.final(local, ctx)
                k = key(value, False)
                e = out.get(k)
                if e is None:
                    out[k] = [value, w, den, 0]
                else:
                    e[1] += w
    return list(out.values()), work[0] + joins


def _nothing():
    pass


def _signature(kind, hit, key):
    """What aggregate `kind` can tell of one face's (kept?, value): faces with equal
    signatures for every aggregate of a pool are enumerated as one class."""
    ok, v = hit
    if not ok:
        return (False,)
    if kind == "len":
        return (True,)
    if kind == "count":                     # builtins._count counts what is not false/absent
        return (True, v is not False and v is not ABSENT)
    if kind in ("any", "all"):
        return (True, bool(v))
    return (True, key(v, False))


def _bind_refs(a, vals, ext_values, local):
    """Put the aggregates that aggregate `a` reads (this pool's computed so far in
    `vals`, other pools' in `ext_values`) into `local`; their values, as a memo key."""
    refs = []
    for j in a["refs"]:
        v = vals[j] if j in vals else ext_values[f"__agg{j}"]
        local[f"__agg{j}"] = v
        refs.append(v)
    return tuple(refs)


def _face(a, i, fi, face, refs, local, ctx, memo):
    """(kept?, value) of one face for aggregate a (memoised on the values it reads;
    `local` already holds them)."""
    mk = (i, fi, refs)
    hit = memo.get(mk)
    if hit is None:
        local[a["var"]] = face
        ok = a["cond"] is None or bool(a["cond"](local, ctx))
        hit = memo[mk] = (ok, a["elem"](local, ctx) if ok else None)
    return hit


def _reaches(aggs, targets, j):
    """Whether some aggregate in `targets` reads aggregate j (directly or not)."""
    stack, seen = list(targets), set()
    while stack:
        i = stack.pop()
        if i == j:
            return True
        for r in aggs[i]["refs"]:
            if r not in seen:
                seen.add(r)
                stack.append(r)
    return False
