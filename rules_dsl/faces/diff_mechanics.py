"""`rules diff`'s mechanics: each mechanic of two books run on both, over its inputs.

A mechanic whose definition and everything it reaches are unchanged is not evaluated.
Each other one is compared input for input (every input when they are finite and fit
the budget, "exhaustive"; else drawn at random with a fixed seed, "sampled"), by its
results, or by its exact distribution when it rolls dice; the odds before and after are
given for the inputs the book shows odds for.  diff.py's module doc says the whole.

Split from diff.py (issue 32): this is the part of a diff that *runs* the books (calls,
the odds engine, the budget and the deadline); diff.py compares what is written (rules,
tables, constants, enums, names, findings) and assembles the JSON.
"""
from __future__ import annotations

import itertools
import random

from ..language import nodes as n
from ..errors import RulesError
from ..language.values import ABSENT, to_json

__all__ = ["mechanic_changes", "same_value", "MAX_EXAMPLES", "MAX_ODDS", "SAMPLE_VALUES"]

MAX_EXAMPLES = 5             # inputs shown per mechanic whose results differ
MAX_ODDS = 3                 # input sets whose odds are shown per dice mechanic
SAMPLE_VALUES = (0, 1, 2, 3, 4, 5, 6, 8, 10, 12)    # tried for a whole number without a range


def mechanic_changes(ctx) -> list:
    ma, mb = ctx.a.mechanics, ctx.b.mechanics
    out = []
    for name in list(mb) + [x for x in ma if x not in mb]:
        if name not in ma:
            out.append(_mech_head(ctx.b, name, "added", ctx))
            continue
        if name not in mb:
            out.append(_mech_head(ctx.a, name, "removed", ctx))
            continue
        same_meaning = ctx.reach_shape("a", name) == ctx.reach_shape("b", name)
        fa, fb = ma[name], mb[name]
        entry = _mech_head(ctx.b, name, "changed", ctx)
        said = _said_changes(fa.node, fb.node)
        if same_meaning and not said:
            continue
        entry.update(said)
        if same_meaning:
            entry["compared"] = {"method": "unchanged", "inputs": 0, "domain": None, "differ": 0,
                                 "evaluations": 0, "note": "its rules are unchanged, so its results are too"}
            entry["differences"], entry["odds"] = [], []
            out.append(entry)
            continue
        entry["definition_changed"] = ctx.shape_of("a", name) != ctx.shape_of("b", name)
        entry["reaches_changed"] = sorted(
            x for x in ctx.reach_b.closure_of(name) | ctx.reach_a.closure_of(name)
            if x != name and (ctx.shape_of("a", x) != ctx.shape_of("b", x)))
        entry.update(_compare(ctx, fa, fb))
        out.append(entry)
    return out


def _mech_head(book, name, status, ctx) -> dict:
    rule = book.rule_of(name) or ""
    return {"name": name, "display": book.display.mechanic(name), "rule": rule, "status": status,
            "dice": book.mechanics[name].has_dice, "changed_by": ctx.changes(name=name)}


def _said_changes(a: n.Mechanic, b: n.Mechanic) -> dict:
    """The changes of a mechanic's signature and words (not of its results)."""
    out = {}
    from ..language.render import Notation
    sig_a = _signature(a, Notation())
    sig_b = _signature(b, Notation())
    if sig_a != sig_b:
        out["signature"] = {"before": sig_a, "after": sig_b}
    for field in ("question", "answer"):
        fa, fb = getattr(a, field), getattr(b, field)
        if (fa.text if fa else "") != (fb.text if fb else ""):
            out[field] = {"before": fa.text if fa else "", "after": fb.text if fb else ""}
    return out


def _signature(m: n.Mechanic, notation) -> str:
    def typ(t):
        if isinstance(t, n.RangeType):
            return f"{t.low}..{t.high}"
        if isinstance(t, n.NamedType):
            return t.name
        if isinstance(t, n.ListType):
            return f"list of {typ(t.item)}"
        if isinstance(t, n.UnionType):
            return " | ".join(typ(o) for o in t.options)
        return "?"
    params = ", ".join(f"{p.name}: {typ(p.type)}" + (f" = {notation.text(p.default)}" if p.default else "")
                       for p in m.params)
    return f"{m.name}({params}) -> {typ(m.returns)}"


