"""Static checks over a book's AST, one pass per concern, each collecting diagnostics.

Passes: ids (rule and section ids unique, kebab-case), declarations (one
namespace for constants, enums, dice, tables and mechanics), words for players
(checks_display.py: display forms, questions, answers, findings), types (every named
type exists), references (prose [[refs]] resolve, in this book or another), and
expressions (every name resolves in its scope, calls have the right arguments,
rounding names its mode), and examples (checks_examples.py: worked examples
checked like mechanics, before anything runs).  `check_book` runs them all and raises one
`RulebookError` listing everything found, so an author fixes a batch per run.

`undefined_names` is not an error pass: a name a rule `uses` that no rule of the
book defines is a fact about the source, reported as a finding (see book.py).
"""
from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import callgraph, rollpaths
from . import nodes as n
from .builtins import BUILTINS, ROUND_MODES
from .errors import Diagnostic, Fix, Related, RulebookError, did_you_mean, line_of, suggest
from .checks_calls import check_calls
from .checks_design import check_design_views
from .checks_display import check_display
from .checks_examples import check_examples
from .checks_ranges import check_ranges
from .checks_front import check_front
from .checks_types import check_types_of_expressions
from .model import BookAST, decls_of, walk
from .resolve import resolve, resolve_book, resolve_callee, scoped_parts

BASE_TYPES = ("int", "bool", "text", "number", "absent")
# Parameters and rolls become Python keyword arguments (book.mechanic(stat=4, die=7)), so
# they cannot be Python keywords nor the names `run` itself takes.
RESERVED_ARGS = frozenset(__import__("keyword").kwlist) | {"rolls", "seed", "rng", "self"}


@dataclass
class Symbols:
    """The book's global names, filled by the declarations pass."""
    consts: dict = field(default_factory=dict)
    enums: dict = field(default_factory=dict)
    members: dict = field(default_factory=dict)     # member name -> [enum or die names]
    dice: dict = field(default_factory=dict)
    tables: dict = field(default_factory=dict)
    mechanics: dict = field(default_factory=dict)
    checks: dict = field(default_factory=dict)
    priced: dict = field(default_factory=dict)      # name -> Priced (design views)
    owner: dict = field(default_factory=dict)       # decl name -> rule id ('' at section level)
    warnings: list = field(default_factory=list)    # Diagnostics of severity "warning"
    resolved: dict = field(default_factory=dict)    # Name node -> resolve.Resolved (see resolve.py)
    skipped: frozenset = frozenset()                # names declared where a syntax error left text out

    @functools.cached_property
    def _globals(self):
        return {**self.consts, **self.enums, **self.dice, **self.tables, **self.mechanics}

    def globals(self):
        """Every global name (read once the declarations pass has filled the symbols)."""
        return self._globals


class Reporter:
    def __init__(self, texts: dict):
        self.texts = texts
        self.diags = []       # errors: the book does not compile
        self.warnings = []    # kept on the symbols; `rules check` prints them

    def __call__(self, span: n.Span, message: str, hint: str = "", severity: str = "error", related=(), fixes=()):
        src = line_of(self.texts.get(span.file, ""), span.line)
        d = Diagnostic(span.file, span.line, span.column, message, hint, src, severity, related, fixes)
        (self.diags if severity == "error" else self.warnings).append(d)


def check_book(book: BookAST, texts: dict, other_ids: Callable[[str], Optional[set]]) -> Symbols:
    """Run every pass; raise RulebookError with all diagnostics, else return the symbols."""
    report = Reporter(texts)
    check_ids(book, report)
    syms = collect_declarations(book, report)
    check_anchor_clashes(book, report)
    check_display(book, report)
    check_types(book, syms, report)
    check_reserved_names(book, report)
    check_references(book, report, other_ids)
    check_front(book, syms, report)
    check_expressions(book, syms, report)
    if not report.diags:   # kinds are inferred over names that resolve
        check_types_of_expressions(book, syms, report)
    check_examples(book, syms, report)
    check_calls(book, syms, report)
    check_design_views(book, syms, report)
    if not report.diags:   # ranges are followed through names that resolve and kinds that fit
        check_ranges(book, syms, report)
    check_unused_locals(book, report)
    check_aliases_against_uses(book, report)
    if report.diags:
        raise RulebookError(sorted(report.diags, key=lambda d: (d.file, d.line, d.column)))
    syms.warnings = sorted(report.warnings, key=lambda d: (d.file, d.line, d.column))
    syms.resolved = resolve_book(book, syms)
    return syms


