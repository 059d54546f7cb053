"""Checked AST -> executable resolvers, as Python closures.

Each expression node becomes a closure `f(env, ctx)`: `env` holds the locals
(parameters, lets, rolls), `ctx` the roller and the roll-name prefix.  Nothing
from the rulebook text is ever evaluated as Python: the closures are built from
the AST's node types alone, so a rulebook cannot run arbitrary code.
"""
from __future__ import annotations

import functools
import inspect
import random
from fractions import Fraction

from . import nodes as n
from .builtins import BUILTINS
from .checks import Symbols, defined_names, name_key
from .dice import MAX_DICE, DieInfo, ForcedRoller, GivenRoller, Symbolic
from .errors import Diagnostic, EvaluationError, InputError, RulebookError, RulesError, line_of
from .model import BookAST, decls_of
from .render import dice_text as _dice_text, expr_text as _expr_text
from .values import ABSENT, Record, Sym, number, show


def _fail(span: n.Span, msg: str):
    raise EvaluationError(f"{span}: {msg}")


# Explicit limits on one evaluation, so a hostile or mistaken book ends with a clear
# error instead of a hang: how deep mechanics may call each other, and how many
# steps (mechanic calls and comprehension items) one top-level call may take.
MAX_CALL_DEPTH = 50
MAX_STEPS = 100_000          # the real books' heaviest evaluation takes 56
MAX_RANGE = 1_000_000
MAX_CHECK_CASES = 200_000    # the real books' largest check domain has 100 cases
UNLIMITED = None  # pass as `budget` where another guard bounds the work (the odds engine)


class Ctx:
    """Evaluation context: the roller, the prefix naming nested mechanics' rolls, and
    the step budget shared by every call made under one top-level evaluation.

    `reads`, when a list, collects the table entries that expressions evaluated in
    this very context look up (`(table, entry index)`): a check sets it to learn which
    printed values a case read.  Nested mechanics get a fresh context without it, so
    only the check's own lookups count, and ordinary calls pay one `is None` test."""
    __slots__ = ("roller", "prefix", "depth", "budget", "reads")

    def __init__(self, roller, prefix="", depth=0, budget=False, reads=None):
        self.roller, self.prefix, self.depth, self.reads = roller, prefix, depth, reads
        self.budget = [MAX_STEPS] if budget is False else (budget if budget is not None else [float("inf")])

    def child(self, name):
        if self.depth >= MAX_CALL_DEPTH:
            raise EvaluationError(f"mechanics call each other more than {MAX_CALL_DEPTH} levels deep (a cycle?)")
        self.spend(1)
        return Ctx(self.roller, f"{self.prefix}{name}.", self.depth + 1, self.budget)

    def spend(self, steps):
        b = self.budget
        b[0] -= steps
        if b[0] < 0:
            raise EvaluationError(f"the evaluation takes more than {MAX_STEPS:,} steps (mechanic calls and "
                                  "list items); is a mechanic calling others in a loop?")


# ---------------------------------------------------------------------- types
class TypeCheck:
    """Validates (and normalises) a value against a declared type."""

    def __init__(self, t: n.Type, book: "CompiledBook"):
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


