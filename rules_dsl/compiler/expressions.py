"""Expressions -> closures `f(env, ctx)`: the `ExprCompiler` visitor.

`ExprCompiler(book).compile(expr, scope)` dispatches on the node's class name to a
`visit_<NodeType>` method (`visit_BinOp`, `visit_Call`...) through the shared
`rules_dsl.language.visitor.NodeVisitor` (Jinja2's protocol); each method compiles its children through `self.compile`,
so a subclass that overrides or adds a `visit_` method sees every node of the
tree, however deep.  That is the compiler's extension point: the exact-odds engine
subclasses it (`rules_dsl.odds.plan.RunsCompiler`, `rules_dsl.odds.aggregates`)
instead of patching a table.  `scope` holds the local names (parameters, lets,
rolls, comprehension variables); `env` maps them to values at run time and `ctx`
is the `Ctx` (roller, roll-name prefix, step budget).

Nothing from the rulebook text is ever evaluated as Python: the closures are
built from the AST's node types alone.
"""
from __future__ import annotations

import operator
from fractions import Fraction

from ..language import nodes as n
from ..language import rollpaths
from ..language.builtins import BUILTINS
from ..language.dice import DieInfo, ForcedRoller
from ..errors import EvaluationError, RulesError
from ..analysis.resolve import resolve, resolve_callee
from ..language.symbolic import Symbolic
from ..language.values import ABSENT, Record, Sym, number, show
from .context import MAX_RANGE, Ctx, Invocable, fail
from .tables import TableFn
from ..language.visitor import NodeVisitor


class EnumNamespace:
    """An enum used as a value (`outcome.pinned` in examples): its members as attributes.

    Public because other back ends meet these values at run time (the odds engine
    recognises one as a fixed value)."""

    def __init__(self, name, members):
        self._name, self.__dict__["_members"] = name, dict(members)

    def __getattr__(self, item):
        try:
            return self.__dict__["_members"][item]
        except KeyError:
            raise AttributeError(f"{self._name} has no member {item!r}") from None

    def __iter__(self):
        return iter(self.__dict__["_members"].values())

    def __repr__(self):
        return f"<{self._name}: {', '.join(self.__dict__['_members'])}>"


def _need_num(span, v, what):
    if v is ABSENT:
        fail(span, f"{what}: the value is absent in the source rulebook")
    if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
        fail(span, f"{what}: expected a number, got {show(v)}")
    return v


def _contains(span, container, item):
    if isinstance(item, Symbolic):      # an exact-odds stand-in: let it see the test (rules_dsl.language.symbolic, rule 3)
        return item.observe(lambda v: _contains(span, container, v), ("in", container))
    if container is ABSENT:
        fail(span, "'in': the collection is absent in the source rulebook")
    if isinstance(container, (list, tuple, range, frozenset, set, str)):
        try:
            return item in container
        except TypeError:
            return False
    if isinstance(container, EnumNamespace):
        return item in list(container)
    if isinstance(container, DieInfo):
        return item in container.faces
    fail(span, f"'in': cannot look inside {show(container)}")


def iterable(span, v):
    """What `for x in v` walks at run time: a list, set (in a stable order), range,
    enum's members or a table's rows; anything else fails with the place.

    The one rule of iteration, shared by every back end that compiles closures."""
    if v is ABSENT:
        fail(span, "cannot iterate: the collection is absent in the source rulebook")
    if isinstance(v, (list, tuple, range, frozenset, set)):
        return sorted(v, key=repr) if isinstance(v, (frozenset, set)) else v
    if isinstance(v, EnumNamespace):
        return list(v)
    if isinstance(v, TableFn):
        return v.rows()
    fail(span, f"cannot iterate over {show(v)}")