def check_unused_locals(book: BookAST, report: Reporter):
    """Warnings: a `let` or `roll` whose value nothing reads (often a misspelt name
    in the result, or a die that should count and does not)."""
    for p in decls_of(book):
        d = p.node
        if not isinstance(d, n.Mechanic):
            continue
        for i, s in enumerate(d.body):
            if not isinstance(s, (n.Let, n.Roll)):
                continue
            later = list(d.body[i + 1:]) + [d.result]
            if not any(isinstance(x, n.Name) and x.name == s.name for x in n.iter_nodes(later)):
                kind = "let" if isinstance(s, n.Let) else "roll"
                report(s.span, f"'{s.name}' ({kind}) is never used in {d.name}",
                       "use it, or remove the line", severity="warning")


def check_aliases_against_uses(book: BookAST, report: Reporter):
    """Warnings: a rule that `uses` a name it defines itself (its title or an alias).
    `uses "Sniper Rifle"` says the rule relies on a term defined elsewhere; `aliases
    "Sniper Rifle"` says this rule is where it is defined.  Both cannot hold, and the
    alias wins silently: the undefined-name finding passes and `rules lookup "Sniper
    Rifle"` lands on this rule, so a gap of the source is hidden (a term the source
    never defines belongs among the rule's keywords, with an `absent` note).  A
    warning, not a finding: the mistake is in the encoding (ours to fix), not a fact
    about the source, and the checks find it before anything runs.  It is located at
    the `uses` entry; names are compared by `name_key`, as everywhere."""
    for p in walk(book.items):
        r = p.node
        if not isinstance(r, n.Rule) or not r.uses:
            continue
        own = {name_key(a): ("alias", a) for a in r.aliases}
        own[name_key(r.title)] = ("title", r.title)
        for use in r.uses:
            hit = own.get(name_key(use.name))
            if hit is None:
                continue
            kind, name = hit
            related = [Related.at(r.span, f"rule '{r.id}' is here")]
            if kind == "title":
                report(use.span, f"'{use.name}' is the title of the rule that uses it ('{r.id}'): a rule's "
                       "title defines its name, so `uses` points nowhere else",
                       "remove it from `uses`; if the source leaves part of the term undefined, say so in an "
                       "`absent` note", severity="warning", related=related)
            else:
                report(use.span, f"'{use.name}' is both used by rule '{r.id}' and one of its aliases ('{name}'): "
                       "the alias defines the very term the rule says it takes from elsewhere, so the gap "
                       "is hidden from the undefined-name check and a lookup of it lands here",
                       "if the book does not define the term, move the alias to `keywords` (the "
                       "undefined-name finding then says so); if this rule does define it, remove it from `uses`",
                       severity="warning", related=related)


# ------------------------------------------------------------------------ ids
def check_anchor_clashes(book: BookAST, report: Reporter):
    """A mechanic or table named like a rule or section id of the same book: the
    site gives both the anchor `book:name` (and a link to it could mean either), so
    the build would fail on a duplicate id with no location.  Said here, at both places."""
    ids = {}
    for p in walk(book.items):
        if isinstance(p.node, (n.Rule, n.Section)):
            ids.setdefault(p.node.id, p.node)
    for p in decls_of(book):
        d = p.node
        if isinstance(d, (n.Mechanic, n.Table)) and d.name in ids:
            other = ids[d.name]
            kind = "mechanic" if isinstance(d, n.Mechanic) else "table"
            okind = "rule" if isinstance(other, n.Rule) else "section"
            report(d.span, f"{kind} '{d.name}' has the same name as the {okind} id '{d.name}'",
                   f"both would be {book.id}:{d.name} on the website and in references; rename one",
                   related=[Related.at(other.span, f"the {okind} '{d.name}' is here")])


