"""Plan and order analysis: the engine's view of a mechanic before it runs.

`_Plan` puts a mechanic's statements in evaluation order, makes each roll inside
the statement that first reads it (`GroupStep`), records what later statements read
and which statements the aggregate fast path covers.  `RunsCompiler` (an
`ExprCompiler` subclass) compiles the engine's own copy of the statements.
`_OrderAnalysis` finds the pools whose order a mechanic reads."""
from __future__ import annotations

import dataclasses
import weakref

from ..compiler import LetStep, MechanicFn, RequireStep
from . import aggregate_plan
from .. import compiler as _compiler
from ..language import nodes as n
from ..analysis.resolve import resolve, resolve_callee


# ================================================================ the engine
def _names(node) -> set:
    return {x.name for x in n.iter_nodes(node) if isinstance(x, n.Name)}


def _mechanic_named(book, x: n.Name, scope=(), callee=False):
    """The compiled mechanic the name `x` refers to, or None, through name resolution: the
    checked book's map for a node of the book, else `resolve.resolve` (`resolve_callee`
    for the name in `name(...)`) in `scope`, for a node the engine rewrote."""
    r = book.syms.resolved.get(x) if not callee else None
    if r is None:
        r = (resolve_callee if callee else resolve)(x.name, scope, book.syms)
    return book.mechanics.get(r.name) if r.kind == "mechanic" else None


def calls_dice(node, book) -> bool:
    """Whether an expression names a mechanic that rolls dice (then it is enumerated)."""
    return any(m is not None and m.has_dice
               for m in (_mechanic_named(book, x) for x in n.iter_nodes(node) if isinstance(x, n.Name)))


def count_params(mech, seen=None) -> set:
    """The parameters that (through lets and calls) decide how many dice a roll throws."""
    seen = set() if seen is None else seen
    if mech.name in seen:
        return set()
    seen.add(mech.name)
    params = {p.name for p in mech.params}
    feeds = {}                                   # local name -> names its value is computed from
    sizes = set()                                # names read by a roll's count
    book = mech.book

    local = frozenset(params) | {st.name for st in mech.node.body if isinstance(st, (n.Let, n.Roll))}

    def calls(e):
        return [(x, m) for x in n.iter_nodes(e) if isinstance(x, n.Call) and isinstance(x.func, n.Name)
                for m in [_mechanic_named(book, x.func, local, callee=True)] if m is not None]

    def through_calls(e):
        for c, callee in calls(e):
            inner = count_params(callee, seen)
            names = [p.name for p in callee.params]
            for name, a in list(zip(names, c.args)) + [(k, a) for k, a in c.kwargs]:
                if name in inner:
                    sizes.update(_names(a))

    for st in mech.node.body:
        if isinstance(st, n.Let):
            feeds[st.name] = _names(st.value)
            through_calls(st.value)
        elif isinstance(st, n.Roll):
            if st.dice.count is not None:
                sizes.update(_names(st.dice.count))
                through_calls(st.dice.count)
        else:
            through_calls(st.cond)
    through_calls(mech.node.result)
    todo, done = list(sizes), set()
    while todo:
        x = todo.pop()
        if x in done:
            continue
        done.add(x)
        todo.extend(feeds.get(x, ()))
    return done & params


class RunsCompiler(_compiler.ExprCompiler):
    """The engine's own copy of a mechanic's statements: a dice-free comprehension
    (its element and condition call no rolling mechanic) evaluates its body once per
    run of identical items.  The engine hands a pool over as runs of one object per
    face class, and a body that rolls no dice gives the same value for the same
    object.  Every other node compiles as in `ExprCompiler`."""

    def visit_Comprehension(self, e, scope):
        book = self.book
        if calls_dice(e.elem, book) or (e.cond is not None and calls_dice(e.cond, book)):
            return super().visit_Comprehension(e, scope)
        src = self.compile(e.source, scope)
        inner = scope | {e.var}
        elem = self.compile(e.elem, inner)
        cond = self.compile(e.cond, inner) if e.cond is not None else None
        var, sp, iterable = e.var, e.span, _compiler.iterable

        def f(env, ctx):
            out = []
            local = dict(env)
            prev, keep, val = _UNSET, False, None
            for x in iterable(sp, src(env, ctx)):
                if x is not prev:
                    prev = x
                    local[var] = x
                    keep = cond is None or cond(local, ctx)
                    if keep:
                        val = elem(local, ctx)
                if keep:
                    out.append(val)
            return out
        return f


