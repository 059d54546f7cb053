"""What a part of a book reaches by name: the declarations it names, directly and
through the declarations they name in turn.

Two questions need it: which change of a layer an error or a failing example follows
from (layer_causes.py: the changed names a broken example reaches), and which
mechanics `rules diff` must compare (diff.py: a mechanic whose reach is unchanged
behaves as before).  Names are read from the AST as written (`Name` nodes, named
types, the dice of rolls); a name that is a member of an enum reaches the enum too.
"""
from __future__ import annotations

import dataclasses

from ..language import nodes as n
from ..language.model import BookAST, decls_of


def names_in(node) -> set:
    """The names `node` writes: every `Name`, named type and die of a roll in it."""
    out = set()
    for x in n.iter_nodes(node):
        if isinstance(x, n.Name):
            out.add(x.name)
        elif isinstance(x, n.NamedType):
            out.add(x.name)
        elif isinstance(x, n.DiceSpec):
            out.add(x.die)
        elif isinstance(x, n.Cell) and isinstance(x.value, n.Name):
            out.add(x.value.name)
    return out


def named_decls(ast: BookAST) -> dict:
    """{name: declaration} of what expressions can reach by name: every declaration but
    checks and priced views (their own namespaces), the first of a name kept (a name
    declared twice is an error of its own).  Shared with the site's cache keys
    (sphinxext/keys.py), which follow the same names."""
    out = {}
    for p in decls_of(ast):
        d = p.node
        if not isinstance(d, (n.Check, n.Priced)):
            out.setdefault(d.name, d)
    return out


class Reach:
    """The declarations of one book by name, and what each reaches."""

    def __init__(self, ast: BookAST):
        self.decls = named_decls(ast)
        self.owners = {}          # an enum member's name -> the enums that have it
        for d in self.decls.values():
            if isinstance(d, n.Enum):
                for m in d.members:
                    self.owners.setdefault(m, set()).add(d.name)
        for die in ast.header.dice:
            self.decls.setdefault(die.name, die)
        self._closed = {}

    def direct(self, node) -> set:
        """The declarations (and members) `node` names itself."""
        found = names_in(node)
        for name in list(found):
            found |= self.owners.get(name, set())
        return found

    def closure(self, node) -> set:
        """Every name `node` reaches: its own, and those of the declarations it names, transitively."""
        seen = set()
        todo = list(self.direct(node))
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in self._closed:
                seen |= self._closed[name]
                continue
            d = self.decls.get(name)
            if d is not None:
                todo.extend(self.direct(d) - seen)
        return seen

    def closure_of(self, name: str) -> set:
        """What the declaration `name` reaches (itself included), kept once worked out."""
        if name not in self._closed:
            d = self.decls.get(name)
            self._closed[name] = ({name} | self.closure(d)) if d is not None else {name}
        return self._closed[name]


def shape(node):
    """A node as what it means, for comparing two books: no source positions and no
    words for players (display forms, docstrings), which change no result."""
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        if isinstance(node, (n.Span, n.Phrase)):
            return None
        return (type(node).__name__,) + tuple(
            shape(getattr(node, f.name)) for f in dataclasses.fields(node)
            if f.name not in ("span", "first_line", "display", "displays", "doc", "question", "answer",
                              "result_display", "finding", "printed"))
    if isinstance(node, (tuple, list)):
        return tuple(shape(x) for x in node)
    return node
