"""Runtime values of the rules language, chosen to print well in doctests and JSON.

* numbers are `int`, or `Rational` (an exact fraction that prints as 7/2);
* enumeration members and custom die faces are `Sym`, a `str` that prints bare
  (`pinned`, not `'pinned'`) and equals its own name;
* table rows with several value columns are `Record`s (attribute access);
* `ABSENT` marks a value the source rulebook lacks.
"""
from __future__ import annotations

from fractions import Fraction


class _Absent:
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "absent"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self):
        return (_Absent, ())


ABSENT = _Absent()


class Sym(str):
    """An enumeration member or a custom die face: a name that prints bare."""

    __slots__ = ("enum",)

    def __new__(cls, name: str, enum: str = ""):
        s = super().__new__(cls, name)
        s.enum = enum
        return s

    def __repr__(self) -> str:
        return str.__str__(self)

    def __reduce__(self):
        return (Sym, (str(self), self.enum))


class Rational(Fraction):
    """An exact fraction that prints as `7/2` (ints stay ints, see `number`)."""

    def __repr__(self) -> str:
        return f"{self.numerator}/{self.denominator}"

    __str__ = __repr__


def number(x):
    """Normalise an arithmetic result: integral fractions become ints."""
    if isinstance(x, bool):
        return x
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return int(x.numerator)
        return x if isinstance(x, Rational) else Rational(x)
    return x


class Record:
    """A row of named values (a table with several value columns, a profile)."""

    __slots__ = ("_fields",)

    def __init__(self, fields: dict):
        object.__setattr__(self, "_fields", dict(fields))

    def __getattr__(self, name):
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):  # pragma: no cover - immutability
        raise AttributeError("records are read-only")

    def __eq__(self, other):
        return isinstance(other, Record) and self._fields == other._fields

    def __hash__(self):
        return hash(tuple(sorted(self._fields.items(), key=lambda kv: kv[0])))

    def __repr__(self):
        return "(" + ", ".join(f"{k}={v!r}" for k, v in self._fields.items()) + ")"

    def __reduce__(self):
        return (Record, (self._fields,))

    def as_dict(self) -> dict:
        return dict(self._fields)


def to_json(value):
    """A JSON-friendly form of a result: fractions as "p/q", symbols as names."""
    if value is ABSENT:
        return None
    if isinstance(value, bool) or isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Record):
        return {k: to_json(v) for k, v in value.as_dict().items()}
    if isinstance(value, (list, tuple, frozenset, set)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [to_json(v) for v in items]
    if isinstance(value, range):
        return [value.start, value.stop - 1]
    return repr(value)


def show(value) -> str:
    """How a value is printed to a person: the one display formatter of the CLI, the
    website and error messages.  Fractions as p/q, ranges as 1..3, sets sorted in
    braces, records as (name=value, ...), text bare (see `literal` for quoted)."""
    if value is ABSENT:
        return "absent"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, range):
        return f"{value.start}..{value.stop - 1}"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    if isinstance(value, Record):
        return "(" + ", ".join(f"{k}={show(v)}" for k, v in value.as_dict().items()) + ")"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(show(v) for v in value)) + "}"
    return str(value) if isinstance(value, str) else repr(value)


def percent_text(p) -> str:
    """A probability as a percentage with two decimals; never 0% or 100% unless exact."""
    if p == 0:
        return "0%"
    pct = float(p) * 100
    if pct < 0.01:
        return "<0.01%"
    if pct > 99.99 and p != 1:
        return ">99.99%"
    return f"{pct:.2f}%"


def literal(value) -> str:
    """A value written as the rules language writes it: what an example's expected line holds.

    Like `show`, but text is quoted (so "ws" and the enum member ws differ) and
    records print their fields."""
    if isinstance(value, str) and not isinstance(value, Sym):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(literal(v) for v in value)) + "}"
    if isinstance(value, Record):
        return "(" + ", ".join(f"{k}: {literal(v)}" for k, v in value.as_dict().items()) + ")"
    return show(value)