def _domain(fa, fb, name, ctx):
    """(names, [values per name], finite: bool, note) of the inputs both versions take;
    None (and a note) when they cannot be compared input for input."""
    params_b = {p.name: p for p in fb.params}
    params_a = {p.name: p for p in fa.params}
    for p in fb.params:
        if p.name not in params_a and p.default is None:
            return None, (f"it takes a new input, {ctx.b.display.param(name, p.name)}, with no default, "
                          "so its results cannot be "
                          "compared input for input")
    names, values, finite = [], [], True
    seen = _example_values(ctx, name)
    for p in fa.params:
        if p.name not in params_b:
            continue
        ca, cb = fa.checks[p.name], fb.checks[p.name]
        vs = ca.finite_values(ctx.budget)
        if vs is None:
            finite = False
            cands = list(seen.get(p.name, []))
            for side in (fa, fb):
                if p.name in side.defaults:
                    try:
                        cands.append(side.default(p.name))
                    except RulesError:
                        pass
            if isinstance(p.type, n.NamedType) and p.type.name in ("int", "number"):
                cands.extend(SAMPLE_VALUES)
            vs = []
            for v in cands:
                try:
                    v = ca.convert(v)
                except (ValueError, RulesError):
                    continue
                if not any(same_value(v, w) for w in vs):
                    vs.append(v)
        kept = []
        for v in vs:
            try:
                kept.append(cb.convert(v))
            except (ValueError, RulesError):
                continue
        if not kept:
            return None, (f"its input {ctx.b.display.param(name, p.name)} has no value both versions accept "
                          "(and no range to try), so its results were not compared")
        names.append(p.name)
        values.append(kept)
    return (names, values, finite), ""


def same_value(x, y) -> bool:
    from ..evaluation.examples import same
    return same(x, y)


def _example_values(ctx, name) -> dict:
    """{parameter: [values]} the two books' worked examples and `odds` lines give `name`."""
    out = {}
    for book in (ctx.a, ctx.b):
        fn = book.mechanics[name]
        order = [p.name for p in fn.params]
        for _rid, ex in book.example_cases():
            for case in ex.cases:
                for x in n.iter_nodes(case.expr):
                    if isinstance(x, n.Call) and isinstance(x.func, n.Name) and x.func.name == name:
                        pairs = list(zip(order, x.args)) + [kv for kv in x.kwargs if kv[0] in order]
                        for k, e in pairs:
                            v = _literal(e)
                            if v is not None:
                                out.setdefault(k, []).append(v)
    return out


def _literal(e):
    from ..language.values import Sym
    if isinstance(e, n.Literal) and e.value is not ABSENT:
        return e.value
    if isinstance(e, n.Neg) and isinstance(e.operand, n.Literal) and isinstance(e.operand.value, int):
        return -e.operand.value
    if isinstance(e, n.Name):
        return Sym(e.name)
    return None


def _inputs_order(names, values, budget, seed) -> tuple:
    """(an iterator of input dicts, how many there are, exhaustive?): every input in a
    fixed random order when there are at most `budget`, else `budget` drawn at random."""
    total = 1
    for vs in values:
        total *= len(vs)
    rng = random.Random(seed)
    if total <= budget:
        combos = list(itertools.product(*values))
        rng.shuffle(combos)
        return (dict(zip(names, c)) for c in combos), total, True
    picked, tries = [], 0
    seen = set()
    while len(picked) < budget and tries < budget * 4:
        tries += 1
        idx = tuple(rng.randrange(len(vs)) for vs in values)
        if idx in seen:
            continue
        seen.add(idx)
        picked.append({k: vs[i] for k, vs, i in zip(names, values, idx)})
    return iter(picked), total, False


