"""Exact odds: the distribution of a dice mechanic's result, in exact fractions.

    >>> dist = distribution(book.mechanics["sustained"], n=20)     # doctest: +SKIP
    >>> dist.mean, dist.probability(lambda v: v >= 10)               # doctest: +SKIP

`distribution(mechanic, **inputs)` checks the inputs as a call does (InputError
names the parameter; a roll's name fixes that roll, as in a call), raises NoDice for
a mechanic that rolls nothing, and returns a `Distribution`.  `page_odds(mechanic)`
picks representative inputs for the website.

How it works
============
The engine runs the mechanic's own compiled closures, handing them a roller that
enumerates instead of rolling, so nothing is re-implemented and every rule of the
language (tables, nested mechanics, `require`, enums...) behaves exactly as in a call.

* **Statements.**  The mechanic's statements are evaluated one at a time.  A `roll`
  is made inside the statement that first reads it (independent rolls may be taken
  in any order), and the result of the statements still to run is memoised on the
  values of the names they read, so a later roll is enumerated once per distinct
  state (`roll second: (n - hits) of dust` once per `hits`), not once per earlier
  roll.
* **Aggregates** (`odds_pools`).  A statement that reads its pools only through
  `count`, `sum`, `max`, `min`, `len`, `any` or `all` over comprehensions (after
  inlining the dice-free mechanics it calls) is not replayed at all: each pool is
  enumerated on its own, over the classes of faces its tests cannot tell apart, once
  per value of the other pools' aggregates that it reads, and the results are
  joined by those values.  Everything below applies to the other statements.
* **Replay.**  Within one statement (which may call mechanics that roll), the roll
  calls form a tree, walked depth-first by re-evaluating the statement: each choice
  point beyond the recorded path takes its first alternative and records the others.
  Repeated calls of a rolling mechanic are independent dice, as in a random call.
* **Face classes.**  A pool is enumerated as a multiset, weighted by multinomial
  coefficients, and not over faces but over *classes* of faces that the mechanic
  cannot tell apart.  A die in a class of several faces is handed over as a stand-in
  (`_Face`) that carries every face of its class and checks each use: a comparison,
  membership test (through the compiler's `dice.Symbolic` hook) or conversion that
  gives the same answer for every face of the class is answered; one that does not
  splits the class.  While the statement that rolled it is being evaluated, the split
  is made for the current path only: it is a new choice point (how many of the
  class's dice fall in each part), and the statement is evaluated again along the
  longer path.  (A stand-in used after its statement splits the roll's classes for
  every path, and that enumeration restarts.)  A comparison of two stand-ins that
  depends on both peels the highest face off one class (the lowest, for `<` of a
  class with itself), which amounts to a sweep from the top; `max` and `min` compare
  only distinct stand-ins, so a `max` is decided only as far as it is used.
  Arithmetic on a stand-in gives a stand-in.  A class of one face is handed over as
  the plain face, so results never hold a stand-in.  So `count(f for f in dice if
  f == army)` sees two classes ({army}, {target, shield}): 21 outcomes for 20 dice
  instead of 231 multisets or 3^20 sequences.  A comprehension over a pool evaluates
  its (dice-free) body once per run of identical dice.
* **Pool order.**  The pool is handed over in a canonical order (by face class).
  That is exact for everything that does not read the order: a static pass
  (`_OrderAnalysis`) follows each pool through lets, comprehensions, `+` and calls,
  and a pool whose order is read -- a list following its order is indexed or
  compared, directly or in a called mechanic -- is made as that many single dice in
  a row instead, each split per path as its own uses need (an index on the pool
  itself is also caught at run time).  A result that
  just lists something per die in pool order is therefore shown in that canonical
  order: [ignored, pinned] stands for either order.
* **Chains** (`chain [COUNT] of DIE on A then B`) are not enumerated roll by roll:
  their count of successes has a closed form.  One chain scores 0 with probability
  1-p1 and k >= 1 with p1 * p2^(k-1) * (1-p2); COUNT chains score the sum: with B
  of them starting (binomial), the rest is negative binomial, so
  P(S=s) = sum_b C(m,b) p1^b (1-p1)^(m-b) C(s-1,b-1) p2^(s-b) (1-p2)^b.
  The values 0..K-1 are alternatives with these exact probabilities and the rest is
  one stand-in (`_Tail`) for "K or more" carrying the exact tail mass 1 - P(S<K).
  Comparisons and affine arithmetic (+, -, * by a number) on it are answered when
  they agree over the whole tail, else K grows (up to 4 K_max + 64, see below).  A
  result that is (an affine image of) the tail itself becomes a final bucket
  "n or more" (`OrMore`) whose mass and contribution to the mean (from the exact
  conditional mean E[S | S >= K], with E[S] = m p1 / (1 - p2)) are exact; K is
  first grown until that tail mass is below 1e-12 so the table is informative.
  Only a use that no reasonable K settles (the chain's value as a pool size, `%`,
  `even`, a set lookup...) *truncates*: the tail is read as the single value
  K_max, the first K whose tail mass is below 1e-12, i.e. the engine computes
  f(min(S, K_max)).  The exact probability of the paths that went through such a
  truncation is `Distribution.error_bound` (a bound on the total variation distance
  to the true law; K_max is tightened if several truncations add up past 1e-12)
  and `exact` is False.  Either way the probabilities sum to exactly 1.

Everything else is exact rational arithmetic: path weights are integers over a
common denominator while enumerating, `fractions.Fraction`s in the result.  Limits:
one roll with more than a million distinguishable outcomes, or more than two
million evaluations, raises TooLarge (a RulesError) instead of running for hours.
"""
from __future__ import annotations

import math
import operator
import time
from fractions import Fraction

import dataclasses
import weakref

from . import compiler as _compiler
from . import odds_pools as _odds_pools
from . import nodes as n
from .builtins import BUILTINS
from .compiler import Ctx, LetStep, MechanicFn, RequireStep, TableFn, _Namespace
from .dice import DieInfo, GivenRoller
from .symbolic import Symbolic
from .errors import EvaluationError, NotFound, RulesError
from .values import ABSENT, Rational, Record, Sym, number, show, to_json

__all__ = ["distribution", "page_odds", "Distribution", "OrMore", "NoDice", "TooLarge"]

ONE = Fraction(1)
ZERO = Fraction(0)
TAIL_EPS = Fraction(1, 10 ** 12)     # a chain's tail is shown / truncated below this mass


class NoDice(RulesError):
    """The mechanic (and every mechanic it calls) rolls no dice: it has no odds."""


class TooLarge(RulesError):
    """The enumeration went over its budget (time or evaluations)."""


class _Refine(BaseException):
    """Internal: a stand-in was used in a way its class cannot answer; the partition
    was refined and the enumeration that made the stand-in must restart.  A
    BaseException so that no `except Exception` in compiled code can swallow it."""

    def __init__(self, tokens):
        super().__init__()
        self.tokens = tokens


class _NoKey(Exception):
    pass


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


# ================================================================ stand-ins
def _same(a, b) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _apply(fn, values):
    """fn over each value: (True, result) or (False, the exception it raised)."""
    out = []
    for v in values:
        try:
            out.append((True, fn(v)))
        except _Refine:
            raise
        except Exception as e:   # the same error for every face is just that error
            out.append((False, e))
    return out


def _split_key(o):
    ok, v = o
    if not ok:
        return ("err", type(v).__name__, str(v))
    try:
        hash(v)
        return (type(v).__name__, v)
    except TypeError:
        return (type(v).__name__, repr(v))


def _unanimous(outs):
    """(True, value) when every outcome is the same, else (False, None); raises a shared error."""
    ok0, v0 = outs[0]
    for ok, v in outs[1:]:
        if ok != ok0:
            return False, None
        if ok:
            if not _same(v, v0):
                return False, None
        elif type(v) is not type(v0) or str(v) != str(v0):
            return False, None
    if not ok0:
        raise v0
    return True, v0


def _cache_key(tag, other):
    t = type(other)
    if t is int or t is Sym or t is bool or t is str or t is Rational or t is Fraction:
        return (tag, t, other)
    if t is frozenset or t is range or t is tuple:
        try:
            hash(other)
            return (tag, t, other)
        except TypeError:
            return None
    return None