# ---------------------------------------------------------------- the program
class CompiledBook:
    """The executable side of a book: constants, enums, dice, tables, mechanics, checks."""

    def __init__(self, ast: BookAST, syms: Symbols, texts: dict):
        self.ast, self.syms, self.texts = ast, syms, texts
        self.book_id = ast.id
        self.enums = {name: {m: Sym(m, name) for m in e.members} for name, e in syms.enums.items()}
        self.dice = {name: DieInfo(name, tuple(Sym(f, name) for f in d.faces) if d.custom else d.faces, d.custom)
                     for name, d in syms.dice.items()}
        self.members = {}
        for m, owners in syms.members.items():
            if len(owners) == 1:
                owner = owners[0]
                self.members[m] = self.enums[owner][m] if owner in self.enums else Sym(m, owner)
        self._const_values, self._const_busy = {}, set()
        self.tables, self.mechanics, self.checks = {}, {}, {}
        diags = []
        for p in decls_of(ast):
            d = p.node
            try:
                if isinstance(d, n.Table):
                    self.tables[d.name] = TableFn(self, d)
                elif isinstance(d, n.Mechanic):
                    self.mechanics[d.name] = MechanicFn(self, d)
                elif isinstance(d, n.Check):
                    self.checks[d.name] = CheckFn(self, d, p.rule.id if p.rule else "")
            except RulebookError as e:
                diags.extend(e.diagnostics)
        if not diags:
            for name in syms.consts:
                try:
                    self.const(name)
                except EvaluationError as e:
                    c = syms.consts[name]
                    diags.append(self.diag(c.span, f"constant '{name}' cannot be evaluated: {e}"))
            for m in self.mechanics.values():
                diags.extend(m.check_defaults())
        if diags:
            raise RulebookError(diags)

    @functools.cached_property
    def defined_names(self) -> dict:
        """The names the book defines (rule titles, aliases, keywords; see checks.name_key) -> rule id."""
        return defined_names(self.ast)

    def defined(self, name) -> bool:
        """The `defined` built-in: does a rule of this book have that title, alias or keyword?"""
        if not isinstance(name, str):
            raise EvaluationError(f"defined() takes a name (text), got {show(name)}")
        return name_key(name) in self.defined_names

    def diag(self, span, msg, hint=""):
        return Diagnostic(span.file, span.line, span.column, msg, hint, line_of(self.texts.get(span.file, ""), span.line))

    def const(self, name):
        if name in self._const_values:
            return self._const_values[name]
        if name in self._const_busy:
            raise EvaluationError(f"constant '{name}' is defined in terms of itself")
        self._const_busy.add(name)
        try:
            value = compile_expr(self, self.syms.consts[name].value, frozenset())({}, Ctx(GivenRoller()))
        finally:
            self._const_busy.discard(name)
        self._const_values[name] = value
        return value


class _Namespace:
    """`outcome.pinned` in examples: an enum's members as attributes."""

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


# -------------------------------------------------------------- expressions
def compile_expr(book: CompiledBook, e: n.Expr, scope: frozenset):
    """Return a closure f(env, ctx) computing `e`.  `scope` holds the local names."""
    c = _COMPILERS[type(e)]
    return c(book, e, scope)


def _lit(book, e, scope):
    v = number(e.value) if isinstance(e.value, Fraction) else e.value
    return lambda env, ctx: v


def _name(book, e, scope):
    name = e.name
    if name in scope:
        def local(env, ctx):
            return env[name]
        return local
    syms = book.syms
    if name in syms.consts:
        return lambda env, ctx: book.const(name)
    if name in syms.mechanics:
        return lambda env, ctx: book.mechanics[name]
    if name in syms.tables:
        return lambda env, ctx: book.tables[name]
    if name in book.members:
        v = book.members[name]
        return lambda env, ctx: v
    if name in book.enums:
        v = _Namespace(name, book.enums[name])
        return lambda env, ctx: v
    if name in book.dice:
        v = book.dice[name]
        return lambda env, ctx: v
    if name in BUILTINS:
        v = book.defined if name == "defined" else BUILTINS[name][0]
        return lambda env, ctx: v
    raise AssertionError(f"unresolved name {name}")  # the checks pass rejects this first


def _need_num(span, v, what):
    if v is ABSENT:
        _fail(span, f"{what}: the value is absent in the source rulebook")
    if isinstance(v, bool) or not isinstance(v, (int, Fraction)):
        _fail(span, f"{what}: expected a number, got {show(v)}")
    return v


def _binop(book, e, scope):
    lf, rf, op, sp = compile_expr(book, e.left, scope), compile_expr(book, e.right, scope), e.op, e.span

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
            _fail(sp, f"division by zero in '{op}'")
        if op == "/":
            return number(Fraction(a) / Fraction(b))
        return number(a % b)
    return f


def _contains(span, container, item):
    if isinstance(item, Symbolic):      # an exact-odds stand-in: let it see the test (see dice.Symbolic)
        return item.observe(lambda v: _contains(span, container, v), ("in", container))
    if container is ABSENT:
        _fail(span, "'in': the collection is absent in the source rulebook")
    if isinstance(container, (list, tuple, range, frozenset, set, str)):
        try:
            return item in container
        except TypeError:
            return False
    if isinstance(container, _Namespace):
        return item in list(container)
    if isinstance(container, DieInfo):
        return item in container.faces
    _fail(span, f"'in': cannot look inside {show(container)}")


def _compare(book, e, scope):
    lf, rf, op, sp = compile_expr(book, e.left, scope), compile_expr(book, e.right, scope), e.op, e.span
    if op == "==":
        return lambda env, ctx: lf(env, ctx) == rf(env, ctx)
    if op == "!=":
        return lambda env, ctx: lf(env, ctx) != rf(env, ctx)
    if op == "in":
        return lambda env, ctx: _contains(sp, rf(env, ctx), lf(env, ctx))
    if op == "notin":
        return lambda env, ctx: not _contains(sp, rf(env, ctx), lf(env, ctx))
    import operator
    fn = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

    def f(env, ctx):
        a, b = lf(env, ctx), rf(env, ctx)
        return fn(_need_num(sp, a, f"'{op}'"), _need_num(sp, b, f"'{op}'"))
    return f


