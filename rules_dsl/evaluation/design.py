"""Design views: the numbers a designer balancing a game asks for, computed exactly.

* **Sweeps** (`sweep`): one input of a dice mechanic over its range (`skill=2..6`),
  every other input fixed: a distribution per value, one table.
* **Variants** (`variants`): several sets of changed inputs beside the base one
  (`--vs aimed=true --vs aimed=true cover=heavy`).
* **Cost views** (`price`): a book's `priced` declarations: for each case, what it
  costs (points, gc) per what its dice give on average.  `priced points_per_wound
  { for kind in fighter_kind: roster(kind) per attack(...) }` prices every kind of
  fighter against the exact mean of its attack; a condition's mean is its chance.

Every number comes from the exact-odds engine (`rules_dsl.odds`), and a whole view (every
row of a sweep, every case of a cost view) keeps to one deadline (`odds.Deadline`: the
command's `--time-limit`): a case too large says why, in the words `rules odds` uses, the
others still show, and a case the time did not reach says it was not computed.
The text and the website render these objects (`design_text.py`,
`sphinxext/charts.py`): this module computes, it does not print.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from ..language import nodes as n
from ..errors import EvaluationError, InputError, RulesError

EVALUATIONS = 2_000_000       # the engine's evaluations for one distribution of a view
SECONDS = 30.0                # a whole view's time when no deadline is given (the site's views)


# ------------------------------------------------------------------ sweeps
@dataclass
class Sweep:
    mechanic: object                  # the MechanicFn
    name: str                         # the input swept
    inputs: dict                      # the other inputs, as given
    rows: list                        # [(value, Distribution | None, error text | None)]

    @property
    def numeric(self) -> bool:
        return all(d.mean is not None for _, d, _ in self.rows if d is not None)


def sweep_values(mechanic, name: str, spec) -> list:
    """The values of input `name` a sweep takes: `spec` is (low, high), a list of values,
    or None for every value of the parameter's declared type (a range, bool, an enum)."""
    params = {p.name: p for p in mechanic.params}
    if name not in params:
        from ..errors import NotFound
        raise NotFound("parameter", name, list(params), where=f"{mechanic.book_id}:{mechanic.name}")
    check = mechanic.checks[name]
    if spec is None:
        values = check.finite_values(1000)
        if values is None:
            raise InputError(mechanic.name, name, None, f"{check.describe}: give the values to sweep, as {name}=LOW..HIGH")
        return values
    if isinstance(spec, tuple):
        lo, hi = spec
        if hi < lo:
            raise InputError(mechanic.name, name, f"{lo}..{hi}", "a range written low..high")
        if hi - lo > 1000:
            raise InputError(mechanic.name, name, f"{lo}..{hi}", "at most 1001 values in a sweep")
        spec = list(range(lo, hi + 1))
    out = []
    for v in spec:
        try:
            out.append(check.convert(v))
        except ValueError:
            raise InputError(mechanic.name, name, v, check.describe) from None
    return out


def _dist(mechanic, inputs: dict, deadline, meter=None):
    """One distribution of a view: on the command's `meter` when it shares one (--vs,
    --explain), else on a meter of its own that stops at the view's `deadline`."""
    from ..odds import distribution
    from ..odds.budget import Budget
    return distribution(mechanic, _meter=meter or deadline.meter(Budget(evaluations=EVALUATIONS)), **inputs)


def view_deadline(deadline=None):
    """The deadline a design view keeps to: the command's (`--time-limit`), else `SECONDS`."""
    from ..odds.budget import Deadline
    return deadline if deadline is not None else Deadline(SECONDS)


def sweep(mechanic, name: str, spec=None, _deadline=None, **inputs) -> Sweep:
    """A distribution of `mechanic` for each value of input `name` (see `sweep_values`),
    every row within one deadline (`_deadline`, an `odds.Deadline`; default `SECONDS`
    for the whole sweep): a row the time did not reach says so (`Deadline.not_reached`),
    a row too large says why (the refusal `rules odds` prints)."""
    from ..odds import TooLarge
    deadline = view_deadline(_deadline)
    rows = []
    for v in sweep_values(mechanic, name, spec):
        if deadline.expired:
            rows.append((v, None, deadline.not_reached()))
            continue
        try:
            rows.append((v, _dist(mechanic, {**inputs, name: v}, deadline), None))
        except TooLarge as e:
            rows.append((v, None, str(e)))
    return Sweep(mechanic, name, dict(inputs), rows)


