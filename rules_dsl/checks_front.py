"""The front door's check: what a book header's `start` and `quick reference` name exists.

`start ID` names a rule or a section of the book; `quick reference { rules ...; tables ... }`
names rules (or sections) and tables of the book, each once.  A name that is another kind
of thing (a mechanic under `tables`, a table under `rules`) is said to be so.  References
inside the front door's prose (`about`, `dice`, `turn`) are checked with every other
prose's (`checks.check_references`).  The defaults a book leaves to the site (the first
section, the most referenced rules) are worked out by `sphinxext/front.py`, not here.
"""
from __future__ import annotations

from . import nodes as n
from .errors import did_you_mean
from .model import BookAST, walk


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
    seen = set()
    for item in q.rules:
        if item.name in seen:
            report(item.span, f"'{item.name}' is listed twice in the quick reference's rules", "list it once",
                   severity="warning")
        seen.add(item.name)
        if item.name not in ids:
            what = declared.get(item.name.replace("-", "_"))
            hint = (f"'{item.name}' is a {what}: list the rule that declares it" if what else
                    did_you_mean(item.name, ids) or "write rule or section ids (kebab-case)")
            report(item.span, f"unknown rule '{item.name}' in the quick reference", hint)
    seen = set()
    for item in q.tables:
        if item.name in seen:
            report(item.span, f"table '{item.name}' is listed twice in the quick reference", "list it once",
                   severity="warning")
        seen.add(item.name)
        if item.name not in syms.tables:
            what = declared.get(item.name) or ids.get(item.name)
            hint = (f"'{item.name}' is a {what}, not a table" + (": list it under `rules`" if what in ("rule", "section")
                                                                  else "") if what else
                    did_you_mean(item.name, syms.tables) or "write the names of tables the book declares")
            report(item.span, f"unknown table '{item.name}' in the quick reference", hint)