class _Face(Symbolic):
    """A die whose face is any of `faces` (a class the mechanic has not told apart);
    `vals` are the values it stands for (the faces, or an arithmetic image of them)."""
    __slots__ = ("origin", "faces", "vals", "memo")

    def __init__(self, origin, faces, vals):
        self.origin, self.faces, self.vals, self.memo = origin, faces, vals, {}

    @property
    def __class__(self):                      # isinstance(x, int) / Sym, as the faces are
        return type(self.vals[0])

    # -- the core: answer when unanimous, else refine the class and restart
    def _obs(self, fn, ck=None):
        if ck is not None:
            hit = self.memo.get(ck, _Face)
            if hit is not _Face:
                return hit
        outs = _apply(fn, self.vals)
        ok, v = _unanimous(outs)
        if not ok:
            self.origin.split(self.faces, [_split_key(o) for o in outs])
        if ck is not None:
            self.memo[ck] = v
        return v

    def observe(self, fn, key=None):
        ck = None
        if key is not None:
            try:
                hash(key)
                ck = ("observe", key)
            except TypeError:
                ck = None
        return self._obs(fn, ck)

    def _derive(self, fn):
        outs = _apply(fn, self.vals)
        ok, v = _unanimous(outs)        # an error for every face is that error
        if ok:
            return v
        if not all(o[0] for o in outs):     # an error for some faces only: tell them apart
            self.origin.split(self.faces, [_split_key(o) for o in outs])
        return _Face(self.origin, self.faces, tuple(o[1] for o in outs))

    def _pair(self, other, fn, op=None):
        """An operation on two stand-ins: answered if the same for every pair of values."""
        if isinstance(other, _Tail):
            other._collapse()
        outs = _apply(lambda x: tuple(_apply(lambda y: fn(x, y), other.vals)), self.vals)
        flat = [o for ok, row in outs for o in (row if ok else [(ok, row)])]
        ok, v = _unanimous(flat)
        if ok:
            return v
        # The result depends on both.  Within the statement that rolled them, peel one
        # face off one class (a choice for this path only): repeated, this sweeps the
        # faces from the top (or, for `<`, the bottom) as a multiset evaluator would.
        local = [x for x in ((self, other) if other is not self else (self,)) if x.origin.is_local()]
        if local:
            if other is not self:
                target, top = max(local, key=lambda x: (_top_value(x), len(x.faces))), True
            else:
                target, top = self, op not in (operator.lt, operator.le)
            face = _extreme_face(target, top)
            target.origin.split(target.faces, [f == face for f in target.faces])
        # otherwise make both classes constant (split by value) and restart
        self.origin.split(self.faces, [_split_key((True, x)) for x in self.vals], restart=False)
        other.origin.split(other.faces, [_split_key((True, y)) for y in other.vals], restart=False)
        raise _Refine({self.origin.token, other.origin.token})

    def _cmp(self, other, op):
        if isinstance(other, Symbolic):
            return self._pair(other, op, op)
        return self._obs(lambda v: op(v, other), _cache_key(op, other))

    def __hash__(self):
        return self._obs(hash, ("hash",))

    def __bool__(self):
        return self._obs(bool, ("bool",))

    def __index__(self):
        return self._obs(operator.index, ("index",))

    def __int__(self):
        return self._obs(int, ("int",))

    def __float__(self):
        return self._obs(float, ("float",))

    def __complex__(self):
        return self._obs(complex, ("complex",))

    def __repr__(self):
        return self._obs(repr, ("repr",))

    def __str__(self):
        return self._obs(str, ("str",))

    def __format__(self, spec):
        return self._obs(lambda v: format(v, spec))

    def __len__(self):
        return self._obs(len, ("len",))

    def __iter__(self):
        return iter(self._obs(list))

    def __getitem__(self, i):
        return self._obs(lambda v: v[i])

    def __contains__(self, x):
        return self._obs(lambda v: x in v)

    def __getattr__(self, name):
        if (name.startswith("__") and name.endswith("__")) or name in _Face.__slots__:
            raise AttributeError(name)
        return self._obs(lambda v: getattr(v, name), ("attr", name))

    def __round__(self, nd=None):
        return self._derive(lambda v: round(v) if nd is None else round(v, nd))

    def __reduce__(self):
        raise TypeError("an exact-odds stand-in cannot be pickled")


def _numeric(vals):
    return all(type(v) in (int, Fraction, Rational) for v in vals)


def _top_value(x):
    """A stand-in's highest value (for choosing which class to peel), or its class size."""
    return (1, max(x.vals)) if _numeric(x.vals) else (0, len(x.faces))


def _extreme_face(x, top):
    """The face of stand-in `x` with the highest (or lowest) value; the last (first) face
    of its class when its values are not numbers."""
    if _numeric(x.vals):
        pick = max if top else min
        return x.faces[x.vals.index(pick(x.vals))]
    return x.faces[-1] if top else x.faces[0]


def _unary(fn):
    def method(self):
        return self._derive(fn)
    return method


def _binary_op(fn, reflected=False):
    def method(self, other):
        if isinstance(other, Symbolic):
            return self._pair(other, (lambda x, y: fn(y, x)) if reflected else fn)
        return self._derive((lambda v: fn(other, v)) if reflected else (lambda v: fn(v, other)))
    return method


_BIN = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
        "floordiv": operator.floordiv, "mod": operator.mod, "divmod": divmod, "pow": pow,
        "lshift": operator.lshift, "rshift": operator.rshift, "and": operator.and_,
        "or": operator.or_, "xor": operator.xor, "matmul": operator.matmul}
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(_Face, f"__{_name}__", lambda self, other, _op=getattr(operator, _name): self._cmp(other, _op))
for _name, _fn in _BIN.items():
    setattr(_Face, f"__{_name}__", _binary_op(_fn))
    setattr(_Face, f"__r{_name}__", _binary_op(_fn, reflected=True))
for _name, _fn in {"neg": operator.neg, "pos": operator.pos, "abs": abs, "invert": operator.invert,
                   "floor": math.floor, "ceil": math.ceil, "trunc": math.trunc}.items():
    setattr(_Face, f"__{_name}__", _unary(_fn))


class _Tail(Symbolic):
    """a*S + b for a chain total S that is K or more (never a plain value)."""
    __slots__ = ("origin", "K", "a", "b")

    def __init__(self, origin, K, a=1, b=0):
        self.origin, self.K, self.a, self.b = origin, K, a, b

    @property
    def __class__(self):
        return int if isinstance(self.a, int) and isinstance(self.b, int) else Rational

    def _low(self):
        return self.a * self.K + self.b            # the value at S = K

    def _settled_from(self, c):
        """The least S from which any comparison with c gives one answer."""
        return math.floor(Fraction(c - self.b) / self.a) + 1

    def _collapse(self):
        self.origin.collapse()

    def _cmp(self, other, op):
        if isinstance(other, Symbolic):
            if isinstance(other, _Face):
                return other._pair(self, lambda x, y: op(y, x))
            self._collapse()
        if isinstance(other, (int, Fraction)):
            need = self._settled_from(other)
            if self.K < need:
                self.origin.grow(need)
        return op(self._low(), other)

    __eq__ = lambda self, o: self._cmp(o, operator.eq)
    __ne__ = lambda self, o: self._cmp(o, operator.ne)
    __lt__ = lambda self, o: self._cmp(o, operator.lt)
    __le__ = lambda self, o: self._cmp(o, operator.le)
    __gt__ = lambda self, o: self._cmp(o, operator.gt)
    __ge__ = lambda self, o: self._cmp(o, operator.ge)

    def _affine(self, a, b):
        a, b = number(a), number(b)
        if a == 0:
            return b
        return _Tail(self.origin, self.K, a, b)

    def _num_other(self, other):
        if isinstance(other, Symbolic):
            if isinstance(other, _Face):
                other._pair(self, lambda x, y: x)     # collapses this tail, refines the face
            self._collapse()
        if not isinstance(other, (int, Fraction)):
            return None
        return int(other) if isinstance(other, bool) else other

    def __add__(self, other):
        c = self._num_other(other)
        if c is None:
            return NotImplemented
        return self._affine(self.a, self.b + c)

    __radd__ = __add__

    def __sub__(self, other):
        c = self._num_other(other)
        if c is None:
            return NotImplemented
        return self._affine(self.a, self.b - c)

    def __rsub__(self, other):
        c = self._num_other(other)
        if c is None:
            return NotImplemented
        return self._affine(-self.a, c - self.b)

    def __mul__(self, other):
        c = self._num_other(other)
        if c is None:
            return NotImplemented
        return self._affine(self.a * c, self.b * c)

    __rmul__ = __mul__

    def __neg__(self):
        return self._affine(-self.a, -self.b)

    def __pos__(self):
        return self

    def __abs__(self):
        need = self._settled_from(0)
        if self.K < need:
            self.origin.grow(need)
        return self if self._low() >= 0 else -self

    def __bool__(self):
        need = self._settled_from(0)
        if self.K < need:
            self.origin.grow(need)
        return self._low() != 0

    def observe(self, fn, key=None):
        self._collapse()

    def _give_up(self, *args, **kwargs):
        self._collapse()

    __hash__ = __index__ = __int__ = __float__ = __complex__ = __repr__ = __str__ = __format__ = _give_up
    __len__ = __iter__ = __getitem__ = __contains__ = __round__ = __floor__ = __ceil__ = __trunc__ = _give_up

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        self._collapse()

    def __reduce__(self):
        raise TypeError("an exact-odds stand-in cannot be pickled")


