"""Sentences for players: a mechanic as a question and its answer, a worked example
in words, a finding in words, a formula in words.

A book may phrase a mechanic (`question "..."`, `answer "the unit is {result}"`)
and a check's failing case (`finding "printed {left} gc; the book's own formula
gives {right} gc"`); where it does not, the sentence is made from display forms
(display.py): "Token dice: 3".  Placeholders are `{name}`; `{{` and `}}` are braces.

Everything here returns plain text; renderers (the site, the terminal) escape it.
"""
from __future__ import annotations

import re
from typing import Optional

from . import nodes as n
from .display import Names, capitalised, words
from .render import Notation

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def placeholders(template: str) -> list:
    """[(name, column of its `{` in the text)] of a template's `{name}`s."""
    return [(m.group(1).strip(), m.start()) for m in _PLACEHOLDER.finditer(template) if m.group(1) is not None]


def fill(template: str, values: dict) -> str:
    """The template with each `{name}` replaced by `values[name]` (text), braces unescaped.
    A placeholder with no value is left as its name in words (the checks refuse unknown ones)."""
    def sub(m):
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        name = m.group(1).strip()
        return values[name] if name in values else words(name)
    return _PLACEHOLDER.sub(sub, template)


# ------------------------------------------------------------------ mechanics
def title(names: Names, mechanic: str) -> str:
    """What a mechanic is called on a page and in a form: its question, else its name in words."""
    return names.questions.get(mechanic) or capitalised(names.mechanic(mechanic))


def answer(names: Names, mechanic: str, result, args: Optional[dict] = None, table: Optional[str] = None) -> str:
    """A mechanic's result as a sentence: the book's `answer` filled in ({result}, {param}),
    else "<result's name>: <value>" ("Token dice: 3")."""
    value = names.value(result, table)
    template = names.answers.get(mechanic)
    if template:
        values = {"result": value}
        for k, v in (args or {}).items():
            values[k] = names.value(v)
        return capitalised(fill(template, values))
    return f"{capitalised(names.result(mechanic))}: {value}"


def inputs_phrase(names: Names, owner: str, args: dict) -> str:
    """`state clear, hits 2`: inputs by their words (the order given)."""
    return ", ".join(f"{names.param(owner, k)} {names.input_value(owner, k, v)}" for k, v in args.items())


def call_sentence(names: Names, owner: str, args: dict, result, table: Optional[str] = None) -> str:
    """A call and its result as one sentence, for a worked example or the CLI:
    "What tokens does the unit carry after the attack? With state clear, hits 2: the
    unit is Under Fire." (a question written by the book), else
    "Suppression after attack, with state clear, hits 2: Under Fire."."""
    given = inputs_phrase(names, owner, args)
    if owner in names.questions:
        said = answer(names, owner, result, args, table)
        lead = f"With {given}: " if given else ""
        return f"{names.questions[owner]} {lead}{_uncapitalised(said) if lead else said}".rstrip() + _stop(said)
    value = names.value(result, table)
    if owner in names.answers:
        said = answer(names, owner, result, args, table)
        return (f"{capitalised(names.mechanic(owner))}, with {given}: {_uncapitalised(said)}" if given
                else said) + _stop(said)
    head = capitalised(names.mechanic(owner))
    return (f"{head}, with {given}: {value}" if given else f"{head}: {value}") + _stop(value)


def refusal_sentence(names: Names, owner: str, given: str, param: str = "", detail: str = "") -> str:
    """A call the rules refuse, in words (a worked example that expects an error);
    `given` is its inputs already in words."""
    head = capitalised(names.mechanic(owner)) + (f", with {given}" if given else "")
    if param:
        return f"{head}: refused, {names.param(owner, param)} is not allowed."
    return f"{head}: refused" + (f" ({detail.rstrip('.')})." if detail else ".")