def variants(mechanic, inputs: dict, changes: list, meter=None, deadline=None) -> list:
    """[Distribution] for the base inputs, then for each dict of `changes` applied to them,
    all on one `meter` (default: one of `deadline`'s): a variant too large refuses them all."""
    meter = meter or view_deadline(deadline).meter()
    return [_dist(mechanic, dict(inputs), None, meter)] + [_dist(mechanic, {**inputs, **c}, None, meter)
                                                            for c in changes]


# ------------------------------------------------------------------ cost views
@dataclass
class PricedRow:
    bindings: dict                 # the case: name -> value
    cost: object                   # what it costs (a number)
    expected: Optional[Fraction]   # the mean of what it buys (a chance for a condition); None: not computed
    note: str = ""                 # why `expected` is missing (too large, not reached, an error)

    @property
    def ratio(self) -> Optional[Fraction]:
        """Cost per unit of the expected result; None when nothing is expected."""
        if self.expected is None or not self.expected or not isinstance(self.cost, (int, Fraction)) \
                or isinstance(self.cost, bool):
            return None
        return Fraction(self.cost) / self.expected


@dataclass
class CostView:
    book: str
    name: str
    title: str                     # the declaration's docstring
    rule: str                      # the rule that declares it
    cost_text: str                 # the formula, in the rules' notation
    effect_text: str
    chance: bool                   # the effect is a condition: its mean is a chance
    names: list                    # the case's names, in order
    rows: list = field(default_factory=list)     # of PricedRow

    def best(self):
        rated = [r for r in self.rows if r.ratio is not None]
        return min(rated, key=lambda r: r.ratio) if rated else None


class _Any:
    """A check that lets every value through (a design view's case values are the book's own)."""
    describe = "anything"

    @staticmethod
    def convert(v):
        return v


def effect_mechanic(compiled, pf):
    """The effect of a priced view as a mechanic whose parameters are the case's names."""
    from ..compiler.mechanics import MechanicFn
    node = pf.node
    params = tuple(n.Param(b.span, b.name, n.NamedType(b.span, "number")) for b in node.bindings)
    twin = MechanicFn(compiled, n.Mechanic(node.effect.span, pf.name, params, n.NamedType(node.effect.span, "number"),
                                           "", (), node.effect))
    twin.checks = {p.name: _Any for p in params}
    twin.returns = _Any
    return twin


def price(book, name: Optional[str] = None, deadline=None) -> list:
    """The cost views of a book (`Book`), or the one named: [CostView], every case of
    every view within one `deadline` (an `odds.Deadline`; default `SECONDS` in all)."""
    from ..errors import NotFound
    from ..odds import TooLarge
    from ..language.render import expr_text
    from ..language.values import number
    compiled = book.compiled
    names = [name] if name else list(compiled.priced)
    if name and name not in compiled.priced:
        raise NotFound("priced view", name, list(compiled.priced), where=book.id)
    deadline = view_deadline(deadline)
    out = []
    for nm in names:
        pf = compiled.priced[nm]
        twin = effect_mechanic(compiled, pf)
        node = pf.node
        view = CostView(book.id, nm, node.doc or nm, pf.rule_id, expr_text(node.cost), expr_text(node.effect),
                        False, pf.names)
        for bindings, cost in pf.cases():
            if deadline.expired:
                view.rows.append(PricedRow(bindings, cost, None, deadline.not_reached()))
                continue
            try:
                d = _dist(twin, bindings, deadline)
            except TooLarge as e:     # the view is no mechanic: `rules call` cannot roll it
                view.rows.append(PricedRow(bindings, cost, None, str(e.about(
                    e.subject, [h for h in e.hints if "rules call" not in h] or ["fewer dice"]))))
                continue
            except RulesError as e:
                view.rows.append(PricedRow(bindings, cost, None, str(e).splitlines()[0]))
                continue
            values = [v for v, _ in d.outcomes]
            if values and all(isinstance(v, bool) for v in values):
                view.chance = True
                expected = d.probability(True)
            elif d.mean is not None:
                expected = d.mean
            else:
                raise EvaluationError(f"priced '{nm}': what it buys must be a number or a condition, "
                                      f"got {values[:3]}")
            view.rows.append(PricedRow(bindings, cost, number(expected)))
        out.append(view)
    return out
