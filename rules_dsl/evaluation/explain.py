"""Explanations: an evaluation's working, as a tree of steps that cite the rules.

`explain_call(book, mechanic, ...)` and `explain_case(book, rule_id, case)` run a
mechanic (or a worked example's `>>>` expression) through a *second* set of
closures, compiled lazily from the same checked AST by `TracingCompiler` (a
subclass of `ExprCompiler`) the first time an explanation is asked for, and kept
on the compiled book.  The closures of plain calls are never touched: a plain
`call` pays nothing for this module, which is never imported on that path.

Each step records what the rules did: a mechanic called (with its arguments), a
`let` and its value, a branch taken (the condition, the values it read, which arm),
a table read (table, keys, the printed row, absent cells), a die rolled (given or
random), a `require` checked, and the result.  Every step carries the id and
title of the rule it belongs to, where it is written (file:line), and the notes of
that rule that bear on it (interpretation, erratum and clarification notes; a
note naming some of the book's mechanics or tables in backticks bears only on
those).

The same `Explanation` prints as indented text (`lines()`), as JSON
(`as_json()`, schema in docs/cli.md) and feeds the website's "show working" folds.

Three modules, one job each (split in issue 32): this one holds the entry points and
odds by branch (`odds_by_branch`: the odds engine run on a twin whose result names the
branch taken); explain_steps.py the record (`Step`, `Explanation`, the text);
explain_trace.py the tracing (`TracingCompiler`, the traced twins, `Where`).  `Step`,
`Explanation` and `NOTE_KINDS_EXPLAINED` are importable from here, as before.
"""
from __future__ import annotations

import random

from ..language import nodes as n
from ..compiler.mechanics import MechanicFn
from ..language.dice import GivenRoller
from ..errors import EvaluationError, NotFound, RulesError
from .explain_steps import Explanation, Step
from .explain_trace import NOTE_KINDS_EXPLAINED, Tracer, TraceCtx, TracingCompiler, traced, traced_lookup, traced_store
from ..language.render import expr_text
from ..language.rollpaths import shown_names

__all__ = ["Step", "Explanation", "explain_call", "explain_case", "explain_lookup", "NOTE_KINDS_EXPLAINED"]


# ------------------------------------------------------------------ entry points
def explain_call(compiled, name: str, *args, rolls=None, seed=None, rng=None, **kwargs) -> Explanation:
    """Evaluate mechanic `name` as `MechanicFn.run` does (the same binding, the same
    rolls for the same seed) and return its working.  Errors are raised, as by a call."""
    try:
        fn = compiled.mechanics[name]
    except KeyError:
        raise NotFound("mechanic", name, list(compiled.mechanics), where=compiled.book_id) from None
    where = traced_store(compiled)["where"]
    tm = traced(compiled, where, name)
    roll_names = {r.name for r in fn.rolls}
    given = fn.given_rolls(kwargs, rolls)      # by name, or by path through a called mechanic
    bound = fn.bind(list(args), kwargs)
    roller = GivenRoller(given, rng or (random.Random(seed) if seed is not None else random.Random()))
    holder = Step("example", "", "", "", "")
    tracer = Tracer(holder)
    try:
        result = tm.invoke(bound, TraceCtx(roller, tracer=tracer))
    except RecursionError:
        raise EvaluationError(f"{name}: the evaluation nests too deeply") from None
    made = shown_names(roller.made)
    unknown = set(given) - roller.used
    if unknown:
        raise NotFound("roll", sorted(unknown)[0], list(made) + sorted(roll_names),
                       where=f"{compiled.book_id}:{name} (rolls made: {', '.join(made) or 'none'})")
    return Explanation(compiled.book_id, holder.children[0], result, made)


def explain_lookup(compiled, name: str, *args, **kwargs) -> Explanation:
    """A table looked up by its keys, as one `lookup` step (the printed row, absent cells, notes)."""
    where = traced_store(compiled)["where"]
    holder = Step("example", "", "", "", "")
    ctx = TraceCtx(GivenRoller(), tracer=Tracer(holder))
    value = traced_lookup(where, compiled.tables[name], list(args), kwargs, ctx)
    return Explanation(compiled.book_id, holder.children[0], value, {})


