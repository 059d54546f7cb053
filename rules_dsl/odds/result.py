"""The result of the exact-odds engine and its rendering: `Distribution` (outcomes as exact
fractions, mean, `error_bound`, `table()`, `as_json()`), `OrMore` (a chain's "n or more"
bucket), the error `NoDice` (and `TooLarge`, from budget.py), `value_key` (the exact,
hashable key of a value the engine memoises and aggregates by) and the order outcomes
are shown in."""
from __future__ import annotations

from fractions import Fraction

from ..compiler import EnumNamespace, MechanicFn, TableFn
from ..language.dice import DieInfo
from ..errors import RulesError
from ..language.values import ABSENT, Rational, Record, show, Sym, to_json
from .budget import TooLarge  # noqa: F401  (defined with the budget it refuses; exported here as before)
from .standins import Face, NoKey, PoolList, Tail


ONE = Fraction(1)
ZERO = Fraction(0)
TAIL_EPS = Fraction(1, 10 ** 12)     # a chain's tail is shown / truncated below this mass


class NoDice(RulesError):
    """The mechanic (and every mechanic it calls) rolls no dice: it has no odds."""


# ============================================================ result buckets
class OrMore:
    """A final bucket of a chain's unbounded tail: every result from `n` up (or down)."""
    __slots__ = ("n", "up")

    def __init__(self, n, up=True):
        self.n, self.up = n, up

    def __eq__(self, other):
        return isinstance(other, OrMore) and (self.n, self.up) == (other.n, other.up)

    def __hash__(self):
        return hash(("OrMore", self.n, self.up))

    def __repr__(self):
        return f"{show(self.n)} or {'more' if self.up else 'less'}"

    def as_json(self):
        return {"at_least" if self.up else "at_most": to_json(self.n)}


# ============================================================= distributions
class Distribution:
    """The exact law of a mechanic's result for given inputs.

    `outcomes`: [(value, Fraction)] sorted by value, summing to exactly 1;
    `mean`: a Fraction, or None when the result is not a number;
    `exact`: False only when a chain had to be truncated (see the module doc), and then
    `error_bound` bounds the total variation distance to the true law (< 1e-12).
    """

    def __init__(self, mechanic, inputs, outcomes, mean, error_bound=ZERO):
        self.mechanic, self.inputs = mechanic, dict(inputs)
        self.outcomes = outcomes
        self.mean = mean
        self.error_bound = error_bound
        self.exact = error_bound == 0
        self.explode_caps = {}      # roll name -> (cap, P(the pool would want more extra dice))

    def __repr__(self):
        return f"<Distribution of {self.title()}: {len(self.outcomes)} outcomes>"

    def __iter__(self):
        return iter(self.outcomes)

    def __len__(self):
        return len(self.outcomes)

    def title(self):
        m = self.mechanic
        args = ", ".join(f"{k}={show(v)}" for k, v in self.inputs.items())
        return f"{m.book_id}:{m.name}({args})"

    def probability(self, what) -> Fraction:
        """P(result == what), or P(what(result)) when `what` is callable."""
        if callable(what) and not isinstance(what, (MechanicFn,)):
            return sum((p for v, p in self.outcomes if what(v)), ZERO)
        return sum((p for v, p in self.outcomes if _same_value(v, what)), ZERO)

    def cumulative(self):
        """[(value, P(result == value), P(result >= value), P(result <= value))] for a
        numeric result ("at least" and "at most", what a player asks: "what are my
        chances of 3 or more hits?"); None when the result is not a number."""
        if self.mean is None:
            return None
        ps = [p for _, p in self.outcomes]
        out, below = [], ZERO
        total = sum(ps, ZERO)
        for (v, p) in self.outcomes:
            out.append((v, p, total - below, below + p))
            below += p
        return out

    def as_dict(self) -> dict:
        return {value_key(v, False): p for v, p in self.outcomes}

    def as_json(self) -> dict:
        out = []
        cum = self.cumulative()
        for i, (v, p) in enumerate(self.outcomes):
            row = {"value": _json_value(v), "probability": f"{p.numerator}/{p.denominator}", "float": float(p)}
            if cum is not None:
                _, _, ge, le = cum[i]
                row.update(probability_at_least=f"{ge.numerator}/{ge.denominator}",
                           probability_at_most=f"{le.numerator}/{le.denominator}")
            out.append(row)
        mean = self.mean
        return {"mechanic": f"{self.mechanic.book_id}:{self.mechanic.name}",
                "inputs": {k: to_json(v) for k, v in self.inputs.items()},
                "outcomes": out,
                "mean": None if mean is None else f"{mean.numerator}/{mean.denominator}",
                "mean_float": None if mean is None else float(mean),
                "exact": self.exact,
                "error_bound": None if self.exact else f"{self.error_bound.numerator}/{self.error_bound.denominator}",
                **({"explode_caps": [{"roll": r, "cap": cap, "probability_more": f"{q.numerator}/{q.denominator}",
                                      "float": float(q)} for r, (cap, q) in self.explode_caps.items()]}
                   if self.explode_caps else {})}

    def table(self, show=show, title=None, result: str = "result") -> str:
        """The distribution as aligned text.  `show` writes a value (`display.Names.value`
        for players' words), `title(distribution)` the first line, `result` the first column."""
        cum = self.cumulative()
        rows = [(_shown(v, show), f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator), _pct(p))
                + ((_pct(cum[i][2]), _pct(cum[i][3])) if cum is not None else ())
                for i, (v, p) in enumerate(self.outcomes)]
        head = (result, "probability", "%") + (("at least", "at most") if cum is not None else ())
        k = len(head)
        w = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(k)]

        def line(cells):
            return "  ".join(f"{c:<{w[i]}}" if i == 0 else f"{c:>{w[i]}}" for i, c in enumerate(cells))
        lines = [title(self) if title else self.title(), "", line(head), line(["-" * x for x in w])]
        lines += [line(r) for r in rows]
        lines.append("")
        if self.mean is not None:
            m = self.mean
            exact = str(m.numerator) if m.denominator == 1 else f"{m.numerator}/{m.denominator}"
            lines.append(f"mean: {exact} (about {_approx(m)})")
        else:
            lines.append("mean: - (the result is not a number)")
        if not self.exact:
            lines.append(f"truncated: a chain's tail was cut; total error below {float(self.error_bound):.3g}")
        if any(isinstance(v, OrMore) for v, _ in self.outcomes):
            lines.append("a chain has no upper limit: the 'or more' row is its exact remaining probability")
        lines += explode_lines(self.explode_caps)
        return "\n".join(lines)


