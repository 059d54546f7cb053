"""Design views: `PricedFn`, a `priced` declaration's cases and what each costs.

`priced NAME { for x in xs [where c]: COST per EFFECT }` enumerates its cases as a
check does and evaluates COST for each; EFFECT is an expression over the case's
names whose *mean* over every roll is what the cost buys.  Computing that mean is
the odds engine's job (an output), so this module only compiles the cases and the
costs and hands EFFECT's node over (`rules_dsl.evaluation.design` runs the engine on it).
"""
from __future__ import annotations

import random
from ..language import nodes as n
from ..language.dice import GivenRoller
from ..errors import EvaluationError
from .checks import compile_bindings
from .context import MAX_CHECK_CASES, MAX_STEPS, BookParts, Ctx
from .expressions import iterable, compile_expr


MAX_PRICED_CASES = 500      # a design view is read by a person: a table, not a data dump


class PricedFn:
    """One design view of a book: its cases (the bindings) and each case's cost."""

    def __init__(self, book: BookParts, node: n.Priced, rule_id: str):
        self.book, self.node, self.rule_id = book, node, rule_id
        self.name = node.name
        self.sources, scope = compile_bindings(book, node.bindings)
        self.scope = scope
        self.where = compile_expr(book, node.where, scope) if node.where is not None else None
        self.cost = compile_expr(book, node.cost, scope)

    @property
    def names(self) -> list:
        return [b.name for b in self.node.bindings]

    def cases(self) -> list:
        """[(bindings, cost)] for every case, in the order the bindings list them."""
        out = []
        ctx = Ctx(GivenRoller(rng=random.Random(0)))

        def rec(i, env):
            if i == len(self.sources):
                if self.where is not None and not self.where(env, ctx):
                    return
                if len(out) >= min(MAX_CHECK_CASES, MAX_PRICED_CASES):
                    raise EvaluationError(f"priced '{self.name}' has more than {MAX_PRICED_CASES} cases: "
                                          "narrow it with 'where'")
                ctx.budget[0] = MAX_STEPS
                out.append((dict(env), self.cost(env, ctx)))
                return
            name, src, sp = self.sources[i]
            for v in iterable(sp, src(env, ctx)):
                rec(i + 1, {**env, name: v})

        rec(0, {})
        return out