def check_ids(book: BookAST, report: Reporter):
    seen = {}
    for p in walk(book.items):
        node = p.node
        if not isinstance(node, (n.Rule, n.Section)):
            continue
        kind = "rule" if isinstance(node, n.Rule) else "section"
        if node.id in seen:
            prev = seen[node.id]
            report(node.span, f"duplicate id '{node.id}' ({kind})", "ids are unique in a book",
                   related=[Related.at(prev[1], f"first used by the {prev[0]} here")])
        else:
            seen[node.id] = (kind, node.span)
        if not node.title.strip():
            report(node.span, f"{kind} '{node.id}' has an empty title")


# --------------------------------------------------------------- declarations
def collect_declarations(book: BookAST, report: Reporter) -> Symbols:
    syms = Symbols(skipped=getattr(book, "skipped", frozenset()))
    taken = {}

    def claim(name, span, kind):
        if name in BUILTINS or name in ROUND_MODES or name in BASE_TYPES:
            report(span, f"'{name}' is a built-in name and cannot name a {kind}", "choose another name")
            return False
        if name in taken:
            report(span, f"'{name}' is already declared", "a name means one thing in a book",
                   related=[Related.at(taken[name][1], "first declared here, as "
                                       + ("an " if taken[name][0][0] in "aeiou" else "a ") + taken[name][0])])
            return False
        taken[name] = (kind, span)
        return True

    for die in book.header.dice:
        if claim(die.name, die.span, "die"):
            syms.dice[die.name] = die
            if die.custom:
                for face in dict.fromkeys(die.faces):
                    syms.members.setdefault(face, []).append(die.name)
    for p in decls_of(book):
        d = p.node
        rule_id = p.rule.id if p.rule is not None else ""
        if isinstance(d, n.Check):
            if d.name in syms.checks:
                report(d.span, f"duplicate check '{d.name}'")
            syms.checks[d.name] = d
            syms.owner["check:" + d.name] = rule_id
            continue
        if isinstance(d, n.Priced):        # a design view: its own namespace, as checks have
            if d.name in syms.priced:
                report(d.span, f"duplicate priced view '{d.name}'",
                       related=[Related.at(syms.priced[d.name].span, "first declared here")])
            syms.priced[d.name] = d
            syms.owner["priced:" + d.name] = rule_id
            continue
        kind = type(d).__name__.lower()
        if not claim(d.name, d.span, kind):
            continue
        syms.owner[d.name] = rule_id
        if isinstance(d, n.Const):
            syms.consts[d.name] = d
        elif isinstance(d, n.Enum):
            syms.enums[d.name] = d
            if len(set(d.members)) != len(d.members):
                report(d.span, f"enum '{d.name}' lists a member twice")
            for m in d.members:
                syms.members.setdefault(m, []).append(d.name)
        elif isinstance(d, n.Table):
            syms.tables[d.name] = d
        elif isinstance(d, n.Mechanic):
            syms.mechanics[d.name] = d
    for member, owners in syms.members.items():
        if member in taken and taken[member][0] not in ("enum", "die"):
            kind, span = taken[member]
            report(span, f"'{member}' names a {kind} and also a member of {', '.join(owners)}",
                   "rename one of them: a bare name must mean one thing")
    return syms


# ---------------------------------------------------------------------- types
def _types_in(t):
    yield t
    if isinstance(t, n.UnionType):
        for o in t.options:
            yield from _types_in(o)
    elif isinstance(t, n.ListType):
        yield from _types_in(t.item)
    elif isinstance(t, n.RecordType):
        for _, ft in t.fields:
            yield from _types_in(ft)


def check_types(book: BookAST, syms: Symbols, report: Reporter):
    known = list(BASE_TYPES) + list(syms.enums) + list(syms.dice)
    for p in decls_of(book):
        d = p.node
        types = []
        if isinstance(d, (n.Mechanic, n.Table)):
            types = [pa.type for pa in d.params] + [d.returns]
        for t in types:
            for sub in _types_in(t):
                if isinstance(sub, n.NamedType) and sub.name not in known and sub.name not in syms.skipped:
                    hint = did_you_mean(sub.name, known) or "types: int, bool, text, number, absent, LOW..HIGH, list of T, an enum or a die"
                    report(sub.span, f"unknown type '{sub.name}'", hint,
                           fixes=rename_fixes(sub.span, sub.name, suggest(sub.name, known)))
        if isinstance(d, (n.Mechanic, n.Table)):
            seen = set()
            named = list(d.params) + [s for s in getattr(d, "body", ()) if isinstance(s, n.Roll)]
            for pa in named:
                kind = "roll" if isinstance(pa, n.Roll) else "parameter"
                if pa.name in RESERVED_ARGS:
                    report(pa.span, f"'{pa.name}' cannot name a {kind}",
                           "it is reserved (a Python keyword, or one of rolls/seed/rng that mechanic calls take)")
                if pa.name in seen:
                    report(pa.span, f"{kind} '{pa.name}' appears twice (parameters and rolls share one namespace)")
                seen.add(pa.name)


