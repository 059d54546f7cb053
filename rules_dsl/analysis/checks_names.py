"""The expressions pass of the checks: every name resolves, every call fits its callee.

`ExprChecker` walks an expression with its scope (the local names) through the shared
visitor protocol (`rules_dsl.language.visitor.NodeVisitor`).  `checks.check_expressions` runs it
over every mechanic, constant, table and check; `checks_examples` over worked examples,
with no local names.
"""
from __future__ import annotations

from . import callgraph
from ..language import rollpaths
from ..language import nodes as n
from ..language.builtins import BUILTINS, ROUND_MODES
from ..errors import Fix, did_you_mean, line_of, suggest
from .resolve import resolve, resolve_callee
from .symbols import Symbols
from ..language.visitor import NodeVisitor


class ExprChecker(NodeVisitor):
    """The expressions pass: `visit(expr, scope)` reports every name that does not
    resolve in `scope` (with did-you-mean fixes), every call with the wrong arguments
    or a roll path that names no roll, every enum member or die face that does not
    exist.  One `visit_<Node>` per node that needs more than visiting its children
    (`NodeVisitor.generic_visit` walks the rest with the same scope); `dice` and
    `cell_name` check a roll's dice and a table cell's name."""

    def __init__(self, syms: Symbols, report):
        self.syms, self.report = syms, report

    def known(self, scope):
        return set(scope) | set(self.syms.globals()) | set(BUILTINS) | {
            m for m, owners in self.syms.members.items() if len(owners) == 1}

    def cell_name(self, name: n.Name):
        owners = self.syms.members.get(name.name, [])
        if len(owners) == 1 or name.name in self.syms.consts or name.name in self.syms.skipped:
            return
        if len(owners) > 1:
            self.report(name.span, f"'{name.name}' is a member of {', '.join(owners)}",
                        f"write it qualified, e.g. {owners[0]}.{name.name}, in expressions; in tables give the column an enum type")
            return
        self.report(name.span, f"unknown value '{name.name}' in table",
                    did_you_mean(name.name, list(self.syms.members) + list(self.syms.consts))
                    or "a table cell holds a number, a \"string\", true/false, absent, a range or an enum member")

    def dice(self, spec: n.DiceSpec, scope):
        if spec.die not in self.syms.dice and spec.die not in self.syms.skipped:
            self.report(spec.span, f"unknown die '{spec.die}'",
                        did_you_mean(spec.die, self.syms.dice) or "declare dice in the book header: dice d6 / die NAME { face: count }")
        for e in spec.parts():
            self.visit(e, scope)
        die = self.syms.dice.get(spec.die)
        if die is not None and spec.kind in ("reroll", "explode"):
            self.dice_faces(spec, die, scope)

    def dice_faces(self, spec: n.DiceSpec, die: n.Die, scope=()):
        """The faces written after `reroll` / `explode on` must be faces of the die, and an
        explosion on every face would never stop.  Faces computed from names are checked
        when the roll is made."""
        what = "re-rolled" if spec.kind == "reroll" else "exploding"
        e = spec.on
        shown = f"{die.name} (faces 1..{len(die.faces)})" if not die.custom else \
            f"{die.name} (faces {', '.join(dict.fromkeys(die.faces))})"
        example = "{1}" if not die.custom else "{" + die.faces[0] + "}"
        written = set()
        if isinstance(e, (n.SetLit, n.ListLit)):
            for x in e.items:
                face = None
                if isinstance(x, n.Literal) and isinstance(x.value, int) and not isinstance(x.value, bool):
                    face = x.value
                elif isinstance(x, n.Name) and die.custom and (
                        x.name in die.faces or not (x.name in scope or x.name in self.syms.globals())):
                    face = x.name
                elif isinstance(x, n.Attr) and isinstance(x.obj, n.Name) and x.obj.name == die.name:
                    face = x.name
                else:
                    return          # computed: checked when rolled
                if face not in die.faces:
                    self.report(x.span, f"{face} is not a face of {shown}, so it cannot be {what}",
                                f"list faces of the die, e.g. {spec.kind} {'on ' if spec.kind == 'explode' else ''}{example}")
                    return
                written.add(face)
        elif (isinstance(e, n.RangeExpr) and isinstance(e.low, n.Literal) and isinstance(e.high, n.Literal)
              and not die.custom):
            lo, hi = e.low.value, e.high.value
            bad = [f for f in range(lo, hi + 1) if f not in die.faces] if isinstance(lo, int) and isinstance(hi, int) else []
            if bad:
                self.report(e.span, f"{bad[0]} is not a face of {shown}, so it cannot be {what}",
                            f"a range of faces stays within 1..{len(die.faces)}")
                return
            written = set(range(lo, hi + 1))
        else:
            return
        if spec.kind == "explode" and written >= set(die.faces):
            self.report(e.span, f"exploding on every face of {die.name} would never stop: each die adds another",
                        f"explode on some faces only, e.g. explode on {{{max(die.faces) if not die.custom else die.faces[0]}}}")

    def visit_Name(self, e, scope):
        r = resolve(e.name, scope, self.syms)
        if r.kind not in ("ambiguous", "unknown") or (r.kind == "unknown" and e.name in self.syms.skipped):
            return
        if r.kind == "ambiguous":
            owners = r.owner.split(", ")
            self.report(e.span, f"'{e.name}' is ambiguous: a member of {', '.join(owners)}",
                        f"write {owners[0]}.{e.name}")
            return
        if e.name in ("True", "False", "None"):
            self.report(e.span, f"unknown name '{e.name}' (Python's spelling)",
                        "the rules language writes " + {"True": "true", "False": "false", "None": "absent"}[e.name])
            return
        if e.name in ROUND_MODES:
            self.report(e.span, f"'{e.name}' is a rounding mode", "use it as round(x, " + e.name + ")")
            return
        if e.name in ("chance", "mean"):
            self.report(e.span, f"unknown name '{e.name}'",
                        f"{e.name}(...) is an example's whole '>>>' line (exact odds over every roll), "
                        f"e.g. >>> {e.name}(hits(3, 4){' >= 2' if e.name == 'chance' else ''})")
            return
        known = self.known(scope)
        self.report(e.span, f"unknown name '{e.name}'", did_you_mean(e.name, known),
                    fixes=rename_fixes(e.span, e.name, suggest(e.name, known)))

    def visit_Comprehension(self, e, scope):
        self.visit(e.source, scope)
        inner = set(scope) | {e.var}
        self.visit(e.elem, inner)
        if e.cond is not None:
            self.visit(e.cond, inner)

    def visit_Attr(self, e, scope):
        if isinstance(e.obj, n.Name) and e.obj.name not in scope:
            if e.obj.name in self.syms.enums:
                members = self.syms.enums[e.obj.name].members
                if e.name not in members:
                    at = n.Span(e.span.file, e.span.end_line or e.span.line,
                                (e.span.end_column or e.span.column + len(e.name)) - len(e.name))
                    self.report(e.span, f"enum '{e.obj.name}' has no member '{e.name}'", did_you_mean(e.name, members),
                                fixes=rename_fixes(at, e.name, suggest(e.name, members)))
                return
            if e.obj.name in self.syms.dice:
                faces = set(map(str, self.syms.dice[e.obj.name].faces))
                if e.name not in faces:
                    self.report(e.span, f"die '{e.obj.name}' has no face '{e.name}'", did_you_mean(e.name, faces))
                return
        self.visit(e.obj, scope)

    def visit_Call(self, e, scope):
        kind = resolve_callee(e.func.name, scope, self.syms).kind if isinstance(e.func, n.Name) else "value"
        for a in e.args:
            self.visit(a, scope)
        for _, a in e.kwargs:
            self.visit(a, scope)
        if kind in ("value", "local"):
            if e.mode:   # `round(x, up)` where a local named round hides the built-in
                self.report(e.span, f"round(..., {e.mode}) needs the built-in round, hidden here by a local 'round'",
                            "rename the local")
            self.visit(e.func, scope)
            return
        name = e.func.name
        nargs = len(e.args) + len(e.kwargs) + (1 if e.mode else 0)
        if kind == "builtin":
            _, lo, hi, doc = BUILTINS[name]
            if e.kwargs:
                self.report(e.span, f"{name}() takes no named arguments", doc)
            if not lo <= nargs <= hi:
                self.report(e.span, f"{name}() takes {lo if lo == hi else f'{lo} to {hi}'} argument(s), got {nargs}", doc)
            if name == "round" and nargs == 2 and e.mode not in ROUND_MODES:
                where = e.args[1].span if len(e.args) == 2 else e.span
                what = f"'{e.mode}' is not a rounding mode" if e.mode else "round() needs an explicit mode"
                self.report(where, what, "one of: " + ", ".join(ROUND_MODES))
            return
        if kind not in ("mechanic", "table"):
            self.visit(e.func, scope)
            if kind not in ("unknown", "ambiguous"):     # those are reported as names
                self.report(e.span, f"'{name}' cannot be called", "only mechanics, tables and built-ins are called")
            return
        target = self.syms.mechanics[name] if kind == "mechanic" else self.syms.tables[name]
        params = [p.name for p in target.params]
        required = [p.name for p in target.params if p.default is None]
        rolls = [s.name for s in getattr(target, "body", ()) if isinstance(s, n.Roll)]
        if len(e.args) > len(params):
            self.report(e.span, f"{name}() takes at most {len(params)} argument(s), got {len(e.args)}",
                        f"{name}({', '.join(params)})")
            return
        given = set(params[: len(e.args)])
        meant = set()     # the parameters a misspelt name is nearest to: not also "missing"
        for k, a in e.kwargs:
            if k in rolls:
                continue  # giving a callee's roll by name: that roll takes this value
            if rollpaths.is_path(k):
                self.roll_path(target, k, self._kwarg_span(k, a, e))
                continue
            if k not in params:
                path = callgraph.path_to_roll(self.syms, name, k) if kind == "mechanic" else None
                hint = (f"'{k}' is a roll of {path.split('.')[-2]}, which {name} calls: give it by its path, "
                        f"{path}=..." if path else did_you_mean(k, params + rolls))
                self.report(self._kwarg_span(k, a, e), f"{name}() has no parameter or roll '{k}'", hint)
                meant.update(suggest(k, params)[:1])
            elif k in given:
                self.report(e.span, f"{name}() got '{k}' twice")
            given.add(k)
        missing = [p for p in required if p not in given and p not in meant]
        if missing:
            self.report(e.span, f"{name}() is missing {', '.join(repr(m) for m in missing)}",
                        f"{name}({', '.join(params)})")

    def _kwarg_span(self, key, value, call):
        """Where `key=` is written before `value` in a call (else the call)."""
        text = getattr(self.report, "texts", {}).get(value.span.file, "")
        line = line_of(text, value.span.line)[: max(value.span.column - 1, 0)]
        at = line.rfind(key)
        if at >= 0 and line[at + len(key):].strip() == "=":
            return n.Span(value.span.file, value.span.line, at + 1)
        return call.span

    def roll_path(self, target, path, span):
        """A roll given by its path through called mechanics (`morale.first`): each step
        must be a mechanic the one before calls, and the last a roll of the last one."""
        if not isinstance(target, n.Mechanic):
            self.report(span, f"'{path}' gives a roll, but {target.name} is a table, which rolls no dice")
            return
        parsed = rollpaths.parse(path)
        if parsed is None:
            self.report(span, f"'{path}' is not a roll's path", "e.g. morale.first=[6, 6] or attack[1].hit_dice=[6]")
            return
        calls, roll = parsed
        m = target
        for c, _ in calls:
            called = callgraph.callees(m, self.syms)
            if c not in called:
                if m.name in self.syms.incomplete:   # a name of its body is misspelt: said there
                    return
                hint = did_you_mean(c, called) or (f"{m.name} calls {', '.join(called)}" if called
                                                   else f"{m.name} calls no mechanic")
                self.report(span, f"{m.name} does not call '{c}', so '{path}' names no roll of {target.name}", hint)
                return
            m = self.syms.mechanics[c]
        rolls = callgraph.rolls_of(m)
        if roll not in rolls:
            hint = did_you_mean(roll, rolls) or (f"its rolls: {', '.join(rolls)}" if rolls else f"{m.name} rolls no dice")
            self.report(span, f"'{roll}' is not a roll of {m.name} (in the path '{path}')", hint)


def rename_fixes(span: n.Span, word: str, suggestions) -> tuple:
    """Quick fixes for a did-you-mean: replace `word`, written at `span`, by each suggestion."""
    if not span.line:
        return ()
    return tuple(Fix(f"Change to '{s}'", span.line, span.column, span.line, span.column + len(word), s)
                 for s in suggestions)