_UNSET = object()


# Which pools' order a mechanic depends on.  The engine hands a pool over in a canonical
# order (its multiset is what is enumerated); that is exact unless the mechanic reads
# the order: indexes a list that follows a pool's order, compares such lists, or passes
# one to a mechanic that does.  This conservative static pass finds those pools; they
# are made as single dice in a row instead.  A result that merely lists the dice (or
# something per die) in pool order is shown in the canonical order.
_ORDER_FREE = frozenset({"count", "sum", "len", "any", "all", "abs", "floor", "ceil", "round", "clamp",
                         "even", "odd", "is_absent", "field", "rows"})
_ORDER_COMPARE = frozenset({"max", "min", "sorted", "highest", "lowest"})


def _base(m):
    while m[0] == "nested":
        m = m[1:]
    return m


class _OrderAnalysis:
    def __init__(self, book):
        self.book = book
        self.summaries = {}
        self.busy = set()
        self.sensitive = set()          # (mechanic name, roll name)

    def summary(self, name, node=None):
        """(params whose order it reads, markers its result carries) or None in a cycle.
        `node`: the mechanic's AST when it is not one of the book's (an example's
        `chance(...)`, see example_odds.py)."""
        if name in self.summaries:
            return self.summaries[name]
        if name in self.busy:
            return None
        self.busy.add(name)
        node = node if node is not None else self.book.mechanics[name].node
        taint = {p.name: {("param", p.name)} for p in node.params}
        sinks = set()
        for st in node.body:
            if isinstance(st, n.Let):
                taint[st.name] = self.ord(st.value, taint, sinks)
            elif isinstance(st, n.Roll):
                for sub in st.dice.parts():
                    self.sink(self.ord(sub, taint, sinks), sinks, deep=True)
                listed = st.dice.kind in ("pool", "explode") or (st.dice.kind == "reroll" and st.dice.count is not None)
                taint[st.name] = {("roll", name, st.name)} if listed else set()
            else:
                self.ord(st.cond, taint, sinks)
        ret = self.ord(node.result, taint, sinks)
        for m in sinks:
            if m[0] == "roll":
                self.sensitive.add((m[1], m[2]))
        out = (frozenset(m[1] for m in sinks if m[0] == "param"), frozenset(ret))
        self.busy.discard(name)
        self.summaries[name] = out
        return out

    @staticmethod
    def sink(T, sinks, deep):
        for m in T:
            if deep or m[0] != "nested":
                sinks.add(_base(m))

    def ord(self, e, taint, sinks):
        """The markers whose order the value of `e` follows (nested: inside its items)."""
        o = lambda x: self.ord(x, taint, sinks) if x is not None else set()
        if isinstance(e, n.Name):
            return set(taint.get(e.name, ()))
        if isinstance(e, n.Comprehension):
            src = o(e.source)
            inner = dict(taint)
            inner[e.var] = {m[1:] for m in src if m[0] == "nested"}
            elem = self.ord(e.elem, inner, sinks)
            if e.cond is not None:
                self.ord(e.cond, inner, sinks)
            return {m for m in src if m[0] != "nested"} | {("nested",) + m for m in elem}
        if isinstance(e, n.ListLit):
            out = set()
            for it in e.items:
                out |= {("nested",) + m for m in o(it)}
            return out
        if isinstance(e, n.Index):
            t = o(e.obj)
            self.sink(t, sinks, deep=False)
            o(e.index)
            return {m[1:] for m in t if m[0] == "nested"}
        if isinstance(e, n.Compare):
            l, r = o(e.left), o(e.right)
            if e.op in ("in", "notin"):
                self.sink(l, sinks, deep=True)
                self.sink({m[1:] for m in r if m[0] == "nested"}, sinks, deep=True)
            else:
                self.sink(l | r, sinks, deep=True)
            return set()
        if isinstance(e, n.BinOp):
            l, r = o(e.left), o(e.right)
            return l | r if e.op == "+" else set()
        if isinstance(e, n.IfElse):
            o(e.cond)
            return o(e.then) | o(e.orelse)
        if isinstance(e, n.Call):
            args = [o(a) for a in e.args]
            kwargs = {k: o(a) for k, a in e.kwargs}
            syms = self.book.syms
            kind = resolve_callee(e.func.name, taint, syms).kind if isinstance(e.func, n.Name) else "value"
            fname = e.func.name if kind in ("mechanic", "table", "builtin") else None
            if kind == "mechanic" and fname in self.book.mechanics:
                summ = self.summary(fname)
                callee = self.book.mechanics[fname]
                names = [p.name for p in callee.params]
                given = {r.name for r in callee.rolls}
                bound = dict(zip(names, args))
                bound.update({k: v for k, v in kwargs.items() if k not in given})
                for k, v in kwargs.items():      # a callee's roll given by name: keep it ordered
                    if k in given:
                        self.sink(v, sinks, deep=True)
                        self.sensitive.add((fname, k))
                if summ is None:                 # a cycle: assume the worst
                    for v in list(bound.values()):
                        self.sink(v, sinks, deep=True)
                    return set().union(*bound.values()) if bound else set()
                consumed, ret = summ
                for p, v in bound.items():
                    self.sink({m for m in v if m[0] == "nested"}, sinks, deep=True)
                    if p in consumed:
                        self.sink(v, sinks, deep=True)
                out = set()
                for m in ret:
                    b = _base(m)
                    if b[0] == "param":
                        depth = len(m) - len(b)
                        out |= {("nested",) * depth + x for x in bound.get(b[1], ())}
                    else:
                        out.add(m)
                return out
            if kind == "table":
                for v in args + list(kwargs.values()):
                    self.sink(v, sinks, deep=True)
                return set()
            if kind == "builtin":
                if fname in _ORDER_FREE:
                    return set()
                if fname in _ORDER_COMPARE:
                    for v in args:
                        self.sink({m for m in v if m[0] == "nested"}, sinks, deep=True)
                    return set()
                return set().union(*args) if args else set()   # or_else and the like
            for v in args + list(kwargs.values()):   # a call through a value: assume the worst
                self.sink(v, sinks, deep=True)
            o(e.func)
            return set()
        # every other node: visit its parts; the value carries no pool order
        for f in dataclasses.fields(e):
            v = getattr(e, f.name)
            if isinstance(v, n.Expr):
                o(v)
            elif isinstance(v, tuple):
                for x in v:
                    if isinstance(x, n.Expr):
                        o(x)
                    elif isinstance(x, tuple):
                        for y in x:
                            if isinstance(y, n.Expr):
                                o(y)
        return set()


