"""Mechanics -> JavaScript: a `defineMechanic` call per mechanic, its body one arrow function.

The body is the mechanic's statements in order, as `compiler.mechanics.MechanicFn` runs
them: `let` and `roll` each a `const` (a fresh identifier per binding, see `emit.Idents`),
`require` an `if` that throws `"<mechanic>: <message>"`, then `return` the result.
Parameters arrive bound and converted (the runtime's `Mechanic.bind`, with the same
InputError words as Python); the returned value is checked against the declared type."""
from __future__ import annotations

from ..language import nodes as n
from .emit import Globals, Idents, js_str, unsupported
from .expressions import ExprGen
from .types import js_type


def mechanic_js(g: Globals, fn) -> str:
    """`fn` is the compiled `MechanicFn` (its node, and the words of its types)."""
    node = fn.node
    idents = Idents()
    scope = {}
    params = []
    for p in node.params:
        default = "null"
        if p.default is not None:
            default = f"(ctx) => {ExprGen(g, Idents()).compile(p.default, {})}"
        params.append(f"{{name: {js_str(p.name)}, type: {js_type(p.type, g.compiled)}, "
                      f"describe: {js_str(fn.checks[p.name].describe)}, def: {default}}}")
    args = []
    for p in node.params:
        scope[p.name] = idents.fresh(p.name, p.span)
        args.append(scope[p.name])
    gen = ExprGen(g, idents)
    lines = []
    for s in node.body:
        if isinstance(s, n.Let):
            value = gen.compile(s.value, scope)
            scope = {**scope, s.name: idents.fresh(s.name, s.span)}
            lines.append(f"  const {scope[s.name]} = {value};")
        elif isinstance(s, n.Roll):
            value = roll_js(g, gen, s, scope)
            scope = {**scope, s.name: idents.fresh(s.name, s.span)}
            lines.append(f"  const {scope[s.name]} = {value};")
        elif isinstance(s, n.Require):
            lines.append(f"  if (!R.truthy({gen.compile(s.cond, scope)})) R.requireFail({js_str(node.name)}, {js_str(s.message)});")
        else:
            raise unsupported(getattr(s, "span", node.span), f"the statement {type(s).__name__}")
    lines.append(f"  return {gen.compile(node.result, scope)};")
    spec = (f"{{name: {js_str(node.name)}, params: [{', '.join(params)}], "
            f"rolls: [{', '.join(js_str(r.name) for r in fn.rolls)}], returns: {js_type(node.returns, g.compiled)}, "
            f"returnsDescribe: {js_str(fn.returns.describe)}, span: {js_str(g.span_text(node.span))}}}")
    return (f"$m[{g.mechanics[node.name]}] = B.defineMechanic({spec}, (ctx{''.join(', ' + a for a in args)}) => {{\n"
            + "\n".join(lines) + "\n});")


def roll_js(g: Globals, gen: ExprGen, s: n.Roll, scope: dict) -> str:
    spec = s.dice
    if spec.die not in g.dice:
        raise unsupported(s.span, f"the die '{spec.die}'")
    die, name, sp = f"$d[{g.dice[spec.die]}]", js_str(s.name), g.span(s.span)
    if spec.kind == "one":
        return f"R.rollOne(ctx, {name}, {die})"
    count = f"R.nDice({sp}, {name}, {gen.compile(spec.count, scope)})" if spec.count is not None else None
    if spec.kind == "pool":
        if count is None:
            raise unsupported(s.span, "a pool without a count")
        return f"R.rollPool(ctx, {name}, {die}, {count})"
    if spec.kind == "chain":
        then = gen.compile(spec.then, scope) if spec.then is not None else "null"
        return f"R.rollChain(ctx, {sp}, {name}, {die}, {count or '1n'}, {gen.compile(spec.on, scope)}, {then})"
    if spec.kind == "reroll":
        return f"R.rollReroll(ctx, {sp}, {name}, {die}, {count or 'null'}, {gen.compile(spec.on, scope)})"
    if spec.kind == "explode":
        cap = gen.compile(spec.cap, scope) if spec.cap is not None else "null"
        return f"R.rollExplode(ctx, {sp}, {name}, {die}, {count or 'null'}, {gen.compile(spec.on, scope)}, {cap})"
    raise unsupported(s.span, f"the roll kind {spec.kind!r}")