def example_sentence(names: Names, case, explanation=None) -> str:
    """A worked example's `>>>` line as a sentence, when the book wrote none above it:
    a call of a mechanic or a table by its inputs and answer (call_sentence), a refused
    call as refused, anything else as its formula in words and its value."""
    expr = case.expr
    result = explanation.result if explanation is not None else None
    failed = case.error is not None or (explanation is not None and explanation.error is not None)
    if isinstance(expr, n.Call) and isinstance(expr.func, n.Name) and expr.func.name in names.order:
        owner = expr.func.name
        order = names.order[owner]
        given = [(order[i] if i < len(order) else f"input {i + 1}", a) for i, a in enumerate(expr.args)]
        given += list(expr.kwargs)
        if failed:
            said = ", ".join(f"{names.param(owner, k)} {expr_words(a, names)}" for k, a in given)
            err = case.error
            return refusal_sentence(names, owner, said, err.param if err is not None and err.kind == "InputError" else "",
                                    err.detail if err is not None and err.kind == "Error" else "")
        bound = _bound(explanation, owner)
        values = {}
        for k, a in given:
            if k in bound:
                values[k] = bound[k]
            else:
                made = _made(explanation, k)
                values[k] = made if made is not _NONE else _Said(expr_words(a, names))
        table = owner if owner in names.tables and owner not in names.mechanics else None
        return call_sentence(names, owner, values, result, table)
    if failed:
        return capitalised(f"{expr_words(expr, names)}: refused") + "."
    said = f"{expr_words(expr, names)} = {names.value(result)}"
    return capitalised(said) + _stop(said)


class _Said(str):
    """A value already in words (an input the working does not hold as a value)."""


_NONE = object()


def _bound(explanation, owner: str) -> dict:
    """The inputs of the example's own call of `owner`: the last top step that is it."""
    if explanation is None:
        return {}
    for st in reversed(explanation.root.children):
        if st.step == "call" and st.owner == owner and st.args is not None:
            return st.args
        if st.step == "lookup" and st.detail.get("table") == owner and st.reads is not None:
            return st.reads
    return {}


def _made(explanation, roll: str):
    """A roll the example gave by name (`dice=[...]`), as the working made it."""
    if explanation is None:
        return _NONE
    for k, v in explanation.rolls.items():
        if k == roll or k.endswith("." + roll):
            return v
    return _NONE


def _stop(text: str) -> str:
    return "" if text.rstrip().endswith((".", "!", "?", ")")) else "."


