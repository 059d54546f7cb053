"""A file's outline and folding ranges: its sections, rules and declarations as a tree.

Read from the file's own tree (the last version that parsed, so that a document
being typed keeps its outline), not from the book's index: the outline is one
file's shape, in its order.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..language import nodes as n
from .ws_hover import short_detail
from .ws_state import Loc, name_loc, span_loc


@dataclass
class Symbol:
    """One entry of a document's outline."""
    name: str
    kind: str            # section | rule | mechanic | table | enum | const | check | priced
    detail: str
    range: Loc
    selection: Loc
    children: list = field(default_factory=list)


def symbols(st, path: str) -> list:
    """The outline of one file of the book `st`: sections holding rules holding their declarations."""
    sf = st.trees.get(path)
    if sf is None:
        return []
    text = st.texts.get(path, "")

    def sym(node):
        if isinstance(node, n.Section):
            s = Symbol(node.id, "section", node.title, span_loc(node.span), name_loc(text, path, node.span, node.id))
            s.children = [c for c in (sym(x) for x in node.items) if c is not None]
            return s
        if isinstance(node, n.Rule):
            s = Symbol(node.id, "rule", node.title, span_loc(node.span), name_loc(text, path, node.span, node.id))
            s.children = [c for c in (sym(x) for x in node.decls) if c is not None]
            return s
        if isinstance(node, (n.Mechanic, n.Table, n.Enum, n.Const, n.Check, n.Priced)):
            kind = type(node).__name__.lower()
            return Symbol(node.name, kind, short_detail(kind, node), span_loc(node.span),
                          name_loc(text, path, node.span, node.name))
        return None

    return [s for s in (sym(x) for x in sf.items) if s is not None]


def folding(st, path: str) -> list:
    """(first line, last line) of every section and rule of a file spanning more than one line."""
    out = []

    def visit(items):
        for it in items:
            if isinstance(it, (n.Section, n.Rule)) and it.span.end_line > it.span.line:
                out.append((it.span.line, it.span.end_line))
            if isinstance(it, n.Section):
                visit(it.items)
    sf = st.trees.get(path)
    if sf is not None:
        visit(sf.items)
    return out
