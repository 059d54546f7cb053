"""The engine's stand-ins for dice values (the protocol is in `rules_dsl.language.symbolic`).

`Face` stands for a class of faces of one die that the mechanic has not told
apart; `Tail` for "K or more" successes of a chain; `PoolList` is a pool handed
over as runs of stand-ins in a canonical order.  A use that every covered value
answers alike is answered; any other raises `Refine` (a BaseException) after
splitting the class, and the enumeration that made the stand-in restarts."""
from __future__ import annotations

from fractions import Fraction
import math
import operator

from ..language.symbolic import Symbolic
from . import budget
from ..language.values import number, Rational, Sym


class Refine(BaseException):
    """Internal: a stand-in was used in a way its class cannot answer; the partition
    was refined and the enumeration that made the stand-in must restart.  A
    BaseException so that no `except Exception` in compiled code can swallow it."""

    def __init__(self, tokens):
        super().__init__()
        self.tokens = tokens


class NoKey(Exception):
    pass


# ================================================================ stand-ins
def _same(a, b) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _apply(fn, values):
    """fn over each value: (True, result) or (False, the exception it raised).  A class
    of many faces (a d1000 not yet told apart) polls the computation's deadline; a few
    faces read its clock now and then (a million small operations take seconds too)."""
    out = []
    meter = budget.current()
    if meter is not None and len(values) <= 64:   # a few faces: a clock read now and then, no step
        meter.tick()
        meter = None
    for v in values:
        if meter is not None:
            meter.poll(64)
        try:
            out.append((True, fn(v)))
        except Refine:
            raise
        except Exception as e:   # the same error for every face is just that error
            out.append((False, e))
    return out


def split_key(o):
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


def _comparison(op):
    """A comparison method of `Face` (defined in its class body): `self._cmp(other, op)`."""
    def method(self, other):
        return self._cmp(other, op)
    return method


def _binary(fn, reflected=False):
    """An arithmetic method of `Face` (defined in its class body), through `binary_operator`."""
    def method(self, other):
        return self.binary_operator(fn, other, reflected)
    return method


def _unary(fn):
    """A unary method of `Face` (defined in its class body), through `unary_operator`."""
    def method(self):
        return self.unary_operator(fn)
    return method


class Face(Symbolic):
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
            hit = self.memo.get(ck, Face)
            if hit is not Face:
                return hit
        outs = _apply(fn, self.vals)
        ok, v = _unanimous(outs)
        if not ok:
            self.origin.split(self.faces, [split_key(o) for o in outs])
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
            self.origin.split(self.faces, [split_key(o) for o in outs])
        return Face(self.origin, self.faces, tuple(o[1] for o in outs))

    def _pair(self, other, fn, op=None):
        """An operation on two stand-ins: answered if the same for every pair of values."""
        if isinstance(other, Tail):
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
        self.origin.split(self.faces, [split_key((True, x)) for x in self.vals], restart=False)
        other.origin.split(other.faces, [split_key((True, y)) for y in other.vals], restart=False)
        raise Refine({self.origin.token, other.origin.token})

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

    # -- operators, written on the class (icepool's way): comparisons through `_cmp`,
    # arithmetic through one funnel, `binary_operator`, and `unary_operator`
    def binary_operator(self, fn, other, reflected=False):
        """`self <op> other` (or `other <op> self` when `reflected`) over every face."""
        if isinstance(other, Symbolic):
            return self._pair(other, (lambda x, y: fn(y, x)) if reflected else fn)
        return self._derive((lambda v: fn(other, v)) if reflected else (lambda v: fn(v, other)))

    def unary_operator(self, fn):
        """`fn(self)` over every face."""
        return self._derive(fn)

    __eq__, __ne__ = _comparison(operator.eq), _comparison(operator.ne)
    __lt__, __le__ = _comparison(operator.lt), _comparison(operator.le)
    __gt__, __ge__ = _comparison(operator.gt), _comparison(operator.ge)
    __add__, __radd__ = _binary(operator.add), _binary(operator.add, reflected=True)
    __sub__, __rsub__ = _binary(operator.sub), _binary(operator.sub, reflected=True)
    __mul__, __rmul__ = _binary(operator.mul), _binary(operator.mul, reflected=True)
    __truediv__, __rtruediv__ = _binary(operator.truediv), _binary(operator.truediv, reflected=True)
    __floordiv__, __rfloordiv__ = _binary(operator.floordiv), _binary(operator.floordiv, reflected=True)
    __mod__, __rmod__ = _binary(operator.mod), _binary(operator.mod, reflected=True)
    __divmod__, __rdivmod__ = _binary(divmod), _binary(divmod, reflected=True)
    __pow__, __rpow__ = _binary(pow), _binary(pow, reflected=True)
    __lshift__, __rlshift__ = _binary(operator.lshift), _binary(operator.lshift, reflected=True)
    __rshift__, __rrshift__ = _binary(operator.rshift), _binary(operator.rshift, reflected=True)
    __and__, __rand__ = _binary(operator.and_), _binary(operator.and_, reflected=True)
    __or__, __ror__ = _binary(operator.or_), _binary(operator.or_, reflected=True)
    __xor__, __rxor__ = _binary(operator.xor), _binary(operator.xor, reflected=True)
    __matmul__, __rmatmul__ = _binary(operator.matmul), _binary(operator.matmul, reflected=True)
    __neg__, __pos__, __abs__ = _unary(operator.neg), _unary(operator.pos), _unary(abs)
    __invert__, __floor__ = _unary(operator.invert), _unary(math.floor)
    __ceil__, __trunc__ = _unary(math.ceil), _unary(math.trunc)

    def __getattr__(self, name):
        if (name.startswith("__") and name.endswith("__")) or name in Face.__slots__:
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


class Tail(Symbolic):
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
            if isinstance(other, Face):
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
        return Tail(self.origin, self.K, a, b)

    def _num_other(self, other):
        if isinstance(other, Symbolic):
            if isinstance(other, Face):
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
    # operators a tail cannot answer exactly: it collapses to its terms
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _give_up
    __divmod__ = __rdivmod__ = __pow__ = __rpow__ = __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _give_up
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __matmul__ = __rmatmul__ = __invert__ = _give_up

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        self._collapse()

    def __reduce__(self):
        raise TypeError("an exact-odds stand-in cannot be pickled")




class PoolList(list):
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
