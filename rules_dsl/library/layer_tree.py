"""The amend pass's working copy of a book: its items as mutable containers, indexed.

`WorkingTree` thaws a book's items (a `WorkingRule`, a `WorkingSection` for each rule and
section; declarations as they are), keeps indexes of its rules, sections and
declarations by id and name, and freezes back into nodes when the pass is done.

Split from layers.py (issue 32): the data structure the pass edits, apart from the
changes that edit it (layers.py: rules, sections and a rule's parts; layer_decls.py: a
declaration's contents).
"""
from __future__ import annotations

import dataclasses

from ..language import nodes as n

__all__ = ["WorkingRule", "WorkingSection", "WorkingTree", "position_of", "kind_of"]


class WorkingRule:
    """A rule being amended: its node and its list fields, mutable."""
    LISTS = ("aliases", "keywords", "prose", "flavour", "notes", "examples", "decls", "uses", "odds")

    def __init__(self, node: n.Rule):
        self.node = node
        self.lists = {f: list(getattr(node, f)) for f in self.LISTS}
        self.fields = {}

    def freeze(self) -> n.Rule:
        return dataclasses.replace(self.node, **self.fields, **{f: tuple(v) for f, v in self.lists.items()})


class WorkingSection:
    def __init__(self, node: n.Section, items: list):
        self.node, self.items = node, items

    def freeze(self) -> n.Section:
        return dataclasses.replace(self.node, items=_freeze(self.items))


def _freeze(items: list) -> tuple:
    return tuple(it.freeze() if isinstance(it, (WorkingRule, WorkingSection)) else it for it in items)


class WorkingTree:
    """The book's items as mutable containers, with indexes by id and by name."""

    def __init__(self, items):
        self.top = self._thaw(items)
        self.rules, self.sections, self.decls = {}, {}, {}
        self._index(self.top, None, "")

    def _thaw(self, items):
        out = []
        for it in items:
            if isinstance(it, n.Section):
                out.append(WorkingSection(it, self._thaw(it.items)))
            elif isinstance(it, n.Rule):
                out.append(WorkingRule(it))
            else:
                out.append(it)
        return out

    def _index(self, items, section, rule_id):
        for it in items:
            self.enter(it, items, section)

    def enter(self, it, container, section=None):
        """Index `it` (and what it holds), which sits in `container`."""
        if isinstance(it, WorkingSection):
            self.sections.setdefault(it.node.id, (it, container))
            for x in it.items:
                self.enter(x, it.items, it)
        elif isinstance(it, WorkingRule):
            self.rules.setdefault(it.node.id, (it, container))
            for d in it.lists["decls"]:
                self.decls.setdefault(d.name, (d, it.lists["decls"], it))
        elif isinstance(it, (n.Const, n.Enum, n.Mechanic, n.Table, n.Check)):
            self.decls.setdefault(it.name, (it, container, None))

    def leave(self, it):
        """Drop `it` (and what it holds) from the indexes."""
        if isinstance(it, WorkingSection):
            self.sections.pop(it.node.id, None)
            for x in it.items:
                self.leave(x)
        elif isinstance(it, WorkingRule):
            self.rules.pop(it.node.id, None)
            for d in it.lists["decls"]:
                self.decls.pop(d.name, None)
        elif hasattr(it, "name"):
            self.decls.pop(it.name, None)

    def all_rule_ids(self):
        return list(self.rules)

    def freeze(self) -> tuple:
        return _freeze(self.top)


def position_of(container: list, item) -> int:
    for i, x in enumerate(container):
        if x is item:
            return i
    raise ValueError(item)  # pragma: no cover - the indexes hold what the containers hold


_KIND_WORDS = {n.Mechanic: "mechanic", n.Table: "table", n.Const: "const", n.Enum: "enum", n.Check: "check"}


def kind_of(decl) -> str:
    return _KIND_WORDS.get(type(decl), "declaration")
