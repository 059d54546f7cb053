"""The aggregate fast path's analysis: is a statement's every use of its pools an aggregate?

`analyse` inlines the dice-free mechanics a statement calls (`nodes.Returned` marks an
inlined result), replaces each aggregate over a pool (`count`, `sum`, `max`, `min`,
`len`, `any`, `all` over a comprehension) by a name, and compiles what is left into a
`PoolPlan`: the statement around the aggregates, each aggregate's test and value, what
each pool reads of the others.  Anything it does not cover raises `Unsupported`, and
`analyse` returns None (the general engine runs).

Split from aggregates.py (issue 32): this module decides *whether* and *how* the fast
path applies, from the checked AST, once per statement (odds.plan asks it); aggregates.py
computes the law from a plan, once per set of inputs (odds.engine asks it), and its
docstring explains the method.  jsgen.odds compiles the same plans for the browser.
"""
from __future__ import annotations

import dataclasses

from .. import compiler as _compiler
from ..language import nodes as n
from ..language.builtins import BUILTINS
from ..analysis.resolve import resolve_callee

__all__ = ["AGGREGATES", "Unsupported", "AggregateCompiler", "PoolPlan", "analyse"]

AGGREGATES = frozenset({"count", "sum", "max", "min", "len", "any", "all"})


class Unsupported(Exception):
    """The statement uses a pool in a way this fast path does not cover."""


class AggregateCompiler(_compiler.ExprCompiler):
    """Compiles the inlined statements of this fast path: `ExprCompiler` plus `nodes.Returned`."""

    def visit_Returned(self, e, scope):
        f = self.compile(e.expr, scope)
        book, name = self.book, e.mechanic

        def g(env, ctx):
            v = f(env, ctx)
            if isinstance(v, range):
                v = list(v)
            try:
                return book.mechanics[name].returns.convert(v)
            except ValueError:
                raise Unsupported from None
        return g


# ----------------------------------------------------------------- analysis
def _free(e, bound=frozenset()) -> set:
    """Free names of an expression (comprehension variables bind in elem and cond)."""
    if isinstance(e, n.Name):
        return set() if e.name in bound else {e.name}
    if isinstance(e, n.Comprehension):
        inner = bound | {e.var}
        out = _free(e.source, bound) | _free(e.elem, inner)
        if e.cond is not None:
            out |= _free(e.cond, inner)
        return out
    out = set()
    for f in dataclasses.fields(e) if isinstance(e, n.Expr) else ():
        v = getattr(e, f.name)
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], n.Expr):   # kwargs
                out |= _free(x[1], bound)
            elif isinstance(x, n.Expr):
                out |= _free(x, bound)
    return out


def _map_children(e, fn):
    """A copy of `e` with `fn` applied to each direct sub-expression."""
    changes = {}
    for f in dataclasses.fields(e):
        if f.name == "span":
            continue
        v = getattr(e, f.name)
        if isinstance(v, n.Expr):
            w = fn(v)
        elif isinstance(v, tuple):
            w = tuple((x[0], fn(x[1])) if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], n.Expr)
                      else fn(x) if isinstance(x, n.Expr) else x for x in v)
        else:
            continue
        if w is not v:
            changes[f.name] = w
    return dataclasses.replace(e, **changes) if changes else e


def _subst(e, m):
    """Replace free names by expressions (no capture: checked by the caller)."""
    if isinstance(e, n.Name):
        return m.get(e.name, e)
    if isinstance(e, n.Comprehension):
        inner = {k: v for k, v in m.items() if k != e.var}
        return dataclasses.replace(e, source=_subst(e.source, m), elem=_subst(e.elem, inner),
                                   cond=None if e.cond is None else _subst(e.cond, inner))
    return _map_children(e, lambda x: _subst(x, m))


def _comp_vars(e) -> set:
    return {x.var for x in n.iter_nodes(e) if isinstance(x, n.Comprehension)}


