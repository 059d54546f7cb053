"""The abstract values of the range analysis (`checks_ranges.py`): intervals and kinds.

A `V` over-approximates every value an expression can take: an interval of numbers
(`Num`), which of true/false, which enum members or custom die faces, a list (its
length as an interval and what its items can be), a record (its fields), or
`other` (text, absent, a table...).  Every operation here is *sound*: the true
value of an operation on values described by its operands is always described by
its result.  Nothing is ever narrower than the truth; so a property the analysis
proves ("this count is always negative", "this condition never holds") holds for
every evaluation.

An interval's end may carry a *witness*: an assignment of the mechanic's inputs
(parameters, single-die rolls) under which the expression takes exactly that
value.  Witnesses are candidates: the checks confirm one by analysing the
mechanic again with those inputs pinned (`checks_ranges`) before reporting it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Optional

INF = float("inf")


def fin(x) -> bool:
    return x != INF and x != -INF


def _norm(x):
    if isinstance(x, Fraction) and x.denominator == 1:
        return int(x)
    return x


def merge(a, b):
    """Two witnesses as one assignment, or None if they disagree on an input."""
    if a is None or b is None:
        return None
    if not a:
        return b
    if not b:
        return a
    d = dict(a)
    for k, v in b:
        if k in d and d[k] != v:
            return None
        d[k] = v
    return tuple(sorted(d.items()))


def merge_all(ws):
    out = ()
    for w in ws:
        out = merge(out, w)
        if out is None:
            return None
    return out


@dataclass(frozen=True)
class Num:
    lo: object                 # an int or Fraction, or -INF
    hi: object                 # an int or Fraction, or INF
    wlo: Optional[tuple] = None
    whi: Optional[tuple] = None
    whole: bool = False        # only whole numbers (so `x > 1` means x >= 2)

    def plain(self) -> "Num":
        return Num(self.lo, self.hi, whole=self.whole)

    @property
    def point(self):
        return self.lo if self.lo == self.hi and fin(self.lo) else None


def point(x, witness=()) -> "V":
    x = _norm(Fraction(x)) if not isinstance(x, int) else x
    return V(num=Num(x, x, witness, witness, isinstance(x, int)))


def num_range(lo, hi, wlo=None, whi=None, whole=True) -> "V":
    return V(num=Num(lo, hi, wlo, whi, whole))


def hull(a: Optional[Num], b: Optional[Num]) -> Optional[Num]:
    if a is None:
        return b
    if b is None:
        return a
    if a.lo < b.lo:
        lo, wlo = a.lo, a.wlo
    elif b.lo < a.lo:
        lo, wlo = b.lo, b.wlo
    else:
        lo, wlo = a.lo, a.wlo if a.wlo is not None else b.wlo
    if a.hi > b.hi:
        hi, whi = a.hi, a.whi
    elif b.hi > a.hi:
        hi, whi = b.hi, b.whi
    else:
        hi, whi = a.hi, a.whi if a.whi is not None else b.whi
    return Num(lo, hi, wlo, whi, a.whole and b.whole)


def meet(a: Optional[Num], lo, hi) -> Optional[Num]:
    """`a` narrowed to [lo, hi] (a witness kept only for an end that does not move);
    None when nothing is left."""
    if a is None:
        return None
    nlo, nhi = max(a.lo, lo), min(a.hi, hi)
    if a.whole:
        nlo = math.ceil(nlo) if fin(nlo) else nlo
        nhi = math.floor(nhi) if fin(nhi) else nhi
    if nlo > nhi:
        return None
    return Num(nlo, nhi, a.wlo if nlo == a.lo else None, a.whi if nhi == a.hi else None, a.whole)


ALL = "all"     # every enum member / die face


@dataclass(frozen=True)
class L:
    length: Num
    item: Optional["V"]          # None: anything


@dataclass(frozen=True)
class V:
    num: Optional[Num] = None
    bools: frozenset = frozenset()
    syms: object = frozenset()   # frozenset of member names, or ALL
    lst: Optional[L] = None
    rec: Optional[tuple] = None  # ((field, V), ...) of a record whose fields are known
    other: bool = False          # text, absent, sets, ranges as keys, tables, records of unknown fields...

    @property
    def empty(self) -> bool:
        return (self.num is None and not self.bools and not self.syms and self.lst is None
                and self.rec is None and not self.other)

    def only_num(self) -> bool:
        return self.num is not None and not self.bools and not self.syms and self.lst is None \
            and self.rec is None and not self.other

    def plain(self) -> "V":
        """Without witnesses (for memo keys and values that cross a call)."""
        lst = L(self.lst.length.plain(), self.lst.item.plain() if self.lst.item is not None else None) \
            if self.lst is not None else None
        rec = tuple((k, v.plain()) for k, v in self.rec) if self.rec is not None else None
        return replace(self, num=self.num.plain() if self.num is not None else None, lst=lst, rec=rec)


EMPTY = V()
BOOL = V(bools=frozenset({True, False}))
TRUE = V(bools=frozenset({True}))
FALSE = V(bools=frozenset({False}))
NUM = V(num=Num(-INF, INF))
TOP = V(num=Num(-INF, INF), bools=frozenset({True, False}), syms=ALL, lst=L(Num(0, INF, whole=True), None), other=True)


def bools(can_true: bool, can_false: bool) -> V:
    return V(bools=frozenset(([True] if can_true else []) + ([False] if can_false else [])))


def join(a: V, b: V) -> V:
    if a is None or b is None:
        return TOP
    if a.empty:
        return b
    if b.empty:
        return a
    syms = ALL if ALL in (a.syms, b.syms) else a.syms | b.syms
    if a.lst is None or b.lst is None:
        lst = a.lst or b.lst
    else:
        item = None if a.lst.item is None or b.lst.item is None else join(a.lst.item, b.lst.item)
        lst = L(hull(a.lst.length, b.lst.length), item)
    rec = None
    other = a.other or b.other
    if a.rec is not None and b.rec is not None:
        da, db = dict(a.rec), dict(b.rec)
        if da.keys() == db.keys():
            rec = tuple((k, join(da[k], db[k])) for k in da)
        else:
            other = True
    elif a.rec is not None or b.rec is not None:
        rec = a.rec if a.rec is not None else b.rec
    return V(hull(a.num, b.num), a.bools | b.bools, syms, lst, rec, other)


def join_all(vs) -> V:
    out = EMPTY
    for v in vs:
        out = join(out, v)
    return out


# ------------------------------------------------------------------ arithmetic
def _mul(a, b):
    if a == 0 or b == 0:
        return 0
    return a * b


def add(a: Num, b: Num) -> Num:
    return Num(_norm(a.lo + b.lo), _norm(a.hi + b.hi),
               merge(a.wlo, b.wlo) if fin(a.lo) and fin(b.lo) else None,
               merge(a.whi, b.whi) if fin(a.hi) and fin(b.hi) else None, a.whole and b.whole)


def neg(a: Num) -> Num:
    return Num(-a.hi, -a.lo, a.whi, a.wlo, a.whole)


def sub(a: Num, b: Num) -> Num:
    return add(a, neg(b))


def mul(a: Num, b: Num) -> Num:
    cands = [(_mul(x, y), merge(wx, wy)) for x, wx in ((a.lo, a.wlo), (a.hi, a.whi))
             for y, wy in ((b.lo, b.wlo), (b.hi, b.whi))]
    lo = min(c[0] for c in cands)
    hi = max(c[0] for c in cands)
    wlo = next((w for v, w in cands if v == lo and w is not None), None) if fin(lo) else None
    whi = next((w for v, w in cands if v == hi and w is not None), None) if fin(hi) else None
    return Num(_norm(lo) if fin(lo) else lo, _norm(hi) if fin(hi) else hi, wlo, whi, a.whole and b.whole)


def div(a: Num, b: Num) -> Optional[Num]:
    """a / b (exact); None when b can be 0, or holds nothing (then anything: the caller widens)."""
    if b.lo <= 0 <= b.hi or b.lo > b.hi:
        return None

    def inv(x):
        return 0 if not fin(x) else Fraction(1) / Fraction(x)
    rb = Num(inv(b.hi), inv(b.lo), b.whi, b.wlo)
    out = mul(a, rb)
    return Num(out.lo, out.hi, out.wlo, out.whi, False)


def floor_(a: Num) -> Num:
    return Num(math.floor(a.lo) if fin(a.lo) else a.lo, math.floor(a.hi) if fin(a.hi) else a.hi, a.wlo, a.whi, True)


def ceil_(a: Num) -> Num:
    return Num(math.ceil(a.lo) if fin(a.lo) else a.lo, math.ceil(a.hi) if fin(a.hi) else a.hi, a.wlo, a.whi, True)


def round_any(a: Num, mode: str) -> Num:
    """round(x, mode) is monotone in x for every mode: the ends round as the ends do."""
    from ..language.builtins import round_by_mode
    return Num(round_by_mode(a.lo, mode) if fin(a.lo) else a.lo, round_by_mode(a.hi, mode) if fin(a.hi) else a.hi, a.wlo, a.whi,
               True)


def abs_(a: Num) -> Num:
    if a.lo >= 0:
        return a
    if a.hi <= 0:
        return neg(a)
    top = max(-a.lo, a.hi)
    return Num(0, top, None, (a.wlo if -a.lo >= a.hi else a.whi) if fin(top) else None, a.whole)


def max2(a: Num, b: Num) -> Num:
    """max is monotone in each argument: its ends are the ends' maxima."""
    lo = max(a.lo, b.lo)
    hi = max(a.hi, b.hi)
    return Num(lo, hi, merge(a.wlo, b.wlo) if fin(lo) else None, merge(a.whi, b.whi) if fin(hi) else None,
               a.whole and b.whole)