for _name in ("truediv", "floordiv", "mod", "divmod", "pow", "lshift", "rshift", "and", "or", "xor", "matmul"):
    setattr(_Tail, f"__{_name}__", _Tail._give_up)
    setattr(_Tail, f"__r{_name}__", _Tail._give_up)
setattr(_Tail, "__invert__", _Tail._give_up)


class _PoolList(list):
    """A pool handed to a mechanic: a list in a canonical order.  Indexing it (or
    comparing it as a list) when its dice are not all alike means its order matters
    to the mechanic: the roll then switches to ordered enumeration."""
    __slots__ = ("origin", "mixed", "shape")

    def _order(self):
        if self.mixed and not self.origin.part.ordered:
            self.origin.make_ordered()

    def __getitem__(self, i):
        self._order()
        return list.__getitem__(self, i)

    def __eq__(self, other):
        self._order()
        return list.__eq__(self, other)

    def __ne__(self, other):
        self._order()
        return list.__ne__(self, other)

    __hash__ = None


# ============================================================ partitions
class _Partition:
    """The classes of a roll's faces that the mechanic has not (yet) told apart."""
    __slots__ = ("die", "classes", "weights", "_ordered", "alts", "rank")

    def __init__(self, die):
        self.die = die
        self.rank = {f: i for i, f in enumerate(die.distinct)}
        self.classes = (die.distinct,)
        self._ordered = False
        self._probs()

    @property
    def ordered(self):
        return self._ordered

    @ordered.setter
    def ordered(self, value):
        self._ordered = value
        self.alts = {}

    def alternatives(self, k):
        hit = self.alts.get(k)
        if hit is None:
            hit = self.alts[k] = _pool_alternatives(self.weights, len(self.die.faces), k)
        return hit

    def size(self, faces):
        """How many physical faces of the die (out of len(die.faces)) a class covers."""
        return sum(self.die.faces.count(f) for f in faces)

    def _probs(self):
        self.weights = tuple(self.size(c) for c in self.classes)
        self.alts = {}

    def refine(self, faces, keys) -> bool:
        """Split every class so that faces with different keys part (`faces` need not
        be one class: a path may have split its own classes further)."""
        kmap = dict(zip(faces, keys))
        outside = object()
        new, changed = [], False
        for c in self.classes:
            groups = {}
            for f in c:
                groups.setdefault(kmap.get(f, outside), []).append(f)
            changed = changed or len(groups) > 1
            new.extend(tuple(g) for g in groups.values())
        if changed:
            rank = self.rank
            self.classes = tuple(sorted(new, key=lambda g: rank[g[0]]))
            self._probs()
        return changed


_ALTS_CACHE: dict = {}


MAX_ALTERNATIVES = 1_000_000     # one roll with more outcomes than this is too large to enumerate


def _pool_alternatives(weights, faces, k):
    """([(counts per class; integer weight)], denominator) for k dice over classes
    of `weights` physical faces each (out of `faces`): every multiset, weighted by its
    multinomial coefficient."""
    key = (weights, faces, k)
    hit = _ALTS_CACHE.get(key)
    if hit is not None:
        return hit
    m = len(weights)
    size = math.comb(k + m - 1, m - 1)
    if size > MAX_ALTERNATIVES:
        raise TooLarge(f"a roll of {k} dice has {size} distinguishable outcomes here; too many to enumerate")
    out = []
    fact = math.factorial

    def rec(j, left, counts):
        if j == m - 1:
            counts.append(left)
            yield tuple(counts)
            counts.pop()
            return
        for c in range(left, -1, -1):
            counts.append(c)
            yield from rec(j + 1, left - c, counts)
            counts.pop()
    powers = [[weights[j] ** c for c in range(k + 1)] for j in range(m)]
    fk = fact(k)
    for counts in rec(0, k, []):
        w = fk
        for c in counts:
            if c > 1:
                w //= fact(c)
        for j, c in enumerate(counts):
            if c:
                w *= powers[j][c]
        out.append((counts, w))
    if len(_ALTS_CACHE) > 4096:
        _ALTS_CACHE.clear()
    res = (out, faces ** k)
    _ALTS_CACHE[key] = res
    return res


# ================================================================== chains
class _ChainLaw:
    """The exact law of the total successes S of m chains (first roll succeeds with
    probability p1, later rolls with p2).  `pmf` is extended on demand; `K_max` is the
    first K with P(S >= K) < eps; `cap` is how far comparisons may grow K."""

    def __init__(self, m, p1, p2, eps):
        self.m, self.p1, self.p2 = m, p1, p2
        self.finite = p1 == 0 or p2 == 0 or m == 0
        q1, q2 = 1 - p1, 1 - p2
        self.pmf = [q1 ** m]
        self.total = self.pmf[0]
        if self.finite:
            if p1 != 0 and m:     # p2 == 0: S is binomial(m, p1)
                self.pmf = [math.comb(m, s) * p1 ** s * q1 ** (m - s) for s in range(m + 1)]
            self.K_max = self.cap = len(self.pmf)
            self.mean = sum((s * p for s, p in enumerate(self.pmf)), ZERO)
            return
        self.mean = m * p1 / q2
        self._b = [math.comb(m, b) * (p1 * q2) ** b * q1 ** (m - b) for b in range(m + 1)]
        while 1 - self.total >= eps:
            self._more()
        self.K_max = len(self.pmf)
        self.cap = 4 * self.K_max + 64

    def _more(self):
        if self.finite:
            self.pmf.append(ZERO)
            return
        # P(S=s) = sum_b C(m,b) p1^b q1^(m-b) C(s-1,b-1) p2^(s-b) q2^b
        s, m, p2 = len(self.pmf), self.m, self.p2
        p = ZERO
        for b in range(1, min(m, s) + 1):
            p += self._b[b] * math.comb(s - 1, b - 1) * p2 ** (s - b)
        self.pmf.append(p)
        self.total += p

    def upto(self, K):
        """P(S=s) for s < K, and P(S >= K)."""
        while len(self.pmf) < K:
            self._more()
        pm = self.pmf[:K]
        return pm, 1 - sum(pm, ZERO)

    def cond_mean(self, K):
        """E[S | S >= K]."""
        pm, t = self.upto(K)
        return (self.mean - sum((s * p for s, p in enumerate(pm)), ZERO)) / t


class _ChainState:
    __slots__ = ("K", "collapsed")

    def __init__(self):
        self.K, self.collapsed = 1, False