def _boolop(book, e, scope):
    lf, rf = compile_expr(book, e.left, scope), compile_expr(book, e.right, scope)
    if e.op == "and":
        return lambda env, ctx: bool(lf(env, ctx)) and bool(rf(env, ctx))
    return lambda env, ctx: bool(lf(env, ctx)) or bool(rf(env, ctx))


def _not(book, e, scope):
    f = compile_expr(book, e.operand, scope)
    return lambda env, ctx: not f(env, ctx)


def _neg(book, e, scope):
    f, sp = compile_expr(book, e.operand, scope), e.span
    return lambda env, ctx: -_need_num(sp, f(env, ctx), "'-'")


def _ifelse(book, e, scope):
    c, t, o = (compile_expr(book, x, scope) for x in (e.cond, e.then, e.orelse))
    return lambda env, ctx: t(env, ctx) if c(env, ctx) else o(env, ctx)


def _range(book, e, scope):
    lo, hi, sp = compile_expr(book, e.low, scope), compile_expr(book, e.high, scope), e.span

    def f(env, ctx):
        a, b = lo(env, ctx), hi(env, ctx)
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (a, b)):
            _fail(sp, f"a range needs whole numbers, got {show(a)}..{show(b)}")
        if b - a >= MAX_RANGE:
            _fail(sp, f"the range {a}..{b} has more than {MAX_RANGE:,} values")
        return range(a, b + 1)
    return f


def _list(book, e, scope):
    fs = [compile_expr(book, x, scope) for x in e.items]
    return lambda env, ctx: [f(env, ctx) for f in fs]


def _set(book, e, scope):
    fs = [compile_expr(book, x, scope) for x in e.items]

    def f(env, ctx):
        out = []
        for g in fs:
            v = g(env, ctx)
            out.extend(v) if isinstance(v, (range, list, frozenset)) else out.append(v)
        return frozenset(out)
    return f


def _iterable(span, v):
    if v is ABSENT:
        _fail(span, "cannot iterate: the collection is absent in the source rulebook")
    if isinstance(v, (list, tuple, range, frozenset, set)):
        return sorted(v, key=repr) if isinstance(v, (frozenset, set)) else v
    if isinstance(v, _Namespace):
        return list(v)
    if isinstance(v, TableFn):
        return v.rows()
    _fail(span, f"cannot iterate over {show(v)}")


def _comprehension(book, e, scope):
    src = compile_expr(book, e.source, scope)
    inner = scope | {e.var}
    elem = compile_expr(book, e.elem, inner)
    cond = compile_expr(book, e.cond, inner) if e.cond is not None else None
    var, sp = e.var, e.span

    def f(env, ctx):
        out = []
        local = dict(env)
        items = _iterable(sp, src(env, ctx))
        ctx.spend(len(items))
        for x in items:
            local[var] = x
            if cond is None or cond(local, ctx):
                out.append(elem(local, ctx))
        return out
    return f


def _attr(book, e, scope):
    if isinstance(e.obj, n.Name) and e.obj.name not in scope:
        if e.obj.name in book.enums:
            v = book.enums[e.obj.name][e.name]
            return lambda env, ctx: v
        if e.obj.name in book.dice and book.dice[e.obj.name].custom:
            v = Sym(e.name, e.obj.name)
            return lambda env, ctx: v
    of, name, sp = compile_expr(book, e.obj, scope), e.name, e.span

    def f(env, ctx):
        o = of(env, ctx)
        if isinstance(o, Record):
            fields = o.as_dict()   # fields only: never a Python attribute of the record object
            if name in fields:
                return fields[name]
            _fail(sp, f"the record has no field '{name}' (fields: {', '.join(fields)})")
        _fail(sp, f"cannot take '.{name}' of {show(o)}")
    return f


def _index(book, e, scope):
    of, ix, sp = compile_expr(book, e.obj, scope), compile_expr(book, e.index, scope), e.span

    def f(env, ctx):
        o, i = of(env, ctx), ix(env, ctx)
        if not isinstance(o, (list, tuple)) or not isinstance(i, int):
            _fail(sp, f"cannot index {show(o)} with {show(i)}")
        if not -len(o) <= i < len(o):
            _fail(sp, f"index {i} is outside the list of {len(o)} item(s) (the first is 0)")
        return o[i]
    return f


