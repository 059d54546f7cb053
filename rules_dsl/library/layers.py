"""The amend pass: a book and a layer (errata, a new edition, house rules) give a new book.

A layer is a file of its own in the books folder, `<base>+<name>.rules`, that starts
`layer NAME on BASE { ... }` and lists its changes (docs/language.md, "Layers").  The
layered book's id is `<base>+<name>`: a name, never a path, found as any book is; its
base is the id before the last `+`, which is a book or another layer, so a chain of
layers cannot loop (it is at most `MAX_DEPTH` layers deep).

`apply_layer` is the pass.  It takes the base book's assembled AST (itself amended,
for a layer on a layer) and the layer's parsed changes, and applies each change in
order to a working copy of the tree, looking the thing it amends up by its id or name
(a rule, a section, a declaration, a table's row by its keys, an enum's member, a
note by its number, an example by its title).  Nothing is patched as text: what a
change brings is the layer's own parsed nodes (with their spans in the layer file),
and what it leaves is the base's.  A change that names something the book does not
have is a located diagnostic with a did-you-mean.  The result is an ordinary
`BookAST` (then checked and compiled as any book) that also carries, in
`BookAST.layers`, a `LayerInfo` per layer: each change, the rules and names it
touched, and the base's version of every rule it changed (the website shows it one
tap away; layer_causes.py reads the names to say which change broke something).

Three modules (split in issue 32): this one holds layered books' ids, the records of
what a layer did, the pass itself (reporting, lookups, whole declarations, rules,
sections and a rule's parts) and its entry points; layer_tree.py the working copy the
pass edits; layer_decls.py the changes to a declaration's contents (constants, rows and
cells, members, words), a mixin of the pass.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from ..language import nodes as n
from ..errors import Diagnostic, RulebookError, did_you_mean, line_of
from .layer_decls import DeclarationChanges, notation_text
from .layer_tree import WorkingRule, WorkingTree, kind_of, position_of
from ..language.model import BookAST

SEP = "+"
MAX_DEPTH = 8          # layers on top of a book (a longer chain is refused)


def split_id(book_id: str):
    """(base id, layer name) of a layered book's id, or None for a book's own id."""
    base, sep, name = book_id.rpartition(SEP)
    return (base, name) if sep and base and name else None


def base_of(book_id: str) -> str:
    """The id of the book at the bottom of a chain of layers (`xenotactics` for
    `xenotactics+errata+house`)."""
    return book_id.split(SEP, 1)[0]


@dataclass(frozen=True)
class ChangeRecord:
    """What one change of a layer did, for the outputs: where it is written, what it
    amends (`rules`: the ids of the rules it changed; `names`: the declarations and
    members), its reason, and the value before and after where it is one (a cell,
    a constant, a title)."""
    layer: str            # the id of the layered book the change belongs to
    number: int           # its place in the layer, from 1
    span: n.Span
    text: str             # the change as written (its first line)
    verb: str
    what: str
    target: str
    reason: str = ""      # its `because`, "" when it gives none
    rules: tuple = ()
    names: tuple = ()
    before: str = ""
    after: str = ""
    row: tuple = ()       # a row's keys, as the language writes them, for a change of a table's row

    @property
    def location(self) -> str:
        return f"{self.span.file}:{self.span.line}:{self.span.column}"


@dataclass(frozen=True)
class LayerInfo:
    """One layer of a layered book: its id, name, base, words and changes; `before`
    holds ((rule id, the base's Rule or None), ...) for every rule a change touched."""
    id: str
    name: str
    base: str
    title: str
    edition: str
    source: str
    prose: tuple
    file: str
    span: n.Span
    changes: tuple        # of ChangeRecord
    before: tuple = ()

    def changes_of(self, rule_id: str) -> list:
        return [c for c in self.changes if rule_id in c.rules]

    def base_rule(self, rule_id: str):
        """The rule as the base book has it (None: the layer added it)."""
        return dict(self.before).get(rule_id)


class _Failed(Exception):
    """A change that cannot be applied: its diagnostic is already reported."""


# ------------------------------------------------------------------ the pass
class _Amender(DeclarationChanges):
    def __init__(self, base: BookAST, lf: n.LayerFile, book_id: str, text: str):
        self.base, self.lf, self.book_id, self.text = base, lf, book_id, text
        self.tree = WorkingTree(base.items)
        self.header = base.header
        self.diags = []
        self.records = []
        self.before = {}       # rule id -> the base's Rule (None: added by the layer)

    # -- reporting
    def fail(self, span: n.Span, message: str, hint: str = ""):
        self.diags.append(Diagnostic(span.file, span.line, span.column, message, hint, line_of(self.text, span.line)))
        raise _Failed

    def missing(self, span, kind: str, name: str, candidates, where: str = ""):
        where = where or f"book '{self.base.id}'"
        hint = did_you_mean(name, candidates)
        self.fail(span, f"{where} has no {kind} '{name}' to amend",
                  hint or "a layer amends what its book has; `add` brings something new")

    # -- lookups
    def rule(self, rule_id: str, span) -> WorkingRule:
        hit = self.tree.rules.get(rule_id)
        if hit is None:
            self.missing(span, "rule", rule_id, self.tree.rules)
        return hit[0]

    def decl(self, name: str, span, kind: Optional[str] = None):
        hit = self.tree.decls.get(name)
        if hit is None:
            names = [k for k, v in self.tree.decls.items() if kind is None or kind_of(v[0]) == kind]
            self.missing(span, kind or "declaration", name, names or self.tree.decls)
        if kind is not None and kind_of(hit[0]) != kind:
            self.fail(span, f"'{name}' is a {kind_of(hit[0])} of book '{self.base.id}', not a {kind}",
                      f"write `{kind_of(hit[0])}` to amend it")
        return hit

    def touch(self, rule: Optional[WorkingRule]):
        """Keep the base's version of a rule before its first change."""
        if rule is not None and rule.node.id not in self.before:
            self.before[rule.node.id] = rule.freeze()

    # -- the pass
    def run(self) -> tuple:
        for i, c in enumerate(self.lf.changes, 1):
            self.rules_touched, self.names_touched = [], []
            self.before_value = self.after_value = ""
            self.row_keys = ()
            try:
                getattr(self, f"{c.verb}_{c.what}", self.unknown)(c)
            except _Failed:
                continue
            self.records.append(ChangeRecord(
                self.book_id, i, c.span, c.text, c.verb, c.what, c.target,
                c.reason.text if c.reason is not None else "",
                tuple(dict.fromkeys(self.rules_touched)), tuple(dict.fromkeys(self.names_touched)),
                self.before_value, self.after_value, self.row_keys))
        return self.tree.freeze(), self.header

    def unknown(self, c):  # pragma: no cover - the grammar allows only the changes below
        self.fail(c.span, f"cannot {c.verb} a {c.what}")

    def changed(self, rule: Optional[WorkingRule], *names):
        if rule is not None:
            self.touch(rule)
            self.rules_touched.append(rule.node.id)
        self.names_touched.extend(names)

    def owner_of(self, name: str) -> Optional[WorkingRule]:
        hit = self.tree.decls.get(name)
        return hit[2] if hit is not None else None

    # -- whole declarations
    def _replace_decl(self, c):
        old, container, owner = self.decl(c.target, c.target_span, c.what)
        self.changed(owner, c.target)
        container[position_of(container, old)] = c.value
        self.tree.decls[c.target] = (c.value, container, owner)
        if isinstance(c.value, n.Const):
            self.before_value, self.after_value = notation_text(old.value), notation_text(c.value.value)

    replace_mechanic = replace_table = replace_const = replace_enum = replace_check = _replace_decl

    def _remove_decl(self, c):
        old, container, owner = self.decl(c.target, c.target_span, c.what)
        self.changed(owner, c.target)
        del container[position_of(container, old)]
        self.tree.leave(old)

    remove_mechanic = remove_table = remove_const = remove_enum = remove_check = _remove_decl

    def add_decl(self, c):
        d = c.value
        rule = self.rule(c.target, c.target_span)
        if d.name in self.tree.decls:
            other = self.tree.decls[d.name][0]
            self.fail(d.span, f"book '{self.base.id}' already has a {kind_of(other)} '{d.name}'",
                      f"`replace {kind_of(other)} {d.name}...` changes it; a new one needs a name of its own")
        self.changed(rule, d.name)
        rule.lists["decls"].append(d)
        self.tree.decls[d.name] = (d, rule.lists["decls"], rule)

    # -- rules and sections
    def replace_rule(self, c):
        old = self.rule(c.target, c.target_span)
        hit = self.tree.rules[c.target]
        container = hit[1]
        self.touch(old)
        new = WorkingRule(c.value)
        self.tree.leave(old)
        container[position_of(container, old)] = new
        self.tree.enter(new, container)
        self.rules_touched.append(c.target)
        self.names_touched.extend(d.name for d in old.lists["decls"])
        self.names_touched.extend(d.name for d in new.lists["decls"])
        self._clashes(new, c)

    def _clashes(self, new: WorkingRule, c):
        """Declarations a new rule brings must not take a name the book already uses."""
        for d in new.lists["decls"]:
            hit = self.tree.decls.get(d.name)
            if hit is not None and hit[0] is not d:
                self.fail(d.span, f"book '{self.base.id}' already has a {kind_of(hit[0])} '{d.name}'",
                          "a name means one thing in a book: give this one a name of its own")
            self.tree.decls[d.name] = (d, new.lists["decls"], new)

    def add_rule(self, c):
        self._free_id(c.target, c.target_span)
        new = WorkingRule(c.value)
        self._place(new, c)
        self.before[c.target] = None
        self.rules_touched.append(c.target)
        self.names_touched.extend(d.name for d in new.lists["decls"])
        self._clashes(new, c)

    def add_section(self, c):
        self._free_id(c.target, c.target_span)
        sec = WorkingTree([c.value]).top[0]
        self._place(sec, c)
        for rid in _rule_ids(c.value.items):
            self.before[rid] = None
            self.rules_touched.append(rid)

    def _free_id(self, ident, span):
        if ident in self.tree.rules or ident in self.tree.sections:
            kind = "rule" if ident in self.tree.rules else "section"
            self.fail(span, f"book '{self.base.id}' already has a {kind} '{ident}'",
                      f"`replace {kind} {ident} ...` changes it; a new one needs an id of its own")

    def _place(self, item, c):
        if not c.place:
            self.tree.top.append(item)
            self.tree.enter(item, self.tree.top)
            return
        how, ident, span = c.place
        if how == "section":
            hit = self.tree.sections.get(ident)
            if hit is None:
                self.missing(span, "section", ident, self.tree.sections)
            hit[0].items.append(item)
            self.tree.enter(item, hit[0].items)
            return
        hit = self.tree.rules.get(ident)
        if hit is None:
            self.missing(span, "rule", ident, self.tree.rules)
        container = hit[1]
        at = position_of(container, hit[0]) + (1 if how == "after" else 0)
        container.insert(at, item)
        self.tree.enter(item, container)

    def remove_rule(self, c):
        old = self.rule(c.target, c.target_span)
        container = self.tree.rules[c.target][1]
        self.touch(old)
        self.rules_touched.append(c.target)
        self.names_touched.extend(d.name for d in old.lists["decls"])
        del container[position_of(container, old)]
        self.tree.leave(old)

    def remove_section(self, c):
        hit = self.tree.sections.get(c.target)
        if hit is None:
            self.missing(c.target_span, "section", c.target, self.tree.sections)
        sec, container = hit
        for rid in _rule_ids(sec.freeze().items):
            r = self.tree.rules.get(rid)
            if r is not None:
                self.touch(r[0])
                self.names_touched.extend(d.name for d in r[0].lists["decls"])
            self.rules_touched.append(rid)
        del container[position_of(container, sec)]
        self.tree.leave(sec)

    # -- a rule's parts
    def change_title(self, c):
        rule = self.rule(c.target, c.target_span)
        self.changed(rule)
        self.before_value, self.after_value = rule.fields.get("title", rule.node.title), c.value
        rule.fields["title"] = c.value

    def change_text(self, c):
        rule = self.rule(c.target, c.target_span)
        self.changed(rule)
        rule.lists["prose"] = [c.value]

    def _note(self, c, rule):
        notes = rule.lists["notes"]
        if not 1 <= c.index <= len(notes):
            count = f"{len(notes)} note{'s' if len(notes) != 1 else ''}"
            self.fail(c.span, f"rule '{c.target}' has {count}, so no note {c.index}",
                      "notes are numbered from 1 in the order the rule gives them" if notes else
                      "`add note KIND \"...\" to rule ...` gives it one")
        return c.index - 1

    def add_note(self, c):
        rule = self.rule(c.target, c.target_span)
        self.changed(rule)
        rule.lists["notes"].append(c.value)

    def change_note(self, c):
        rule = self.rule(c.target, c.target_span)
        i = self._note(c, rule)
        self.changed(rule)
        old = rule.lists["notes"][i]
        rule.lists["notes"][i] = n.Note(c.value.span, old.kind, c.value)

    def remove_note(self, c):
        rule = self.rule(c.target, c.target_span)
        i = self._note(c, rule)
        self.changed(rule)
        del rule.lists["notes"][i]

    def _example(self, c, rule) -> int:
        titles = [ex.title for ex in rule.lists["examples"]]
        if c.index:
            if not 1 <= c.index <= len(titles):
                count = f"{len(titles)} worked example{'s' if len(titles) != 1 else ''}"
                self.fail(c.span, f"rule '{c.target}' has {count}, so no example {c.index}",
                          "examples are numbered from 1 in the order the rule gives them")
            return c.index - 1
        if c.title not in titles:
            shown = ", ".join(repr(t) for t in titles if t) or "none with a title"
            self.fail(c.span, f"rule '{c.target}' has no example titled {c.title!r}",
                      did_you_mean(c.title, [t for t in titles if t]) or f"its examples: {shown}")
        return titles.index(c.title)

    def add_example(self, c):
        rule = self.rule(c.target, c.target_span)
        if c.value.title and c.value.title in [ex.title for ex in rule.lists["examples"]]:
            self.fail(c.span, f"rule '{c.target}' already has an example titled {c.value.title!r}",
                      f"`change example {c.value.title!r} of rule {c.target} to ...` replaces it")
        self.changed(rule)
        rule.lists["examples"].append(c.value)

    def change_example(self, c):
        rule = self.rule(c.target, c.target_span)
        i = self._example(c, rule)
        self.changed(rule)
        old = rule.lists["examples"][i]
        new = c.value if c.value.title or not old.title else dataclasses.replace(c.value, title=old.title)
        rule.lists["examples"][i] = new

    def remove_example(self, c):
        rule = self.rule(c.target, c.target_span)
        i = self._example(c, rule)
        self.changed(rule)
        del rule.lists["examples"][i]

    def _words(self, c, field):
        rule = self.rule(c.target, c.target_span)
        self.changed(rule)
        have = rule.lists[field]
        have.extend(w for w in c.value if w not in have)

    def add_aliases(self, c):
        self._words(c, "aliases")

    def add_keywords(self, c):
        self._words(c, "keywords")


def _rule_ids(items) -> list:
    out = []
    for it in items:
        if isinstance(it, n.Rule):
            out.append(it.id)
        elif isinstance(it, n.Section):
            out.extend(_rule_ids(it.items))
    return out


def apply_layer(base: BookAST, lf: n.LayerFile, book_id: str, text: str) -> tuple:
    """(the layered book's `BookAST`, diagnostics): `base` amended by the changes of `lf`,
    in order.  A change that cannot be applied is a diagnostic and is left out; the
    others still apply, so one run reports every change that names something missing."""
    am = _Amender(base, lf, book_id, text)
    items, header = am.run()
    h = lf.header
    prose = tuple(h.prose) + tuple(header.prose)
    title = h.title or f"{base.header.title or base.id} ({h.name})"
    new_header = dataclasses.replace(header, id=book_id, title=title, edition=h.edition or header.edition,
                                     prose=prose)
    info = LayerInfo(book_id, h.name, base.id, title, h.edition, h.source, tuple(h.prose), lf.path, h.span,
                     tuple(am.records), tuple(am.before.items()))
    ast = BookAST(book_id, new_header, tuple(base.files) + (lf.path,), items, skipped=base.skipped,
                  layers=tuple(base.layers) + (info,))
    return ast, am.diags


def assemble_layered(book_id: str, trees: list, texts: dict) -> tuple:
    """(the book's AST, the amend pass's diagnostics) from the parsed files of a book,
    its base's and its layers' in any order (an editor's open documents): the book's
    files assembled as `model.assemble` does, then each layer applied, lowest first."""
    from ..language.model import assemble
    books = [t for t in trees if isinstance(t, n.SourceFile)]
    mine = sorted((t for t in trees if isinstance(t, n.LayerFile)), key=lambda t: _stem(t.path).count(SEP))
    if not mine:
        return assemble(book_id, books), []
    ast = assemble(base_of(book_id), books)
    diags = []
    for lf in mine:
        ast, found = apply_layer(ast, lf, _stem(lf.path), texts.get(lf.path, ""))
        diags.extend(found)
    return ast, diags


def _stem(path: str) -> str:
    import os
    return os.path.splitext(os.path.basename(path))[0]


def is_layer_file(path) -> bool:
    """Whether a `.rules` file is a layer: its name is `base+name.rules`."""
    return SEP in _stem(str(path))


def check_header(lf: n.LayerFile, book_id: str, text: str, known_books) -> list:
    """Diagnostics for a layer whose header does not match its file's name, or whose
    base is not a book of the folder (each at the header, with a hint)."""
    base, name = split_id(book_id)
    h = lf.header
    src = line_of(text, h.span.line)
    if h.name != name or h.base != base:
        return [Diagnostic(lf.path, h.span.line, h.span.column,
                           f"this file is layer '{name}' on '{base}' (its name is {book_id}.rules), "
                           f"but its header says layer '{h.name}' on '{h.base}'",
                           f"name the file {h.base}{SEP}{h.name}.rules, or change the header to "
                           f"`layer {name} on {base}`", src)]
    if base not in known_books:
        hint = did_you_mean(base, [b for b in known_books if b != book_id])
        return [Diagnostic(lf.path, h.base_span.line, h.base_span.column,
                           f"layer '{name}' amends '{base}', which is not a book of this folder",
                           hint or "a layer's base is a book (or a layer) in the same books folder",
                           line_of(text, h.base_span.line))]
    if book_id.count(SEP) > MAX_DEPTH:
        return [Diagnostic(lf.path, h.span.line, h.span.column,
                           f"{book_id} is {book_id.count(SEP)} layers deep; at most {MAX_DEPTH} layers "
                           "may sit on a book", "merge some of the layers", src)]
    return []


def layered_error(lf: n.LayerFile, base_error: RulebookError) -> RulebookError:
    """The base's own errors, introduced by a line at the layer's header that says so."""
    h = lf.header
    first = Diagnostic(lf.path, h.base_span.line, h.base_span.column,
                       f"book '{h.base}', which layer '{h.name}' amends, does not compile (its errors follow)",
                       "fix the base book first; a layer is checked on top of it")
    return RulebookError([first] + list(base_error.diagnostics))
