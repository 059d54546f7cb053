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
    s = expr_text(e)
    return f"({s})" if _prec(e) < min_prec else s


def literal_text(v) -> str:
    """A literal of the source (a value, a `low..high` pair or a name) as the language writes it."""
    if isinstance(v, tuple):
        return f"{v[0]}..{v[1]}"
    if isinstance(v, n.Name):
        return v.name
    return literal(v)


def expr_text(e) -> str:
    if e is None:
        return ""
    if isinstance(e, n.Literal):
        return literal_text(e.value)
    if isinstance(e, n.Name):
        return e.name
    if isinstance(e, n.BinOp):
        p = _prec(e)
        return f"{_wrap(e.left, p)} {e.op} {_wrap(e.right, p + 1)}"
    if isinstance(e, n.Compare):
        op = {"in": "in", "notin": "not in"}.get(e.op, e.op)
        return f"{_wrap(e.left, 5)} {op} {_wrap(e.right, 5)}"
    if isinstance(e, n.BoolOp):
        p = _prec(e)
        return f"{_wrap(e.left, p)} {e.op} {_wrap(e.right, p + 1)}"
    if isinstance(e, n.Not):
        return f"not {_wrap(e.operand, 3)}"
    if isinstance(e, n.Neg):
        return f"-{_wrap(e.operand, 8)}"
    if isinstance(e, n.IfElse):
        return f"if {expr_text(e.cond)} then {expr_text(e.then)} else {expr_text(e.orelse)}"
    if isinstance(e, n.RangeExpr):
        return f"{_wrap(e.low, 6)}..{_wrap(e.high, 6)}"
    if isinstance(e, n.ListLit):
        return "[" + ", ".join(expr_text(x) for x in e.items) + "]"
    if isinstance(e, n.SetLit):
        return "{" + ", ".join(expr_text(x) for x in e.items) + "}"
    if isinstance(e, n.Comprehension):
        cond = f" if {expr_text(e.cond)}" if e.cond is not None else ""
        return f"{expr_text(e.elem)} for {e.var} in {expr_text(e.source)}{cond}"
    if isinstance(e, n.Call):
        parts = [expr_text(a) for a in e.args] + [f"{k}={expr_text(a)}" for k, a in e.kwargs]
        parts += [e.mode] if e.mode else []
        return f"{_wrap(e.func, 9)}({', '.join(parts)})"
    if isinstance(e, n.Attr):
        return f"{_wrap(e.obj, 9)}.{e.name}"
    if isinstance(e, n.Index):
        return f"{_wrap(e.obj, 9)}[{expr_text(e.index)}]"
    return "?"


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
