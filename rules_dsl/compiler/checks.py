"""Checks: `CheckFn` evaluates a claim over a whole domain; `case_text` shows a failing case."""
from __future__ import annotations

import random

from ..language import nodes as n
from ..language.dice import GivenRoller
from ..errors import EvaluationError
from ..language.render import expr_text as _expr_text
from ..language.values import Record, show
from .context import MAX_CHECK_CASES, MAX_STEPS, BookParts, Ctx
from .expressions import iterable, compile_expr
from .tables import origin


class CheckFn:
    """A claim over a whole domain; each case where it is false is reported."""

    def __init__(self, book: BookParts, node: n.Check, rule_id: str):
        self.book, self.node, self.rule_id = book, node, rule_id
        self.name = node.name
        self.sources, scope = compile_bindings(book, node.bindings)
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

    def run(self, seen: set | None = None):
        """Return (cases checked, list of failing cases); each case is a dict.  A set
        `seen` receives every printed entry the check considered (a `Printed`): the
        rows its domain bound (those a `where` then left out too) and the entries its
        cases looked up -- what `Book.coverage_findings` compares with each table."""
        failures, total = [], 0
        ctx = Ctx(GivenRoller(rng=random.Random(0)), reads=[])
        seen = set() if seen is None else seen

        def rec(i, env):
            nonlocal total
            if i == self.where_level and self.where is not None:
                ctx.reads = []
                keep = self.where(env, ctx)
                seen.update(ctx.reads)
                if not keep:
                    return
            if i == len(self.sources):
                total += 1
                if total > MAX_CHECK_CASES:
                    raise EvaluationError(f"the check's domain has more than {MAX_CHECK_CASES:,} cases")
                ctx.budget[0] = MAX_STEPS  # each case gets the budget of one evaluation
                ctx.reads = []
                holds = self.claim(env, ctx)
                seen.update(ctx.reads)
                if not holds:
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
            ctx.reads = []
            values = iterable(sp, src(env, ctx))
            seen.update(ctx.reads)
            for v in values:
                o = origin(v)
                if o is not None:
                    seen.add(o)
                rec(i + 1, {**env, name: v})

        rec(0, {})
        return total, failures


def compile_bindings(book, bindings) -> tuple:
    """A check's (or a design view's) `for x in xs, y in ys`: ([(name, source closure, span)],
    the names in scope after them); each source sees the names bound before it."""
    scope, sources = frozenset(), []
    for b in bindings:
        sources.append((b.name, compile_expr(book, b.source, scope), b.span))
        scope = scope | {b.name}
    return sources, scope


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