class _Analysis:
    def __init__(self, book, scope, pools):
        self.book, self.scope, self.pools = book, scope, pools
        self.aggs = []             # [(pool, builtin, var, elem, cond, pre, post)]
        self.checks = []           # [(mechanic, param, expr)]: scalar arguments of inlined calls
        self.pool_args = []        # [(mechanic, param, pool)]

    def _is_builtin(self, name):
        return resolve_callee(name, self.scope, self.book.syms).kind == "builtin"

    def _callee(self, e):
        """The mechanic a call names, or None (a built-in, a table, a local...)."""
        if not (isinstance(e, n.Call) and isinstance(e.func, n.Name)):
            return None
        name = e.func.name
        if resolve_callee(name, self.scope, self.book.syms).kind != "mechanic":
            return None
        return self.book.mechanics[name]

    def inline(self, e, depth=0):
        """Inline calls of dice-free mechanics (whose body is only `let`s)."""
        if not isinstance(e, n.Expr):
            return e
        m = self._callee(e)
        if m is not None and not m.has_dice and _free(e) & self.pools:
            if depth > 8 or any(not isinstance(s, n.Let) for s in m.node.body):
                raise Unsupported
            params = [p.name for p in m.params]
            if len(e.args) > len(params):
                raise Unsupported
            given = dict(zip(params, e.args))
            for k, a in e.kwargs:
                if k not in params or k in given:
                    raise Unsupported
                given[k] = a
            sub = {}
            for p in params:
                a = given.get(p)
                if a is None:
                    v = m.default(p) if m.node.params[params.index(p)].default is not None else None
                    if type(v) not in (int, bool, str):
                        raise Unsupported
                    sub[p] = n.Literal(e.span, v)
                    continue
                a = self.inline(a, depth + 1)
                if isinstance(a, n.Name) and a.name in self.pools:
                    self.pool_args.append((m.name, p, a.name))
                elif _free(a) & self.pools:
                    raise Unsupported      # a pool inside a larger argument: not covered
                else:
                    self.checks.append((m.name, p, a))
                sub[p] = a
            body_names = set(params) | {s.name for s in m.node.body}
            exprs = [s.value for s in m.node.body] + [m.node.result]
            callee_globals = set().union(*(_free(x) for x in exprs)) - body_names
            if callee_globals & self.scope:
                raise Unsupported          # a caller's local would shadow the callee's global
            for s in m.node.body:
                sub[s.name] = self.inline(_subst(s.value, sub), depth + 1)
            substituted = set().union(*(_free(v) for v in sub.values())) if sub else set()
            if any(_comp_vars(x) & substituted for x in exprs):
                raise Unsupported          # a substituted name would be captured
            return n.Returned(e.span, self.inline(_subst(m.node.result, sub), depth + 1), m.name)
        return _map_children(e, lambda x: self.inline(x, depth))

    def extract(self, e, bound=frozenset()):
        """Replace each aggregate over a pool by a name `__aggN`.  `bound`: the variables
        of the comprehensions around `e`; an aggregate that reads one is not covered."""
        if not isinstance(e, n.Expr):
            return e
        if isinstance(e, n.Call) and isinstance(e.func, n.Name) and len(e.args) == 1 and not e.kwargs \
                and e.func.name in AGGREGATES and self._is_builtin(e.func.name):
            form = self._form(e.args[0])
            if form is not None:
                pool, var, elem, cond, pre, post = form
                if var in self.pools or var.startswith("__agg") or _free(e.args[0]) & bound:
                    raise Unsupported
                own = frozenset({var})
                elem, cond = self.extract(elem, own), None if cond is None else self.extract(cond, own)
                pre, post = tuple(self.extract(x) for x in pre), tuple(self.extract(x) for x in post)
                self.aggs.append((pool, e.func.name, var, elem, cond, pre, post))
                return n.Name(e.span, f"__agg{len(self.aggs) - 1}")
        if isinstance(e, n.Comprehension):
            inner = bound | {e.var}
            return dataclasses.replace(e, source=self.extract(e.source, bound), elem=self.extract(e.elem, inner),
                                       cond=None if e.cond is None else self.extract(e.cond, inner))
        return _map_children(e, lambda x: self.extract(x, bound))

    def _form(self, x):
        """(pool, var, elem, cond, items before, items after) for a comprehension over a pool."""
        pre, post = (), ()
        if isinstance(x, n.BinOp) and x.op == "+":
            if isinstance(x.left, n.ListLit) and isinstance(x.right, (n.Comprehension, n.Name)):
                pre, x = x.left.items, x.right
            elif isinstance(x.right, n.ListLit) and isinstance(x.left, (n.Comprehension, n.Name)):
                post, x = x.right.items, x.left
            else:
                return None
        if isinstance(x, n.Name) and x.name in self.pools:
            return x.name, "__die", n.Name(x.span, "__die"), None, pre, post
        if isinstance(x, n.Comprehension) and isinstance(x.source, n.Name) and x.source.name in self.pools:
            return x.source.name, x.var, x.elem, x.cond, pre, post
        return None


