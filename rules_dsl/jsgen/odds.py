"""A book's dice mechanics as the exact-odds engine's plans, in JavaScript: `<book>.odds.mjs`.

The browser's engine (`odds.js`, shipped as `odds.mjs`) is `rules_dsl.odds` ported function
for function; what that engine works out *before* it runs -- each mechanic's plan
(`odds.plan.plan_of`: statements in evaluation order, the rolls made inside the statement
that first reads them, what later statements read, the pools whose order is read) and each
statement's aggregate fast path (`odds.aggregate_plan.PoolPlan`) -- is static, so it is computed
here in Python, once, and written out: the plan's shape as data, its expressions compiled by
the back end's own `ExprGen` from the same checked (and, for the fast path, inlined) nodes.
Nothing is read from source text; names are strings (`emit.js_str`), locals the fields of the
engine's environment object (`env["name"]`, a prototype-free object).

Two visitors extend `ExprGen`, as the Python engine's compilers extend `ExprCompiler`:
`RunsGen` (a dice-free comprehension evaluates its body once per run of identical items,
`plan.RunsCompiler`) and `AggregateGen` (`Returned`, an inlined mechanic's result converted
to its declared type, `aggregate_plan.AggregateCompiler`)."""
from __future__ import annotations

from ..language import nodes as n
from ..odds import aggregates
from ..odds.plan import GroupStep, calls_dice, count_params, plan_of
from .emit import Globals, Idents, js_str
from .expressions import ExprGen
from .mechanics import roll_js

ENGINE_FILE = "odds.mjs"


class RunsGen(ExprGen):
    """The engine's copy of a statement (`odds.plan.RunsCompiler`): a comprehension whose
    element and condition call no rolling mechanic runs once per run of identical items."""

    def visit_Comprehension(self, e, scope):
        book = self.g.compiled
        if calls_dice(e.elem, book) or (e.cond is not None and calls_dice(e.cond, book)):
            return super().visit_Comprehension(e, scope)
        src, var, elem, cond = self.comprehension_parts(e, scope)
        return f"O.compRuns({self.g.span(e.span)}, {src}, {cond}, ({var}) => {elem})"


class AggregateGen(ExprGen):
    """The aggregate fast path's expressions (`odds.aggregate_plan.AggregateCompiler`)."""

    def visit_Returned(self, e, scope):
        return f"O.returnedAs($m[{self.g.mechanics[e.mechanic]}], {self.compile(e.expr, scope)})"


def _env(names) -> dict:
    return {x: f"env[{js_str(x)}]" for x in names}


def _fn(gen_cls, g, expr, names) -> str:
    return f"(env, ctx) => {gen_cls(g, Idents()).compile(expr, _env(names))}"


def _strs(names) -> str:
    return "[" + ", ".join(js_str(x) for x in names) + "]"


def _ints(xs) -> str:
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


def _fast_js(g, fast, roll_fns) -> str:
    """A statement's aggregate fast path (`PoolPlan`) as data and closures."""
    if fast is None:
        return "null"
    nodes = fast.nodes
    scope = set(nodes["scope"])
    agg_names = {f"__agg{i}" for i in range(len(nodes["aggs"]))}
    aggs = []
    for (pool, kind, var, elem, cond, pre, post), a in zip(nodes["aggs"], fast.aggs):
        inner = scope | agg_names | {var}
        outer = scope | agg_names
        aggs.append(f"{{pool: {js_str(pool)}, kind: {js_str(kind)}, var: {js_str(var)}, refs: {_ints(a['refs'])}, "
                    f"elem: {_fn(AggregateGen, g, elem, inner)}, "
                    f"cond: {_fn(AggregateGen, g, cond, inner) if cond is not None else 'null'}, "
                    f"pre: [{', '.join(_fn(AggregateGen, g, x, outer) for x in pre)}], "
                    f"post: [{', '.join(_fn(AggregateGen, g, x, outer) for x in post)}]}}")
    checks = [f"[$m[{g.mechanics[m]}], {js_str(p)}, {_fn(AggregateGen, g, a, scope)}]" for m, p, a in nodes["checks"]]
    pool_args = [f"[$m[{g.mechanics[m]}], {js_str(p)}, {js_str(pool)}]" for m, p, pool in fast.pool_args]

    def per_pool(d):
        return "{" + ", ".join(f"{js_str(p)}: {_ints(v)}" for p, v in d.items()) + "}"
    rolls = ", ".join(f"[{js_str(name)}, {roll_fns[name]}]" for name, _ in fast.rolls)
    return (f"{{rolls: [{rolls}], final: {_fn(AggregateGen, g, nodes['final'], scope | agg_names)}, "
            f"aggs: [{', '.join(aggs)}], checks: [{', '.join(checks)}], poolArgs: [{', '.join(pool_args)}], "
            f"ext: {per_pool(fast.ext)}, iface: {_ints(fast.interface)}, out: {per_pool(fast.out)}, own: {per_pool(fast.own)}}}")


