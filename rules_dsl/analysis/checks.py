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
from typing import Callable, Optional

from ..language import nodes as n
from ..language.builtins import BUILTINS, ROUND_MODES
from ..errors import Diagnostic, Related, RulebookError, did_you_mean, line_of, suggest
from .checks_calls import check_calls
from .checks_design import check_design_views
from .checks_display import check_display
from .checks_examples import check_examples
from .checks_ranges import check_ranges
from .checks_front import check_front
from .checks_findings import check_follows
from .checks_types import check_types_of_expressions
from ..language.model import BookAST, decls_of, walk
from .resolve import incomplete, resolve_book, scoped_parts
from .symbols import Symbols, defined_names, name_key
from .checks_names import ExprChecker, rename_fixes

BASE_TYPES = ("int", "bool", "text", "number", "absent")
# Parameters and rolls become Python keyword arguments (book.mechanic(stat=4, die=7)), so
# they cannot be Python keywords nor the names `run` itself takes.
RESERVED_ARGS = frozenset(__import__("keyword").kwlist) | {"rolls", "seed", "rng", "self"}


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
    syms.incomplete = incomplete(book, syms)   # one error per mistake: follow-ons stay silent
    check_anchor_clashes(book, report)
    check_display(book, report)
    check_types(book, syms, report)
    check_reserved_names(book, report)
    check_references(book, report, other_ids)
    check_front(book, syms, report)
    check_expressions(book, syms, report)
    if not report.diags:   # kinds are inferred over names that resolve
        check_types_of_expressions(book, syms, report)
    # Ranges are followed through names that resolve and kinds that fit: only the passes
    # above gate them.  A cycle of calls (check_calls), a wrong example or design view
    # is another kind of error, and must not hide what the ranges prove (issue 38): the
    # analysis cuts a cycle itself (a call back into a mechanic under analysis gives
    # its declared result).
    names_and_kinds_fit = not report.diags
    check_examples(book, syms, report)
    check_calls(book, syms, report)
    check_design_views(book, syms, report)
    check_follows(book, report)
    if names_and_kinds_fit:
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
    ex = ExprChecker(syms, report)
    for p in decls_of(book):
        d = p.node
        for what, part, scope in scoped_parts(d):
            if what == "expr":
                ex.visit(part, set(scope))
                continue
            ex.dice(part.dice, set(scope))
            if part.name in scope:
                report(part.span, f"'{part.name}' is already a name in this mechanic", "give the roll its own name")
        if isinstance(d, n.Table):
            for row in d.rows:
                for cell in row:
                    if isinstance(cell.value, n.Name):
                        ex.cell_name(cell.value)


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