# ================================================================= origins
class _Origin:
    """One roll's stand-ins within one statement's enumeration (token: its `_Replay`).

    A *local* origin is one roll call on one path (an unordered pool or a single die):
    `counts` holds its classes (which may be finer than the roll's partition) and how
    many dice fell in each.  While its statement is being evaluated, a use its class
    cannot answer splits the class for this path only: a new choice point of the
    replay (how many of those dice fall in each part).  A stand-in used after its
    statement refines the roll's partition for every path instead, and that
    enumeration restarts."""
    __slots__ = ("token", "part", "ident", "counts", "serial")

    def __init__(self, token, part, ident, counts=None, serial=None):
        self.token, self.part, self.ident = token, part, ident
        self.counts, self.serial = counts, serial

    def is_local(self):
        rep = self.token
        return self.counts is not None and rep.eng.active is rep and rep.serial == self.serial

    def split(self, faces, keys, restart=True):
        if self.is_local():
            self.token.refine(self, faces, keys)        # raises _Restart
        self.part.refine(faces, keys)
        if restart:
            raise _Refine({self.token})

    def make_ordered(self):
        self.part.ordered = True
        raise _Refine({self.token})


class _ChainOrigin:
    __slots__ = ("token", "state", "law")

    def __init__(self, token, state, law):
        self.token, self.state, self.law = token, state, law

    def grow(self, K):
        if K > self.law.cap:
            self.state.collapsed = True
        else:
            self.state.K = max(self.state.K, K)
        raise _Refine({self.token})

    def collapse(self):
        self.state.collapsed = True
        raise _Refine({self.token})


# ============================================================ the replay roller
class _Restart(BaseException):
    """Internal: a class was split for the current path (a new choice point): evaluate
    the statement again along the extended path.  A BaseException, like _Refine."""

    def __init__(self, rep):
        super().__init__()
        self.rep = rep