# ------------------------------------------------------------- reserved names
RESERVED_VALUES = ("true", "false", "absent")


def check_reserved_names(book: BookAST, report: Reporter):
    """`true`, `false` and `absent` are values: a declaration of that name would be
    shadowed silently (an enum member `absent` compared against the literal)."""
    def bad(span, name, kind):
        if name in RESERVED_VALUES:
            report(span, f"'{name}' is a value of the language and cannot name {kind}", "choose another name")

    for p in decls_of(book):
        d = p.node
        if isinstance(d, n.Enum):
            for m in d.members:
                bad(d.span, m, f"a member of enum '{d.name}'")
        if isinstance(d, (n.Const, n.Enum, n.Table, n.Mechanic)):
            bad(d.span, d.name, f"a {type(d).__name__.lower()}")
        for pa in getattr(d, "params", ()):
            bad(pa.span, pa.name, "a parameter")
        for s in getattr(d, "body", ()):
            if isinstance(s, (n.Let, n.Roll)):
                bad(s.span, s.name, "a local name")
        for b in getattr(d, "bindings", ()):
            bad(b.span, b.name, "a check variable")
        for x in n.iter_nodes(d):
            if isinstance(x, n.Comprehension):
                bad(x.span, x.var, "a comprehension variable")


# ----------------------------------------------------------------- references
def check_references(book: BookAST, report: Reporter, other_ids):
    own = {p.node.id for p in walk(book.items) if isinstance(p.node, (n.Rule, n.Section))}

    def proses():
        for p in walk(book.items):
            node = p.node
            if isinstance(node, n.Rule):
                yield from node.prose
                yield from node.flavour
                yield from (note.text for note in node.notes)
            elif isinstance(node, n.Section):
                yield from node.prose
        yield from book.header.prose
        yield from book.header.front_texts()
        yield from (it for it in book.items if isinstance(it, n.Prose))

    for prose in proses():
        for ref in prose.refs:
            if ref.book is None or ref.book == book.id:
                if ref.rule not in own and ref.rule not in getattr(book, "skipped", ()):
                    start = n.Span(ref.span.file, ref.span.line, ref.span.column + 2 + (len(ref.book) + 1 if ref.book else 0))
                    report(ref.span, f"unknown rule '{ref.rule}' in cross-reference", did_you_mean(ref.rule, own),
                           fixes=rename_fixes(start, ref.rule, suggest(ref.rule, own)))
                continue
            ids = other_ids(ref.book)
            if ids is None:
                report(ref.span, f"unknown book '{ref.book}' in cross-reference",
                       did_you_mean(ref.book, other_ids("*") or ()))
            elif ref.rule not in ids:
                report(ref.span, f"unknown rule '{ref.rule}' in book '{ref.book}'", did_you_mean(ref.rule, ids))


# ---------------------------------------------------------------- expressions
def check_expressions(book: BookAST, syms: Symbols, report: Reporter):
    ex = _ExprChecker(syms, report)
    for p in decls_of(book):
        d = p.node
        for what, part, scope in scoped_parts(d):
            if what == "expr":
                ex.expr(part, set(scope))
                continue
            ex.dice(part.dice, set(scope))
            if part.name in scope:
                report(part.span, f"'{part.name}' is already a name in this mechanic", "give the roll its own name")
        if isinstance(d, n.Table):
            for row in d.rows:
                for cell in row:
                    if isinstance(cell.value, n.Name):
                        ex.cell_name(cell.value)


