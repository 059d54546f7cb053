"""A checked book's names: the `Symbols` table the declarations pass fills, and how
a book compares the names its rules define (`name_key`, `defined_names`).

It sits below the checks and the compiler, which both read it: the checks fill a
`Symbols`, the compiler and every back end read one.  (`rules_dsl.analysis.checks` still
exports these names.)  Where each name is declared and used, with spans, for the
editor and explain, is `symbol_index.SymbolIndex`, built over a `Symbols`.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from ..language import nodes as n
from ..language.model import BookAST, walk


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
    incomplete: frozenset = frozenset()             # declarations a name of which does not resolve (resolve.py)

    @functools.cached_property
    def _globals(self):
        return {**self.consts, **self.enums, **self.dice, **self.tables, **self.mechanics}

    def globals(self):
        """Every global name (read once the declarations pass has filled the symbols)."""
        return self._globals


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