def _ordered_rolls(mech) -> frozenset:
    a = _OrderAnalysis(mech.book)
    a.summary(mech.name, mech.node)
    return frozenset(a.sensitive)


class _Plan:
    """A mechanic's statements in evaluation order, with what each later part reads."""

    def __init__(self, mech: MechanicFn):
        body = mech.node.body
        steps = list(mech.steps)
        reads = [_names(s) for s in body]
        result_reads = _names(mech.node.result)
        steps, self.result = self._recompile(mech, steps)
        order, pending = [], []

        def emit_for(names):
            # emit the pending rolls that these names need (and what those need), in order
            need = set(names)
            changed = True
            while changed:
                changed = False
                for i in pending:
                    if body[i].name in need and not (reads[i] <= need):
                        need |= reads[i]
                        changed = True
            for i in list(pending):
                if body[i].name in need:
                    pending.remove(i)
                    order.append(i)

        for i, s in enumerate(body):
            if isinstance(s, n.Roll):
                pending.append(i)
                continue
            emit_for(reads[i])
            order.append(i)
        emit_for(result_reads)
        order.extend(pending)
        self.ordered = _ordered_rolls(mech)
        # Each roll is made inside the statement that first reads it (a "group" step),
        # so that a class of its dice can be split for one path of that statement's
        # enumeration only (see Replay); a roll's value is kept in the environment
        # only if a later statement reads it too.
        params = frozenset(p.name for p in mech.params)
        scope_at = [params | {s.name for s in body[:i] if not isinstance(s, n.Require)} for i in range(len(body) + 1)]
        units, rolls = [], []
        for i in order:
            if isinstance(body[i], n.Roll):
                rolls.append(i)
            else:
                units.append((rolls, i))
                rolls = []
        live, acc = [], set(result_reads)
        for rs, i in reversed(units):
            live.append(frozenset(acc))
            acc |= reads[i]
            for j in rs:
                acc |= reads[j]
        live.reverse()                   # live[u]: names read after unit u
        result_rolls = rolls
        # the outline in body indexes, for a back end that compiles the plan itself (jsgen.odds)
        self.units = tuple((tuple(rs), i) for rs, i in units)
        self.result_rolls = tuple(result_rolls)
        self.steps, self.random, self.live, self.fast = [], [], [], []
        for (rs, i), after in zip(units, live):
            reading = set(reads[i])
            for j in rs:
                reading |= reads[j]
            self.live.append(frozenset(reading | after))
            if not rs:
                self.steps.append(steps[i])
                self.random.append(calls_dice(body[i], mech.book))
                self.fast.append(None)
                continue
            keep = tuple(body[j].name for j in rs if body[j].name in after)
            stmt = body[i].value if isinstance(body[i], n.Let) else body[i].cond
            self.fast.append(None if keep or calls_dice(stmt, mech.book) else aggregate_plan.analyse(
                mech, scope_at[i] - {body[j].name for j in rs}, [(body[j], steps[j].fn) for j in rs], stmt))
            self.steps.append(GroupStep(keep, steps[i],
                                        _group([(body[j].name, steps[j].fn) for j in rs], steps[i].fn, keep)))
            self.random.append(True)
        final_reads = set(result_reads)
        for j in result_rolls:
            final_reads |= reads[j]
        self.live.append(frozenset(final_reads))
        self.fast_result = None
        if result_rolls and not calls_dice(mech.node.result, mech.book):
            self.fast_result = aggregate_plan.analyse(
                mech, scope_at[len(body)] - {body[j].name for j in result_rolls},
                [(body[j], steps[j].fn) for j in result_rolls], mech.node.result)
        if result_rolls:
            self.result = _group([(body[j].name, steps[j].fn) for j in result_rolls], self.result, None)
        self.result_random = bool(result_rolls) or calls_dice(mech.node.result, mech.book)

    @staticmethod
    def _recompile(mech, steps):
        """The mechanic's steps compiled again by `RunsCompiler` (rolls are kept)."""
        book = mech.book
        runs = RunsCompiler(book)
        scope = frozenset(p.name for p in mech.params)
        out = []
        for s, step in zip(mech.node.body, steps):
            if isinstance(s, n.Let):
                out.append(LetStep(s.name, runs.compile(s.value, scope)))
                scope = scope | {s.name}
            elif isinstance(s, n.Require):
                out.append(RequireStep(s.message, runs.compile(s.cond, scope), step.span))
            else:
                out.append(step)
                scope = scope | {s.name}
        result = runs.compile(mech.node.result, scope)
        return out, result


