"""Name resolution, once: what every bare name in a book's expressions refers to.

The rules of scope live here and nowhere else: a local (parameter, `let`, roll,
comprehension or check variable) first, then the book's constants, mechanics
and tables, then an enum member or die face that belongs to one enum or die
only, then enums and dice themselves, then the built-ins.

`resolve_book` walks every expression of a checked book (mechanics with their
defaults, constants, checks, worked examples) and returns the resolution of
each `Name` node, keyed by the node itself (frozen, with its span: one entry per
occurrence).  Later stages read that map instead of re-deriving scopes.  `round`'s
mode is not a name: the parser keeps it in `Call.mode`.

`incomplete` names the declarations in which some name does not resolve (misspelt,
or declared by text a syntax error left out): the name has its diagnostic, and the
checks that reason about what such a declaration calls or rolls stay silent on it
("shoot does not call 'hits'" after `hit(` was misspelt would only restate it).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..language import nodes as n
from ..language.builtins import BUILTINS

FORMS = ("chance", "mean")   # worked examples' odds forms (example_odds.py): not names of the language
KINDS = ("local", "const", "mechanic", "table", "member", "enum", "die", "builtin",
         "ambiguous", "unknown")


@dataclass(frozen=True)
class Resolved:
    kind: str            # one of KINDS
    name: str
    owner: str = ""      # a member's enum or die; the owners of an ambiguous member, comma-separated


def resolve(name: str, scope, syms) -> Resolved:
    """What `name` means at a place whose local names are `scope`."""
    if name in scope:
        return Resolved("local", name)
    if name in syms.consts:
        return Resolved("const", name)
    if name in syms.mechanics:
        return Resolved("mechanic", name)
    if name in syms.tables:
        return Resolved("table", name)
    owners = syms.members.get(name, [])
    if len(owners) == 1:
        return Resolved("member", name, owners[0])
    if name in syms.enums:
        return Resolved("enum", name)
    if name in syms.dice:
        return Resolved("die", name)
    if name in BUILTINS:
        return Resolved("builtin", name)
    if len(owners) > 1:
        return Resolved("ambiguous", name, ", ".join(owners))
    return Resolved("unknown", name)


def resolve_callee(name: str, scope, syms) -> Resolved:
    """What `name` means where it is called, as in `name(...)`.

    A local, a constant, a mechanic or a table first, as for any name; then a
    built-in function, which wins over an enum member or die face of the same
    name in this position (a member is a value and is never called).  Every
    stage that treats a call (the name and call checks, the typing pass, the
    compiler and the odds planner) asks here."""
    r = resolve(name, scope, syms)
    if r.kind in ("member", "ambiguous", "enum", "die") and name in BUILTINS:
        return Resolved("builtin", name)
    return r


class _Walker:
    def __init__(self, syms):
        self.syms, self.out = syms, {}

    def expr(self, e, scope):
        if e is None:
            return
        if isinstance(e, n.Name):
            self.out[e] = resolve(e.name, scope, self.syms)
        elif isinstance(e, n.Comprehension):
            self.expr(e.source, scope)
            inner = scope | {e.var}
            self.expr(e.elem, inner)
            self.expr(e.cond, inner)
        elif isinstance(e, n.Call) and isinstance(e.func, n.Name):
            self.out[e.func] = resolve_callee(e.func.name, scope, self.syms)
            for a in e.args:
                self.expr(a, scope)
            for _, a in e.kwargs:
                self.expr(a, scope)
        elif isinstance(e, n.Attr) and isinstance(e.obj, n.Name) and e.obj.name not in scope and (
                e.obj.name in self.syms.enums or e.obj.name in self.syms.dice):
            self.out[e.obj] = Resolved("enum" if e.obj.name in self.syms.enums else "die", e.obj.name)
        else:
            for f in getattr(e, "__dataclass_fields__", ()):
                if f == "span":
                    continue
                v = getattr(e, f)
                if isinstance(v, tuple):
                    for x in v:
                        if isinstance(x, tuple):      # kwargs: (name, expr)
                            self.expr(x[1], scope)
                        elif isinstance(x, n.Expr):
                            self.expr(x, scope)
                elif isinstance(v, n.Expr):
                    self.expr(v, scope)


def scoped_parts(d):
    """The parts of a declaration in evaluation order, each with the local names in
    scope there: ("expr", expression, scope) and ("roll", Roll, scope before it).
    The one statement of which names each part of a mechanic or check can see."""
    if isinstance(d, n.Const):
        yield "expr", d.value, frozenset()
    elif isinstance(d, n.Mechanic):
        scope = frozenset(pa.name for pa in d.params)
        for pa in d.params:
            if pa.default is not None:
                yield "expr", pa.default, frozenset()
        for s in d.body:
            if isinstance(s, n.Let):
                yield "expr", s.value, scope
                scope = scope | {s.name}
            elif isinstance(s, n.Roll):
                yield "roll", s, scope
                scope = scope | {s.name}
            else:
                yield "expr", s.cond, scope
        yield "expr", d.result, scope
    elif isinstance(d, (n.Check, n.Priced)):
        scope = frozenset()
        for b in d.bindings:
            yield "expr", b.source, scope
            scope = scope | {b.name}
        if d.where is not None:
            yield "expr", d.where, scope
        if isinstance(d, n.Check):
            yield "expr", d.claim, scope
        else:
            yield "expr", d.cost, scope
            yield "expr", d.effect, scope


def incomplete(book, syms) -> frozenset:
    """The mechanics, constants, checks and priced views in whose expressions (or dice) a
    name resolves to nothing or to more than one thing: what they call and roll is not
    known.  One walk, with the scopes of `scoped_parts`."""
    from ..language.model import decls_of

    out = set()
    for p in decls_of(book):
        d = p.node
        if not isinstance(d, (n.Mechanic, n.Const, n.Check, n.Priced)):
            continue
        w = _Walker(syms)
        dice_missing = False
        for what, part, scope in scoped_parts(d):
            if what == "expr":
                w.expr(part, scope)
            else:
                dice_missing |= part.dice.die not in syms.dice
                for e in part.dice.parts():
                    w.expr(e, scope)
        if dice_missing or any(r.kind in ("unknown", "ambiguous") for r in w.out.values()):
            out.add(d.name)
    return frozenset(out)


def form_name(expr, syms):
    """'chance' or 'mean' when `expr` is written as one of the forms (a call of that name,
    which the book does not declare), else None."""
    if isinstance(expr, n.Call) and isinstance(expr.func, n.Name) and expr.func.name in FORMS \
            and resolve(expr.func.name, (), syms).kind == "unknown":
        return expr.func.name
    return None


def form_of(expr, syms):
    """(form, the expression inside) for a well-formed `chance(...)` / `mean(...)`, else None."""
    name = form_name(expr, syms)
    if name is None or len(expr.args) != 1 or expr.kwargs or expr.mode:
        return None
    return name, expr.args[0]


def resolve_book(book, syms) -> dict:
    """{Name node: Resolved} for every name in the book's expressions."""
    from ..language.model import decls_of, walk

    w = _Walker(syms)
    for p in decls_of(book):
        for what, part, scope in scoped_parts(p.node):
            if what == "expr":
                w.expr(part, scope)
            else:
                for e in part.dice.parts():
                    w.expr(e, scope)
    for p in walk(book.items):
        if isinstance(p.node, n.Rule):
            for ex in p.node.examples:
                for case in ex.cases:
                    odds = form_of(case.expr, syms)     # `chance(...)`: a form of examples, not a name
                    w.expr(odds[1] if odds is not None else case.expr, frozenset())
                    w.expr(case.expected, frozenset())
            for o in p.node.odds:
                w.expr(o.call, frozenset())
    return w.out