def plan_js(g: Globals, mech) -> str:
    """One dice mechanic's plan (`odds.plan.plan_of`) as a JS object literal."""
    plan = plan_of(mech)
    body = mech.node.body
    params = [p.name for p in mech.params]
    scope_at = []
    bound = list(params)
    for s in body:
        scope_at.append(list(bound))
        if not isinstance(s, n.Require):
            bound.append(s.name)
    scope_at.append(list(bound))
    roll_fns = {}
    for i, s in enumerate(body):
        if isinstance(s, n.Roll):
            gen = ExprGen(g, Idents())
            roll_fns[s.name] = f"(env, ctx) => {roll_js(g, gen, s, _env(scope_at[i]))}"

    def stmt_js(i):
        s = body[i]
        if isinstance(s, n.Let):
            return f"kind: \"let\", name: {js_str(s.name)}, fn: {_fn(RunsGen, g, s.value, scope_at[i])}"
        return (f"kind: \"require\", message: {js_str(s.message)}, "
                f"fn: {_fn(RunsGen, g, s.cond, scope_at[i])}")

    steps = []
    for u, ((rs, i), random, live, fast) in enumerate(zip(plan.units, plan.random, plan.live, plan.fast)):
        rolls = ", ".join(f"[{js_str(body[j].name)}, {roll_fns[body[j].name]}]" for j in rs)
        keep = plan.steps[u].keep if isinstance(plan.steps[u], GroupStep) else ()
        steps.append(f"{{{stmt_js(i)}, group: {'true' if rs else 'false'}, rolls: [{rolls}], keep: {_strs(keep)}, "
                     f"random: {'true' if random else 'false'}, live: {_strs(sorted(live))}, "
                     f"fast: {_fast_js(g, fast, roll_fns)}}}")
    rolls = ", ".join(f"[{js_str(body[j].name)}, {roll_fns[body[j].name]}]" for j in plan.result_rolls)
    result = (f"{{fn: {_fn(RunsGen, g, mech.node.result, scope_at[-1])}, rolls: [{rolls}], "
              f"random: {'true' if plan.result_random else 'false'}, live: {_strs(sorted(plan.live[-1]))}, "
              f"fast: {_fast_js(g, plan.fast_result, roll_fns)}}}")
    ordered = ", ".join(f"[{js_str(a)}, {js_str(b)}]" for a, b in sorted(plan.ordered))
    counts = _strs(sorted(count_params(mech)))      # the inputs that decide how many dice (a refusal's hint)
    return (f"P.set({js_str(mech.name)}, {{mechanic: $m[{g.mechanics[mech.name]}], ordered: [{ordered}], counts: {counts},\n"
            f"  steps: [{(',' + chr(10) + '    ').join(steps)}],\n  result: {result}}});")


def odds_module(book, g: Globals, module_file: str) -> str:
    """The module of a book's dice mechanics' plans (imports the book module's slots and the
    engine), exporting `plans`, a `Plans` the engine's `distribution` takes."""
    from .module import HEADER, spans_js
    ex = Globals(g.compiled, g.span_text)
    ex.syms = g.syms
    plans = [plan_js(ex, m) for m in book.compiled.mechanics.values() if m.has_dice]
    return "\n".join([HEADER.format(id=js_str(book.id)).replace("AST of", "odds plans of"),
                      'import * as R from "./runtime.mjs";',
                      f'import * as O from "./{ENGINE_FILE}";',
                      f"import B, {{ $m, $t, $c, $e, $d, $y }} from {js_str('./' + module_file)};",
                      spans_js(ex), "const P = new Map();", *plans,
                      "export const plans = new O.Plans(B, P);", ""])


# `aggregates.Returned` is the node `AggregateGen.visit_Returned` compiles
__all__ = ["odds_module", "ENGINE_FILE", "RunsGen", "AggregateGen", "aggregates"]
