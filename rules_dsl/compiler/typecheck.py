"""Declared types as run-time checks: `TypeCheck` validates and normalises a value."""
from __future__ import annotations

from fractions import Fraction

from ..language import nodes as n
from ..errors import EvaluationError
from ..language.values import ABSENT, Record, Sym, number
from .context import BookParts


class TypeCheck:
    """Validates (and normalises) a value against a declared type."""

    def __init__(self, t: n.Type, book: BookParts):
        self.t, self.book = t, book
        self.describe = self._describe(t)

    def _describe(self, t):
        if isinstance(t, n.RangeType):
            return f"{t.low}..{t.high}"
        if isinstance(t, n.NamedType):
            if t.name in self.book.enums:
                return "one of: " + ", ".join(self.book.enums[t.name])
            if t.name in self.book.dice:
                return "a face of " + self.book.dice[t.name].describe()
            return {"int": "a whole number", "bool": "true or false", "text": "text",
                    "number": "a number", "absent": "absent"}.get(t.name, t.name)
        if isinstance(t, n.ListType):
            return f"a list of ({self._describe(t.item)})"
        if isinstance(t, n.UnionType):
            return " | ".join(self._describe(o) for o in t.options)
        if isinstance(t, n.RecordType):
            return "a record (" + ", ".join(f"{k}: {self._describe(v)}" for k, v in t.fields) + ")"
        return "?"

    def finite_values(self, limit, t=None):
        """Every value of the type, in order, if there are at most `limit`; else None
        (int, number, text, lists and records are never finite)."""
        t = self.t if t is None else t
        if isinstance(t, n.RangeType):
            return list(range(t.low, t.high + 1)) if t.high - t.low < limit else None
        if isinstance(t, n.UnionType):
            out = []
            for o in t.options:
                vs = self.finite_values(limit, o)
                if vs is None:
                    return None
                out += [v for v in vs if v not in out]
            return out if len(out) <= limit else None
        if not isinstance(t, n.NamedType):
            return None
        if t.name == "bool":
            return [False, True]
        if t.name == "absent":
            return [ABSENT]
        if t.name in self.book.enums:
            vs = list(self.book.enums[t.name].values())
            return vs if len(vs) <= limit else None
        if t.name in self.book.dice:
            vs = [self.convert(f) for f in self.book.dice[t.name].distinct]
            return vs if len(vs) <= limit else None
        return None

    def convert(self, v, t=None):
        """Return the normalised value, or raise ValueError."""
        t = self.t if t is None else t
        if isinstance(t, n.UnionType):
            for o in t.options:
                try:
                    return self.convert(v, o)
                except ValueError:
                    pass
            raise ValueError
        if isinstance(t, n.RangeType):
            if isinstance(v, bool) or not isinstance(v, int) or not t.low <= v <= t.high:
                raise ValueError
            return v
        if isinstance(t, n.ListType):
            if not isinstance(v, (list, tuple)):
                raise ValueError
            return [self.convert(x, t.item) for x in v]
        if isinstance(t, n.RecordType):
            if not isinstance(v, Record):
                raise ValueError
            return v
        name = t.name
        if name == "absent":
            if v is ABSENT or v == "absent":
                return ABSENT
            raise ValueError
        if name == "int":
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError
            return v
        if name == "number":
            if isinstance(v, float) and v == v and v not in (float("inf"), float("-inf")):
                v = Fraction(repr(v))  # 9.5 -> 19/2 exactly as written, not the binary expansion
            if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
                raise ValueError
            return number(v)
        if name == "bool":
            if not isinstance(v, bool):
                raise ValueError
            return v
        if name == "text":
            if not isinstance(v, str) or isinstance(v, Sym):
                raise ValueError
            return v
        if name in self.book.enums:
            if isinstance(v, str) and v in self.book.enums[name]:
                return self.book.enums[name][v]
            raise ValueError
        if name in self.book.dice:
            die = self.book.dice[name]
            try:
                return die.face(v, name)
            except EvaluationError:
                raise ValueError from None
        raise ValueError  # pragma: no cover - checked statically