def explain_case(compiled, rule_id: str, case: n.ExampleCase) -> Explanation:
    """The working of one worked example's `>>>` expression, evaluated as the example
    runner does (dice it does not give rolled from seed 0).  An evaluation error is
    kept in `error` with the steps made before it."""
    from .example_odds import evaluate
    from ..analysis.resolve import form_of
    from .examples import guarded
    where = traced_store(compiled)["where"]
    comp = TracingCompiler(compiled, where, rule_id)
    root = Step("example", rule_id, where.title(rule_id), where.loc(case.span), case.source, node=case)
    odds = form_of(case.expr, compiled.syms)
    if odds is not None:          # exact odds over every roll: one step, no single evaluation to trace
        what = "the exact chance that it holds" if odds[0] == "chance" else "its exact mean"
        root.children.append(Step("odds", rule_id, where.title(rule_id), where.loc(case.span),
                                  f"{expr_text(odds[1])}: {what}, over every roll it makes",
                                  detail={"form": odds[0], "expression": expr_text(odds[1])}))
        try:
            value = guarded(lambda: evaluate(compiled, *odds))
        except RulesError as e:
            return Explanation(compiled.book_id, root, None, {}, str(e).splitlines()[0])
        root.set(value)
        return Explanation(compiled.book_id, root, value, {})
    tracer = Tracer(root)
    roller = GivenRoller(rng=random.Random(0))
    try:
        value = guarded(lambda: comp.compile(case.expr, frozenset())({}, TraceCtx(roller, tracer=tracer)))
    except RulesError as e:
        return Explanation(compiled.book_id, root, None, shown_names(roller.made), str(e).splitlines()[0])
    root.set(value)
    return Explanation(compiled.book_id, root, value, shown_names(roller.made))


# ------------------------------------------------------------------ odds with reasons
def branch_chain(node: n.Mechanic) -> list:
    """The arms of a mechanic whose result is a chain of branches
    (`if c1 then a1 else if c2 then a2 ... else an`): [(label, arm expression)], the
    last labelled "otherwise"; empty when the result is not an `if`."""
    e, arms = node.result, []
    while isinstance(e, n.IfElse):
        arms.append((f"{'else if' if arms else 'if'} {expr_text(e.cond)}", e.then))
        e = e.orelse
    if arms:
        arms.append(("else", e))
    return arms


class _AnyResult:
    describe = "anything"

    @staticmethod
    def convert(value):
        return value


class _ArmsTwin(MechanicFn):
    """A mechanic compiled from a real node like another's, whose result is [arm number,
    arm value] (odds by branch): its result is left unchecked, since it is not of the
    declared type (the `result_check` hook, instead of overwriting `returns`)."""

    def result_check(self, node, book):
        return _AnyResult()


def _arms_twin(mechanic, result):
    import dataclasses
    return _ArmsTwin(mechanic.book, dataclasses.replace(mechanic.node, result=result))


def odds_by_branch(mechanic, **kwargs):
    """The exact joint law of (branch taken, result) of a mechanic whose result is a
    chain of branches: the odds engine run on a twin of the mechanic whose result is
    `[arm number, arm value]`, both computations within one budget (`_budget` or
    `_meter`, as `distribution` takes them).  Returns (arms, rows): arms as `branch_chain` gives
    them, rows [(value, probability, [(arm label, probability)])] in the plain
    distribution's order; None when the result is not a chain of branches."""
    from ..odds import distribution

    arms = branch_chain(mechanic.node)
    if not arms:
        return None
    node = mechanic.node
    lits = []
    for i, (_, arm) in enumerate(arms):
        lits.append(n.ListLit(arm.span, (n.Literal(arm.span, i), arm)))
    result = lits[-1]
    e = node.result
    conds = []
    while isinstance(e, n.IfElse):
        conds.append(e)
        e = e.orelse
    for cond_node, lit in zip(reversed(conds), reversed(lits[:-1])):
        result = n.IfElse(cond_node.span, cond_node.cond, lit, result)
    twin = _arms_twin(mechanic, result)
    if kwargs.get("_meter") is None:      # both computations share one budget
        from ..odds.budget import Budget
        kwargs["_meter"] = (kwargs.pop("_budget", None) or Budget()).meter()
    joint = distribution(twin, **kwargs)
    plain = distribution(mechanic, **kwargs)
    rows = []
    for value, p in plain.outcomes:
        parts = []
        for pair, q in joint.outcomes:
            arm, v = pair
            if _same_result(mechanic, v, value):
                parts.append((arms[arm][0], q))
        rows.append((value, p, parts))
    return arms, rows, plain


def _same_result(mechanic, v, value) -> bool:
    from .examples import same
    try:
        v = mechanic.returns.convert(list(v) if isinstance(v, range) else v)
    except ValueError:
        return False
    return same(v, value)