class PoolPlan:
    """How one statement's pools are reduced to aggregates (see the module doc)."""

    def __init__(self, book, rolls, final, aggs, checks, pool_args, scope):
        self.book = book
        self.rolls = rolls                  # [(name, roll closure)]
        # the plan's expressions as nodes too, for a back end that compiles them (jsgen.odds)
        self.nodes = {"final": final, "aggs": tuple(aggs), "checks": tuple(checks), "scope": scope}
        agg_names = frozenset(f"__agg{i}" for i in range(len(aggs)))
        compile_expr = AggregateCompiler(book).compile
        self.final = compile_expr(final, scope | agg_names)
        self.final_reads = {int(x[5:]) for x in _free(final) if x.startswith("__agg")}
        self.aggs = []
        for pool, fn, var, elem, cond, pre, post in aggs:
            inner = scope | agg_names | {var}
            refs = set()
            for x in (elem, cond) + pre + post:
                if x is not None:
                    refs |= {int(y[5:]) for y in _free(x) if y.startswith("__agg")}
            self.aggs.append(dict(
                pool=pool, kind=fn, fn=BUILTINS[fn][0], var=var, refs=tuple(sorted(refs)),
                elem=compile_expr(elem, inner),
                cond=None if cond is None else compile_expr(cond, inner),
                pre=[compile_expr(x, scope | agg_names) for x in pre],
                post=[compile_expr(x, scope | agg_names) for x in post]))
        self.checks = [(m, p, compile_expr(a, scope)) for m, p, a in checks]
        self.pool_args = pool_args
        pools = [name for name, _ in rolls]
        owner = {i: a["pool"] for i, a in enumerate(self.aggs)}

        def reach(i, seen=None):
            seen = set() if seen is None else seen
            for j in self.aggs[i]["refs"]:
                if j not in seen:
                    seen.add(j)
                    reach(j, seen)
            return seen
        # what each pool reads from other pools' aggregates; those must read only their own pool
        self.ext = {p: sorted({j for i, a in enumerate(self.aggs) if a["pool"] == p
                               for j in a["refs"] if owner[j] != p}) for p in pools}
        self.interface = sorted({j for p in pools for j in self.ext[p]})
        for j in self.interface:
            if any(owner[k] != owner[j] for k in reach(j)):
                raise Unsupported
        # what each pool hands on: aggregates the statement or another pool reads
        wanted = set(self.final_reads) | set(self.interface)
        self.out = {p: sorted(i for i in wanted if owner[i] == p) for p in pools}
        self.own = {p: [i for i in range(len(self.aggs)) if owner[i] == p] for p in pools}


def _pooled(spec) -> bool:
    """A plain pool, a pool that re-rolls once (its dice are independent dice of the
    kept-face law, `dice.rerolled_die`) or an exploding pool (a mixture of three such
    pools, worked out by aggregates.py); not a chain or a single die."""
    return spec.kind in ("pool", "explode") or (spec.kind == "reroll" and spec.count is not None)


def analyse(mech, pos_scope, rolls, stmt):
    """A PoolPlan for statement `stmt` (an Expr) that reads `rolls` (Roll nodes with
    their compiled closures), or None when the fast path does not apply."""
    if not rolls or any(not _pooled(r.dice) for r, _ in rolls):
        return None
    pools = frozenset(r.name for r, _ in rolls)
    if any(_free(r.dice.count) & pools or (r.dice.on is not None and _free(r.dice.on) & pools) for r, _ in rolls):
        return None
    book = mech.book
    an = _Analysis(book, pos_scope | pools, pools)
    try:
        inlined = an.inline(stmt)
        final = an.extract(inlined)
        if _free(final) & pools:
            return None
        for pool, fn, var, elem, cond, pre, post in an.aggs:
            for x in (elem, cond) + pre + post:
                if x is not None and _free(x) & pools:
                    return None
        if not an.aggs:
            return None
        return PoolPlan(book, [(r.name, f) for r, f in rolls], final, an.aggs, an.checks, an.pool_args,
                        frozenset(pos_scope))
    except Unsupported:
        return None