class _ExprChecker:
    def __init__(self, syms: Symbols, report: Reporter):
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
            self.expr(e, scope)
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

    def expr(self, e, scope):
        m = getattr(self, "e_" + type(e).__name__, None)
        if m is not None:
            m(e, scope)

    def e_Name(self, e, scope):
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

    def e_BinOp(self, e, scope):
        self.expr(e.left, scope)
        self.expr(e.right, scope)

    e_Compare = e_BoolOp = e_BinOp

    def e_Not(self, e, scope):
        self.expr(e.operand, scope)

    e_Neg = e_Not

    def e_IfElse(self, e, scope):
        for x in (e.cond, e.then, e.orelse):
            self.expr(x, scope)

    def e_RangeExpr(self, e, scope):
        self.expr(e.low, scope)
        self.expr(e.high, scope)

    def e_ListLit(self, e, scope):
        for x in e.items:
            self.expr(x, scope)

    e_SetLit = e_ListLit

    def e_Comprehension(self, e, scope):
        self.expr(e.source, scope)
        inner = set(scope) | {e.var}
        self.expr(e.elem, inner)
        if e.cond is not None:
            self.expr(e.cond, inner)

    def e_Index(self, e, scope):
        self.expr(e.obj, scope)
        self.expr(e.index, scope)

    def e_Attr(self, e, scope):
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
        self.expr(e.obj, scope)

    def e_Call(self, e, scope):
        kind = resolve_callee(e.func.name, scope, self.syms).kind if isinstance(e.func, n.Name) else "value"
        for a in e.args:
            self.expr(a, scope)
        for _, a in e.kwargs:
            self.expr(a, scope)
        if kind in ("value", "local"):
            if e.mode:   # `round(x, up)` where a local named round hides the built-in
                self.report(e.span, f"round(..., {e.mode}) needs the built-in round, hidden here by a local 'round'",
                            "rename the local")
            self.expr(e.func, scope)
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
            self.expr(e.func, scope)
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
            elif k in given:
                self.report(e.span, f"{name}() got '{k}' twice")
            given.add(k)
        missing = [p for p in required if p not in given]
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


# ------------------------------------------------------------- names used
def name_key(name: str) -> str:
    """How a book's names are compared: case-folded; hyphens, underscores and other
    punctuation are spaces; runs of spaces are one; a word's plural -s is ignored
    (`Weapons-Skill` = `weapon skill`; a word ending in -ss, or of 1-2 letters, keeps it)."""
    words = re.findall(r"[^\W_]+", name.casefold())
    return " ".join(w[:-1] if len(w) > 2 and w.endswith("s") and not w.endswith("ss") else w for w in words)


def defined_names(book: BookAST) -> dict:
    """Every name the book defines -> the id of the first rule defining it: each rule's
    title and aliases, compared by `name_key`.  Keywords do not define: they are search
    words, and the audits put an undefined name among the keywords of the very rule
    whose `absent` note says it is undefined, so that a player typing it lands there."""
    out = {}
    for p in walk(book.items):
        r = p.node
        if isinstance(r, n.Rule):
            for name in (r.title, *r.aliases):
                out.setdefault(name_key(name), r.id)
    return out


def undefined_names(book: BookAST, defined: Optional[dict] = None) -> list:
    """(rule id, Use, hint) for every name a rule `uses` that no rule defines."""
    defined = defined_names(book) if defined is None else defined
    titles, keyword_of = {}, {}
    for p in walk(book.items):
        if isinstance(p.node, n.Rule):
            for name in (p.node.title, *p.node.aliases):
                titles.setdefault(name_key(name), name)
            for kw in p.node.keywords:
                keyword_of.setdefault(name_key(kw), []).append(p.node.id)
    out = []
    for p in walk(book.items):
        r = p.node
        if not isinstance(r, n.Rule):
            continue
        for use in r.uses:
            key = name_key(use.name)
            if key not in defined:
                words = set(key.split())
                near = [k for k in titles if words and (set(k.split()) <= words or words <= set(k.split()))]
                near += [k for k in difflib.get_close_matches(key, list(titles), n=3, cutoff=0.75) if k not in near]
                hints = []
                if keyword_of.get(key):
                    rules = ", ".join(f"'{i}'" for i in keyword_of[key][:3])
                    hints.append(f"a keyword of {rules}, but keywords do not define a name (an alias does)")
                if near:
                    hints.append("nearest defined: " + ", ".join(repr(titles[k]) for k in near[:3]))
                out.append((r.id, use, "; ".join(hints)))
    return out