def _call(book, e, scope):
    is_round = isinstance(e.func, n.Name) and e.func.name == "round" and e.func.name not in scope
    args = [compile_expr(book, a, scope) for a in (e.args[:1] if is_round else e.args)]
    kwargs = [(k, compile_expr(book, a, scope)) for k, a in e.kwargs]
    sp = e.span
    if isinstance(e.func, n.Name) and e.func.name not in scope:
        name = e.func.name
        if name == "round":
            mode = e.args[1].name
            x = args[0]
            fn = BUILTINS["round"][0]

            def rnd(env, ctx):
                try:
                    return fn(x(env, ctx), mode)
                except EvaluationError as err:
                    _fail(sp, str(err))
            return rnd
        if name in BUILTINS and name not in book.syms.globals():
            fn = book.defined if name == "defined" else BUILTINS[name][0]

            def builtin(env, ctx):
                values = [a(env, ctx) for a in args]
                try:
                    return fn(*values)
                except EvaluationError as err:
                    _fail(sp, str(err))
                except RulesError:
                    raise
                except (TypeError, ValueError, ArithmeticError):
                    # e.g. max over values that have no order (absent, booleans and numbers)
                    _fail(sp, f"{name}() cannot take {', '.join(show(v) for v in values)}")
            return builtin
        if name in book.syms.mechanics:
            roll_names = {s.name for s in book.syms.mechanics[name].body if isinstance(s, n.Roll)}
            given = [(k, a) for k, a in kwargs if k in roll_names]
            plain = [(k, a) for k, a in kwargs if k not in roll_names]

            def mech(env, ctx):
                m = book.mechanics[name]
                bound = m.bind([a(env, ctx) for a in args], {k: a(env, ctx) for k, a in plain})
                child = ctx.child(name)
                if given:
                    forced = {child.prefix + k: a(env, ctx) for k, a in given}
                    child = Ctx(ForcedRoller(ctx.roller, forced), child.prefix, child.depth, child.budget)
                return m.invoke(bound, child)
            return mech
        if name in book.syms.tables:
            def table(env, ctx):
                t = book.tables[name]
                if ctx.reads is not None:
                    return t.read(ctx.reads, *[a(env, ctx) for a in args], **{k: a(env, ctx) for k, a in kwargs})
                return t.lookup(*[a(env, ctx) for a in args], **{k: a(env, ctx) for k, a in kwargs})
            return table
    ff = compile_expr(book, e.func, scope)

    def dynamic(env, ctx):
        fn = ff(env, ctx)
        if isinstance(fn, MechanicFn):
            return fn.invoke(fn.bind([a(env, ctx) for a in args], {k: a(env, ctx) for k, a in kwargs}), ctx.child(fn.name))
        if isinstance(fn, TableFn):
            if ctx.reads is not None:
                return fn.read(ctx.reads, *[a(env, ctx) for a in args], **{k: a(env, ctx) for k, a in kwargs})
            return fn.lookup(*[a(env, ctx) for a in args], **{k: a(env, ctx) for k, a in kwargs})
        _fail(sp, f"{show(fn)} cannot be called")
    return dynamic


_COMPILERS = {
    n.Literal: _lit, n.Name: _name, n.BinOp: _binop, n.Compare: _compare, n.BoolOp: _boolop,
    n.Not: _not, n.Neg: _neg, n.IfElse: _ifelse, n.RangeExpr: _range, n.ListLit: _list,
    n.SetLit: _set, n.Comprehension: _comprehension, n.Attr: _attr, n.Index: _index, n.Call: _call,
}