@dataclasses.dataclass(frozen=True, slots=True)
class GroupStep:
    """A statement (`stmt`, a LetStep or RequireStep) with the rolls it reads made
    first; `fn` returns the values of the rolls in `keep` and then the statement's."""
    keep: tuple
    stmt: object
    fn: object


def _group(rolls, fn, keep):
    """A statement with the rolls it reads made first: returns the kept rolls' values
    and the statement's value as a tuple (just the value when `keep` is None)."""
    def f(env, ctx):
        local = dict(env)
        for name, roll in rolls:
            local[name] = roll(local, ctx)
        value = fn(local, ctx)
        if keep is None:
            return value
        return tuple(local[k] for k in keep) + (value,)
    return f


_PLANS = weakref.WeakKeyDictionary()


def plan_of(mech: MechanicFn) -> "_Plan":
    """The engine's plan of a mechanic (cached): its statements in evaluation order as
    `units` ((indexes of the rolls made first, index of the statement) into the body),
    `result_rolls`, what each later part reads (`live`), which statements roll (`random`),
    the aggregate fast path of each (`fast`, `fast_result`: `aggregate_plan.PoolPlan` or None)
    and the rolls whose order the mechanic reads (`ordered`: (mechanic, roll) pairs).
    The JavaScript engine (`rules_dsl.jsgen.odds`) is generated from it."""
    plan = _PLANS.get(mech)
    if plan is None:
        plan = _PLANS[mech] = _Plan(mech)
    return plan




def names_in(node) -> set:
    """Every name an expression or statement reads."""
    return _names(node)