def min2(a: Num, b: Num) -> Num:
    lo = min(a.lo, b.lo)
    hi = min(a.hi, b.hi)
    return Num(lo, hi, merge(a.wlo, b.wlo) if fin(lo) else None, merge(a.whi, b.whi) if fin(hi) else None,
               a.whole and b.whole)


def mod(a: Num, b: Num) -> Num:
    """a % b as the language computes it (Python's: the sign of the divisor)."""
    whole = a.whole and b.whole
    if b.lo > 0:
        top = b.hi
        if a.lo >= 0 and a.hi < b.lo:        # already below the divisor: unchanged
            return a
        return Num(0, top if fin(top) else INF, whole=whole)
    if b.hi < 0:
        return Num(b.lo, 0, whole=whole)
    m = max(abs(b.lo), abs(b.hi))
    return Num(-m, m, whole=whole)


def scale_count(k: Num, item: Num) -> Num:
    """The total of k items, each in `item` (a sum over a list of length k)."""
    lo = min(_mul(k.lo, item.lo), _mul(k.hi, item.lo)) if fin(item.lo) or k.hi == 0 else -INF
    hi = max(_mul(k.lo, item.hi), _mul(k.hi, item.hi)) if fin(item.hi) or k.hi == 0 else INF
    if isinstance(lo, float) and lo != lo:       # 0 * inf
        lo = -INF
    if isinstance(hi, float) and hi != hi:
        hi = INF
    return Num(_norm(lo) if fin(lo) else lo, _norm(hi) if fin(hi) else hi, whole=k.whole and item.whole)