class _Replay:
    """The roller for one statement: walks the tree of its rolls depth-first by
    re-evaluation, and returns the statement's values with their probabilities.

    A path is the list of choices made at its choice points, in the order they were
    met: a roll (which alternative of its partition), or a local split of a class of
    an earlier roll (how many of its dice fall in each part).  Evaluating a path again
    is deterministic up to its last choice, so a roll applies the splits recorded for
    it further along the path as it is made; their positions are then skipped."""

    def __init__(self, eng):
        self.eng = eng
        self.origins = {}          # chains: one origin per roll name
        self.serial = 0

    # -- the roller protocol (see dice.GivenRoller)
    def one(self, name, die):
        if self.eng.given is not None and name in self.eng.given.given:
            return self.eng.given.one(name, die)
        return self._roll(name, die, self._part(name, die), 1, single=True)

    def pool(self, name, die, count):
        count = operator.index(count)
        if self.eng.given is not None and name in self.eng.given.given:
            return self.eng.given.pool(name, die, count)
        part = self._part(name, die)
        if count == 0:
            return []
        if part.ordered:
            return self._sequence(name, die, part, count)
        return self._roll(name, die, part, count)

    def chain(self, name, die, count, on, then):
        count = operator.index(count)
        if self.eng.given is not None and name in self.eng.given.given:
            return self.eng.given.chain(name, die, count, on, then)
        p1 = sum((die.weight(f) for f in die.distinct if f in on), ZERO)
        p2 = sum((die.weight(f) for f in die.distinct if f in then), ZERO)
        if p1 > 0 and p2 == 1 and count > 0:
            raise EvaluationError(f"roll '{name}': the chain never stops (every face of {die.describe()} continues it)")
        law = self.eng.chain_law(count, p1, p2)
        key = ("chain", name)
        state = self.eng.chains.get(key)
        if state is None:
            state = self.eng.chains[key] = _ChainState()
        origin = self.origins.get(key)
        if origin is None or origin.law is not law:
            origin = self.origins[key] = _ChainOrigin(self, state, law)
        if law.finite:
            alts = [(s, p, False) for s, p in enumerate(law.pmf) if p]
        else:
            K = min(state.K, law.cap)
            if state.collapsed:
                K = max(K, law.K_max)
            pm, t = law.upto(K)
            alts = [(s, p, False) for s, p in enumerate(pm) if p]
            if state.collapsed:
                alts.append((K, t, True))
            else:
                alts.append((_Tail(origin, K), t, False))
        den = math.lcm(*(p.denominator for _, p, _ in alts))
        alts = [(v, p.numerator * (den // p.denominator), tainted) for v, p, tainted in alts]
        return self._pick(alts, den)

    # -- choice points
    def _next(self):
        """The position of the next choice point met (skipping splits applied early)."""
        p, pre = self.pos, self.pre
        while p in pre:
            p += 1
        self.pos = p + 1
        return p

    def _take(self, p, nalts):
        c = self.path[p] if p < len(self.path) else 0
        chosen = self.chosen
        while len(chosen) <= p:
            chosen.append(None)
            self.nalts.append(None)
        chosen[p] = c
        self.nalts[p] = nalts
        return c

    def _part(self, name, die):
        key = (name, die.name)
        part = self.eng.parts.get(key)
        if part is None:
            part = self.eng.parts[key] = _Partition(die)
            prefix, _, roll = name.rpartition(".")
            owner = prefix.rpartition(".")[2] if prefix else self.eng.mech.name
            part.ordered = (owner, roll) in self.eng.plan.ordered
        return part

    def _roll(self, name, die, part, k, single=False):
        """A single die or an unordered pool, its classes split as this path says."""
        p = self._next()
        if single:
            alts, den = tuple(enumerate(part.weights)), len(die.faces)
        else:
            alts, den = part.alternatives(k)
        shape, w = alts[self._take(p, len(alts))]
        self.w *= w
        self.d *= den
        if single:
            classes = {part.classes[shape]: 1}
        else:
            classes = {c: m for c, m in zip(part.classes, shape) if m}
        for q in self.refs.get(p, ()):
            faces, parts, sizes = self.points[q][1:]
            m = classes.pop(faces)
            alts2, den2 = _pool_alternatives(sizes, sum(sizes), m)
            counts, w2 = alts2[self._take(q, len(alts2))]
            self.pre.add(q)
            self.w *= w2
            self.d *= den2
            for c, m2 in zip(parts, counts):
                if m2:
                    classes[c] = m2
        origin = _Origin(self, part, (name, p), classes, self.serial)
        rank = part.rank
        items = sorted(classes.items(), key=lambda cm: rank[cm[0][0]])
        if single:
            c = items[0][0]
            return c[0] if len(c) == 1 else _Face(origin, c, c)
        out = _PoolList()
        for c, m in items:
            out.extend([c[0] if len(c) == 1 else _Face(origin, c, c)] * m)
        out.origin, out.mixed, out.shape = origin, len(items) > 1, tuple(items)
        return out

    def _sequence(self, name, die, part, k):
        """A pool whose order the mechanic reads: k single dice in a row, each split for
        this path only as far as its own uses need (a die tested once against its own
        threshold stays two classes)."""
        p = self.pos
        items = [self._roll(name, die, part, 1, single=True) for _ in range(k)]
        out = _PoolList(items)
        out.origin = _Origin(self, part, (name, "sequence", p))
        out.mixed = True
        out.shape = tuple(_key(x, True) for x in items)
        return out

    def _pick(self, alts, den):
        v, w, tainted = alts[self._take(self._next(), len(alts))]
        self.w *= w
        self.d *= den
        if tainted:
            self.tainted = True
        return v

    def refine(self, origin, faces, keys):
        """Split class `faces` of a roll made on this path: a new choice point."""
        groups = {}
        for f, key in zip(faces, keys):
            groups.setdefault(key, []).append(f)
        parts = tuple(tuple(g) for g in groups.values())
        sizes = tuple(origin.part.size(g) for g in parts)
        alts, _ = _pool_alternatives(sizes, sum(sizes), origin.counts[faces])
        q = self._next()
        if q < len(self.path):     # pragma: no cover - replay is deterministic
            raise EvaluationError(f"{self.eng.mech.name}: the exact-odds engine lost its path")
        self._take(q, len(alts))
        self.points[q] = (origin.ident[1], faces, parts, sizes)
        raise _Restart(self)

    def run(self, thunk, keyed=True):
        """[[value, weight, denominator, tainted weight]] over every path of `thunk`:
        the value has probability weight/denominator (integers, to stay fast)."""
        eng = self.eng
        while True:
            out = {}
            path, points = [], {}
            try:
                while True:
                    self.path, self.points, self.pos, self.chosen, self.nalts = path, points, 0, [], []
                    refs = {}
                    for q in sorted(points):
                        if q < len(path):
                            refs.setdefault(points[q][0], []).append(q)
                    self.refs, self.pre = refs, set()
                    self.w, self.d, self.tainted = 1, 1, False
                    self.serial += 1
                    eng.tick()
                    outer, eng.active = eng.active, self
                    try:
                        v = thunk()
                    except _Restart as r:
                        if r.rep is not self:
                            raise
                        path = list(self.chosen)
                        continue
                    finally:
                        eng.active = outer
                    try:
                        k = _key(v, True) if keyed else None
                    except _NoKey:
                        k = None
                    if k is None:
                        k = ("path", len(out))
                    e = out.get(k)
                    w, d = self.w, self.d
                    tw = w if self.tainted else 0
                    if e is None:
                        out[k] = [v, w, d, tw]
                    elif e[2] == d:
                        e[1] += w
                        e[3] += tw
                    else:
                        L = math.lcm(e[2], d)
                        a, b = L // e[2], L // d
                        e[1], e[2], e[3] = e[1] * a + w * b, L, e[3] * a + tw * b
                    chosen, nalts = self.chosen, self.nalts
                    i = len(chosen) - 1
                    while i >= 0 and chosen[i] + 1 >= nalts[i]:
                        i -= 1
                    if i < 0:
                        return list(out.values())
                    path = chosen[:i] + [chosen[i] + 1]
                    points = {q: pt for q, pt in points.items() if q <= i}
            except _Refine as r:
                if self in r.tokens:
                    self.origins = {}
                    continue
                raise


# ======================================================================= keys
def _key(v, symbolic):
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
        return ("l", tuple(_key(x, symbolic) for x in v))
    if t is _PoolList:
        if not symbolic:
            raise _NoKey
        return ("p", id(v.origin.token), v.origin.ident, v.shape)
    if t is frozenset:
        return ("set", frozenset(_key(x, symbolic) for x in v))
    if t is range:
        return ("r", v.start, v.stop)
    if v is ABSENT:
        return ("absent",)
    if v is None:
        return ("none",)
    if t is Record:
        return ("rec", tuple((k, _key(x, symbolic)) for k, x in v.as_dict().items()))
    if t is _Face:
        if not symbolic:
            raise _NoKey
        return ("F", id(v.origin.token), v.origin.ident, v.faces, tuple(_key(x, False) for x in v.vals))
    if t is _Tail:
        if not symbolic:
            raise _NoKey
        return ("T", id(v.origin), v.K, v.a, v.b)
    if t is OrMore:
        return ("or", v.n, v.up)
    if t is MechanicFn or t is TableFn or t is DieInfo or t is _Namespace:
        return ("obj", id(v))
    raise _NoKey


# ================================================================ the engine
def _names(node) -> set:
    return {x.name for x in n.iter_nodes(node) if isinstance(x, n.Name)}


def _calls_dice(node, book) -> bool:
    return any(name in book.mechanics and book.mechanics[name].has_dice for name in _names(node))


class RunsCompiler(_compiler.ExprCompiler):
    """The engine's own copy of a mechanic's statements: a dice-free comprehension
    (its element and condition call no rolling mechanic) evaluates its body once per
    run of identical items.  The engine hands a pool over as runs of one object per
    face class, and a body that rolls no dice gives the same value for the same
    object.  Every other node compiles as in `ExprCompiler`."""

    def visit_Comprehension(self, e, scope):
        book = self.book
        if _calls_dice(e.elem, book) or (e.cond is not None and _calls_dice(e.cond, book)):
            return super().visit_Comprehension(e, scope)
        src = self.compile(e.source, scope)
        inner = scope | {e.var}
        elem = self.compile(e.elem, inner)
        cond = self.compile(e.cond, inner) if e.cond is not None else None
        var, sp, iterable = e.var, e.span, _compiler._iterable

        def f(env, ctx):
            out = []
            local = dict(env)
            prev, keep, val = _UNSET, False, None
            for x in iterable(sp, src(env, ctx)):
                if x is not prev:
                    prev = x
                    local[var] = x
                    keep = cond is None or cond(local, ctx)
                    if keep:
                        val = elem(local, ctx)
                if keep:
                    out.append(val)
            return out
        return f


_UNSET = object()


# Which pools' order a mechanic depends on.  The engine hands a pool over in a canonical
# order (its multiset is what is enumerated); that is exact unless the mechanic reads
# the order: indexes a list that follows a pool's order, compares such lists, or passes
# one to a mechanic that does.  This conservative static pass finds those pools; they
# are made as single dice in a row instead.  A result that merely lists the dice (or
# something per die) in pool order is shown in the canonical order.
_ORDER_FREE = frozenset({"count", "sum", "len", "any", "all", "abs", "floor", "ceil", "round", "clamp",
                         "even", "odd", "is_absent", "field", "rows"})
_ORDER_COMPARE = frozenset({"max", "min", "sorted", "highest", "lowest"})


def _base(m):
    while m[0] == "nested":
        m = m[1:]
    return m


class _OrderAnalysis:
    def __init__(self, book):
        self.book = book
        self.summaries = {}
        self.busy = set()
        self.sensitive = set()          # (mechanic name, roll name)

    def summary(self, name):
        """(params whose order it reads, markers its result carries) or None in a cycle."""
        if name in self.summaries:
            return self.summaries[name]
        if name in self.busy:
            return None
        self.busy.add(name)
        node = self.book.mechanics[name].node
        taint = {p.name: {("param", p.name)} for p in node.params}
        sinks = set()
        for st in node.body:
            if isinstance(st, n.Let):
                taint[st.name] = self.ord(st.value, taint, sinks)
            elif isinstance(st, n.Roll):
                for sub in (st.dice.count, st.dice.on, st.dice.then):
                    if sub is not None:
                        self.sink(self.ord(sub, taint, sinks), sinks, deep=True)
                taint[st.name] = {("roll", name, st.name)} if st.dice.kind == "pool" else set()
            else:
                self.ord(st.cond, taint, sinks)
        ret = self.ord(node.result, taint, sinks)
        for m in sinks:
            if m[0] == "roll":
                self.sensitive.add((m[1], m[2]))
        out = (frozenset(m[1] for m in sinks if m[0] == "param"), frozenset(ret))
        self.busy.discard(name)
        self.summaries[name] = out
        return out

    @staticmethod
    def sink(T, sinks, deep):
        for m in T:
            if deep or m[0] != "nested":
                sinks.add(_base(m))

    def ord(self, e, taint, sinks):
        """The markers whose order the value of `e` follows (nested: inside its items)."""
        o = lambda x: self.ord(x, taint, sinks) if x is not None else set()
        if isinstance(e, n.Name):
            return set(taint.get(e.name, ()))
        if isinstance(e, n.Comprehension):
            src = o(e.source)
            inner = dict(taint)
            inner[e.var] = {m[1:] for m in src if m[0] == "nested"}
            elem = self.ord(e.elem, inner, sinks)
            if e.cond is not None:
                self.ord(e.cond, inner, sinks)
            return {m for m in src if m[0] != "nested"} | {("nested",) + m for m in elem}
        if isinstance(e, n.ListLit):
            out = set()
            for it in e.items:
                out |= {("nested",) + m for m in o(it)}
            return out
        if isinstance(e, n.Index):
            t = o(e.obj)
            self.sink(t, sinks, deep=False)
            o(e.index)
            return {m[1:] for m in t if m[0] == "nested"}
        if isinstance(e, n.Compare):
            l, r = o(e.left), o(e.right)
            if e.op in ("in", "notin"):
                self.sink(l, sinks, deep=True)
                self.sink({m[1:] for m in r if m[0] == "nested"}, sinks, deep=True)
            else:
                self.sink(l | r, sinks, deep=True)
            return set()
        if isinstance(e, n.BinOp):
            l, r = o(e.left), o(e.right)
            return l | r if e.op == "+" else set()
        if isinstance(e, n.IfElse):
            o(e.cond)
            return o(e.then) | o(e.orelse)
        if isinstance(e, n.Call):
            args = [o(a) for a in e.args]
            kwargs = {k: o(a) for k, a in e.kwargs}
            fname = e.func.name if isinstance(e.func, n.Name) and e.func.name not in taint else None
            syms = self.book.syms
            if fname is not None and fname in syms.mechanics and fname in self.book.mechanics:
                summ = self.summary(fname)
                callee = self.book.mechanics[fname]
                names = [p.name for p in callee.params]
                given = {r.name for r in callee.rolls}
                bound = dict(zip(names, args))
                bound.update({k: v for k, v in kwargs.items() if k not in given})
                for k, v in kwargs.items():      # a callee's roll given by name: keep it ordered
                    if k in given:
                        self.sink(v, sinks, deep=True)
                        self.sensitive.add((fname, k))
                if summ is None:                 # a cycle: assume the worst
                    for v in list(bound.values()):
                        self.sink(v, sinks, deep=True)
                    return set().union(*bound.values()) if bound else set()
                consumed, ret = summ
                for p, v in bound.items():
                    self.sink({m for m in v if m[0] == "nested"}, sinks, deep=True)
                    if p in consumed:
                        self.sink(v, sinks, deep=True)
                out = set()
                for m in ret:
                    b = _base(m)
                    if b[0] == "param":
                        depth = len(m) - len(b)
                        out |= {("nested",) * depth + x for x in bound.get(b[1], ())}
                    else:
                        out.add(m)
                return out
            if fname is not None and fname in syms.tables:
                for v in args + list(kwargs.values()):
                    self.sink(v, sinks, deep=True)
                return set()
            if fname is not None and fname in BUILTINS and fname not in syms.globals():
                if fname in _ORDER_FREE:
                    return set()
                if fname in _ORDER_COMPARE:
                    for v in args:
                        self.sink({m for m in v if m[0] == "nested"}, sinks, deep=True)
                    return set()
                return set().union(*args) if args else set()   # or_else and the like
            for v in args + list(kwargs.values()):   # a call through a value: assume the worst
                self.sink(v, sinks, deep=True)
            o(e.func)
            return set()
        # every other node: visit its parts; the value carries no pool order
        for f in dataclasses.fields(e):
            v = getattr(e, f.name)
            if isinstance(v, n.Expr):
                o(v)
            elif isinstance(v, tuple):
                for x in v:
                    if isinstance(x, n.Expr):
                        o(x)
                    elif isinstance(x, tuple):
                        for y in x:
                            if isinstance(y, n.Expr):
                                o(y)
        return set()


def _ordered_rolls(mech) -> frozenset:
    a = _OrderAnalysis(mech.book)
    a.summary(mech.name)
    return frozenset(a.sensitive)


class _Plan:
    """A mechanic's statements in evaluation order, with what each later part reads."""

    def __init__(self, mech: MechanicFn):
        body = mech.node.body
        steps = list(mech.steps)
        reads = [_names(s) for s in body]
        result_reads = _names(mech.node.result)
        steps, self.result = self._recompile(mech, steps)
        order, pending = [], []

        def emit_for(names):
            # emit the pending rolls that these names need (and what those need), in order
            need = set(names)
            changed = True
            while changed:
                changed = False
                for i in pending:
                    if body[i].name in need and not (reads[i] <= need):
                        need |= reads[i]
                        changed = True
            for i in list(pending):
                if body[i].name in need:
                    pending.remove(i)
                    order.append(i)

        for i, s in enumerate(body):
            if isinstance(s, n.Roll):
                pending.append(i)
                continue
            emit_for(reads[i])
            order.append(i)
        emit_for(result_reads)
        order.extend(pending)
        self.ordered = _ordered_rolls(mech)
        # Each roll is made inside the statement that first reads it (a "group" step),
        # so that a class of its dice can be split for one path of that statement's
        # enumeration only (see _Replay); a roll's value is kept in the environment
        # only if a later statement reads it too.
        params = frozenset(p.name for p in mech.params)
        scope_at = [params | {s.name for s in body[:i] if not isinstance(s, n.Require)} for i in range(len(body) + 1)]
        units, rolls = [], []
        for i in order:
            if isinstance(body[i], n.Roll):
                rolls.append(i)
            else:
                units.append((rolls, i))
                rolls = []
        live, acc = [], set(result_reads)
        for rs, i in reversed(units):
            live.append(frozenset(acc))
            acc |= reads[i]
            for j in rs:
                acc |= reads[j]
        live.reverse()                   # live[u]: names read after unit u
        result_rolls = rolls
        self.steps, self.random, self.live, self.fast = [], [], [], []
        for (rs, i), after in zip(units, live):
            reading = set(reads[i])
            for j in rs:
                reading |= reads[j]
            self.live.append(frozenset(reading | after))
            if not rs:
                self.steps.append(steps[i])
                self.random.append(_calls_dice(body[i], mech.book))
                self.fast.append(None)
                continue
            keep = tuple(body[j].name for j in rs if body[j].name in after)
            stmt = body[i].value if isinstance(body[i], n.Let) else body[i].cond
            self.fast.append(None if keep or _calls_dice(stmt, mech.book) else _odds_pools.analyse(
                mech, scope_at[i] - {body[j].name for j in rs}, [(body[j], steps[j].fn) for j in rs], stmt))
            self.steps.append(GroupStep(keep, steps[i],
                                        _group([(body[j].name, steps[j].fn) for j in rs], steps[i].fn, keep)))
            self.random.append(True)
        final_reads = set(result_reads)
        for j in result_rolls:
            final_reads |= reads[j]
        self.live.append(frozenset(final_reads))
        self.fast_result = None
        if result_rolls and not _calls_dice(mech.node.result, mech.book):
            self.fast_result = _odds_pools.analyse(
                mech, scope_at[len(body)] - {body[j].name for j in result_rolls},
                [(body[j], steps[j].fn) for j in result_rolls], mech.node.result)
        if result_rolls:
            self.result = _group([(body[j].name, steps[j].fn) for j in result_rolls], self.result, None)
        self.result_random = bool(result_rolls) or _calls_dice(mech.node.result, mech.book)

    @staticmethod
    def _recompile(mech, steps):
        """The mechanic's steps compiled again by `RunsCompiler` (rolls are kept)."""
        book = mech.book
        runs = RunsCompiler(book)
        scope = frozenset(p.name for p in mech.params)
        out = []
        for s, step in zip(mech.node.body, steps):
            if isinstance(s, n.Let):
                out.append(LetStep(s.name, runs.compile(s.value, scope)))
                scope = scope | {s.name}
            elif isinstance(s, n.Require):
                out.append(RequireStep(s.message, runs.compile(s.cond, scope), step.span))
            else:
                out.append(step)
                scope = scope | {s.name}
        result = runs.compile(mech.node.result, scope)
        return out, result


@dataclasses.dataclass(frozen=True, slots=True)
class GroupStep:
    """A statement (`stmt`, a LetStep or RequireStep) with the rolls it reads made
    first; `fn` returns the values of the rolls in `keep` and then the statement's."""
    keep: tuple
    stmt: object
    fn: object


def _group(rolls, fn, keep):
    """A statement with the rolls it reads made first: returns the kept rolls' values
    and the statement's value as a tuple (just the value when `keep` is None)."""
    def f(env, ctx):
        local = dict(env)
        for name, roll in rolls:
            local[name] = roll(local, ctx)
        value = fn(local, ctx)
        if keep is None:
            return value
        return tuple(local[k] for k in keep) + (value,)
    return f


_PLANS = weakref.WeakKeyDictionary()


def _plan(mech):
    plan = _PLANS.get(mech)
    if plan is None:
        plan = _PLANS[mech] = _Plan(mech)
    return plan


class _Sub:
    """A (conditional) distribution of results with integer weights over one denominator:
    key -> [value, weight, tail mean mass or None], `den`, and the tainted weight `tw`
    (paths that went through a truncated chain)."""
    __slots__ = ("entries", "den", "tw")

    def __init__(self):
        self.entries, self.den, self.tw = {}, None, 0

    def _align(self, d):
        """Bring this distribution to a denominator that `d` divides; the factor for `d`."""
        if self.den is None:
            self.den = d
            return 1
        if self.den == d:
            return 1
        L = math.lcm(self.den, d)
        f = L // self.den
        if f != 1:
            for e in self.entries.values():
                e[1] *= f
                if e[2] is not None:
                    e[2] *= f
            self.tw *= f
        self.den = L
        return L // d

    def put(self, k, value, w, d, extra, tw):
        f = self._align(d)
        w *= f
        e = self.entries.get(k)
        x = None if extra is None else extra * w
        if e is None:
            self.entries[k] = [value, w, x]
        else:
            e[1] += w
            if x is not None:
                e[2] = x if e[2] is None else e[2] + x
        self.tw += tw * f

    def add(self, sub, bw, bd, btw):
        """Add `sub` scaled by the branch probability bw/bd (of which btw/bd is tainted)."""
        f = self._align(bd * sub.den)
        scale = bw * f
        ent = self.entries
        for k, (v, w, x) in sub.entries.items():
            e = ent.get(k)
            ww = w * scale
            if e is None:
                ent[k] = [v, ww, None if x is None else x * scale]
            else:
                e[1] += ww
                if x is not None:
                    e[2] = x * scale if e[2] is None else e[2] + x * scale
        self.tw += (btw * sub.den + (bw - btw) * sub.tw) * f


class _Rolled(Exception):
    """Internal: a statement thought to roll no dice did roll (it is then enumerated)."""


class _NoRoller:
    def one(self, *a):
        raise _Rolled

    pool = chain = one


class _Engine:
    def __init__(self, mech, given, deadline=None, max_evals=None, eps=TAIL_EPS):
        self.mech = mech
        self.given = GivenRoller(given) if given else None
        self.parts, self.chains, self.laws = {}, {}, {}
        self.memo = {}
        self.evals = 0
        self.deadline, self.max_evals = deadline, max_evals
        self.eps = eps
        self.plan = _plan(mech)
        self.fixed = Ctx(_NoRoller(), budget=None)  # bounded by the engine's own evaluation cap
        self.active = None          # the replay whose statement is being evaluated

    def tick(self):
        self.evals += 1
        if self.max_evals is not None and self.evals > self.max_evals:
            raise TooLarge(f"{self.mech.book_id}:{self.mech.name}: more than {self.max_evals} evaluations")
        if self.deadline is not None and not self.evals & 63 and time.monotonic() > self.deadline:
            raise TooLarge(f"{self.mech.book_id}:{self.mech.name}: over the time budget")

    def chain_law(self, m, p1, p2):
        key = (m, p1, p2)
        law = self.laws.get(key)
        if law is None:
            law = self.laws[key] = _ChainLaw(m, p1, p2, self.eps)
        return law

    # -- statements
    def solve(self, bound):
        for _ in range(1000):
            try:
                return self.run(0, dict(bound))
            except _Refine:       # pragma: no cover - every stand-in's enumeration is on the stack
                continue
        raise EvaluationError(f"{self.mech.name}: the exact-odds engine did not settle")  # pragma: no cover

    def run(self, pos, env):
        plan = self.plan
        final = pos == len(plan.steps)
        mk = None
        if final or plan.random[pos]:
            try:
                mk = (pos, tuple(_key(env[k], False) for k in sorted(plan.live[pos]) if k in env))
            except _NoKey:
                mk = None
            if mk is not None:
                hit = self.memo.get(mk)
                if hit is not None:
                    return hit
        res = self.final(env) if final else self.step(pos, env)
        if mk is not None:
            self.memo[mk] = res
        return res

    def step(self, pos, env):
        st = self.plan.steps[pos]
        fn = st.fn
        if not self.plan.random[pos]:          # no dice here: evaluate once, no enumeration
            try:
                self.tick()
                value = fn(env, self.fixed)
            except _Rolled:
                pass
            else:
                return self.next(pos, env, st, value)
        fast = self.plan.fast[pos] and self.fast(self.plan.fast[pos], env)
        if fast is not None:
            return self.branch(pos, env, st, [[(v,), w, d, tw] for v, w, d, tw in fast])
        while True:
            rep = _Replay(self)
            ctx = Ctx(rep)
            try:
                return self.branch(pos, env, st, rep.run(lambda: fn(env, ctx)))
            except _Refine as r:
                if rep in r.tokens:
                    continue
                raise

    def branch(self, pos, env, st, branches):
        """The rest of the mechanic after each value of a statement (step `st`), weighted."""
        if len(branches) == 1 and not branches[0][3]:
            return self.next(pos, env, st, branches[0][0])
        acc = _Sub()
        for value, w, d, tw in branches:
            acc.add(self.next(pos, env, st, value), w, d, tw)
        return acc

    def fast(self, plan, env):
        """The statement's branches from its pools' aggregates (odds_pools), or None."""
        res = _odds_pools.law(plan, env, self.given, self.fixed, _pool_alternatives, _key)
        if res is None:
            return None
        branches, work = res
        self.evals += work
        self.tick()
        return branches

    def next(self, pos, env, st, value):
        if type(st) is GroupStep:
            env = dict(env)
            for k, v in zip(st.keep, value):
                env[k] = v
            value = value[-1]
            st = st.stmt
        if not st.binds:                   # a RequireStep
            if not value:
                raise EvaluationError(f"{self.mech.name}: {st.message}")
            return self.run(pos + 1, env)
        env2 = dict(env)
        env2[st.name] = value
        return self.run(pos + 1, env2)

    def final(self, env):
        fn = self.plan.result
        if not self.plan.result_random:
            try:
                self.tick()
                value = fn(env, self.fixed)
            except _Rolled:
                pass
            else:
                return self.outcomes([(value, 1, 1, 0)])
        fast = self.plan.fast_result and self.fast(self.plan.fast_result, env)
        if fast is not None:
            return self.outcomes(fast)
        while True:
            rep = _Replay(self)
            ctx = Ctx(rep)
            try:
                return self.outcomes(rep.run(lambda: fn(env, ctx)))
            except _Refine as r:
                if rep in r.tokens:
                    continue
                raise

    def outcomes(self, branches):
        acc = _Sub()
        for value, w, d, tw in branches:
            self.outcome(acc, value, w, d, tw)
        return acc

    def outcome(self, acc, value, w, d, tw):
        mech = self.mech
        if isinstance(value, range):
            value = list(value)
        try:
            value = mech.returns.convert(value)
        except ValueError:
            raise EvaluationError(f"{mech.node.span}: {mech.name} produced {show(value)}, "
                                  f"which is not {mech.returns.describe} as declared") from None
        value, tail_mean = self.settle(value)
        acc.put(_key(value, False), value, w, d, tail_mean, tw)

    def settle(self, value):
        """A final result: no stand-in for several faces may remain (split them); a chain's
        tail becomes an `OrMore` bucket (grown first so that its mass is below 1e-12).
        Returns (value, the bucket's exact conditional mean for an `OrMore`, else None)."""
        t = type(value)
        if t is _Face:
            value.origin.split(value.faces, [_split_key((True, v)) for v in value.vals])
        if t is _Tail:
            law, K = value.origin.law, value.K
            if K < law.K_max:
                value.origin.grow(law.K_max)
            b = OrMore(value._low(), value.a > 0)
            return b, value.a * law.cond_mean(K) + value.b
        if t is list or t is _PoolList or t is tuple:
            items = [self.settle(x)[0] for x in value]
            return (items if t is not tuple else tuple(items)), None
        if t is Record:
            return Record({k: self.settle(x)[0] for k, x in value.as_dict().items()}), None
        if t is frozenset:
            return frozenset(self.settle(x)[0] for x in value), None
        return value, None


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

    def as_dict(self) -> dict:
        return {_key(v, False): p for v, p in self.outcomes}

    def as_json(self) -> dict:
        out = []
        for v, p in self.outcomes:
            out.append({"value": _json_value(v),
                        "probability": f"{p.numerator}/{p.denominator}", "float": float(p)})
        mean = self.mean
        return {"mechanic": f"{self.mechanic.book_id}:{self.mechanic.name}",
                "inputs": {k: to_json(v) for k, v in self.inputs.items()},
                "outcomes": out,
                "mean": None if mean is None else f"{mean.numerator}/{mean.denominator}",
                "mean_float": None if mean is None else float(mean),
                "exact": self.exact,
                "error_bound": None if self.exact else f"{self.error_bound.numerator}/{self.error_bound.denominator}"}

    def table(self) -> str:
        rows = [(_show(v), f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator),
                 _pct(p)) for v, p in self.outcomes]
        head = ("result", "probability", "%")
        w = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(3)]
        lines = [self.title(), "",
                 f"{head[0]:<{w[0]}}  {head[1]:>{w[1]}}  {head[2]:>{w[2]}}",
                 f"{'-' * w[0]}  {'-' * w[1]}  {'-' * w[2]}"]
        lines += [f"{a:<{w[0]}}  {b:>{w[1]}}  {c:>{w[2]}}" for a, b, c in rows]
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
        return "\n".join(lines)


def _json_value(v):
    if isinstance(v, OrMore):
        return v.as_json()
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if isinstance(v, Record):
        return {k: _json_value(x) for k, x in v.as_dict().items()}
    return to_json(v)


def _show(v):
    if isinstance(v, OrMore):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return show(v)


def _same_value(v, what):
    try:
        return _key(v, False) == _key(what, False)
    except _NoKey:
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


def _sort_key(v, order):
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
        return (4, len(v), tuple(_sort_key(x, order) for x in v))
    if isinstance(v, Record):
        return (5, tuple(_sort_key(x, order) for x in v.as_dict().values()))
    if isinstance(v, frozenset):
        return (6, tuple(sorted(_sort_key(x, order) for x in v)))
    if v is ABSENT:
        return (7,)
    return (8, repr(v))


def _member_order(book):
    order = {}
    for enum, members in book.enums.items():
        for i, m in enumerate(members):
            order[(enum, m)] = i
    for die in book.dice.values():
        if die.custom:
            for i, f in enumerate(die.distinct):
                order[(die.name, str(f))] = i
    return order


# ===================================================================== API
MAX_EVALUATIONS = 2_000_000      # evaluations of one statement; beyond, TooLarge (seconds to minutes)


def distribution(mechanic, *args, _deadline=None, _max_evals=MAX_EVALUATIONS, **kwargs) -> Distribution:
    """The exact distribution of `mechanic`'s result for the given inputs.

    Inputs are checked as in a call (InputError names the parameter).  A roll's name
    given as a keyword (or in `rolls`) fixes that roll, as in a call; the others are
    enumerated.  Raises NoDice for a mechanic that rolls no dice.
    """
    if not isinstance(mechanic, MechanicFn):
        raise TypeError(f"distribution() needs a compiled mechanic, got {mechanic!r}")
    roll_names = {r.name for r in mechanic.rolls}
    params = {p.name for p in mechanic.params}
    rolls = kwargs.pop("rolls", None) if "rolls" not in params else None
    given = dict(rolls or {})
    for k in list(kwargs):
        if k in roll_names and k not in params:
            given[k] = kwargs.pop(k)
    bound = mechanic.bind(list(args), kwargs)
    if not mechanic.has_dice:
        raise NoDice(f"{mechanic.book_id}:{mechanic.name} rolls no dice, so it has no odds; "
                     f"use `rules call` for its value")
    eps = TAIL_EPS
    evaluations = 0
    for _ in range(4):
        eng = _Engine(mechanic, given, _deadline, _max_evals, eps)
        res = eng.solve(bound)
        evaluations += eng.evals
        tainted = Fraction(res.tw, res.den)
        if tainted < TAIL_EPS:
            break
        eps = eps / 2 ** 20       # several truncated chains on one path: cut deeper
    if eng.given is not None:
        unknown = set(given) - eng.given.used
        if unknown:
            raise NotFound("roll", sorted(unknown)[0], sorted(roll_names), where=f"{mechanic.book_id}:{mechanic.name}")
    order = _member_order(mechanic.book)
    items = sorted((e for e in res.entries.values() if e[1]), key=lambda e: _sort_key(e[0], order))
    den = res.den
    outcomes = [(v, Fraction(w, den)) for v, w, _ in items]
    mean = None
    if outcomes and all(isinstance(v, (int, Fraction, OrMore)) and not isinstance(v, bool) for v, _, _ in items):
        mass = sum((x if isinstance(v, OrMore) else w * v for v, w, x in items), 0)
        mean = Fraction(mass) / den
    total = sum((p for _, p in outcomes), ZERO)
    if total != 1:   # pragma: no cover - a bug, never a rounding
        raise AssertionError(f"probabilities sum to {total}")
    shown = {**bound, **given}
    dist = Distribution(mechanic, shown, outcomes, mean, tainted)
    dist.evaluations = evaluations   # the work it took (page_odds budgets in this unit)
    return dist


def _count_params(mech, seen=None) -> set:
    """The parameters that (through lets and calls) decide how many dice a roll throws."""
    seen = set() if seen is None else seen
    if mech.name in seen:
        return set()
    seen.add(mech.name)
    params = {p.name for p in mech.params}
    feeds = {}                                   # local name -> names its value is computed from
    sizes = set()                                # names read by a roll's count
    book = mech.book

    def calls(e):
        return [x for x in n.iter_nodes(e)
                if isinstance(x, n.Call) and isinstance(x.func, n.Name) and x.func.name in book.mechanics]

    def through_calls(e):
        for c in calls(e):
            callee = book.mechanics[c.func.name]
            inner = _count_params(callee, seen)
            names = [p.name for p in callee.params]
            for name, a in list(zip(names, c.args)) + [(k, a) for k, a in c.kwargs]:
                if name in inner:
                    sizes.update(_names(a))

    for st in mech.node.body:
        if isinstance(st, n.Let):
            feeds[st.name] = _names(st.value)
            through_calls(st.value)
        elif isinstance(st, n.Roll):
            if st.dice.count is not None:
                sizes.update(_names(st.dice.count))
                through_calls(st.dice.count)
        else:
            through_calls(st.cond)
    through_calls(mech.node.result)
    todo, done = list(sizes), set()
    while todo:
        x = todo.pop()
        if x in done:
            continue
        done.add(x)
        todo.extend(feeds.get(x, ()))
    return done & params


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
        book = mech.book
        if t.name == "bool":
            vals = [False, True]
        elif t.name in book.enums:
            vals = list(book.enums[t.name])[:3]
        elif t.name in book.dice:
            die = book.dice[t.name]
            vals = [str(f) if die.custom else f for f in die.distinct][:3]
        elif t.name in ("int", "number"):
            vals = [1]
        else:
            vals = []
        if default is not None:
            return default, []
        return (vals[0] if vals else None), []
    if isinstance(t, n.ListType):
        return (default if default is not None else []), []
    return default, []


PAGE_BUDGET = 20_000   # evaluations per mechanic page: about 0.3-0.6 s here


def page_odds(mechanic, budget: int = PAGE_BUDGET, max_inputs: int = 12) -> list:
    """Representative (inputs, Distribution) pairs for a mechanic's web page.

    Every parameter starts from its default (else the middle of its range, or its first
    value; a parameter that sets a number of dice starts small, at 2); then each range
    parameter in turn takes its low, middle and high value (a number of dice: its low
    value, 2 and 4, since a page shows typical rolls and large pools cost the most).
    The whole computation stops after `budget` evaluations: work counted, not seconds,
    so a page shows the same rows on every machine.  Inputs that are rejected, or that
    would not finish within their share, are skipped.  [] for a mechanic without dice.
    """
    if not isinstance(mechanic, MechanicFn) or not mechanic.has_dice:
        return []
    left = budget
    counts = _count_params(mechanic)
    base, shown = {}, {}
    for p in mechanic.params:
        b, vals = _candidates(mechanic, p, counts)
        if b is None:
            return []
        base[p.name] = b
        shown[p.name] = vals
    inputs = [dict(base)]
    for p in mechanic.params:
        for v in shown[p.name]:
            d = {**base, p.name: v}
            if d not in inputs:
                inputs.append(d)
    inputs = inputs[:max_inputs]
    out, too_big = [], {}
    for i, inp in enumerate(inputs):
        if left <= 0:
            break
        # a larger number of dice than one that did not finish will not finish either
        if any(k in counts and isinstance(v, int) and v >= too_big.get(k, v + 1) for k, v in inp.items()):
            continue
        share = left if i == 0 else max(left // (len(inputs) - i), min(left, 1_000))
        try:
            dist = distribution(mechanic, _max_evals=share, **inp)
        except TooLarge:
            left -= share
            if i == 0:
                break
            for k, v in inp.items():
                if k in counts and v != base[k]:
                    too_big[k] = min(too_big.get(k, v), v)
            continue
        except RulesError:
            continue
        left -= dist.evaluations
        out.append((inp, dist))
    return out