# ------------------------------------------------------------------ mechanics
class MechanicFn:
    """A compiled mechanic: a real callable with a signature and a docstring.

    Call it like a Python function; pass a roll's name as a keyword to give that
    roll's value instead of rolling it (`defence_roll(5, die=7)`).
    """

    def __init__(self, book: CompiledBook, node: n.Mechanic):
        self.book, self.node = book, node
        self.name = self.__name__ = node.name
        self.book_id = book.book_id
        self.params = node.params
        self.checks = {p.name: TypeCheck(p.type, book) for p in node.params}
        self.returns = TypeCheck(node.returns, book)
        scope = frozenset(p.name for p in node.params)
        self.defaults = {p.name: compile_expr(book, p.default, frozenset()) for p in node.params if p.default is not None}
        self._default_values = {}
        steps = []
        self.rolls = []
        for s in node.body:
            if isinstance(s, n.Let):
                steps.append(("let", s.name, compile_expr(book, s.value, scope)))
                scope = scope | {s.name}
            elif isinstance(s, n.Roll):
                steps.append(("roll", s.name, self._compile_roll(s, scope)))
                self.rolls.append(s)
                scope = scope | {s.name}
            else:
                steps.append(("require", s.message, compile_expr(book, s.cond, scope), s.span))
        self.steps = steps
        self.result = compile_expr(book, node.result, scope)
        self.__doc__ = self._docstring()
        self.__signature__ = self._signature()
        self.__qualname__ = f"{self.book_id}:{self.name}"

    # -- introspection
    @property
    def has_dice(self) -> bool:
        return bool(self.rolls) or any(m.has_dice for m in self._callees())

    def _callees(self, seen=None):
        seen = set() if seen is None else seen
        out = []
        for name in _called_mechanics(self.node):
            if name not in seen and name in self.book.mechanics:
                seen.add(name)
                m = self.book.mechanics[name]
                out.append(m)
                out.extend(m._callees(seen))
        return out

    def signature_text(self) -> str:
        parts = []
        for p in self.params:
            s = f"{p.name}: {self.checks[p.name].describe}"
            if p.default is not None:
                s += f" = {show(self.default(p.name))}"
            parts.append(s)
        parts += [f"roll {r.name}: {_dice_text(r.dice)}" for r in self.rolls]
        return f"{self.name}({', '.join(parts)}) -> {self.returns.describe}"

    def _docstring(self):
        lines = [self.node.doc or ""]
        lines.append("")
        for p in self.params:
            lines.append(f"{p.name}: {self.checks[p.name].describe}")
        for r in self.rolls:
            lines.append(f"{r.name} (roll): {_dice_text(r.dice)}; rolled unless given")
        lines.append(f"returns: {self.returns.describe}")
        return "\n".join(lines).strip()

    def _signature(self):
        P = inspect.Parameter
        ps = []
        for p in self.params:
            default = P.empty
            if p.default is not None:
                default = self.default(p.name)
            ps.append(P(p.name, P.POSITIONAL_OR_KEYWORD, default=default))
        for r in self.rolls:
            ps.append(P(r.name, P.KEYWORD_ONLY, default=None))
        return inspect.Signature(ps)

    def default(self, name):
        """A parameter's default value (a constant expression: evaluated once)."""
        if name not in self._default_values:
            self._default_values[name] = self.defaults[name]({}, Ctx(GivenRoller()))
        return self._default_values[name]

    def check_defaults(self):
        diags = []
        for p in self.params:
            if p.default is None:
                continue
            try:
                self.checks[p.name].convert(self.default(p.name))
            except (ValueError, EvaluationError):
                diags.append(self.book.diag(p.default.span, f"default of '{p.name}' does not fit its type",
                                            f"allowed: {self.checks[p.name].describe}"))
        return diags

    def _compile_roll(self, s: n.Roll, scope):
        spec, book = s.dice, self.book
        die = book.dice[spec.die]
        count = compile_expr(book, spec.count, scope) if spec.count is not None else None
        on = compile_expr(book, spec.on, scope) if spec.on is not None else None
        then = compile_expr(book, spec.then, scope) if spec.then is not None else None
        name, sp = s.name, s.span

        def n_dice(env, ctx):
            k = count(env, ctx)
            if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_DICE:
                _fail(sp, f"roll '{name}': the number of dice must be 0..{MAX_DICE}, got {show(k)}")
            return k

        if spec.kind == "one":
            return lambda env, ctx: ctx.roller.one(ctx.prefix + name, die)
        if spec.kind == "pool":
            return lambda env, ctx: ctx.roller.pool(ctx.prefix + name, die, n_dice(env, ctx))

        def chain(env, ctx):
            k = n_dice(env, ctx) if count is not None else 1
            first = frozenset(_iterable(sp, on(env, ctx)))
            later = frozenset(_iterable(sp, then(env, ctx))) if then is not None else first
            return ctx.roller.chain(ctx.prefix + name, die, k, first, later)
        return chain

    # -- calling
    def bind(self, args, kwargs) -> dict:
        """Match arguments to parameters, validate them, fill defaults."""
        names = [p.name for p in self.params]
        if len(args) > len(names):
            raise InputError(self.name, names[-1] if names else "-", args[len(names)],
                             f"at most {len(names)} argument(s): {', '.join(names)}")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                from .errors import NotFound
                raise NotFound("parameter", k, names, where=f"{self.book_id}:{self.name}")
            bound[k] = v
        for p in self.params:
            if p.name not in bound:
                if p.default is None:
                    raise InputError(self.name, p.name, None, f"a value is required ({self.checks[p.name].describe})")
                bound[p.name] = self.default(p.name)
            try:
                bound[p.name] = self.checks[p.name].convert(bound[p.name])
            except ValueError:
                raise InputError(self.name, p.name, bound[p.name], self.checks[p.name].describe) from None
        return bound

    def invoke(self, bound: dict, ctx: Ctx):
        env = dict(bound)
        for step in self.steps:
            kind = step[0]
            if kind == "let" or kind == "roll":
                env[step[1]] = step[2](env, ctx)
            else:
                if not step[2](env, ctx):
                    raise EvaluationError(f"{self.name}: {step[1]}")
        value = self.result(env, ctx)
        if isinstance(value, range):
            value = list(value)
        try:
            return self.returns.convert(value)
        except ValueError:
            raise EvaluationError(f"{self.node.span}: {self.name} produced {show(value)}, "
                                  f"which is not {self.returns.describe} as declared") from None

    def run(self, *args, rolls=None, seed=None, rng=None, **kwargs):
        """Evaluate; return (result, rolls made).  `rolls` gives named rolls' values."""
        roll_names = {r.name for r in self.rolls}
        given = dict(rolls or {})
        for k in list(kwargs):
            if k in roll_names and k not in {p.name for p in self.params}:
                given[k] = kwargs.pop(k)
        bound = self.bind(list(args), kwargs)
        roller = GivenRoller(given, rng or (random.Random(seed) if seed is not None else random.Random()))
        try:
            result = self.invoke(bound, Ctx(roller))
        except RecursionError:
            raise EvaluationError(f"{self.name}: the evaluation nests too deeply") from None
        unknown = set(given) - roller.used
        if unknown:
            from .errors import NotFound
            raise NotFound("roll", sorted(unknown)[0], list(roller.made) + sorted(roll_names),
                           where=f"{self.book_id}:{self.name} (rolls made: {', '.join(roller.made) or 'none'})")
        return result, roller.made

    def __call__(self, *args, **kwargs):
        return self.run(*args, **kwargs)[0]

    def __repr__(self):
        return f"<mechanic {self.book_id}:{self.signature_text()}>"


