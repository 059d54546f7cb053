"""Expressions -> JavaScript expression text: `ExprGen`, one `visit_<Node>` per expression node.

The twin of `compiler.expressions.ExprCompiler`: the same dispatch on the node's class,
the same name resolution (`resolve.resolve` / `resolve_callee` with the local scope),
the same order of evaluation (Python evaluates `x in xs` container first; so does the
generated call), and every operation with a rule of its own (arithmetic, equality,
truth, `in`, built-ins) delegated to the hand-written runtime (`runtime.js`), which
mirrors the Python values.  A node type without a visit method, or a construct the
runtime cannot mirror, raises `JSGenError` naming it and its file:line:col: generation
fails loudly rather than emitting something that would differ.

`scope` maps the local names in scope to their JavaScript identifiers (see `emit.Idents`);
the evaluation context is always the JS variable `ctx`.
"""
from __future__ import annotations

from fractions import Fraction

from ..language import nodes as n
from ..language import rollpaths
from ..language.builtins import BUILTINS
from ..analysis.resolve import resolve, resolve_callee
from ..language.values import ABSENT, Sym
from ..language.visitor import NodeVisitor
from .emit import Globals, Idents, js_str, unsupported

# built-ins the runtime does not mirror, with why
UNSUPPORTED_BUILTINS = {
    "defined": "the built-in defined() (it answers from the book's rule titles, which the module does not carry)",
}