def explode_lines(caps: dict) -> list:
    """What an exploding roll's limit means for the table: the odds are exact for the rule
    as written (at most `cap` extra dice); this says how often the limit bites."""
    out = []
    for name, (cap, more) in caps.items():
        how = "never" if not more else f"with probability {more.numerator}/{more.denominator} (about {_approx(more)})"
        out.append(f"explode: roll {name} adds at most {cap} extra dice (exact for that rule); "
                   f"without the limit it would add more {how}")
    return out


def _shown(v, show_value) -> str:
    """An outcome as text: a chain's "n or more" bucket says itself with `show_value` for n."""
    if isinstance(v, OrMore):
        return f"{show_value(v.n)} or {'more' if v.up else 'less'}"
    return show_value(v)


def side_by_side(left: Distribution, right: Distribution, show=show, title=None, result: str = "result",
                 label=None) -> str:
    """Two distributions of one mechanic as one table: a row per result either can
    give, each side's chance (and, for numbers, its chance of at least that), and
    the difference -- "what does the keyword change?"."""
    def numeric_key(v):
        if isinstance(v, OrMore):
            return (1 if v.up else -1, v.n)
        return (0, v)
    values = list(dict.fromkeys([v for v, _ in left.outcomes] + [v for v, _ in right.outcomes]))
    numeric = left.mean is not None and right.mean is not None
    if numeric:
        values.sort(key=numeric_key)

    def law(d):
        probs = {v: p for v, p in d.outcomes}
        out, above = {}, ZERO
        for v in reversed(values):
            above += probs.get(v, ZERO)
            out[v] = (probs.get(v, ZERO), above)
        return out
    a, b = law(left), law(right)
    head = [result, "A %"] + (["A at least"] if numeric else []) + ["B %"] + (["B at least"] if numeric else []) \
        + ["B - A (points)"]
    rows = []
    for v in values:
        (pa, ga), (pb, gb) = a[v], b[v]
        diff = float(pb - pa) * 100
        rows.append([_shown(v, show), _pct(pa)] + ([_pct(ga)] if numeric else []) + [_pct(pb)] + ([_pct(gb)] if numeric else [])
                    + [f"{diff:+.2f}" if pb != pa else "0"])
    w = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head))]

    def line(cells):
        return "  ".join(f"{c:<{w[i]}}" if i == 0 else f"{c:>{w[i]}}" for i, c in enumerate(cells))
    changed = ", ".join(f"{k}={show(v)}" for k, v in right.inputs.items()
                        if k not in left.inputs or not _same_value(left.inputs[k], v))
    same_mechanic = left.mechanic is right.mechanic
    if label is not None:       # in words: "the same with extra die yes"
        changed = ", ".join(f"{label(k)} {show(v)}" for k, v in right.inputs.items()
                            if k not in left.inputs or not _same_value(left.inputs[k], v))
    b_title = f"the same with {changed}" if same_mechanic and changed else (title(right) if title else right.title())
    lines = [f"A: {title(left) if title else left.title()}", f"B: {b_title}", "", line(head), line(["-" * x for x in w])]
    lines += [line(r) for r in rows]
    lines.append("")

    def mean(d):
        m = d.mean
        return "-" if m is None else (str(m.numerator) if m.denominator == 1 else f"{m.numerator}/{m.denominator}"
                                      f" (about {_approx(m)})")
    lines.append(f"mean: A {mean(left)}, B {mean(right)}")
    for side, d in (("A", left), ("B", right)):
        lines += [f"{side}: {said}" for said in explode_lines(getattr(d, "explode_caps", {}))]
    return "\n".join(lines)


