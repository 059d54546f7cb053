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
"""
from __future__ import annotations

import os
import random
import re
import textwrap
from dataclasses import dataclass, field
from typing import Optional

from . import nodes as n
from .compiler.context import Ctx
from .compiler.context import Invocable
from .compiler.expressions import ExprCompiler, split_roll_kwargs
from .compiler.mechanics import MechanicFn
from .compiler.tables import TableFn
from .dice import ForcedRoller, GivenRoller
from .errors import EvaluationError, NotFound, RulesError
from .render import dice_text, expr_text
from .resolve import resolve_callee
from .rollpaths import shown_names
from .values import ABSENT, Record, show, to_json

__all__ = ["Step", "Explanation", "explain_call", "explain_case", "explain_lookup", "NOTE_KINDS_EXPLAINED"]

# The notes an explanation cites: our readings of the book (not `absent` notes,
# which say what the source leaves out and decide no value).
NOTE_KINDS_EXPLAINED = ("interpretation", "erratum", "clarification")
MAX_ITEMS_SHOWN = 40     # the items a filter step lists (a pool of 1000 dice is summed up by its counts)


@dataclass
class Step:
    """One step of an explanation (see docs/cli.md for its JSON form).

    `step` is the kind: `call`, `let`, `roll`, `branch`, `lookup`, `require`,
    `result` or `example`; `text` says what was done in the rule's own notation;
    `detail` holds what is particular to the kind (a branch's condition, a roll's
    dice, a lookup's keys and row...)."""
    step: str
    rule: str
    title: str
    location: str
    text: str
    value: object = None
    has_value: bool = False
    children: list = field(default_factory=list)
    notes: list = field(default_factory=list)      # of (kind, text, rule id)
    detail: dict = field(default_factory=dict)
    args: Optional[dict] = None     # a call's bound arguments as values (not in the JSON)
    node: object = None             # the AST the step stands for, for renderers in words (not in the JSON)
    owner: str = ""                 # the mechanic the step is in (not in the JSON)
    reads: Optional[dict] = None    # a branch's values read, a lookup's keys, as values (not in the JSON)

    def set(self, value):
        self.value, self.has_value = value, True
        return value

    def walk(self):
        """This step and every step under it, depth first."""
        yield self
        for c in self.children:
            yield from c.walk()

    def as_json(self) -> dict:
        return {"step": self.step, "rule": {"id": self.rule, "title": self.title},
                "location": self.location, "text": self.text,
                "value": to_json(self.value) if self.has_value else None,
                "shown": show(self.value) if self.has_value else None,
                "detail": {k: _json_detail(v) for k, v in self.detail.items()},
                "notes": [{"kind": k, "text": t, "rule": r} for k, t, r in self.notes],
                "children": [c.as_json() for c in self.children]}


def _json_detail(v):
    if isinstance(v, dict):
        return {k: _json_detail(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_detail(x) for x in v]
    if isinstance(v, (str, int, bool)) or v is None:
        return v
    return to_json(v)


@dataclass
class Explanation:
    """The working of one evaluation: `root` is its top step (the mechanic's call, or
    the example's expression); `result` the value (as a plain call gives it),
    `rolls` the rolls made, `error` the message when the evaluation stopped."""
    book: str
    root: Step
    result: object = None
    rolls: dict = field(default_factory=dict)
    error: Optional[str] = None

    @property
    def steps(self):
        """Every step, depth first (the root first)."""
        return list(self.root.walk())

    def as_json(self) -> dict:
        return {"book": self.book, "result": to_json(self.result) if self.error is None else None,
                "error": self.error, "rolls": {k: to_json(v) for k, v in self.rolls.items()},
                "explanation": self.root.as_json()}

    def lines(self, width: int = 100, locations: bool = True, style=None) -> list:
        """The working as indented text, like a worked solution.  `style(text, *styles)`
        (as `terminal.Out.style`) marks rule titles bold and locations dim."""
        out = []
        _lines(self.root, 0, out, width, locations, set(), style or _plain)
        if self.error is not None:
            out.append(f"stopped: {self.error}")
        return out

    def text(self, width: int = 100, locations: bool = True) -> str:
        return "\n".join(self.lines(width, locations))


# ------------------------------------------------------------------ text
_IND = "  "


def _plain_prose(text: str) -> str:
    """Prose as plain words: [[refs]] become their label, emphasis marks go."""
    def label(m):
        target, _, shown = m.group(1).partition("|")
        return shown or target.split(":")[-1].replace("-", " ")
    text = re.sub(r"\[\[(.*?)\]\]", label, text, flags=re.S)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text, flags=re.S)
    return " ".join(text.split())


def _note_lines(st: Step, pad: str, out: list, width: int, seen: set):
    for kind, text, rule in st.notes:
        if (kind, text) in seen:
            continue
        seen.add((kind, text))
        of = f" (of {rule})" if rule != st.rule else ""
        out.extend(textwrap.wrap(f"{kind} note{of}: {_plain_prose(text)}", width=max(len(pad) + 44, width),
                                 initial_indent=pad + _IND + "* ", subsequent_indent=pad + _IND + "  ",
                                 break_on_hyphens=False))


def _plain(text, *styles):
    return text


def repeated_calls(children: list) -> list:
    """The children of a step with each run of calls of one mechanic (two or more in a
    row: once per item of a list, once per die) gathered into a list."""
    out = []
    for c in children:
        if c.step == "call" and out and isinstance(out[-1], list) and out[-1][0].detail.get("name") == c.detail.get("name"):
            out[-1].append(c)
        elif c.step == "call" and out and isinstance(out[-1], Step) and out[-1].step == "call" \
                and out[-1].detail.get("name") == c.detail.get("name"):
            out[-1] = [out[-1], c]
        else:
            out.append(c)
    return out


def _group_lines(calls: list, depth: int, out: list, width: int, locations: bool, seen: set, style=_plain):
    """Repeated calls of one mechanic: what they share once, one line per call with what
    differs and its result, then the working of the first call only."""
    first = calls[0]
    pad = _IND * depth
    where = style(f"  [{first.location}]", "dim") if locations else ""
    args = [c.detail.get("arguments", {}) for c in calls]
    names = list(args[0])
    same = [k for k in names if all(a.get(k) == args[0].get(k) for a in args)]
    differ = [k for k in names if k not in same]
    shared = ", ".join(f"{k}={args[0][k]}" for k in same)
    head = f"{first.title} ({first.rule})"
    out.append(f"{pad}{style(head, 'bold')}: {first.detail.get('name', '')}, {len(calls)} calls"
               + (f" with {shared}" if shared else "") + where)
    _note_lines(first, pad, out, width, seen)
    for c, a in zip(calls, args):
        which = ", ".join(f"{k}={a[k]}" for k in differ) or "the same arguments"
        result = f" => {show(c.value)}" if c.has_value else " => (stopped)"
        out.append(f"{pad}{_IND}{which}{result}")
    which = ", ".join(f"{k}={args[0][k]}" for k in differ)
    out.append(f"{pad}{_IND}the working of the first call{f' ({which})' if which else ''}:")
    for c in first.children:
        _lines(c, depth + 2, out, width, locations, seen, style)


def _children_lines(st: Step, depth: int, out: list, width: int, locations: bool, seen: set, style=_plain):
    for c in repeated_calls(st.children):
        if isinstance(c, list):
            _group_lines(c, depth, out, width, locations, seen, style)
        else:
            _lines(c, depth, out, width, locations, seen, style)


def _lines(st: Step, depth: int, out: list, width: int, locations: bool, seen: set, style=_plain):
    """One step and its children; a note is printed the first time it bears (`seen`)."""
    pad = _IND * depth
    where = style(f"  [{st.location}]", "dim") if locations else ""
    if st.step in ("call", "example"):
        head = f"{st.title} ({st.rule})" if st.step == "call" else f"Example of {st.title} ({st.rule})"
        out.append(f"{pad}{style(head, 'bold')}: {st.text}{where}")
        _note_lines(st, pad, out, width, seen)
        _children_lines(st, depth + 1, out, width, locations, seen, style)
        if st.has_value and st.step == "call":
            out.append(f"{pad}{_IND}=> {st.detail.get('name', '')} gives {show(st.value)}")
        elif st.has_value:
            out.append(f"{pad}{_IND}=> {show(st.value)}")
        return
    if st.step == "let":
        line = f"{st.text} = {show(st.value)}" if st.has_value else st.text
    elif st.step == "roll":
        how = "given" if st.detail.get("given") else "rolled at random"
        line = f"roll {st.detail['name']} ({st.detail['dice']}): {show(st.value)} ({how})"
        if st.detail.get("working"):
            line += f": {st.detail['working']}"
    elif st.step == "branch":
        read = st.detail.get("read") or {}
        why = f" with {', '.join(f'{k} = {v}' for k, v in read.items())}" if read else ""
        holds = "holds" if st.detail.get("holds") else "does not hold"
        arm = st.detail.get("arm", "")
        taken = f"the {arm} branch" if st.detail.get("chained") else f"{arm} {st.detail.get('taken', '')}"
        line = f"if {st.detail['condition']}: {holds}{why}; takes {taken}"
        if "holds" not in st.detail:            # the condition itself stopped the evaluation
            line = f"if {st.detail['condition']}{why}: cannot be decided"
    elif st.step == "lookup":
        keys = ", ".join(f"{k}={v}" for k, v in st.detail.get("keys", {}).items())
        line = f"table {st.detail['table']} ({st.title}) at {keys}: {show(st.value)}"
        if st.detail.get("absent"):
            line += f" (absent in the source: {', '.join(st.detail['absent'])})"
    elif st.step == "require":
        line = f"require {st.detail['condition']}: {'holds' if st.value else 'FAILS: ' + st.detail['message']}"
    elif st.step == "result":
        line = f"{st.text} = {show(st.value)}" if st.has_value else st.text
    elif st.step == "filter":
        kept, items = st.detail.get("kept", []), st.detail.get("items", [])
        read = st.detail.get("read") or {}
        why = f" with {', '.join(f'{k} = {v}' for k, v in read.items())}" if read else ""
        which = ", ".join(kept) if kept else "none"
        line = (f"{st.detail['source']} [{', '.join(items)}]: {len(kept)} of {len(items)} pass "
                f"{st.detail['condition']}{why}: {which}")
    else:
        line = st.text
    out.append(pad + line + where)
    _note_lines(st, pad, out, width, seen)
    _children_lines(st, depth + 1, out, width, locations, seen, style)


# ------------------------------------------------------------------ tracing
class Tracer:
    """The steps being recorded: a stack of open steps under one root."""
    __slots__ = ("stack",)

    def __init__(self, root: Step):
        self.stack = [root]

    def add(self, st: Step) -> Step:
        self.stack[-1].children.append(st)
        return st

    def open(self, st: Step) -> Step:
        self.stack[-1].children.append(st)
        self.stack.append(st)
        return st

    def close(self):
        self.stack.pop()


class TraceCtx(Ctx):
    """A `Ctx` that also carries the tracer (only explanations build one)."""
    __slots__ = ("tracer",)

    def __init__(self, roller, prefix="", depth=0, budget=False, reads=None, tracer=None):
        super().__init__(roller, prefix, depth, budget, reads)
        self.tracer = tracer

    def child(self, name):
        c = Ctx.child(self, name)
        return TraceCtx(c.roller, c.prefix, c.depth, c.budget, tracer=self.tracer)


class Where:
    """Rule ids, titles, notes and display locations of one book's declarations."""

    def __init__(self, compiled):
        self.compiled = compiled
        self.index = compiled.symbol_index      # the book's rules and declarations (symbol_index.py)
        self.rules = {rid: d.node for rid, d in self.index.rules.items() if d.kind == "rule"}
        self.decls = set(compiled.mechanics) | set(compiled.tables) | set(compiled.checks)
        self.base = _books_folder(compiled)
        self._notes, self._by_name = {}, None

    def rule_of(self, decl: str):
        rid = self.index.rule_of(decl)
        r = self.rules.get(rid)
        return rid, (r.title if r is not None else "")

    def title(self, rule_id: str) -> str:
        r = self.rules.get(rule_id)
        return r.title if r is not None else ""

    def loc(self, span: n.Span) -> str:
        f = span.file
        if self.base:
            real = os.path.realpath(f)
            if real.startswith(self.base + os.sep):
                f = os.path.relpath(real, self.base)
        return f"{f}:{span.line}"

    def _named(self, note) -> set:
        text = note.text.text
        words = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)", text))
        words |= set(re.findall(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b", text))
        return words & self.decls

    def notes_for(self, decl: str) -> list:
        """The notes that bear on `decl`, as (kind, text, rule id): of the kinds explanations
        cite, those of its own rule that name `decl` or none of the book's mechanics,
        tables and checks, and those of any rule that name `decl` (a name counts when it
        is in backticks or has an underscore, as identifiers do)."""
        if self._by_name is None:
            self._by_name = {}
            for rid, r in self.rules.items():
                for note in r.notes:
                    if note.kind in NOTE_KINDS_EXPLAINED:
                        named = self._named(note)
                        for d in named:
                            self._by_name.setdefault(d, []).append((rid, note))
                        if not named:
                            self._by_name.setdefault(("rule", rid), []).append((rid, note))
        if decl not in self._notes:
            rid, _ = self.rule_of(decl)
            found = self._by_name.get(("rule", rid), []) + self._by_name.get(decl, [])
            found.sort(key=lambda x: (x[0] != rid, x[1].span.file, x[1].span.line))
            self._notes[decl] = [(note.kind, note.text.text, r) for r, note in found]
        return self._notes[decl]


def _books_folder(compiled) -> str:
    """The folder a book's files are shown relative to: its books folder (the parent of
    `book.rules`, or of the folder `book/` that holds a book of several files)."""
    files = [os.path.realpath(str(f)) for f in getattr(compiled.ast, "files", ())]
    if not files:
        return ""
    folder = os.path.dirname(os.path.commonpath(files)) if len(files) > 1 else os.path.dirname(files[0])
    if len(files) == 1 and os.path.basename(folder) == compiled.book_id:
        folder = os.path.dirname(folder)    # a folder book of one file
    return folder


class TracingCompiler(ExprCompiler):
    """`ExprCompiler` whose closures also record steps into `ctx.tracer`.

    `rule` is the rule the compiled expressions belong to (its id); branches and
    lookups made by them are recorded as steps of that rule.  Mechanic calls go to
    the traced twin of the mechanic (`traced(book, name)`)."""

    def __init__(self, book, where: Where, rule: str, owner: str = ""):
        super().__init__(book)
        self.where, self.rule, self.title = where, rule, where.title(rule)
        self.owner = owner      # the mechanic compiled (its parameters' words name the values read)

    def visit_IfElse(self, e, scope):
        c, t, o = (self.compile(x, scope) for x in (e.cond, e.then, e.orelse))
        cond, then_text, else_text = expr_text(e.cond), expr_text(e.then), expr_text(e.orelse)
        chained = (isinstance(e.then, n.IfElse), isinstance(e.orelse, n.IfElse))
        read = list(dict.fromkeys(x.name for x in n.iter_nodes(e.cond) if isinstance(x, n.Name) and x.name in scope))
        rule, title, loc = self.rule, self.title, self.where.loc(e.span)
        owner = self.owner

        def f(env, ctx):
            tr = ctx.tracer
            st = tr.open(Step("branch", rule, title, loc, f"if {cond}",
                              detail={"condition": cond, "read": {k: show(env[k]) for k in read if k in env}},
                              node=e, owner=owner, reads={k: env[k] for k in read if k in env}))
            try:
                holds = bool(c(env, ctx))
                st.detail["holds"] = holds
                st.detail["taken"] = then_text if holds else else_text
                st.detail["arm"] = "then" if holds else "else"
                st.detail["chained"] = chained[0] if holds else chained[1]
                return st.set(t(env, ctx) if holds else o(env, ctx))
            finally:
                tr.close()
        return f

    def visit_Comprehension(self, e, scope):
        """A filter (`d for d in dice if d >= aim`) as a step: the items, and which pass."""
        if e.cond is None:
            return super().visit_Comprehension(e, scope)
        src = self.compile(e.source, scope)
        inner = scope | {e.var}
        elem, cond = self.compile(e.elem, inner), self.compile(e.cond, inner)
        var, sp = e.var, e.span
        text = {"var": var, "source": expr_text(e.source), "condition": expr_text(e.cond)}
        read = list(dict.fromkeys(x.name for x in n.iter_nodes(e.cond)
                                  if isinstance(x, n.Name) and x.name in scope and x.name != var))
        rule, title, loc = self.rule, self.title, self.where.loc(e.span)
        from .compiler.expressions import iterable

        def f(env, ctx):
            tr = ctx.tracer
            st = tr.open(Step("filter", rule, title, loc, f"{var} in {text['source']} if {text['condition']}",
                              detail=dict(text, read={k: show(env[k]) for k in read if k in env})))
            try:
                out, local, items, kept = [], dict(env), iterable(sp, src(env, ctx)), []
                ctx.spend(len(items))
                for x in items:
                    local[var] = x
                    if cond(local, ctx):
                        kept.append(show(x))
                        out.append(elem(local, ctx))
                st.detail["items"] = [show(x) for x in items][:MAX_ITEMS_SHOWN]
                st.detail["kept"] = kept[:MAX_ITEMS_SHOWN]
                return st.set(out)
            finally:
                tr.close()
        return f

    def visit_Call(self, e, scope):
        book = self.book
        callee = resolve_callee(e.func.name, scope, book.syms).kind if isinstance(e.func, n.Name) else "value"
        if callee not in ("mechanic", "table"):
            if callee == "builtin":
                return super().visit_Call(e, scope)
            return self._dynamic(e, scope)
        name = e.func.name
        args = [self.compile(a, scope) for a in e.args]
        kwargs = [(k, self.compile(a, scope)) for k, a in e.kwargs]
        where = self.where
        if callee == "table":
            def table(env, ctx):
                return _lookup(where, book.tables[name], [a(env, ctx) for a in args],
                               {k: a(env, ctx) for k, a in kwargs}, ctx)
            return table
        given, plain = split_roll_kwargs(book, name, kwargs)

        def mech(env, ctx):
            tm = traced(book, where, name)
            bound = tm.fn.bind([a(env, ctx) for a in args], {k: a(env, ctx) for k, a in plain})
            child = ctx.child(name)
            if not given:
                return tm.invoke(bound, child)
            roller = ForcedRoller(ctx.roller, {child.prefix + k: a(env, ctx) for k, a in given})
            value = tm.invoke(bound, TraceCtx(roller, child.prefix, child.depth, child.budget, tracer=ctx.tracer))
            roller.check_used(name, child.prefix)
            return value
        return mech

    def _dynamic(self, e, scope):
        ff = self.compile(e.func, scope)
        args = [self.compile(a, scope) for a in e.args]
        kwargs = [(k, self.compile(a, scope)) for k, a in e.kwargs]
        book, where, sp = self.book, self.where, e.span

        def dynamic(env, ctx):
            fn = ff(env, ctx)
            if isinstance(fn, Invocable):
                tm = traced(book, where, fn.name)
                return tm.invoke(fn.bind([a(env, ctx) for a in args], {k: a(env, ctx) for k, a in kwargs}),
                                 ctx.child(fn.name))
            if isinstance(fn, TableFn):
                return _lookup(where, fn, [a(env, ctx) for a in args], {k: a(env, ctx) for k, a in kwargs}, ctx)
            raise EvaluationError(f"{sp}: {show(fn)} cannot be called")
        return dynamic


def _lookup(where: Where, t: TableFn, args: list, kwargs: dict, ctx):
    """A table read as a step: the keys, the printed row (its line), absent cells."""
    reads = []
    value = t.read(reads, *args, **kwargs)
    if ctx.reads is not None:
        ctx.reads.extend(reads)
    p = reads[0]
    rid, title = where.rule_of(t.name)
    keys = {k.name: show(v) for k, v in zip(t.keys, p.keys)}
    absent = []
    if value is ABSENT:
        absent = ["value"]
    elif isinstance(value, Record):
        absent = [k for k, v in value.as_dict().items() if v is ABSENT]
    st = Step("lookup", rid, title, where.loc(p.span), f"{t.name}({', '.join(f'{k}={v}' for k, v in keys.items())})",
              notes=where.notes_for(t.name),
              detail={"table": t.name, "keys": keys, "row": where.loc(p.span), "absent": absent},
              owner=t.name, reads={k.name: v for k, v in zip(t.keys, p.keys)})
    st.set(value)
    ctx.tracer.add(st)
    return value


def _working(roller, qname: str) -> str:
    """How a re-roll or an explosion went, in words (`GivenRoller.working`), or ''."""
    while isinstance(roller, ForcedRoller):
        roller = roller.inner
    return getattr(roller, "working", {}).get(qname, "")


def _is_given(roller, qname: str) -> bool:
    while True:
        if isinstance(roller, ForcedRoller):
            if qname in roller.forced:
                return True
            roller = roller.inner
        elif isinstance(roller, GivenRoller):
            return qname in roller.given
        else:
            return False


class TracedMechanic:
    """The traced twin of a `MechanicFn`: the same statements, compiled by `TracingCompiler`."""

    def __init__(self, book, where: Where, fn):
        self.fn, self.where = fn, where
        node = fn.node
        self.name = fn.name
        self.rule, self.title = where.rule_of(fn.name)
        comp = TracingCompiler(book, where, self.rule, fn.name)
        scope = frozenset(p.name for p in node.params)
        steps = []
        for s in node.body:
            loc = where.loc(s.span)
            if isinstance(s, n.Let):
                steps.append(("let", s.name, comp.compile(s.value, scope), loc,
                              {"expression": expr_text(s.value)}, s))
                scope = scope | {s.name}
            elif isinstance(s, n.Roll):     # its dice count compiled traced too (it may call mechanics)
                steps.append(("roll", s.name, fn._compile_roll(s, scope, comp.compile), loc,
                              {"dice": dice_text(s.dice)}, s))
                scope = scope | {s.name}
            else:
                steps.append(("require", s.message, comp.compile(s.cond, scope), loc,
                              {"condition": expr_text(s.cond), "message": s.message}, s))
        self.steps = steps
        self.result = comp.compile(node.result, scope)
        self.result_text = expr_text(node.result)
        self.result_loc = where.loc(node.result.span)
        self.loc = where.loc(node.span)
        self.notes = where.notes_for(fn.name)

    def invoke(self, bound: dict, ctx):
        tr, rule, title = ctx.tracer, self.rule, self.title
        bound = {p.name: bound[p.name] for p in self.fn.params if p.name in bound} | bound   # parameter order
        args = ", ".join(f"{k}={show(v)}" for k, v in bound.items())
        call = tr.open(Step("call", rule, title, self.loc, f"{self.name}({args})", notes=list(self.notes),
                            detail={"name": self.name, "arguments": {k: show(v) for k, v in bound.items()}},
                            args=dict(bound), node=self.fn.node, owner=self.name))
        try:
            env = dict(bound)
            for kind, name, fn, loc, detail, node in self.steps:
                if kind == "let":
                    st = tr.open(Step("let", rule, title, loc, f"let {name} = {detail['expression']}",
                                      detail=dict(detail, name=name), node=node, owner=self.name))
                    try:
                        env[name] = st.set(fn(env, ctx))
                    finally:
                        tr.close()
                elif kind == "roll":
                    st = tr.open(Step("roll", rule, title, loc, f"roll {name}: {detail['dice']}",
                                      detail=dict(detail, name=name, given=_is_given(ctx.roller, ctx.prefix + name)),
                                      node=node, owner=self.name))
                    try:
                        env[name] = st.set(fn(env, ctx))
                        said = _working(ctx.roller, ctx.prefix + name)
                        if said:
                            st.detail["working"] = said
                    finally:
                        tr.close()
                else:
                    st = tr.open(Step("require", rule, title, loc, f"require {detail['condition']}", detail=dict(detail),
                                      node=node, owner=self.name))
                    try:
                        ok = bool(st.set(bool(fn(env, ctx))))
                    finally:
                        tr.close()
                    if not ok:
                        raise EvaluationError(f"{self.name}: {name}")
            st = tr.open(Step("result", rule, title, self.result_loc, f"result {self.result_text}",
                              detail={"expression": self.result_text}, node=self.fn.node.result, owner=self.name))
            try:
                value = st.set(self.result(env, ctx))
            finally:
                tr.close()
            if isinstance(value, range):
                value = list(value)
            try:
                value = self.fn.returns.convert(value)
            except ValueError:
                raise EvaluationError(f"{self.fn.node.span}: {self.name} produced {show(value)}, "
                                      f"which is not {self.fn.returns.describe} as declared") from None
            return call.set(value)
        finally:
            tr.close()


def _traced_store(compiled):
    store = compiled.__dict__.get("_explain")
    if store is None:
        store = compiled.__dict__["_explain"] = {"where": Where(compiled), "mechanics": {}}
    return store


def traced(compiled, where: Where, name: str) -> TracedMechanic:
    """The traced twin of mechanic `name`, compiled on first use and kept on the book."""
    store = _traced_store(compiled)
    tm = store["mechanics"].get(name)
    if tm is None:
        tm = store["mechanics"][name] = TracedMechanic(compiled, where, compiled.mechanics[name])
    return tm


# ------------------------------------------------------------------ entry points
def explain_call(compiled, name: str, *args, rolls=None, seed=None, rng=None, **kwargs) -> Explanation:
    """Evaluate mechanic `name` as `MechanicFn.run` does (the same binding, the same
    rolls for the same seed) and return its working.  Errors are raised, as by a call."""
    try:
        fn = compiled.mechanics[name]
    except KeyError:
        raise NotFound("mechanic", name, list(compiled.mechanics), where=compiled.book_id) from None
    where = _traced_store(compiled)["where"]
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
    where = _traced_store(compiled)["where"]
    holder = Step("example", "", "", "", "")
    ctx = TraceCtx(GivenRoller(), tracer=Tracer(holder))
    value = _lookup(where, compiled.tables[name], list(args), kwargs, ctx)
    return Explanation(compiled.book_id, holder.children[0], value, {})


def explain_case(compiled, rule_id: str, case: n.ExampleCase) -> Explanation:
    """The working of one worked example's `>>>` expression, evaluated as the example
    runner does (dice it does not give rolled from seed 0).  An evaluation error is
    kept in `error` with the steps made before it."""
    from .example_odds import evaluate
    from .resolve import form_of
    from .examples import guarded
    where = _traced_store(compiled)["where"]
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
    from .odds import distribution

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
        from .odds.budget import Budget
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