def _compare(ctx, fa, fb) -> dict:
    name = fa.name
    dom, note = _domain(fa, fb, name, ctx)
    dice = fa.has_dice or fb.has_dice
    if dom is None:
        return {"compared": {"method": "none", "inputs": 0, "domain": None, "differ": 0, "evaluations": 0,
                             "note": note}, "differences": [], "odds": []}
    names, values, finite = dom
    seed = f"{ctx.a.id}|{ctx.b.id}|{name}"
    order, total, every = _inputs_order(names, values, ctx.budget, seed)
    left = ctx.budget
    done = differ = 0
    examples, dists = [], []
    out_of_time = False
    for inputs in order:
        if left <= 0:
            break
        if _past_deadline(ctx):
            out_of_time = True
            break
        if dice:
            ra, ca = _odds(ctx, fa, inputs, left)
            left -= ca
            rb, cb = _odds(ctx, fb, inputs, max(left, 1))
            left -= cb
            if ra == "budget" or rb == "budget":
                out_of_time = _past_deadline(ctx)
                break
        else:
            ra, rb = _call(fa, inputs), _call(fb, inputs)
            left -= 2
        done += 1
        if not _results_equal(ra, rb):
            differ += 1
            if len(examples) < MAX_EXAMPLES:
                examples.append({"inputs": {k: to_json(v) for k, v in inputs.items()},
                                 "inputs_said": _inputs_said(ctx.b, name, inputs),
                                 "before": _result_json(ra, ctx.a, name), "after": _result_json(rb, ctx.b, name)})
            if dice and len(dists) < MAX_ODDS and not isinstance(ra, tuple) and not isinstance(rb, tuple):
                dists.append(inputs)
    exhaustive = finite and every and done == total
    if exhaustive:
        method = "exhaustive"
        said = "every input"
    else:
        method = "sampled"
        said = (f"drawn at random from its {total} inputs, within a budget of {ctx.budget} evaluations" if finite
                else "drawn from its inputs' ranges and the values its examples and defaults give (it takes "
                     "a number or text with no range, so not every input can be tried)")
        if out_of_time:
            said = (f"{done} of its inputs, when the diff's time limit "
                    f"({ctx.meter.budget.seconds:g} s, --time-limit) ran out")
    compared = {"method": method, "inputs": done, "domain": total if finite else None, "differ": differ,
                "evaluations": ctx.budget - left, "note": said}
    odds = _odds_shown(ctx, fa, fb, dists) if dice else []
    return {"compared": compared, "differences": examples, "odds": odds}


def _call(fn, inputs):
    try:
        return fn(**inputs)
    except RulesError as e:
        return ("error", type(e).__name__, getattr(e, "param", ""), str(e))
    except (ArithmeticError, RecursionError, ValueError, TypeError) as e:
        return ("error", type(e).__name__, "", str(e))


def _past_deadline(ctx) -> bool:
    """Whether the diff's shared budget has run out of time (every later comparison is
    then left out, and says so)."""
    from ..odds import TooLarge
    try:
        ctx.meter.check()
    except TooLarge:
        return True
    return False


def _odds(ctx, fn, inputs, left):
    """(the distribution as {value key: probability}, evaluations spent); "budget" when
    it did not finish within what is left (of the mechanic's evaluations, or of the
    diff's shared budget: its meter)."""
    from ..odds import TooLarge, distribution
    if not fn.has_dice:
        r = _call(fn, inputs)
        return ({_key(r): 1} if not isinstance(r, tuple) else r), 1
    try:
        d = distribution(fn, _meter=ctx.meter, _max_evals=left, **inputs)
    except TooLarge:
        return "budget", left
    except RulesError as e:
        return ("error", type(e).__name__, getattr(e, "param", ""), str(e)), 1
    return {_key(v): p for v, p in d.outcomes}, max(getattr(d, "evaluations", 1), 1)


def _key(v):
    import json
    return json.dumps(to_json(v) if not hasattr(v, "as_json") else v.as_json(), sort_keys=True)


def _results_equal(x, y) -> bool:
    if isinstance(x, tuple) or isinstance(y, tuple):
        return isinstance(x, tuple) and isinstance(y, tuple) and x[:3] == y[:3]
    if isinstance(x, dict) or isinstance(y, dict):
        return x == y
    return same_value(x, y)


def _inputs_said(book, name, inputs) -> str:
    from ..language.wording import inputs_phrase
    return inputs_phrase(book.display, name, inputs)


def _result_json(r, book, name):
    """A result, or an error, or a distribution, as JSON with its words (`said`)."""
    if isinstance(r, tuple):
        return {"error": r[1], "parameter": r[2], "message": r[3], "said": f"refused: {r[3]}"}
    if isinstance(r, dict):
        import json
        from ..language.values import percent_text
        rows = [{"value": json.loads(k), "probability": f"{p.numerator}/{p.denominator}"} for k, p in r.items()]
        said = ", ".join(f"{_value_words(book, row['value'])} {percent_text(p)}" for row, p in zip(rows, r.values()))
        return {"distribution": rows, "said": said}
    return {"value": to_json(r), "said": book.display.value(r)}