def _json_value(v):
    if isinstance(v, OrMore):
        return v.as_json()
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if isinstance(v, Record):
        return {k: _json_value(x) for k, x in v.as_dict().items()}
    return to_json(v)


def _same_value(v, what):
    try:
        return value_key(v, False) == value_key(what, False)
    except NoKey:
        return v == what


def _pct(p: Fraction) -> str:
    x = float(p) * 100
    if p == 0:
        return "0%"
    if x >= 0.01:
        return f"{x:.2f}%"
    return f"{x:.2g}%"


def _approx(x: Fraction) -> str:
    return f"{float(x):.6g}"


def sort_key(v, order):
    if isinstance(v, OrMore):
        return (0, v.n, 1 if v.up else -1)
    if isinstance(v, bool):
        return (1, v)
    if isinstance(v, (int, Fraction)):
        return (0, v, 0)
    if isinstance(v, Sym):
        return (2, order.get((v.enum, str(v)), 10 ** 6), str(v))
    if isinstance(v, str):
        return (3, v)
    if isinstance(v, (list, tuple)):
        return (4, len(v), tuple(sort_key(x, order) for x in v))
    if isinstance(v, Record):
        return (5, tuple(sort_key(x, order) for x in v.as_dict().values()))
    if isinstance(v, frozenset):
        return (6, tuple(sorted(sort_key(x, order) for x in v)))
    if v is ABSENT:
        return (7,)
    return (8, repr(v))


def member_order(book):
    order = {}
    for enum, members in book.enums.items():
        for i, m in enumerate(members):
            order[(enum, m)] = i
    for die in book.dice.values():
        if die.custom:
            for i, f in enumerate(die.distinct):
                order[(die.name, str(f))] = i
    return order


# ======================================================================= keys
def value_key(v, symbolic):
    """A hashable, type-exact key for a value (memo and aggregation)."""
    t = type(v)
    if t is int:
        return v
    if t is bool:
        return ("b", v)
    if t is Sym:
        return ("s", v.enum, str(v))
    if t is str:
        return ("t", v)
    if t is Rational or t is Fraction:
        return ("q", v)
    if t is list or t is tuple:
        return ("l", tuple(value_key(x, symbolic) for x in v))
    if t is PoolList:
        if not symbolic:
            raise NoKey
        return ("p", id(v.origin.token), v.origin.ident, v.shape)
    if t is frozenset:
        return ("set", frozenset(value_key(x, symbolic) for x in v))
    if t is range:
        return ("r", v.start, v.stop)
    if v is ABSENT:
        return ("absent",)
    if v is None:
        return ("none",)
    if t is Record:
        return ("rec", tuple((k, value_key(x, symbolic)) for k, x in v.as_dict().items()))
    if t is Face:
        if not symbolic:
            raise NoKey
        return ("F", id(v.origin.token), v.origin.ident, v.faces, tuple(value_key(x, False) for x in v.vals))
    if t is Tail:
        if not symbolic:
            raise NoKey
        return ("T", id(v.origin), v.K, v.a, v.b)
    if t is OrMore:
        return ("or", v.n, v.up)
    if t is MechanicFn or t is TableFn or t is DieInfo or t is EnumNamespace:
        return ("obj", id(v))
    raise NoKey
