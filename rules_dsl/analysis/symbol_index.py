"""A book's symbol index: where every name is declared and where it is used, with spans.

Several faces ask the same questions of a checked book: "what does the name at
this place mean, where is it declared, where else is it used, which names can be
written here?"  The language server asks them for go-to-definition, references,
hover and completion; explain asks which rule declares a mechanic.  Before this
module each walked the tree its own way; now `SymbolIndex` answers them all from
one pass over the resolver's results (`resolve.resolve_book`, kept in
`Symbols.resolved`), built once per book (`CompiledBook.symbol_index` for a
compiled book, `BookState.index` for an editor's book).

What the index holds:

* a `Definition` for each declaration: the book's constants, mechanics, tables,
  enums, dice, checks and design views; each enum member and die face; each rule
  and section (by id); and the locals of each mechanic, check and design view
  (parameters, `let`s, rolls, bindings, comprehension variables);
* the references of each name: every `Name` the resolver resolved (one per
  occurrence, with its span), and the table cells that name a member.

Scopes follow `resolve.py`: a local belongs to the declaration around it (the
first mechanic, check, table or design view of the book whose lines hold it, as
the editor sees it).  Positions are 1-based lines and columns, as in `nodes.Span`.
Building never raises: a book whose names could not be collected gets an index
of what could be.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..language import nodes as n
from ..language.model import walk
from .resolve import Resolved

#: the kinds of global declaration, in the order a bare name is looked up among them
#: when it is a declaration's own name rather than a resolved use (see `declared_at`)
GLOBAL_KINDS = ("const", "mechanic", "table", "enum", "die")
#: declarations whose lines hold locals (and whose lines an editor's place is "in")
SCOPES = (n.Mechanic, n.Check, n.Table, n.Priced)
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass(frozen=True)
class Definition:
    """One declared name.  `name_span`, where its name is written, is found in the
    source text on first use (an index is built on every edit; few spans are asked for)."""
    kind: str            # const mechanic table enum die check priced | member | local | rule section
    name: str
    node: object         # the declaration (a member's enum or die; a local's Param, Let, Roll, Binding, Comprehension)
    span: n.Span         # the whole declaration
    rule: str = ""       # the id of the rule it sits in ("" at section level; a rule's or section's own id)
    owner: str = ""      # a member's enum or die; a local's declaration
    role: str = ""       # a local's: parameter | let | roll | binding | comprehension
    sections: tuple = ()   # the titles of the sections around it
    search_from: Optional[n.Span] = field(default=None, compare=False, repr=False)  # where the name is looked for
    source: Optional[Callable] = field(default=None, compare=False, repr=False)     # path -> the file's lines

    @functools.cached_property
    def name_span(self) -> n.Span:
        start = self.search_from or self.span
        lines = self.source(start.file) if self.source is not None else []
        return name_span("", start.file, start, self.name, lines)


def name_span(text: str, path: str, span: n.Span, name: str, lines: Optional[list] = None) -> n.Span:
    """Where `name` is first written at or after `span`'s start (within 20 lines; the
    span's start, `len(name)` wide, if it is not found)."""
    lines = text.split("\n") if lines is None else lines
    line, col = span.line, max(span.column, 1)
    if name:
        for i in range(line - 1, min(len(lines), line + 20)):
            at = _whole_word(lines[i], name, col - 1 if i == line - 1 else 0)
            if at >= 0:
                return n.Span(path, i + 1, at + 1, i + 1, at + len(name) + 1)
    return n.Span(path, span.line, span.column, span.line, span.column + len(name))


def _whole_word(text: str, name: str, start: int) -> int:
    """The first index at or after `start` where `name` is written as a whole word (not
    touching a letter, digit, `_` or `-`), or -1."""
    at = text.find(name, start)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or text[at - 1] not in _WORD_CHARS) and (end == len(text) or text[end] not in _WORD_CHARS):
            return at
        at = text.find(name, at + 1)
    return -1


def contains(span: n.Span, line: int, col: int) -> bool:
    """Whether (line, col) lies within `span` (a span without an end holds its first line)."""
    end_line = span.end_line or span.line
    if not span.line <= line <= end_line:
        return False
    if line == span.line and col < span.column:
        return False
    if line == end_line and span.end_column and col > span.end_column:
        return False
    return True


