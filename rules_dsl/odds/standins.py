"""The engine's stand-ins for dice values (the protocol is in `rules_dsl.symbolic`).

`_Face` stands for a class of faces of one die that the mechanic has not told
apart; `_Tail` for "K or more" successes of a chain; `_PoolList` is a pool handed
over as runs of stand-ins in a canonical order.  A use that every covered value
answers alike is answered; any other raises `_Refine` (a BaseException) after
splitting the class, and the enumeration that made the stand-in restarts."""
from __future__ import annotations

from fractions import Fraction
import math
import operator

from ..symbolic import Symbolic
from . import budget
from ..values import number, Rational, Sym


class _Refine(BaseException):
    """Internal: a stand-in was used in a way its class cannot answer; the partition
    was refined and the enumeration that made the stand-in must restart.  A
    BaseException so that no `except Exception` in compiled code can swallow it."""

    def __init__(self, tokens):
        super().__init__()
        self.tokens = tokens


class _NoKey(Exception):
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
    of many faces (a d1000 not yet told apart) polls the computation's deadline."""
    out = []
    meter = budget.current() if len(values) > 64 else None
    for v in values:
        if meter is not None:
            meter.poll(64)
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
