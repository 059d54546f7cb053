"""The language's built-in functions: name -> (python function, min args, max args, doc).

Every builtin is a plain, total Python function over rules values; nothing here
reaches the rulebook text.  `round` takes its mode as a bare name (`up`,
`down`, `half_up`, `half_down`, `half_even`) so that every rounding in a book
says which way it goes.
"""
from __future__ import annotations

import math
from fractions import Fraction

from ..errors import EvaluationError
from .symbolic import Symbolic
from .values import ABSENT, Record, literal, number

ROUND_MODES = ("up", "down", "half_up", "half_down", "half_even")


def _num(x, fn):
    if x is ABSENT:
        raise EvaluationError(f"{fn}: the value is absent in the source rulebook")
    if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
        raise EvaluationError(f"{fn}: expected a number, got {literal(x)}")
    return x


def round_by_mode(x, mode):
    """`round(x, mode)` of the language (up, down, nearest...), exactly, as the built-in computes it;
    the ranges pass (intervals.py) rounds the ends of an interval with it."""
    x = Fraction(_num(x, "round"))
    if mode == "up":
        return math.ceil(x)
    if mode == "down":
        return math.floor(x)
    fl = math.floor(x)
    diff = x - fl
    if diff > Fraction(1, 2):
        return fl + 1
    if diff < Fraction(1, 2):
        return fl
    if mode == "half_up":
        return fl + 1
    if mode == "half_down":
        return fl
    return fl if fl % 2 == 0 else fl + 1   # half_even


def _items(xs, fn):
    if xs is ABSENT:
        raise EvaluationError(f"{fn}: the value is absent in the source rulebook")
    if isinstance(xs, (list, tuple, range, frozenset, set)):
        return list(xs)
    raise EvaluationError(f"{fn}: expected a list, got {literal(xs)}")


def _count(xs):
    # count(x for x in xs if cond) counts the kept items; count(list) counts truthy items
    return sum(1 for x in _items(xs, "count") if x is not False and x is not ABSENT)


def _extreme(pick, items):
    """max/min (rule 4 of the stand-in protocol, rules_dsl.language.symbolic).  The exact-odds engine hands a pool over as one stand-in object per
    class of faces it has not told apart, repeated once per die.  Among copies of one
    object only the distinct objects are compared: when a stand-in wins, it stands for
    the highest (lowest) of its copies, whose possible values are its class's faces, and
    the engine answers a use of it only when every face of the class gives one answer
    (else it splits the class, which decides between the copies too).  So a `max` is
    decided lazily, down to what the mechanic asks of it, as a sweep over faces would."""
    for x in items:
        if isinstance(x, Symbolic):
            return pick(list({id(x): x for x in items}.values()))
    return pick(items)


def _max(*xs):
    items = _items(xs[0], "max") if len(xs) == 1 else list(xs)
    if not items:
        raise EvaluationError("max: no values")
    return _extreme(max, items)


def _min(*xs):
    items = _items(xs[0], "min") if len(xs) == 1 else list(xs)
    if not items:
        raise EvaluationError("min: no values")
    return _extreme(min, items)


def _highest(xs, k=1):
    return sorted(_items(xs, "highest"), reverse=True)[: int(k)]


def _lowest(xs, k=1):
    return sorted(_items(xs, "lowest"))[: int(k)]


def _rows(table):
    rows = getattr(table, "rows", None)
    if rows is None:
        raise EvaluationError("rows: expected a table")
    return rows()


def _clamp(x, lo, hi):
    return max(lo, min(hi, _num(x, "clamp")))


def _is_absent(x):
    return x is ABSENT


def _or_else(x, default):
    return default if x is ABSENT else x


def _field(rec, name):
    if not isinstance(rec, Record):
        raise EvaluationError(f"field: expected a record, got {literal(rec)}")
    return getattr(rec, name)


def _covers(key, x):
    """True when x equals a key cell, or lies in it when the key is a range."""
    if isinstance(key, range):
        return x in key
    return key == x


def _low(key):
    return key.start if isinstance(key, range) else key


def _high(key):
    return key.stop - 1 if isinstance(key, range) else key


def _defined(name):
    raise EvaluationError("defined() answers for a book: call it inside one")   # bound per book by the compiler


BUILTINS = {
    # name: (function, min args, max args, one-line doc)
    "count": (_count, 1, 1, "number of kept items: count(d for d in dice if d <= 4)"),
    "sum": (lambda xs: number(sum(_num(x, "sum") for x in _items(xs, "sum"))), 1, 1, "total of a list"),
    "max": (_max, 1, 99, "largest value of a list or of the arguments"),
    "min": (_min, 1, 99, "smallest value of a list or of the arguments"),
    "len": (lambda xs: len(_items(xs, "len")), 1, 1, "number of items"),
    "any": (lambda xs: any(_items(xs, "any")), 1, 1, "true when some item is true"),
    "all": (lambda xs: all(_items(xs, "all")), 1, 1, "true when every item is true"),
    "abs": (lambda x: abs(_num(x, "abs")), 1, 1, "absolute value"),
    "floor": (lambda x: math.floor(_num(x, "floor")), 1, 1, "round down to a whole number"),
    "ceil": (lambda x: math.ceil(_num(x, "ceil")), 1, 1, "round up to a whole number"),
    "round": (round_by_mode, 2, 2, "round(x, mode) with mode up, down, half_up, half_down or half_even"),
    "clamp": (_clamp, 3, 3, "clamp(x, low, high)"),
    "even": (lambda x: _num(x, "even") % 2 == 0, 1, 1, "true for even numbers"),
    "odd": (lambda x: _num(x, "odd") % 2 == 1, 1, 1, "true for odd numbers"),
    "sorted": (lambda xs: sorted(_items(xs, "sorted")), 1, 1, "the items in ascending order"),
    "highest": (_highest, 1, 2, "highest(xs, k): the k highest items (k defaults to 1)"),
    "lowest": (_lowest, 1, 2, "lowest(xs, k): the k lowest items (k defaults to 1)"),
    "rows": (_rows, 1, 1, "the rows of a table as records (keys and values)"),
    "is_absent": (_is_absent, 1, 1, "true when the value is absent in the source"),
    "or_else": (_or_else, 2, 2, "or_else(x, default): x, or default when x is absent"),
    "field": (_field, 2, 2, "field(record, \"name\"): a record's field by name"),
    "covers": (_covers, 2, 2, "covers(key, x): x equals the key, or lies in it when the key is a range"),
    "low": (_low, 1, 1, "low(key): a range's first value (a number is its own)"),
    "high": (_high, 1, 1, "high(key): a range's last value (a number is its own)"),
    "defined": (_defined, 1, 1, "defined(\"Regenerate\"): true when a rule of this book has that title or alias"),
}