def _locals(d) -> list:
    """(name, role, declaring node) of a declaration's locals, in the order a name is
    looked for: parameters, then `let`s and rolls; bindings; then comprehension variables."""
    out = []
    if isinstance(d, n.Mechanic):
        out += [(pa.name, "parameter", pa) for pa in d.params]
        out += [(s.name, "roll" if isinstance(s, n.Roll) else "let", s)
                for s in d.body if isinstance(s, (n.Let, n.Roll))]
    elif isinstance(d, (n.Check, n.Priced)):
        out += [(b.name, "binding", b) for b in d.bindings]
    out += [(x.var, "comprehension", x) for x in n.iter_nodes(d) if isinstance(x, n.Comprehension)]
    return out


class SymbolIndex:
    """Definitions and references of every name of one book (see the module's docstring).

    `ast` is the book's `BookAST`, `syms` its `Symbols` (with `resolved` filled by the
    resolver), `texts` {path: source text} (names are found in the text for their spans)."""

    def __init__(self, ast, syms, texts: dict):
        self.book_id = getattr(ast, "id", "")
        self.syms = syms
        self._texts = texts
        self._lines: dict = {}
        self.globals: dict = {}       # (kind, name) -> Definition
        self.rules: dict = {}         # rule or section id -> Definition (the first of that id)
        self.members: dict = {}       # (member, owner) -> Definition
        self.scopes: list = []        # the declarations that hold locals, in book order
        self._scope_ids: dict = {}    # id -> each of `scopes`
        self._locals: dict = {}       # id(declaration) -> {name: Definition}, as asked for
        self._tables = []             # the book's tables (their cells may name members)
        placed = list(walk(ast.items)) if ast is not None and getattr(ast, "items", None) is not None else []
        self._collect_rules(placed)
        self._collect_globals(placed)

    # ------------------------------------------------------------ building
    def _text_lines(self, path) -> list:
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = self._texts.get(path, "").split("\n")
        return lines

    def _collect_rules(self, placed):
        for p in placed:
            node = p.node
            if isinstance(node, (n.Rule, n.Section)) and node.id not in self.rules:
                kind = "rule" if isinstance(node, n.Rule) else "section"
                self.rules[node.id] = Definition(kind, node.id, node, node.span, node.id, sections=p.section_titles,
                                                 source=self._text_lines)

    def _collect_globals(self, placed):
        syms = self.syms
        sections = {id(p.node): p.section_titles for p in placed}
        for kind, table in (("mechanic", syms.mechanics), ("table", syms.tables), ("enum", syms.enums),
                            ("const", syms.consts), ("die", syms.dice), ("check", syms.checks),
                            ("priced", syms.priced)):
            for name, node in table.items():
                self.globals[(kind, name)] = Definition(kind, name, node, node.span, syms.owner.get(name) or "",
                                                        sections=sections.get(id(node), ()), source=self._text_lines)
        for member, owners in syms.members.items():
            for o in owners:
                node = syms.enums.get(o) or syms.dice.get(o)
                if node is None:
                    continue
                after = n.Span(node.span.file, node.span.line, node.span.column + 1)
                self.members[(member, o)] = Definition("member", member, node, node.span, syms.owner.get(o) or "",
                                                       owner=o, search_from=after, source=self._text_lines)
        self.scopes = [p.node for p in placed if isinstance(p.node, SCOPES)]
        self._scope_ids = {id(d): d for d in self.scopes}
        self._tables = [p.node for p in placed if isinstance(p.node, n.Table)]

    def _locals_of(self, d) -> dict:
        """{name: Definition} of a declaration's locals, made on first use (kept for the
        book's own declarations only: a node made since, say a rewritten twin, is not kept
        by its id, which a later node may reuse)."""
        found = self._locals.get(id(d))
        if found is not None and self._scope_ids.get(id(d)) is d:
            return found
        found = {}
        for name, role, node in _locals(d):
            if name not in found:
                found[name] = Definition("local", name, node, node.span, self.syms.owner.get(d.name) or "",
                                         owner=d.name, role=role, source=self._text_lines)
        if self._scope_ids.get(id(d)) is d:
            self._locals[id(d)] = found
        return found

    @functools.cached_property
    def _uses(self):
        """({(kind, name): [Span]} (a local's: of every declaration), {path: [(Name node, Resolved)]}),
        made on the first question about uses (a book analysed only for its diagnostics needs none)."""
        refs, names = {}, {}
        for node, r in self.syms.resolved.items():
            names.setdefault(node.span.file, []).append((node, r))
            refs.setdefault((r.kind, r.name), []).append(node.span)
        for t in self._tables:           # a table's cells that name a member (the resolver reads no cells)
            for row in (t.header,) + t.rows:
                for c in row:
                    if isinstance(c.value, n.Name):
                        s = c.span
                        refs.setdefault(("member", c.value.name), []).append(
                            n.Span(s.file, s.line, s.column, s.line, s.column + len(c.value.name)))
        return refs, names

    # ------------------------------------------------------------ queries
    def scope_at(self, path, line: int):
        """The mechanic, check, table or design view whose lines hold `line` of `path`, or None."""
        for d in self.scopes:
            if d.span.file == path and d.span.line <= line <= (d.span.end_line or d.span.line):
                return d
        return None

    def name_at(self, path, line: int, col: int):
        """(Name node, Resolved) of the resolved name written at (line, col), the innermost
        (the latest starting) when names nest; None when no resolved name is there."""
        best = None
        for node, res in self._uses[1].get(path, ()):
            if contains(node.span, line, col):
                if best is None or (node.span.line, node.span.column) > (best[0].span.line, best[0].span.column):
                    best = (node, res)
        return best

    def declared_at(self, path, line: int, word: str) -> Optional[Resolved]:
        """What `word` means where no resolved name is written (a declaration's own name,
        a table's cell, an enum's member list): a global declaration of that name, else a
        member, else a local of the declaration around `line`; None if none."""
        for kind in GLOBAL_KINDS:
            if (kind, word) in self.globals:
                return Resolved(kind, word)
        owners = self.syms.members.get(word, [])
        if owners:
            return Resolved("member", word, owners[0])
        if self.local(path, line, word) is not None:
            return Resolved("local", word)
        return None

    def local(self, path, line: int, name: str) -> Optional[Definition]:
        """The local `name` of the declaration around `line` of `path`, or None."""
        d = self.scope_at(path, line)
        return self._locals_of(d).get(name) if d is not None else None

    def locals_of(self, decl) -> list:
        """The `Definition`s of a declaration's locals, in the order of `_locals`."""
        return list(self._locals_of(decl).values()) if isinstance(decl, SCOPES) else []

    def definition(self, res: Resolved, path=None, line: int = 0) -> Optional[Definition]:
        """Where the name `res` (as resolved at `line` of `path`) is declared, or None
        (a built-in, an unknown or ambiguous name, or a local outside any declaration)."""
        if res.kind == "local":
            return self.local(path, line, res.name)
        if res.kind == "member":
            return self.members.get((res.name, res.owner))
        if res.kind in GLOBAL_KINDS:
            return self.globals.get((res.kind, res.name))
        return None

    def references(self, res: Resolved, path=None, line: int = 0) -> list:
        """The spans of every use of the name `res` (as resolved at `line` of `path`), in
        no particular order; a local's within its declaration; a member's whichever
        enum or die it belongs to, its table cells included."""
        if res.kind == "local":
            d = self.scope_at(path, line)
            if d is None:
                return []
            return [s for s in self._uses[0].get(("local", res.name), ())
                    if s.file == path and contains(d.span, s.line, s.column)]
        return list(self._uses[0].get((res.kind, res.name), ()))

    def of_kind(self, kind: str) -> list:
        """The `Definition`s of one kind of global declaration, in declaration order."""
        return [d for (k, _), d in self.globals.items() if k == kind]

    def global_(self, name: str, kinds=GLOBAL_KINDS) -> Optional[Definition]:
        """The global declaration of `name` among `kinds` (first match in that order), or None."""
        for kind in kinds:
            d = self.globals.get((kind, name))
            if d is not None:
                return d
        return None

    def member_owners(self, name: str) -> list:
        """The enums and dice that have a member or face `name`, in declaration order."""
        return list(self.syms.members.get(name, ()))

    def rule_of(self, name: str) -> str:
        """The id of the rule that declares the global `name` ("" at section level or unknown)."""
        return self.syms.owner.get(name) or ""
