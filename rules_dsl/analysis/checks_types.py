"""The typing pass: mistakes a call would only find at run time become diagnostics.

`-> bool = a + 1`, `a + "x"`, a field read on a number, an argument of the wrong
kind: each is reported at check time, at its file:line:column.

The pass infers, for every expression, the set of kinds of value it may have
(number, bool, text, absent, a member of one enum, a face of one die, a list of
something, a record with known fields, ...).  It reports only what is certain:
when an operand can *only* be of kinds an operator rejects, or a result can
*only* be of kinds the declaration does not allow.  Anything it cannot tell is
`ANY`, and `ANY` is never an error, so a book that runs is never rejected for
something the pass merely failed to follow.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..language import nodes as n
from ..language.model import BookAST, decls_of
from ..language.visitor import NodeVisitor
from .resolve import resolve_callee

# ------------------------------------------------------------------- kinds
NUM, BOOL, TEXT, ABSENT, RANGE, SET, CALLABLE = "number", "bool", "text", "absent", "range", "set", "callable"


@dataclass(frozen=True)
class Enum:
    name: str


@dataclass(frozen=True)
class Face:
    die: str


@dataclass(frozen=True)
class ListOf:
    item: "Kinds"


@dataclass(frozen=True)
class Rec:
    fields: Optional[tuple]      # ((name, Kinds), ...) or None when unknown


Kinds = Optional[frozenset]       # None: anything (we cannot tell)
ANY: Kinds = None


def kinds(*ks) -> Kinds:
    return frozenset(ks)


def union(*ts: Kinds) -> Kinds:
    out = set()
    for t in ts:
        if t is ANY:
            return ANY
        out |= t
    return frozenset(out)


def describe(t: Kinds) -> str:
    if t is ANY:
        return "anything"
    words = []
    for k in sorted(t, key=repr):
        if isinstance(k, Enum):
            words.append(f"a member of {k.name}")
        elif isinstance(k, Face):
            words.append(f"a face of {k.die}")
        elif isinstance(k, ListOf):
            words.append("a list")
        elif isinstance(k, Rec):
            words.append("a record")
        else:
            words.append({NUM: "a number", BOOL: "true/false", TEXT: "text", ABSENT: "absent",
                          RANGE: "a range", SET: "a set", CALLABLE: "a mechanic or table"}[k])
    return " or ".join(words)


def _is_num(k) -> bool:
    return k == NUM


# ------------------------------------------------------------------ the pass
def check_types_of_expressions(book: BookAST, syms, report):
    TypePass(syms, report).run(book)


class TypePass(NodeVisitor):
    def __init__(self, syms, report):
        self.syms, self.report = syms, report
        self._mech_returns = {}
        self._const_kinds = {}

    # -- declared types
    def of_type(self, t) -> Kinds:
        if isinstance(t, n.UnionType):
            return union(*(self.of_type(o) for o in t.options))
        if isinstance(t, n.RangeType):
            return kinds(NUM)
        if isinstance(t, n.ListType):
            return kinds(ListOf(self.of_type(t.item)))
        if isinstance(t, n.RecordType):
            return kinds(Rec(tuple((f, self.of_type(ft)) for f, ft in t.fields)))
        if isinstance(t, n.NamedType):
            name = t.name
            if name in ("int", "number"):
                return kinds(NUM)
            if name in (BOOL, TEXT, ABSENT):
                return kinds(name)
            if name in self.syms.enums:
                return kinds(Enum(name))
            if name in self.syms.dice:
                return kinds(Face(name)) if self.syms.dice[name].custom else kinds(NUM)
        return ANY

    def table_value(self, tbl: n.Table) -> Kinds:
        return self.of_type(tbl.returns)

    def table_row(self, tbl: n.Table) -> Kinds:
        fields = [(p.name, union(self.of_type(p.type), kinds(RANGE))) for p in tbl.params]
        rt = tbl.returns
        if isinstance(rt, n.RecordType):
            fields += [(f, self.of_type(ft)) for f, ft in rt.fields]
        else:
            fields.append(("value", self.of_type(rt)))
        return kinds(Rec(tuple(fields)))

    # -- the walk
    def run(self, book: BookAST):
        for p in decls_of(book):
            d = p.node
            if isinstance(d, n.Mechanic):
                self.mechanic(d)
            elif isinstance(d, (n.Check, n.Priced)):
                env = {}
                for b in d.bindings:
                    env[b.name] = self.element(self.expr(b.source, env))
                if d.where is not None:
                    self.expr(d.where, env)
                if isinstance(d, n.Check):
                    self.expr(d.claim, env)
                else:
                    self.numeric(self.expr(d.cost, env), d.cost.span, f"the cost of priced '{d.name}'")
                    effect = self.expr(d.effect, env)
                    if effect is not ANY and effect and not any(_is_num(k) or k == BOOL for k in effect):
                        self.report(d.effect.span, f"priced '{d.name}' is per the mean of a number (or the chance of a "
                                    f"condition), but this is {describe(effect)}",
                                    "e.g. roster(kind) per attack(...) or per out_of_action(...) == true")
            elif isinstance(d, n.Const):
                self.const(d.name)

    def const(self, name) -> Kinds:
        if name not in self._const_kinds:
            self._const_kinds[name] = ANY      # a constant defined through itself: the checks say so
            self._const_kinds[name] = self.expr(self.syms.consts[name].value, {}, quiet=True)
        return self._const_kinds[name]

    def mechanic(self, d: n.Mechanic):
        env = {p.name: self.of_type(p.type) for p in d.params}
        for p in d.params:
            if p.default is not None:
                got = self.expr(p.default, {})
                self.expect(got, env[p.name], p.default.span, f"the default of '{p.name}'")
        for s in d.body:
            if isinstance(s, n.Let):
                env[s.name] = self.expr(s.value, env)
            elif isinstance(s, n.Roll):
                env[s.name] = self.roll(s.dice, env)
            else:
                self.expr(s.cond, env)
        result = self.expr(d.result, env)
        self.expect(result, self.of_type(d.returns), d.result.span, f"{d.name} is declared to return "
                    f"{describe(self.of_type(d.returns))}, but its result is", returns=True)

    def roll(self, spec: n.DiceSpec, env) -> Kinds:
        for e in spec.parts():
            self.expr(e, env)
        die = self.syms.dice.get(spec.die)
        face = kinds(Face(spec.die)) if die is not None and die.custom else kinds(NUM)
        if spec.kind == "one" or (spec.kind == "reroll" and spec.count is None):
            return face
        if spec.kind in ("pool", "reroll", "explode"):
            return kinds(ListOf(face))
        return ANY   # a chain's value: read through aggregates

    def expect(self, got: Kinds, want: Kinds, span, what, returns=False):
        """Report when `got` can only be kinds `want` does not admit."""
        if got is ANY or want is ANY or not got:
            return
        if any(self.fits(k, want) for k in got):
            return
        if returns:
            self.report(span, f"{what} {describe(got)}")
        else:
            self.report(span, f"{what} must be {describe(want)}, but it is {describe(got)}")

    def fits(self, k, want: Kinds) -> bool:
        if want is ANY:
            return True
        for w in want:
            if k == w:
                return True
            if isinstance(k, ListOf) and isinstance(w, ListOf):
                if k.item is ANY or w.item is ANY or not k.item or any(self.fits(x, w.item) for x in k.item):
                    return True
            if k == RANGE and isinstance(w, ListOf):
                return True
            if isinstance(k, Rec) and isinstance(w, Rec):
                return True
            if k == TEXT and (isinstance(w, (Enum, Face)) or w == ABSENT):
                return True    # a call converts text naming a member or face (or "absent") to it
            if isinstance(k, (Enum, Face)) and isinstance(w, (Enum, Face)) and self.names(k) & self.names(w):
                return True    # ... and a member of another enum that has a member of the same name
        return False

    def names(self, k) -> set:
        if isinstance(k, Enum):
            e = self.syms.enums.get(k.name)
            return set(e.members) if e is not None else set()
        die = self.syms.dice.get(k.die)
        return set(map(str, die.faces)) if die is not None else set()

    def element(self, t: Kinds) -> Kinds:
        if t is ANY:
            return ANY
        out = set()
        for k in t:
            if isinstance(k, ListOf):
                if k.item is ANY:
                    return ANY
                out |= k.item
            elif k == RANGE:
                out.add(NUM)
            else:
                return ANY
        return frozenset(out) if out else ANY

    # -- expressions
    def expr(self, e, env, quiet=False) -> Kinds:
        m = self.get_visitor(e)          # visit_<Node> (language/visitor.py)
        if m is None:
            return ANY
        saved = self.report
        if quiet:
            self.report = lambda *a, **k: None
        try:
            return m(e, env)
        finally:
            self.report = saved

    def visit_Literal(self, e, env):
        from fractions import Fraction

        from ..language.values import ABSENT as A
        v = e.value
        if v is A:
            return kinds(ABSENT)
        if isinstance(v, bool):
            return kinds(BOOL)
        if isinstance(v, (int, Fraction)):
            return kinds(NUM)
        if isinstance(v, str):
            return kinds(TEXT)
        return ANY

    def visit_Name(self, e, env):
        from .resolve import resolve

        r = resolve(e.name, env, self.syms)
        if r.kind == "local":
            return env[e.name]
        if r.kind == "const":
            return self.const(e.name)
        if r.kind in ("mechanic", "table"):
            return kinds(CALLABLE)
        if r.kind == "member":
            return kinds(Enum(r.owner)) if r.owner in self.syms.enums else kinds(Face(r.owner))
        return ANY

    def numeric(self, t: Kinds, span, what):
        if t is ANY or not t:
            return
        if not any(_is_num(k) or k == ABSENT for k in t):
            self.report(span, f"{what} needs numbers, but this is {describe(t)}")

    def visit_BinOp(self, e, env):
        a, b = self.expr(e.left, env), self.expr(e.right, env)
        if e.op == "+" and (a is ANY or any(isinstance(k, ListOf) for k in a)) and (
                b is ANY or any(isinstance(k, ListOf) for k in b)):
            if a is not ANY and b is not ANY and all(isinstance(k, ListOf) for k in a | b):
                return union(a, b)
            return ANY
        self.numeric(a, e.left.span, f"'{e.op}'")
        self.numeric(b, e.right.span, f"'{e.op}'")
        return kinds(NUM)

    def visit_Neg(self, e, env):
        self.numeric(self.expr(e.operand, env), e.operand.span, "'-'")
        return kinds(NUM)

    def visit_Compare(self, e, env):
        a, b = self.expr(e.left, env), self.expr(e.right, env)
        if e.op in ("<", "<=", ">", ">="):
            self.numeric(a, e.left.span, f"'{e.op}'")
            self.numeric(b, e.right.span, f"'{e.op}'")
        return kinds(BOOL)

    def visit_BoolOp(self, e, env):
        self.expr(e.left, env)
        self.expr(e.right, env)
        return kinds(BOOL)

    def visit_Not(self, e, env):
        self.expr(e.operand, env)
        return kinds(BOOL)

    def visit_IfElse(self, e, env):
        self.expr(e.cond, env)
        return union(self.expr(e.then, env), self.expr(e.orelse, env))

    def visit_RangeExpr(self, e, env):
        self.numeric(self.expr(e.low, env), e.low.span, "a range")
        self.numeric(self.expr(e.high, env), e.high.span, "a range")
        return kinds(RANGE)

    def visit_ListLit(self, e, env):
        items = [self.expr(x, env) for x in e.items]
        return kinds(ListOf(union(*items) if items else frozenset()))

    def visit_SetLit(self, e, env):
        for x in e.items:
            self.expr(x, env)
        return kinds(SET)

    def visit_Comprehension(self, e, env):
        src = self.expr(e.source, env)
        inner = dict(env)
        inner[e.var] = self.element(src) if src is not ANY else ANY
        if e.cond is not None:
            self.expr(e.cond, inner)
        return kinds(ListOf(self.expr(e.elem, inner)))

    def visit_Index(self, e, env):
        obj = self.expr(e.obj, env)
        self.numeric(self.expr(e.index, env), e.index.span, "an index")
        return self.element(obj)

    def visit_Attr(self, e, env):
        if isinstance(e.obj, n.Name) and e.obj.name not in env and (
                e.obj.name in self.syms.enums or e.obj.name in self.syms.dice):
            if e.obj.name in self.syms.enums:
                return kinds(Enum(e.obj.name))
            return kinds(Face(e.obj.name)) if self.syms.dice[e.obj.name].custom else kinds(NUM)
        obj = self.expr(e.obj, env)
        if obj is ANY or not obj:
            return ANY
        recs = [k for k in obj if isinstance(k, Rec)]
        if not recs:
            if ABSENT not in obj:
                self.report(e.span, f"'.{e.name}' reads a field, but this is {describe(obj)}",
                            "only table rows and records have fields")
            return ANY
        out = []
        for r in recs:
            if r.fields is None:
                return ANY
            fields = dict(r.fields)
            if e.name in fields:
                out.append(fields[e.name])
        if not out:
            from ..errors import did_you_mean
            names = sorted({f for r in recs for f, _ in r.fields})
            self.report(e.span, f"the record has no field '{e.name}'",
                        did_you_mean(e.name, names) or f"fields: {', '.join(names)}")
            return ANY
        return union(*out)

    def visit_Call(self, e, env):
        f = e.func
        kind = resolve_callee(f.name, env, self.syms).kind if isinstance(f, n.Name) else "value"
        args = [self.expr(a, env) for a in e.args]
        kw = {k: self.expr(a, env) for k, a in e.kwargs}
        if kind not in ("mechanic", "table", "builtin"):
            self.expr(f, env)
            return ANY
        name = f.name
        if kind != "builtin":
            target = self.syms.mechanics[name] if kind == "mechanic" else self.syms.tables[name]
            params = list(target.params)
            pairs = list(zip(params, e.args, args)) + [
                (p, a, kw[p.name]) for p in params for k, a in e.kwargs if k == p.name]
            for p, a, t in pairs:
                self.expect(t, self.of_type(p.type), a.span, f"{name}()'s '{p.name}'")
            if isinstance(target, n.Mechanic):
                return self.of_type(target.returns)
            return self.table_value(target)
        return self.builtin(name, args, e)

    def builtin(self, name, args, e) -> Kinds:
        first = args[0] if args else ANY
        if name in ("count", "len"):
            return kinds(NUM)
        if name in ("sum", "abs", "floor", "ceil", "round", "clamp", "low", "high"):
            if name != "sum" and name not in ("low", "high"):
                self.numeric(first, e.args[0].span, f"{name}()")
            return kinds(NUM)
        if name in ("any", "all", "even", "odd", "is_absent", "covers", "defined"):
            if name in ("even", "odd"):
                self.numeric(first, e.args[0].span, f"{name}()")
            return kinds(BOOL)
        if name in ("max", "min"):
            return self.element(first) if len(args) == 1 else union(*args)
        if name in ("sorted", "highest", "lowest"):
            el = self.element(first)
            return kinds(ListOf(el))
        if name == "rows":
            a = e.args[0] if e.args else None
            if isinstance(a, n.Name) and a.name in self.syms.tables:
                return kinds(ListOf(self.table_row(self.syms.tables[a.name])))
            return ANY
        if name == "or_else" and len(args) == 2:
            x = args[0]
            if x is ANY:
                return ANY
            return union(frozenset(k for k in x if k != ABSENT), args[1])
        return ANY