def _called_mechanics(node):
    """Names of the mechanics and tables a mechanic calls by name."""
    return [x.func.name for x in n.iter_nodes(node) if isinstance(x, n.Call) and isinstance(x.func, n.Name)]


# --------------------------------------------------------------------- tables
class Printed(tuple):
    """Where a table entry is printed: (table name, span of its row or grid cell, its keys)."""
    __slots__ = ()

    def __new__(cls, table, span, keys):
        return super().__new__(cls, (table, span, keys))

    table = property(lambda self: self[0])
    span = property(lambda self: self[1])
    keys = property(lambda self: self[2])


class RowRecord(Record):
    """A table row as a record that remembers where it is printed.

    It equals, hashes, prints and pickles as the plain `Record` it is (the origin
    is dropped on pickling): only the checks' findings read the origin."""
    __slots__ = ("_origin",)

    def __init__(self, fields: dict, origin: Printed):
        super().__init__(fields)
        object.__setattr__(self, "_origin", origin)


def origin(value):
    """Where a table row or entry value is printed (a `Printed`), or None."""
    return value._origin if isinstance(value, RowRecord) else None


class TableFn:
    """A data table: call it with its keys to look a value up; `rows()` lists it."""

    def __init__(self, book: CompiledBook, node: n.Table):
        self.book, self.node = book, node
        self.name = self.__name__ = node.name
        self.keys = node.params
        self.key_checks = [TypeCheck(p.type, book) for p in node.params]
        rt = node.returns
        self.fields = [f for f, _ in rt.fields] if isinstance(rt, n.RecordType) else None
        self.value_checks = ([TypeCheck(t, book) for _, t in rt.fields] if self.fields
                             else [TypeCheck(rt, book)])
        self.entries = []      # list of (keys tuple of value-or-range, value)
        self.spans = []        # parallel to entries: where each is printed (a row, or a grid's cell)
        diags = []
        if node.grid:
            self._build_grid(diags)
        else:
            self._build_rows(diags)
        if diags:
            raise RulebookError(diags)
        self._exact, self._exact_at = {}, {}
        if not any(isinstance(k, range) for keys, _ in self.entries for k in keys):
            for i, (keys, v) in enumerate(self.entries):
                self._exact[keys] = v
                self._exact_at.setdefault(keys, i)
        self.__doc__ = node.doc

    def _cell(self, cell: n.Cell, check: TypeCheck, diags, key=False):
        v = cell.value
        if isinstance(v, n.Name):
            name = v.name
            v = self.book.members[name] if name in self.book.members else (
                self.book.const(name) if name in self.book.syms.consts else name)
        if isinstance(v, tuple):
            if not key:
                diags.append(self.book.diag(cell.span, "a range can only be a key cell"))
                return None
            for bound in v:
                try:
                    check.convert(bound)
                except ValueError:
                    diags.append(self.book.diag(cell.span, f"range {v[0]}..{v[1]} does not fit the key's type",
                                                f"allowed: {check.describe}"))
            return range(v[0], v[1] + 1)
        if v is ABSENT:
            if key:
                diags.append(self.book.diag(cell.span, "a key cannot be absent"))
            return ABSENT
        try:
            return check.convert(v)
        except ValueError:
            diags.append(self.book.diag(cell.span, f"{show(v)} does not fit this column",
                                        f"allowed: {check.describe}"))
            return None

    def _build_rows(self, diags):
        nk, nv = len(self.keys), len(self.value_checks)
        width = nk + nv
        if self.node.header and len(self.node.header) != width:
            diags.append(self.book.diag(self.node.span, f"the header has {len(self.node.header)} columns; "
                                        f"the table has {nk} key(s) and {nv} value(s)"))
        for row in self.node.rows:
            if len(row) != width:
                diags.append(self.book.diag(row[0].span, f"this row has {len(row)} cells, expected {width}"))
                continue
            keys = tuple(self._cell(c, ch, diags, key=True) for c, ch in zip(row[:nk], self.key_checks))
            vals = [self._cell(c, ch, diags) for c, ch in zip(row[nk:], self.value_checks)]
            origin = Printed(self.name, row[0].span, keys)
            value = RowRecord(dict(zip(self.fields, vals)), origin) if self.fields else vals[0]
            self.entries.append((keys, value))
            self.spans.append(row[0].span)

    def _build_grid(self, diags):
        if len(self.keys) != 2 or self.fields:
            diags.append(self.book.diag(self.node.span, "a grid table has exactly two keys and one value",
                                        "the header row holds the second key's values"))
            return
        cols = [self._cell(c, self.key_checks[1], diags, key=True) for c in self.node.header[1:]]
        for row in self.node.rows:
            if len(row) != len(cols) + 1:
                diags.append(self.book.diag(row[0].span, f"this row has {len(row)} cells, expected {len(cols) + 1}"))
                continue
            rk = self._cell(row[0], self.key_checks[0], diags, key=True)
            for ck, c in zip(cols, row[1:]):
                self.entries.append(((rk, ck), self._cell(c, self.value_checks[0], diags)))
                self.spans.append(c.span)

    def lookup(self, *args, **kwargs):
        names = [p.name for p in self.keys]
        if len(args) > len(names):
            raise InputError(self.name, names[-1], args[-1], f"{len(names)} key(s): {', '.join(names)}")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                from .errors import NotFound
                raise NotFound("key", k, names, where=f"{self.book.book_id}:{self.name}")
            bound[k] = v
        keys = []
        for p, check in zip(self.keys, self.key_checks):
            if p.name not in bound:
                raise InputError(self.name, p.name, None, f"a value is required ({check.describe})")
            try:
                keys.append(check.convert(bound[p.name]))
            except ValueError:
                raise InputError(self.name, p.name, bound[p.name], check.describe) from None
        keys = tuple(keys)
        if self._exact:
            if keys in self._exact:
                return self._exact[keys]
        else:
            for ks, v in self.entries:
                if all((k in want) if isinstance(want, range) else k == want for k, want in zip(keys, ks)):
                    return v
        shown = ", ".join(f"{p.name}={show(k)}" for p, k in zip(self.keys, keys))
        raise EvaluationError(f"table {self.name} has no row for {shown}")

    __call__ = lookup

    def read(self, reads: list, *args, **kwargs):
        """`lookup`, also appending where the value is printed to `reads` (see `Ctx.reads`)."""
        value = self.lookup(*args, **kwargs)
        names = [p.name for p in self.keys]
        bound = dict(zip(names, args))
        bound.update(kwargs)
        keys = tuple(ch.convert(bound[p.name]) for p, ch in zip(self.keys, self.key_checks))
        if self._exact_at:
            i = self._exact_at[keys]
        else:
            i = next(i for i, (ks, _) in enumerate(self.entries)
                     if all((k in want) if isinstance(want, range) else k == want for k, want in zip(keys, ks)))
        reads.append(self.printed(i))
        return value

    def printed(self, i: int) -> "Printed":
        """Where entry `i` is printed: this table, the row (or grid cell), its keys."""
        return Printed(self.name, self.spans[i], self.entries[i][0])

    def rows(self):
        """Every row as a record of its keys and values (ranges stay ranges).

        Each record remembers where it is printed (`origin(record)`); that does not
        change how it compares, hashes or pickles."""
        out = []
        names = [p.name for p in self.keys]
        for i, (keys, v) in enumerate(self.entries):
            d = dict(zip(names, keys))
            if isinstance(v, Record):
                d.update(v.as_dict())
            else:
                d["value"] = v
            out.append(RowRecord(d, self.printed(i)))
        return out

    def __repr__(self):
        return f"<table {self.book.book_id}:{self.name} ({len(self.entries)} entries)>"


