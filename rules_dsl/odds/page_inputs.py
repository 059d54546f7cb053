"""Which inputs a mechanic's web page shows exact odds for: `page_odds(mechanic)`.

The odds themselves come from `rules_dsl.odds.distribution`; this module only picks
representative inputs (defaults, then each parameter's low, middle and high value;
numbers of dice kept small) within a budget of evaluations, so a page shows the same
rows on every machine.
"""
from __future__ import annotations

from ..language import nodes as n
from ..compiler import MechanicFn
from ..errors import RulesError
from .budget import Budget, TooLarge
from .engine import distribution
from .plan import count_params


def _candidates(mech, p, counts):
    """(the value a page starts from, the values it shows) for one parameter."""
    t = p.type
    if isinstance(t, n.UnionType):
        t = t.options[0]
    default = mech.defaults[p.name]({}, None) if p.default is not None else None
    if isinstance(t, n.RangeType):
        lo, hi = t.low, t.high
        if p.name in counts:          # a number of dice: small values (a page shows typical rolls)
            base = default if default is not None else min(hi, max(lo, 2))
            return base, sorted({lo, base, min(hi, max(base, lo) * 2 or 1)})
        mid = (lo + hi) // 2
        return (default if default is not None else mid), [lo, mid, hi]
    if isinstance(t, n.NamedType):
        vals = _values_of(mech.book, t.name)
        if default is not None:
            return default, vals
        return (vals[0] if vals else None), vals
    if isinstance(t, n.ListType):
        if isinstance(t.item, n.RangeType):      # a list of numbers (model sizes): one, then three
            shown = [[t.item.low], [t.item.low] * 3]
        else:                                     # a list of faces or members: the first, the first two
            vals = _values_of(mech.book, t.item.name) if isinstance(t.item, n.NamedType) else []
            shown = [vals[:1], vals[:2]] if vals else []
        return (default if default is not None else []), [v for v in shown if v]
    return default, []


#: values of an enum (or die faces) a page shows at most per parameter
NAMED_SHOWN = 6


def _values_of(book, name) -> list:
    """The values a page tries for a parameter of a named type: both booleans, an
    enum's members, a custom die's faces (at most NAMED_SHOWN); [] for open types."""
    if name == "bool":
        return [False, True]
    if name in book.enums:
        return list(book.enums[name])[:NAMED_SHOWN]
    if name in book.dice:
        die = book.dice[name]
        return [str(f) if die.custom else f for f in die.distinct][:NAMED_SHOWN]
    if name in ("int", "number"):
        return [1]
    return []


def _certain(dist) -> bool:
    """A distribution with one outcome: no roll decides anything for these inputs."""
    return len(dist.outcomes) == 1


PAGE_BUDGET = 20_000   # evaluations per mechanic page: about 0.3-0.6 s here


#: a page's odds count their work (evaluations, and steps within them), the same on
#: every machine, so a page shows the same tables wherever it is built; the time is a
#: last resort only
SITE_STEPS = 5_000_000
SITE_SECONDS = 60.0


def _site_budget() -> Budget:
    return Budget(seconds=SITE_SECONDS, steps=SITE_STEPS)


def _site_meter(deadline):
    """One computation's meter: the site's budget, stopping at the caller's `deadline`
    (an `odds.Deadline`, e.g. `rules diff --time-limit`) when one is given."""
    return deadline.meter(_site_budget()) if deadline is not None else _site_budget().meter()