class ExprCompiler(NodeVisitor):
    """Compiles checked expression nodes of one book to closures `f(env, ctx)`.

    A `rules_dsl.language.visitor.NodeVisitor`: one `visit_<NodeType>(e, scope)` method per node
    type of `rules_dsl.language.nodes`; subclass it to change how some nodes compile or to compile
    node types of your own (see the module docstring).  A node type without a method is
    a bug (the checks pass admits only the types below): `generic_visit` refuses it."""

    def __init__(self, book):
        self.book = book

    def compile(self, e: n.Expr, scope: frozenset):
        """Return a closure f(env, ctx) computing `e`.  `scope` holds the local names."""
        return self.visit(e, scope)

    def generic_visit(self, e, scope):
        raise TypeError(f"{type(self).__name__} cannot compile a {type(e).__name__} node")

    def visit_Literal(self, e, scope):
        v = number(e.value) if isinstance(e.value, Fraction) else e.value
        return lambda env, ctx: v

    def visit_Name(self, e, scope):
        book = self.book
        name = e.name
        r = resolve(name, scope, book.syms)
        kind = r.kind
        if kind == "local":
            def local(env, ctx):
                return env[name]
            return local
        if kind == "const":
            return lambda env, ctx: book.const(name)
        if kind == "mechanic":
            return lambda env, ctx: book.mechanics[name]
        if kind == "table":
            return lambda env, ctx: book.tables[name]
        if kind == "member":
            v = book.members[name]
        elif kind == "enum":
            v = EnumNamespace(name, book.enums[name])
        elif kind == "die":
            v = book.dice[name]
        elif kind == "builtin":
            v = book.defined if name == "defined" else BUILTINS[name][0]
        else:
            raise AssertionError(f"unresolved name {name} ({kind})")  # the checks pass rejects this first
        return lambda env, ctx: v

    def visit_BinOp(self, e, scope):
        lf, rf, op, sp = self.compile(e.left, scope), self.compile(e.right, scope), e.op, e.span

        def f(env, ctx):
            a, b = lf(env, ctx), rf(env, ctx)
            if op == "+" and isinstance(a, list) and isinstance(b, list):
                return a + b
            a, b = _need_num(sp, a, f"'{op}'"), _need_num(sp, b, f"'{op}'")
            if op == "+":
                return number(a + b) if isinstance(a, Fraction) or isinstance(b, Fraction) else a + b
            if op == "-":
                return number(a - b) if isinstance(a, Fraction) or isinstance(b, Fraction) else a - b
            if op == "*":
                return number(a * b) if isinstance(a, Fraction) or isinstance(b, Fraction) else a * b
            if b == 0:
                fail(sp, f"division by zero in '{op}'")
            if op == "/":
                return number(Fraction(a) / Fraction(b))
            return number(a % b)
        return f

    def visit_Compare(self, e, scope):
        lf, rf, op, sp = self.compile(e.left, scope), self.compile(e.right, scope), e.op, e.span
        if op == "==":
            return lambda env, ctx: lf(env, ctx) == rf(env, ctx)
        if op == "!=":
            return lambda env, ctx: lf(env, ctx) != rf(env, ctx)
        if op == "in":
            return lambda env, ctx: _contains(sp, rf(env, ctx), lf(env, ctx))
        if op == "notin":
            return lambda env, ctx: not _contains(sp, rf(env, ctx), lf(env, ctx))
        fn = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

        def f(env, ctx):
            a, b = lf(env, ctx), rf(env, ctx)
            return fn(_need_num(sp, a, f"'{op}'"), _need_num(sp, b, f"'{op}'"))
        return f

    def visit_BoolOp(self, e, scope):
        lf, rf = self.compile(e.left, scope), self.compile(e.right, scope)
        if e.op == "and":
            return lambda env, ctx: bool(lf(env, ctx)) and bool(rf(env, ctx))
        return lambda env, ctx: bool(lf(env, ctx)) or bool(rf(env, ctx))

    def visit_Not(self, e, scope):
        f = self.compile(e.operand, scope)
        return lambda env, ctx: not f(env, ctx)

    def visit_Neg(self, e, scope):
        f, sp = self.compile(e.operand, scope), e.span
        return lambda env, ctx: -_need_num(sp, f(env, ctx), "'-'")

    def visit_IfElse(self, e, scope):
        c, t, o = (self.compile(x, scope) for x in (e.cond, e.then, e.orelse))
        return lambda env, ctx: t(env, ctx) if c(env, ctx) else o(env, ctx)

    def visit_RangeExpr(self, e, scope):
        lo, hi, sp = self.compile(e.low, scope), self.compile(e.high, scope), e.span

        def f(env, ctx):
            a, b = lo(env, ctx), hi(env, ctx)
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in (a, b)):
                fail(sp, f"a range needs whole numbers, got {show(a)}..{show(b)}")
            if b - a >= MAX_RANGE:
                fail(sp, f"the range {a}..{b} has more than {MAX_RANGE:,} values")
            return range(a, b + 1)
        return f

    def visit_ListLit(self, e, scope):
        fs = [self.compile(x, scope) for x in e.items]
        return lambda env, ctx: [f(env, ctx) for f in fs]

    def visit_SetLit(self, e, scope):
        fs = [self.compile(x, scope) for x in e.items]

        def f(env, ctx):
            out = []
            for g in fs:
                v = g(env, ctx)
                out.extend(v) if isinstance(v, (range, list, frozenset)) else out.append(v)
            return frozenset(out)
        return f

    def visit_Comprehension(self, e, scope):
        src = self.compile(e.source, scope)
        inner = scope | {e.var}
        elem = self.compile(e.elem, inner)
        cond = self.compile(e.cond, inner) if e.cond is not None else None
        var, sp = e.var, e.span

        def f(env, ctx):
            out = []
            local = dict(env)
            items = iterable(sp, src(env, ctx))
            ctx.spend(len(items))
            for x in items:
                local[var] = x
                if cond is None or cond(local, ctx):
                    out.append(elem(local, ctx))
            return out
        return f

    def visit_Attr(self, e, scope):
        book = self.book
        if isinstance(e.obj, n.Name) and e.obj.name not in scope:
            if e.obj.name in book.enums:
                v = book.enums[e.obj.name][e.name]
                return lambda env, ctx: v
            if e.obj.name in book.dice and book.dice[e.obj.name].custom:
                v = Sym(e.name, e.obj.name)
                return lambda env, ctx: v
        of, name, sp = self.compile(e.obj, scope), e.name, e.span

        def f(env, ctx):
            o = of(env, ctx)
            if isinstance(o, Record):
                fields = o.as_dict()   # fields only: never a Python attribute of the record object
                if name in fields:
                    return fields[name]
                fail(sp, f"the record has no field '{name}' (fields: {', '.join(fields)})")
            fail(sp, f"cannot take '.{name}' of {show(o)}")
        return f

    def visit_Index(self, e, scope):
        of, ix, sp = self.compile(e.obj, scope), self.compile(e.index, scope), e.span

        def f(env, ctx):
            o, i = of(env, ctx), ix(env, ctx)
            if not isinstance(o, (list, tuple)) or not isinstance(i, int):
                fail(sp, f"cannot index {show(o)} with {show(i)}")
            if not -len(o) <= i < len(o):
                fail(sp, f"index {i} is outside the list of {len(o)} item(s) (the first is 0)")
            return o[i]
        return f

    def visit_Call(self, e, scope):
        book = self.book
        callee = resolve_callee(e.func.name, scope, book.syms).kind if isinstance(e.func, n.Name) else "value"
        is_round = callee == "builtin" and e.func.name == "round"
        args = [self.compile(a, scope) for a in e.args]
        kwargs = [(k, self.compile(a, scope)) for k, a in e.kwargs]
        sp = e.span
        if callee in ("builtin", "mechanic", "table"):
            name = e.func.name
            if is_round:
                mode = e.mode
                x = args[0]
                fn = BUILTINS["round"][0]

                def rnd(env, ctx):
                    try:
                        return fn(x(env, ctx), mode)
                    except EvaluationError as err:
                        fail(sp, str(err))
                return rnd
            if callee == "builtin":
                fn = book.defined if name == "defined" else BUILTINS[name][0]

                def builtin(env, ctx):
                    values = [a(env, ctx) for a in args]
                    try:
                        return fn(*values)
                    except EvaluationError as err:
                        fail(sp, str(err))
                    except RulesError:
                        raise
                    except (TypeError, ValueError, ArithmeticError):
                        # e.g. max over values that have no order (absent, booleans and numbers)
                        fail(sp, f"{name}() cannot take {', '.join(show(v) for v in values)}")
                return builtin
            if callee == "mechanic":
                given, plain = split_roll_kwargs(book, name, kwargs)

                def mech(env, ctx):
                    m = book.mechanics[name]
                    bound = m.bind([a(env, ctx) for a in args], {k: a(env, ctx) for k, a in plain})
                    child = ctx.child(name)
                    if not given:
                        return m.invoke(bound, child)
                    roller = ForcedRoller(ctx.roller, {child.prefix + k: a(env, ctx) for k, a in given})
                    value = m.invoke(bound, Ctx(roller, child.prefix, child.depth, child.budget))
                    roller.check_used(name, child.prefix)
                    return value
                return mech
            if callee == "table":
                def table(env, ctx):
                    t = book.tables[name]
                    if ctx.reads is not None:
                        return t.read(ctx.reads, *[a(env, ctx) for a in args], **{k: a(env, ctx) for k, a in kwargs})
                    return t.lookup(*[a(env, ctx) for a in args], **{k: a(env, ctx) for k, a in kwargs})
                return table
        ff = self.compile(e.func, scope)

        def dynamic(env, ctx):
            fn = ff(env, ctx)
            if isinstance(fn, Invocable):
                return fn.invoke(fn.bind([a(env, ctx) for a in args], {k: a(env, ctx) for k, a in kwargs}), ctx.child(fn.name))
            if isinstance(fn, TableFn):
                if ctx.reads is not None:
                    return fn.read(ctx.reads, *[a(env, ctx) for a in args], **{k: a(env, ctx) for k, a in kwargs})
                return fn.lookup(*[a(env, ctx) for a in args], **{k: a(env, ctx) for k, a in kwargs})
            fail(sp, f"{show(fn)} cannot be called")
        return dynamic


def split_roll_kwargs(book, name: str, kwargs: list):
    """A call's compiled keyword arguments split into (the callee's rolls given by
    name, its parameters): `attack(n=3, save=1)` gives the roll `save`, and
    `attack(n=3, morale.first=[6, 6])` the roll `first` of the `morale` it calls
    (a path, `rules_dsl.language.rollpaths`; `[0]` is dropped: it names the first call)."""
    roll_names = {s.name for s in book.syms.mechanics[name].body if isinstance(s, n.Roll)}
    given = [(rollpaths.canonical(k), a) for k, a in kwargs if k in roll_names or rollpaths.is_path(k)]
    return given, [(k, a) for k, a in kwargs if k not in roll_names and not rollpaths.is_path(k)]


def compile_expr(book, e: n.Expr, scope: frozenset):
    """Return a closure f(env, ctx) computing `e` (the plain `ExprCompiler`)."""
    return ExprCompiler(book).compile(e, scope)