# --------------------------------------------------------------------- checks
class CheckFn:
    """A claim over a whole domain; each case where it is false is reported."""

    def __init__(self, book: CompiledBook, node: n.Check, rule_id: str):
        self.book, self.node, self.rule_id = book, node, rule_id
        self.name = node.name
        scope = frozenset()
        self.sources = []
        for b in node.bindings:
            self.sources.append((b.name, compile_expr(book, b.source, scope), b.span))
            scope = scope | {b.name}
        self.where = compile_expr(book, node.where, scope) if node.where is not None else None
        # `where` filters as soon as the bindings it mentions are bound, so it can guard later ones
        names = [b.name for b in node.bindings]
        used = _names_in(node.where) if node.where is not None else set()
        self.where_level = max([names.index(x) + 1 for x in used if x in names], default=0)
        claim = node.claim
        self.claim = compile_expr(book, claim, scope)
        self.sides = None
        if isinstance(claim, n.Compare) and claim.op in ("==", "!=", "<", "<=", ">", ">="):
            self.sides = (compile_expr(book, claim.left, scope), compile_expr(book, claim.right, scope),
                          _expr_text(claim.left), _expr_text(claim.right))

    def run(self):
        """Return (cases checked, list of failing cases); each case is a dict."""
        failures, total = [], 0
        ctx = Ctx(GivenRoller(rng=random.Random(0)), reads=[])

        def rec(i, env):
            nonlocal total
            if i == self.where_level and self.where is not None and not self.where(env, ctx):
                return
            if i == len(self.sources):
                total += 1
                if total > MAX_CHECK_CASES:
                    raise EvaluationError(f"the check's domain has more than {MAX_CHECK_CASES:,} cases")
                ctx.budget[0] = MAX_STEPS  # each case gets the budget of one evaluation
                ctx.reads = []
                if not self.claim(env, ctx):
                    # the printed values behind the case: rows it is bound to, then entries its claim read
                    printed = [o for o in map(origin, env.values()) if o is not None]
                    printed += [r for r in ctx.reads if r not in printed]
                    case = {"bindings": {k: v for k, v in env.items()}, "printed": printed}
                    if self.sides:
                        case["left"] = (self.sides[2], self.sides[0](env, ctx))
                        case["right"] = (self.sides[3], self.sides[1](env, ctx))
                    failures.append(case)
                return
            name, src, sp = self.sources[i]
            for v in _iterable(sp, src(env, ctx)):
                rec(i + 1, {**env, name: v})

        rec(0, {})
        return total, failures


def _names_in(e) -> set:
    """The bare names an expression mentions."""
    return {x.name for x in n.iter_nodes(e) if isinstance(x, n.Name)}


def case_text(case) -> str:
    """One failing case as text: `yours=4, opposed=1: chart(...) = auto, formula(...) = 2`."""
    def short(v):
        if isinstance(v, Record):
            d = v.as_dict()
            for key in ("name", "item", "unit", "weapon"):
                if key in d:
                    return show(d[key])
        return show(v)
    text = ", ".join(f"{k}={short(v)}" for k, v in case["bindings"].items())
    if "left" in case:
        (lt, lv), (rt, rv) = case["left"], case["right"]
        text += f": {lt} = {show(lv)}, {rt} = {show(rv)}"
    return text
