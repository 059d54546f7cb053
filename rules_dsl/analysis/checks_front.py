"""The front door's check: what a book header's `start` and `quick reference` name exists.

`start ID` names a rule or a section of the book; `quick reference { rules ...; tables ... }`
names rules (or sections) and tables of the book, each once.  A name that is another kind
of thing (a mechanic under `tables`, a table under `rules`) is said to be so.  References
inside the front door's prose (`about`, `dice`, `turn`) are checked with every other
prose's (`checks.check_references`).  The defaults a book leaves to the site (the first
section, the most referenced rules) are worked out by `sphinxext/front.py`, not here.
"""
from __future__ import annotations

from ..language import nodes as n
from ..errors import did_you_mean
from ..language.model import BookAST, walk


def check_front(book: BookAST, syms, report) -> None:
    h = book.header
    if h.start is None and h.quick is None:
        return
    ids = {}
    for p in walk(book.items):
        if isinstance(p.node, (n.Rule, n.Section)):
            ids.setdefault(p.node.id, "rule" if isinstance(p.node, n.Rule) else "section")
    declared = {**{k: "mechanic" for k in syms.mechanics}, **{k: "constant" for k in syms.consts},
                **{k: "enum" for k in syms.enums}, **{k: "table" for k in syms.tables}}
    if h.start is not None and h.start.name not in ids:
        report(h.start.span, f"`start` names '{h.start.name}', which is no rule or section of this book",
               did_you_mean(h.start.name, ids) or "write the id of the rule or section a new player should read first")
    q = h.quick
    if q is None:
        return
    def listed(items, known, what: str, hint_of):
        """Each name of a `rules` or `tables` line: known, and listed once."""
        seen = set()
        for item in items:
            if item.name in seen:
                report(item.span, f"{what} '{item.name}' is listed twice in the quick reference", "list it once",
                       severity="warning")
            seen.add(item.name)
            if item.name not in known:
                report(item.span, f"unknown {what} '{item.name}' in the quick reference", hint_of(item.name))

    def rule_hint(name):
        what = declared.get(name.replace("-", "_"))
        return (f"'{name}' is a {what}: list the rule that declares it" if what else
                did_you_mean(name, ids) or "write rule or section ids (kebab-case)")

    def table_hint(name):
        what = declared.get(name) or ids.get(name)
        if what in ("rule", "section"):
            return f"'{name}' is a {what}, not a table: list it under `rules`"
        if what:
            return f"'{name}' is a {what}, not a table"
        return did_you_mean(name, syms.tables) or "write the names of tables the book declares"

    listed(q.rules, ids, "rule", rule_hint)
    listed(q.tables, syms.tables, "table", table_hint)