def _value_words(book, v) -> str:
    if isinstance(v, dict) and ("at_least" in v or "at_most" in v):
        return f"{v['at_least']} or more" if "at_least" in v else f"{v['at_most']} or less"
    return book.display.value(v)


def _odds_shown(ctx, fa, fb, differing) -> list:
    """The exact odds before and after for the inputs the books show odds for (their
    `odds` lines, else the site's choice), where they differ; else the first inputs
    found to differ."""
    from ..odds import page_odds
    chosen = []
    for book in (ctx.b, ctx.a):
        for args, kwargs in getattr(book.compiled, "odds_inputs", {}).get(fa.name, []):
            names = [p.name for p in book.mechanics[fa.name].params]
            chosen.append({**dict(zip(names, args)), **kwargs})
        if chosen:
            break
    if not chosen and fa.has_dice:
        try:       # the inputs the site shows odds for (defaults, then each input's low, middle, high)
            chosen = [dict(inputs) for inputs, _ in page_odds(fa, budget=ctx.budget)]
        except RulesError:
            chosen = []
    out = []
    for inputs in chosen:
        if len(out) >= MAX_ODDS:
            break
        entry = _odds_entry(ctx, fa, fb, inputs)
        if entry is not None:
            out.append(entry)
    if out:          # the inputs the book shows odds for, where they moved
        return out
    for inputs in differing:         # else the first inputs found to differ
        if len(out) >= MAX_ODDS:
            break
        entry = _odds_entry(ctx, fa, fb, inputs)
        if entry is not None:
            out.append(entry)
    return out


def _odds_entry(ctx, fa, fb, inputs):
    """The odds before and after for one input set, or None when they are the same
    (or cannot be computed within the budget)."""
    from ..odds import TooLarge, distribution
    if _past_deadline(ctx):
        return None
    try:
        da = distribution(fa, _meter=ctx.meter, _max_evals=ctx.budget, **inputs)
        db = distribution(fb, _meter=ctx.meter, _max_evals=ctx.budget, **inputs)
    except (TooLarge, RulesError):
        return None
    if [(_key(v), p) for v, p in da.outcomes] == [(_key(v), p) for v, p in db.outcomes]:
        return None
    return _odds_json(inputs, da, db, ctx.b, fa.name)


def _odds_json(inputs, da, db, book, name) -> dict:
    def frac(p):
        return None if p is None else (str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}")
    keys = list(dict.fromkeys([_key(v) for v, _ in da.outcomes] + [_key(v) for v, _ in db.outcomes]))
    pa = {_key(v): p for v, p in da.outcomes}
    pb = {_key(v): p for v, p in db.outcomes}
    values = {_key(v): v for v, _ in list(da.outcomes) + list(db.outcomes)}
    if da.mean is not None and db.mean is not None:
        from ..odds.result import OrMore

        def num(k):
            v = values[k]
            return (1 if v.up else -1, v.n) if isinstance(v, OrMore) else (0, v)
        keys.sort(key=num)
    from fractions import Fraction
    zero = Fraction(0)
    rows = []
    for k in keys:
        a, b = pa.get(k, zero), pb.get(k, zero)
        v = values[k]
        rows.append({"value": v.as_json() if hasattr(v, "as_json") else to_json(v),
                     "said": _outcome_words(book, v),
                     "before": frac(a), "after": frac(b), "change": frac(b - a),
                     "before_float": float(a), "after_float": float(b)})
    mean = {"before": frac(da.mean), "after": frac(db.mean),
            "change": frac(db.mean - da.mean) if da.mean is not None and db.mean is not None else None,
            "before_float": None if da.mean is None else float(da.mean),
            "after_float": None if db.mean is None else float(db.mean)}
    return {"inputs": {k: to_json(v) for k, v in inputs.items()}, "inputs_said": _inputs_said(book, name, inputs),
            "result_said": book.display.result(name), "outcomes": rows, "mean": mean,
            "exact": da.exact and db.exact, "before": da.as_json(), "after": db.as_json()}


def _outcome_words(book, v) -> str:
    from ..odds.result import OrMore
    if isinstance(v, OrMore):
        return f"{v.n} or more" if v.up else f"{v.n} or less"
    return book.display.value(v)
