"""The tree builder's methods for a book file's structure: the file (`start`), its
sections and rules, and what a rule holds besides declarations (prose, flavour,
notes, worked examples, aliases, keywords, uses, odds, source); one method per
grammar rule or alias.

A rule's items come in any order in the source but land in separate fields of
`nodes.Rule`: each item's method says which field it fills (a `(field, values)`
pair), so the rule itself needs no list of item kinds, and a new kind of item is one
grammar alias and one method here.
"""
from __future__ import annotations

from . import nodes as n
from ..errors import did_you_mean
from .tree_tokens import dedent

RULE_FIELDS = ("aliases", "keywords", "prose", "flavour", "notes", "examples", "decls", "uses", "odds")


class BookRules:
    """Methods named after the grammar's rules for a book's structure (see `tree_builder`)."""

    def start(self, t) -> n.SourceFile:
        """A whole `.rules` book file: its header (if any), then its items."""
        header = None
        items = []
        for ch in t.children:
            if getattr(ch, "data", None) == "book_header":
                header = self.visit(ch)
            else:
                items.append(self.visit(ch))
        return n.SourceFile(self.path, header, tuple(items), tuple(self.errors))

    def loose_prose(self, t) -> n.Prose:
        """Prose at a file's top level, outside any section."""
        return self.read_prose(t.children[0])

    def section_prose(self, t) -> n.Prose:
        return self.read_prose(t.children[0])

    def section(self, t) -> n.Section:
        prose, items = [], []
        for ch in t.children[2:]:
            it = self.visit(ch)
            (prose if isinstance(it, n.Prose) else items).append(it)
        return n.Section(self.span(t), str(t.children[0]), self.string(t.children[1]), tuple(prose), tuple(items))

    def rule(self, t) -> n.Rule:
        """A rule: each item's method gives (field, values), a declaration its node."""
        kw = {field: [] for field in RULE_FIELDS}
        source = ""
        for ch in t.children[2:]:
            made = self.visit(ch)
            if type(made) is not tuple:
                kw["decls"].append(made)
            elif made[0] == "source":
                source = made[1]
            else:
                kw[made[0]].extend(made[1])
        return n.Rule(self.span(t), str(t.children[0]), self.string(t.children[1]), source=source,
                      **{k: tuple(v) for k, v in kw.items()})

    # ------------------------------------------------------------- rule items
    def aliases(self, t) -> tuple:
        return "aliases", [self.string(s) for s in t.children]

    def keywords(self, t) -> tuple:
        return "keywords", [self.string(s) for s in t.children]

    def uses(self, t) -> tuple:
        """`uses "term", ...`: the terms a rule relies on, each located."""
        out = []
        for s in t.children:
            if not self.string(s).strip():
                self.error(s, "`uses` names a term: this string is empty", 'e.g. uses "Weapons Skill", "AP"')
            out.append(n.Use(self.span(s), self.string(s)))
        return "uses", out

    def odds_inputs(self, t) -> tuple:
        """`odds mechanic(inputs)`: a call whose odds the rule's page shows."""
        call = self.visit(t.children[0])
        if isinstance(call, n.Call) and isinstance(call.func, n.Name):
            return "odds", [n.OddsInputs(self.span(t), call)]
        self.error(t, "`odds` takes a call of a dice mechanic with the inputs to show",
                   "e.g. odds attack(shots=3, armour=4)")
        return "odds", []

    def source(self, t) -> tuple:
        """`source "page 12"`: where the rule is in the printed book (the last one counts)."""
        return "source", self.string(t.children[0])

    def prose(self, t) -> tuple:
        return "prose", [self.read_prose(t.children[0])]

    def flavour(self, t) -> tuple:
        return "flavour", [self.read_prose(t.children[0])]

    def note(self, t) -> tuple:
        return "notes", [self.read_note(t, *t.children)]

    def example(self, t) -> tuple:
        return "examples", [self.read_example(*t.children)]

    # ----------------------------------------------- shared with layer changes
    def read_note(self, where, kind_tok, text_tok) -> n.Note:
        """A note of a known kind (clarification, interpretation, erratum...) at `where`."""
        kind = str(kind_tok)
        if kind not in n.NOTE_KINDS:
            self.error(kind_tok, f"unknown note kind '{kind}'",
                       did_you_mean(kind, n.NOTE_KINDS) or "kinds: " + ", ".join(n.NOTE_KINDS))
        return n.Note(self.span(where), kind, self.read_prose(text_tok))

    def read_example(self, title_tok, body) -> n.Example:
        """`example ["title"] PROSE`: its text and its `>>>` cases (example_parser.py)."""
        from .example_parser import parse_example
        raw = str(body)[3:-3]
        lead = len(raw) - len(raw.lstrip("\n"))
        return n.Example(self.span(body), self.string(title_tok) if title_tok else "", dedent(raw),
                         body.line + lead, parse_example(self, body))