def page_odds(mechanic, budget: int = PAGE_BUDGET, max_inputs: int = 12, skipped: list | None = None,
              deadline=None) -> list:
    """Representative (inputs, Distribution) pairs for a mechanic's web page.

    Every parameter starts from its default (else the middle of its range, or its first
    value; a parameter that sets a number of dice starts small, at 2); then each range
    parameter in turn takes its low, middle and high value (a number of dice: its low
    value, 2 and 4, since a page shows typical rolls and large pools cost the most), each
    boolean both values, each enum its members, a list of an enum or a die's faces its
    first one and two values, and a list of numbers its low value once and three times.
    Rows whose result is certain (one outcome: nothing is rolled for those inputs) say
    nothing about the dice and are left out; when the starting inputs are such a row,
    the choice starts again from the first inputs that do roll; when every row is
    certain there is no table.
    The whole computation stops after `budget` evaluations: work counted, not seconds,
    so a page shows the same rows on every machine.  Inputs that are rejected, or that
    would not finish within their share, are skipped.  [] for a mechanic without dice.
    A rule's `odds mech(...)` lines replace this choice: the page shows those inputs,
    each computed within the default work budget (`odds.budget.Budget`); one that is
    too large is left out of the page and its refusal appended to `skipped` (the site
    build logs it), the others are shown.
    With `deadline` (an `odds.Deadline`: a command's one time limit), every computation
    stops at it too, and none starts once it has passed (a tool that shows a page's odds
    within its own `--time-limit`, as `rules diff` does).
    """
    if not isinstance(mechanic, MechanicFn) or not mechanic.has_dice:
        return []
    chosen = getattr(mechanic.book, "odds_inputs", {}).get(mechanic.name)
    if chosen:
        # the designer chose the inputs (`odds mech(...)` lines): exactly those, in order
        out = []
        for args, kwargs in chosen:
            if deadline is not None and deadline.expired:
                if skipped is not None:
                    skipped.append(deadline.not_reached())
                break
            try:
                dist = distribution(mechanic, *args, _meter=_site_meter(deadline), **kwargs)
            except TooLarge as e:
                if skipped is not None:
                    skipped.append(str(e))
                continue
            out.append((dist.inputs, dist))
        return out
    counts = count_params(mechanic)
    start = _starting_inputs(mechanic, counts)
    if start is None:
        return []
    base, shown = start
    state = {"left": budget, "too_big": {}, "done": [], "deadline": deadline}   # done: [(inputs, dist or None)]
    rows = _evaluate(mechanic, _around(mechanic, base, shown, max_inputs), counts, base, state)
    if rows and _certain(rows[0][1]) and not all(_certain(d) for _, d in rows):
        # the starting inputs roll nothing (Suppression when the unit is clear; a save
        # outside its arc): start again from the first inputs that do roll
        base = dict(next(inp for inp, d in rows if not _certain(d)))
        rows = _evaluate(mechanic, _around(mechanic, base, shown, max_inputs), counts, base, state)
    if not any(not _certain(d) for _, d in rows):
        return []                       # every row is one certain result: a table that says nothing
    return [(inp, d) for inp, d in rows if not _certain(d)]


def _around(mechanic, base, shown, max_inputs) -> list:
    """The base inputs, then each parameter in turn at each of its shown values."""
    inputs = [dict(base)]
    for p in mechanic.params:
        for v in shown[p.name]:
            d = {**base, p.name: v}
            if d not in inputs:
                inputs.append(d)
    return inputs[:max_inputs]


def _evaluate(mechanic, inputs, counts, base, state) -> list:
    """[(inputs, Distribution)] of the inputs that finish within the budget left (work
    counted, not seconds); an input evaluated before is not evaluated again."""
    out = []
    too_big = state["too_big"]
    for i, inp in enumerate(inputs):
        known = next((d for x, d in state["done"] if x == inp), False)
        if known is not False:
            if known is not None:
                out.append((inp, known))
            continue
        if state["left"] <= 0 or (state["deadline"] is not None and state["deadline"].expired):
            break
        # a larger number of dice than one that did not finish will not finish either
        if any(k in counts and isinstance(v, int) and v >= too_big.get(k, v + 1) for k, v in inp.items()):
            continue
        left = state["left"]
        share = left if i == 0 else max(left // (len(inputs) - i), min(left, 1_000))
        try:
            dist = distribution(mechanic, _max_evals=share, _meter=_site_meter(state["deadline"]), **inp)
        except TooLarge:
            state["left"] -= share
            state["done"].append((inp, None))
            if i == 0:
                break
            for k, v in inp.items():
                if k in counts and v != base[k]:
                    too_big[k] = min(too_big.get(k, v), v)
            continue
        except RulesError:
            state["done"].append((inp, None))
            continue
        state["left"] -= dist.evaluations
        state["done"].append((inp, dist))
        out.append((inp, dist))
    return out


def _starting_inputs(mechanic, counts):
    """Each input's base value and the values a page shows of it, or None when an
    input has no value a page could pick: the one start of `page_odds` and
    `page_inputs_of`, so the diff compares what the page would show."""
    base, shown = {}, {}
    for p in mechanic.params:
        b, vals = _candidates(mechanic, p, counts)
        if b is None:
            return None
        base[p.name] = b
        shown[p.name] = vals
    return base, shown


def page_inputs_of(mechanic, max_inputs: int = 12) -> list:
    """The inputs `page_odds` starts from, before any odds are computed: the base
    inputs (defaults, else each input's middle), then each input in turn at its low,
    middle and high value ([] for a mechanic without dice).  `rules diff` compares a
    changed mechanic on these among the first, within its own deadline (the page's
    odds would run on the page's budget); the page itself may leave some out (those
    that roll nothing, or do not finish)."""
    if not isinstance(mechanic, MechanicFn) or not mechanic.has_dice:
        return []
    counts = count_params(mechanic)
    start = _starting_inputs(mechanic, counts)
    if start is None:
        return []
    base, shown = start
    return _around(mechanic, base, shown, max_inputs)
