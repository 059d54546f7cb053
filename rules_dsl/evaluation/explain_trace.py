"""Tracing: the traced twin of each mechanic, whose closures record an explanation's steps.

`TracingCompiler` (a subclass of `ExprCompiler`) compiles a mechanic's statements a
second time, lazily, the first time an explanation is asked for; the twins are kept on
the compiled book (`traced`).  `Where` gives each step its rule, title, location and the
notes that bear on it.

Split from explain.py (issue 32): this is the machinery that records steps; the record
itself is explain_steps.py, and the entry points (`explain_call`, `explain_case`,
`explain_lookup`, odds by branch) stay in explain.py.
"""
from __future__ import annotations

import os
import re

from ..language import nodes as n
from ..compiler.context import Ctx
from ..compiler.context import Invocable
from ..compiler.expressions import ExprCompiler, split_roll_kwargs
from ..compiler.tables import TableFn
from ..language.dice import ForcedRoller, GivenRoller
from ..errors import EvaluationError
from .explain_steps import Step
from ..language.render import dice_text, expr_text
from ..analysis.resolve import resolve_callee
from ..language.values import ABSENT, Record, show

__all__ = ["NOTE_KINDS_EXPLAINED", "Tracer", "TraceCtx", "Where", "TracingCompiler", "TracedMechanic",
           "traced", "traced_store", "traced_lookup"]

# The notes an explanation cites: our readings of the book (not `absent` notes,
# which say what the source leaves out and decide no value).
NOTE_KINDS_EXPLAINED = ("interpretation", "erratum", "clarification")
MAX_ITEMS_SHOWN = 40     # the items a filter step lists (a pool of 1000 dice is summed up by its counts)


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
        from ..compiler.expressions import iterable

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
                return traced_lookup(where, book.tables[name], [a(env, ctx) for a in args],
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
                return traced_lookup(where, fn, [a(env, ctx) for a in args], {k: a(env, ctx) for k, a in kwargs}, ctx)
            raise EvaluationError(f"{sp}: {show(fn)} cannot be called")
        return dynamic


def traced_lookup(where: Where, t: TableFn, args: list, kwargs: dict, ctx):
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


def traced_store(compiled):
    store = compiled.__dict__.get("_explain")
    if store is None:
        store = compiled.__dict__["_explain"] = {"where": Where(compiled), "mechanics": {}}
    return store


def traced(compiled, where: Where, name: str) -> TracedMechanic:
    """The traced twin of mechanic `name`, compiled on first use and kept on the book."""
    store = traced_store(compiled)
    tm = store["mechanics"].get(name)
    if tm is None:
        tm = store["mechanics"][name] = TracedMechanic(compiled, where, compiled.mechanics[name])
    return tm