# ------------------------------------------------------------------ comparisons
def compare(op: str, a: Num, b: Num):
    """(can it hold, can it fail) for `a op b` over the intervals."""
    if op == "<":
        return a.lo < b.hi, a.hi >= b.lo
    if op == "<=":
        return a.lo <= b.hi, a.hi > b.lo
    if op == ">":
        return a.hi > b.lo, a.lo <= b.hi
    if op == ">=":
        return a.hi >= b.lo, a.lo < b.hi
    if op == "==":
        overlap = a.lo <= b.hi and b.lo <= a.hi
        same_point = a.lo == a.hi == b.lo == b.hi
        return overlap, not same_point
    if op == "!=":
        overlap = a.lo <= b.hi and b.lo <= a.hi
        same_point = a.lo == a.hi == b.lo == b.hi
        return not same_point, overlap
    return True, True


def shown(x) -> str:
    if x == INF:
        return "no upper limit"
    if x == -INF:
        return "no lower limit"
    if isinstance(x, Fraction) and x.denominator != 1:
        return f"{x.numerator}/{x.denominator}"
    return str(int(x))


def interval_text(a: Num) -> str:
    if a.lo == a.hi:
        return shown(a.lo)
    if not fin(a.lo) and not fin(a.hi):
        return "any number"
    if not fin(a.hi):
        return f"{shown(a.lo)} or more"
    if not fin(a.lo):
        return f"{shown(a.hi)} or less"
    return f"between {shown(a.lo)} and {shown(a.hi)}"