def _uncapitalised(text: str) -> str:
    """A sentence continued after a colon: its first letter lower case, unless the first
    word is a name (two capitals, as in "AP", or a capital after a capital)."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and (first[1:2].isupper() or not first[:1].isupper()):
        return text
    return text[:1].lower() + text[1:]


def branch_words(node: n.Mechanic, names: Names) -> list:
    """The arms of a mechanic whose result is a chain of `if`s, in words, in the order of
    explain.branch_chain: [(label, arm)], labels "if …", "else if …", "otherwise"."""
    scope = {p.name: names.param(node.name, p.name) for p in node.params}
    for s in node.body:
        if isinstance(s, n.Roll):
            scope[s.name] = names.roll(node.name, s.name)
    e, out = node.result, []
    while isinstance(e, n.IfElse):
        out.append((f"{'else if' if out else 'if'} {expr_words(e.cond, names, scope)}", expr_words(e.then, names, scope)))
        e = e.orelse
    if out:
        out.append(("otherwise", expr_words(e, names, scope)))
    return out


def die_name(die: str, book=None) -> tuple:
    """(singular, plural) of a die for prose: d10 -> ('d10', 'd10'); dust -> ('Dust die', 'Dust dice')."""
    import re
    if re.fullmatch(r"d\d+", die):
        return die, die
    name = die.replace("_", " ")
    name = name[:1].upper() + name[1:]
    return f"{name} die", f"{name} dice"


def dice_phrase(spec, text=None, face=None) -> str:
    """A roll statement as a reader says it: 'roll a d10', 'roll 2 Dust dice', 'roll hits d6'.
    `text` writes an expression (default: the language's notation; display.py's words for
    players), `face` a die face named in it."""
    from . import nodes as n
    from .render import expr_text as notation
    expr_text = text or notation
    one, many = die_name(spec.die)
    article = "an" if one[:1].lower() in "aeiou" else "a"

    def count_text(c):
        if isinstance(c, (n.Literal, n.Name, n.Call, n.Attr)):
            return expr_text(c)
        return f"({expr_text(c)})"

    def faces(e):
        if isinstance(e, (n.SetLit, n.ListLit)):
            items = [face(x.name) if face and isinstance(x, n.Name) else expr_text(x) for x in e.items]
            return " or ".join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else (items[0] if items else "nothing")
        if isinstance(e, n.RangeExpr):
            return f"{expr_text(e.low)}..{expr_text(e.high)}"
        return expr_text(e)

    if spec.kind in ("reroll", "explode"):
        base = dice_phrase(n.DiceSpec(spec.span, "one" if spec.count is None else "pool", spec.die, spec.count),
                           text, face)
        if spec.kind == "reroll":
            each = "re-rolling it once" if spec.count is None else "re-rolling each die once"
            return f"{base}, {each} if it shows {faces(spec.on)} (the new face is kept)"
        from .dice import EXPLODE_CAP
        cap = expr_text(spec.cap) if spec.cap is not None else str(EXPLODE_CAP)
        return (f"{base}; each die showing {faces(spec.on)} adds another die, again and again "
                f"(at most {cap} extra dice); keeps every face")
    if spec.kind == "one":
        return f"roll {article} {one}"
    if spec.kind == "pool":
        c = spec.count
        if isinstance(c, n.Literal) and c.value == 1:
            return f"roll 1 {one}"
        return f"roll {count_text(c)} {many}"
    # chain
    if spec.count is None:
        head = f"roll {article} {one}"
    else:
        head = f"roll {count_text(spec.count)} {many}"
    each = "" if spec.count is None else "each "
    text = f"{head}, {each}rolling again while it shows {faces(spec.on)}"
    if spec.then is not None:
        text += f" (after the first roll: {faces(spec.then)})"
    return text + "; counts the successes"


def doc_words(doc: str, names, owner: str = "") -> str:
    """A docstring for players: each `identifier` it quotes in backticks becomes its words
    (a parameter of `owner`, else any name of the book)."""
    if not doc or names is None:
        return doc

    def sub(m):
        ident = m.group(1)
        if owner and (owner, ident) in names.params:
            return names.param(owner, ident)
        if owner and (owner, ident) in names.rolls:
            return names.roll(owner, ident)
        return names.name(ident)
    return re.sub(r"`([A-Za-z_][A-Za-z0-9_]*)`", sub, doc)


# ------------------------------------------------------------------ findings
def finding_sentence(names: Names, check: n.Check, case: dict) -> str:
    """One failing case of a check as a sentence: the book's `finding` filled in ({left},
    {right}, a binding, `{binding.field}` of a row), else "<the row>: <left in words> is
    118; <right in words> is 82" (a bound row named by its name, item, unit, weapon or
    place, else by its fields; a side that is a binding is not said twice)."""
    from .render import expr_text
    from .values import Record
    bindings = case.get("bindings", {})
    binds = {k: _short(names, v) for k, v in bindings.items()}
    left = right = None
    if "left" in case:
        left, right = names.value(case["left"][1]), names.value(case["right"][1])
    template = names.findings.get(check.name)
    if template:
        values = dict(binds)
        for k, v in bindings.items():
            if isinstance(v, Record):
                for f, x in v.as_dict().items():
                    values[f"{k}.{f}"] = names.value(x)
        if left is not None:
            values.update(left=left, right=right)
        return capitalised(fill(template, values))
    claim = check.claim
    sides = (claim.left, claim.right) if isinstance(claim, n.Compare) else ()
    said_by_sides = {x.name for x in sides if isinstance(x, n.Name)}
    lead = ", ".join(v if isinstance(bindings[k], Record) else f"{words(k)} {v}"
                     for k, v in binds.items() if k not in said_by_sides)
    if left is None:
        return capitalised(f"{lead}: this does not hold" if lead else "this does not hold") + "."
    rows = {k: "" for k, v in bindings.items() if isinstance(v, Record)}   # `row.listed` reads "listed"
    lw = expr_words(claim.left, names, rows) if sides else expr_text(case["left"][0])
    rw = expr_words(claim.right, names, rows) if sides else expr_text(case["right"][0])
    said = f"{lw} is {left}; {rw} is {right}"
    return capitalised(f"{lead}: {said}" if lead else said) + "."


def _short(names: Names, v) -> str:
    """A bound value as a finding names it: a row by its name, item, unit or weapon."""
    from .values import Record
    if isinstance(v, Record):
        d = v.as_dict()
        for key in ("name", "item", "unit", "weapon", "place"):
            if key in d:
                return names.value(d[key])
        first = next(iter(d.values()), None)
        if isinstance(first, str):         # a row keyed by text: its key names it
            return names.value(first)
    return names.value(v)


# ------------------------------------------------------------------ formulas
_OPS = {"==": "=", "!=": "≠", "<=": "≤", ">=": "≥", "<": "<", ">": ">", "notin": "not in", "in": "in"}


def expr_words(e, names: Names, scope: Optional[dict] = None) -> str:
    """A formula as a player reads it: the language's notation (so it still matches the
    rule), with every name in its words (`hits >= heavy_fire_hits` -> "hits ≥ heavy fire
    hits"), `==` as `=`, and calls by their words.  `scope` maps local names (parameters,
    lets, rolls) to their words; a name mapped to "" is a bound row, whose fields read alone."""
    return _Words(names, scope or {}).text(e)


class _Words(Notation):
    """render.Notation in words: names by their display forms, `==` as `=`, `*` as `×`,
    `a..b` as "a to b", `len(x)` as "the number of x", a row's field by the field's words."""
    range_sep, set_open, set_close = " to ", "[", "]"

    def __init__(self, names: Names, scope: dict):
        self.names, self.scope = names, scope

    def literal(self, v) -> str:
        if isinstance(v, bool):
            return "yes" if v else "no"
        return self.names.value(v) if isinstance(v, str) else super().literal(v)

    def name(self, ident: str) -> str:
        said = self.scope.get(ident)
        return said if said else (ident if said == "" else self.names.name(ident))

    def operator(self, op: str) -> str:
        return _OPS.get(op, "×" if op == "*" else op)

    def comprehension(self, e) -> str:
        inner = _Words(self.names, {**self.scope, e.var: words(e.var)})
        cond = f" if {inner.text(e.cond)}" if e.cond is not None else ""
        return f"{inner.text(e.elem)} for each {words(e.var)} in {self.text(e.source)}{cond}"

    def call(self, e) -> str:
        callee = e.func.name if isinstance(e.func, n.Name) else ""
        if callee == "len" and len(e.args) == 1 and not e.kwargs and "len" not in self.scope:
            return f"the number of {self.text(e.args[0])}"
        parts = [self.text(a) for a in e.args] + [f"{self.names.param(callee, k)} {self.text(a)}" for k, a in e.kwargs]
        parts += [e.mode.replace("_", " ")] if e.mode else []
        return f"{self.wrap(e.func, 9)}({', '.join(parts)})"

    def field(self, e) -> str:
        if isinstance(e.obj, n.Name) and self.scope.get(e.obj.name) == "":
            return self.names.field(None, e.name)        # a bound row's field: "listed"
        return f"{self.wrap(e.obj, 9)}'s {self.names.field(None, e.name)}"