class ExprGen(NodeVisitor):
    """Compiles checked expression nodes of one book to JavaScript expression text."""

    def __init__(self, g: Globals, idents: Idents):
        self.g, self.idents = g, idents
        self.syms = g.compiled.syms

    def compile(self, e: n.Expr, scope: dict) -> str:
        return self.visit(e, scope)

    def generic_visit(self, e, scope):
        """A node type without a `visit_` method: generation fails loudly, naming it."""
        raise unsupported(getattr(e, "span", "?"), f"the expression node {type(e).__name__}")

    def visit_Literal(self, e, scope):
        v = e.value
        if isinstance(v, (Fraction, bool, int, str)) or v is ABSENT:
            return self.g.value(v)
        raise unsupported(e.span, f"the literal {v!r}")

    def visit_Name(self, e, scope):
        name = e.name
        r = resolve(name, frozenset(scope), self.syms)
        g = self.g
        if r.kind == "local":
            return scope[name]
        if r.kind == "const":
            return f"$c[{g.consts[name]}]()"
        if r.kind == "mechanic":
            return f"$m[{g.mechanics[name]}]"
        if r.kind == "table":
            return f"$t[{g.tables[name]}]"
        if r.kind == "member":
            return g.sym(g.compiled.members[name])
        if r.kind == "enum":
            return f"$e[{g.enums[name]}]"
        if r.kind == "die":
            return f"$d[{g.dice[name]}]"
        if r.kind == "builtin":
            if name in UNSUPPORTED_BUILTINS:
                raise unsupported(e.span, UNSUPPORTED_BUILTINS[name])
            return f"new R.Builtin({js_str(name)})"
        raise unsupported(e.span, f"the name '{name}' ({r.kind})")

    def visit_BinOp(self, e, scope):
        if e.op not in ("+", "-", "*", "/", "%"):
            raise unsupported(e.span, f"the operator {e.op!r}")
        return f"R.binop({self.g.span(e.span)}, \"{e.op}\", {self.compile(e.left, scope)}, {self.compile(e.right, scope)})"

    def visit_Compare(self, e, scope):
        a, b = self.compile(e.left, scope), self.compile(e.right, scope)
        if e.op == "==":
            return f"R.pyEq({a}, {b})"
        if e.op == "!=":
            return f"!R.pyEq({a}, {b})"
        if e.op == "in":
            return f"R.contains({self.g.span(e.span)}, {b}, {a})"
        if e.op == "notin":
            return f"!R.contains({self.g.span(e.span)}, {b}, {a})"
        if e.op in ("<", "<=", ">", ">="):
            return f"R.order({self.g.span(e.span)}, \"{e.op}\", {a}, {b})"   # an operator of the fixed set above
        raise unsupported(e.span, f"the comparison {e.op!r}")

    def visit_BoolOp(self, e, scope):
        op = {"and": "&&", "or": "||"}.get(e.op)
        if op is None:
            raise unsupported(e.span, f"the operator {e.op!r}")
        return f"(R.truthy({self.compile(e.left, scope)}) {op} R.truthy({self.compile(e.right, scope)}))"

    def visit_Not(self, e, scope):
        return f"!R.truthy({self.compile(e.operand, scope)})"

    def visit_Neg(self, e, scope):
        return f"R.neg({self.g.span(e.span)}, {self.compile(e.operand, scope)})"

    def visit_IfElse(self, e, scope):
        return (f"(R.truthy({self.compile(e.cond, scope)}) ? {self.compile(e.then, scope)} "
                f": {self.compile(e.orelse, scope)})")

    def visit_RangeExpr(self, e, scope):
        return f"R.range({self.g.span(e.span)}, {self.compile(e.low, scope)}, {self.compile(e.high, scope)})"

    def visit_ListLit(self, e, scope):
        return "[" + ", ".join(self.compile(x, scope) for x in e.items) + "]"

    def visit_SetLit(self, e, scope):
        return "R.setOf([" + ", ".join(self.compile(x, scope) for x in e.items) + "])"

    def comprehension_parts(self, e, scope):
        """(source, variable, element, condition function or "null") of a comprehension, in JS:
        what the runtime's `comp` and the odds engine's `compRuns` both take."""
        src = self.compile(e.source, scope)
        var = self.idents.fresh(e.var, e.span)
        inner = {**scope, e.var: var}
        elem = self.compile(e.elem, inner)
        cond = f"({var}) => {self.compile(e.cond, inner)}" if e.cond is not None else "null"
        return src, var, elem, cond

    def visit_Comprehension(self, e, scope):
        src, var, elem, cond = self.comprehension_parts(e, scope)
        return f"R.comp(ctx, {self.g.span(e.span)}, {src}, {cond}, ({var}) => {elem})"

    def visit_Attr(self, e, scope):
        g = self.g
        if isinstance(e.obj, n.Name) and e.obj.name not in scope:
            owner = e.obj.name
            if owner in g.compiled.enums:
                return g.sym(g.compiled.enums[owner][e.name])
            if owner in g.compiled.dice and g.compiled.dice[owner].custom:
                return g.sym(Sym(e.name, owner))
        return f"R.attr({g.span(e.span)}, {self.compile(e.obj, scope)}, {js_str(e.name)})"

    def visit_Index(self, e, scope):
        return f"R.index({self.g.span(e.span)}, {self.compile(e.obj, scope)}, {self.compile(e.index, scope)})"

    def visit_Call(self, e, scope):
        g = self.g
        callee = resolve_callee(e.func.name, frozenset(scope), self.syms).kind if isinstance(e.func, n.Name) else "value"
        sp = g.span(e.span)
        if callee == "builtin":
            name = e.func.name
            if name in UNSUPPORTED_BUILTINS:
                raise unsupported(e.span, UNSUPPORTED_BUILTINS[name])
            if name not in BUILTINS:
                raise unsupported(e.span, f"the built-in {name}()")
            if name == "round":
                # the argument is evaluated inside round's guard, as in Python (an error gets round's span)
                return f"R.round({sp}, () => {self.compile(e.args[0], scope)}, {js_str(e.mode)})"
            # keyword arguments of a built-in are not passed (nor evaluated), as in Python
            return f"R.builtin({sp}, {js_str(name)}, [{', '.join(self.compile(a, scope) for a in e.args)}])"
        args = "[" + ", ".join(self.compile(a, scope) for a in e.args) + "]"
        if callee == "mechanic":
            name = e.func.name
            rolls = {s.name for s in self.syms.mechanics[name].body if isinstance(s, n.Roll)}
            plain = [(k, a) for k, a in e.kwargs if k not in rolls and not rollpaths.is_path(k)]
            given = [(rollpaths.canonical(k), a) for k, a in e.kwargs if k in rolls or rollpaths.is_path(k)]
            kw = "[" + ", ".join(f"[{js_str(k)}, {self.compile(a, scope)}]" for k, a in plain) + "]"
            gv = ("() => [" + ", ".join(f"[{js_str(k)}, {self.compile(a, scope)}]" for k, a in given) + "]") if given else "null"
            return f"$m[{g.mechanics[name]}].callFrom(ctx, {args}, {kw}, {gv})"
        kw = "[" + ", ".join(f"[{js_str(k)}, {self.compile(a, scope)}]" for k, a in e.kwargs) + "]"
        if callee == "table":
            return f"$t[{g.tables[e.func.name]}].lookup({args}, {kw})"
        f = self.compile(e.func, scope)
        return f"R.callValue(ctx, {sp}, {f}, {args}, {kw})"
