"""AST -> readable text: formulas, types and dice as the docs and the CLI show them.

The output is the rules language's own notation (so a reader can match the
website to the source), with operators spaced and precedence kept by brackets.
"""
from __future__ import annotations

import re

from . import nodes as n
from .values import literal

_STANDARD_DIE = re.compile(r"d[0-9]+")     # d6, d10: a literal pool is written 3d6 (a custom `dust`: 3 of dust)
_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "range": 5, "+": 6, "-": 6, "*": 7, "/": 7, "%": 7, "neg": 8}


def _prec(e) -> int:
    if isinstance(e, n.IfElse):
        return 0
    if isinstance(e, n.BoolOp):
        return _PREC[e.op]
    if isinstance(e, n.Not):
        return 3
    if isinstance(e, n.Compare):
        return 4
    if isinstance(e, n.RangeExpr):
        return 5
    if isinstance(e, n.BinOp):
        return _PREC[e.op]
    if isinstance(e, n.Neg):
        return 8
    return 9


def _wrap(e, min_prec) -> str:
    return _NOTATION.wrap(e, min_prec)


def literal_text(v) -> str:
    """A literal of the source (a value, a `low..high` pair or a name) as the language writes it."""
    if isinstance(v, tuple):
        return f"{v[0]}..{v[1]}"
    if isinstance(v, n.Name):
        return v.name
    return literal(v)


class Notation:
    """Writes an expression, operators spaced and precedence kept by brackets.  This class
    writes the language's own notation (`expr_text`); a subclass changes how names,
    literals, operators, calls and fields read (wording.py writes them in words) and keeps
    the structure."""

    def text(self, e) -> str:
        if e is None:
            return ""
        if isinstance(e, n.Literal):
            return self.literal(e.value)
        if isinstance(e, n.Name):
            return self.name(e.name)
        if isinstance(e, (n.BinOp, n.BoolOp)):
            p = _prec(e)
            return f"{self.wrap(e.left, p)} {self.operator(e.op)} {self.wrap(e.right, p + 1)}"
        if isinstance(e, n.Compare):
            return f"{self.wrap(e.left, 5)} {self.operator(e.op)} {self.wrap(e.right, 5)}"
        if isinstance(e, n.Not):
            return f"not {self.wrap(e.operand, 3)}"
        if isinstance(e, n.Neg):
            return f"-{self.wrap(e.operand, 8)}"
        if isinstance(e, n.IfElse):
            return f"if {self.text(e.cond)} then {self.text(e.then)} else {self.text(e.orelse)}"
        if isinstance(e, n.RangeExpr):
            return f"{self.wrap(e.low, 6)}{self.range_sep}{self.wrap(e.high, 6)}"
        if isinstance(e, n.ListLit):
            return "[" + ", ".join(self.text(x) for x in e.items) + "]"
        if isinstance(e, n.SetLit):
            return self.set_open + ", ".join(self.text(x) for x in e.items) + self.set_close
        if isinstance(e, n.Comprehension):
            return self.comprehension(e)
        if isinstance(e, n.Call):
            return self.call(e)
        if isinstance(e, n.Attr):
            return self.field(e)
        if isinstance(e, n.Index):
            return f"{self.wrap(e.obj, 9)}[{self.text(e.index)}]"
        return "?"

    def wrap(self, e, min_prec) -> str:
        s = self.text(e)
        return f"({s})" if _prec(e) < min_prec else s

    # what a subclass may change
    range_sep, set_open, set_close = "..", "{", "}"

    def literal(self, v) -> str:
        return literal_text(v)

    def name(self, ident: str) -> str:
        return ident

    def operator(self, op: str) -> str:
        return {"in": "in", "notin": "not in"}.get(op, op)

    def comprehension(self, e) -> str:
        cond = f" if {self.text(e.cond)}" if e.cond is not None else ""
        return f"{self.text(e.elem)} for {e.var} in {self.text(e.source)}{cond}"

    def call(self, e) -> str:
        parts = [self.text(a) for a in e.args] + [f"{k}={self.text(a)}" for k, a in e.kwargs]
        parts += [e.mode] if e.mode else []
        return f"{self.wrap(e.func, 9)}({', '.join(parts)})"

    def field(self, e) -> str:
        return f"{self.wrap(e.obj, 9)}.{e.name}"


_NOTATION = Notation()


def expr_text(e) -> str:
    """An expression in the language's own notation (it parses back to the same tree)."""
    return _NOTATION.text(e)


def type_text(t) -> str:
    if isinstance(t, n.NamedType):
        return t.name
    if isinstance(t, n.RangeType):
        return f"{t.low}..{t.high}"
    if isinstance(t, n.ListType):
        return f"list of {type_text(t.item)}"
    if isinstance(t, n.UnionType):
        return " | ".join(type_text(o) for o in t.options)
    if isinstance(t, n.RecordType):
        return "(" + ", ".join(f"{k}: {type_text(v)}" for k, v in t.fields) + ")"
    return "?"


def dice_text(spec: n.DiceSpec) -> str:
    if spec.kind in ("reroll", "explode"):
        base = dice_text(n.DiceSpec(spec.span, "one" if spec.count is None else "pool", spec.die, spec.count))
        if spec.kind == "reroll":
            return f"{base} reroll {_wrap(spec.on, 5)}"
        cap = f" up to {_count_text(spec.cap)}" if spec.cap is not None else ""
        return f"{base} explode on {_wrap(spec.on, 5)}{cap}"
    if spec.kind == "one":
        return spec.die
    if spec.kind == "pool":
        c = spec.count
        count = expr_text(c) if not isinstance(c, (n.Literal, n.Name)) else expr_text(c)
        if isinstance(c, n.Literal):
            return f"{count}{spec.die}" if _STANDARD_DIE.fullmatch(spec.die) else f"{count} of {spec.die}"
        return f"({count}) of {spec.die}" if not isinstance(c, n.Name) else f"{count} of {spec.die}"
    text = "chain "
    if spec.count is not None:
        text += f"{expr_text(spec.count)} of "
    text += f"{spec.die} on {expr_text(spec.on)}"
    if spec.then is not None:
        text += f" then {expr_text(spec.then)}"
    return text


def _count_text(c) -> str:
    """A count where the grammar takes a number, a name or a bracketed expression."""
    s = expr_text(c)
    return s if isinstance(c, (n.Literal, n.Name)) else f"({s})"


def mechanic_lines(m: n.Mechanic) -> list:
    """The mechanic's body in source notation, one statement a line."""
    lines = []
    for s in m.body:
        if isinstance(s, n.Let):
            lines.append(f"let {s.name} = {expr_text(s.value)}")
        elif isinstance(s, n.Roll):
            lines.append(f"roll {s.name}: {dice_text(s.dice)}")
        else:
            lines.append(f'require {expr_text(s.cond)} "{s.message}"')
    lines.append(("return " if m.body else "= ") + expr_text(m.result))
    return lines
