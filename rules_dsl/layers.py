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
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from . import nodes as n
from .errors import Diagnostic, RulebookError, did_you_mean, line_of
from .model import BookAST

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


# ------------------------------------------------------------------ the working tree
class _Rule:
    """A rule being amended: its node and its list fields, mutable."""
    LISTS = ("aliases", "keywords", "prose", "flavour", "notes", "examples", "decls", "uses", "odds")

    def __init__(self, node: n.Rule):
        self.node = node
        self.lists = {f: list(getattr(node, f)) for f in self.LISTS}
        self.fields = {}

    def freeze(self) -> n.Rule:
        return dataclasses.replace(self.node, **self.fields, **{f: tuple(v) for f, v in self.lists.items()})


class _Section:
    def __init__(self, node: n.Section, items: list):
        self.node, self.items = node, items

    def freeze(self) -> n.Section:
        return dataclasses.replace(self.node, items=_freeze(self.items))


def _freeze(items: list) -> tuple:
    return tuple(it.freeze() if isinstance(it, (_Rule, _Section)) else it for it in items)


class _Tree:
    """The book's items as mutable containers, with indexes by id and by name."""

    def __init__(self, items):
        self.top = self._thaw(items)
        self.rules, self.sections, self.decls = {}, {}, {}
        self._index(self.top, None, "")

    def _thaw(self, items):
        out = []
        for it in items:
            if isinstance(it, n.Section):
                out.append(_Section(it, self._thaw(it.items)))
            elif isinstance(it, n.Rule):
                out.append(_Rule(it))
            else:
                out.append(it)
        return out

    def _index(self, items, section, rule_id):
        for it in items:
            self.enter(it, items, section)

    def enter(self, it, container, section=None):
        """Index `it` (and what it holds), which sits in `container`."""
        if isinstance(it, _Section):
            self.sections.setdefault(it.node.id, (it, container))
            for x in it.items:
                self.enter(x, it.items, it)
        elif isinstance(it, _Rule):
            self.rules.setdefault(it.node.id, (it, container))
            for d in it.lists["decls"]:
                self.decls.setdefault(d.name, (d, it.lists["decls"], it))
        elif isinstance(it, (n.Const, n.Enum, n.Mechanic, n.Table, n.Check)):
            self.decls.setdefault(it.name, (it, container, None))

    def leave(self, it):
        """Drop `it` (and what it holds) from the indexes."""
        if isinstance(it, _Section):
            self.sections.pop(it.node.id, None)
            for x in it.items:
                self.leave(x)
        elif isinstance(it, _Rule):
            self.rules.pop(it.node.id, None)
            for d in it.lists["decls"]:
                self.decls.pop(d.name, None)
        elif hasattr(it, "name"):
            self.decls.pop(it.name, None)

    def all_rule_ids(self):
        return list(self.rules)

    def freeze(self) -> tuple:
        return _freeze(self.top)


def _position(container: list, item) -> int:
    for i, x in enumerate(container):
        if x is item:
            return i
    raise ValueError(item)  # pragma: no cover - the indexes hold what the containers hold


_KIND_WORDS = {n.Mechanic: "mechanic", n.Table: "table", n.Const: "const", n.Enum: "enum", n.Check: "check"}


def kind_of(decl) -> str:
    return _KIND_WORDS.get(type(decl), "declaration")


class _Failed(Exception):
    """A change that cannot be applied: its diagnostic is already reported."""


# ------------------------------------------------------------------ cells and keys
def cell_value(e: n.Expr):
    """A table cell's value from a change's expression (a number, text, true/false,
    absent, a member's name, a range), or None when it is not one."""
    from fractions import Fraction
    if isinstance(e, n.Literal):
        return e.value
    if isinstance(e, n.Neg) and isinstance(e.operand, n.Literal) and isinstance(e.operand.value, (int, Fraction)) \
            and not isinstance(e.operand.value, bool):
        return -e.operand.value
    if isinstance(e, n.Name):
        return n.Name(e.span, e.name)
    if isinstance(e, n.RangeExpr):
        lo, hi = cell_value(e.low), cell_value(e.high)
        if isinstance(lo, int) and isinstance(hi, int) and not isinstance(lo, bool) and not isinstance(hi, bool):
            return (lo, hi)
    return None


def cell_text(v) -> str:
    """A cell's value as the language writes it."""
    from .values import ABSENT, literal
    if isinstance(v, n.Name):
        return v.name
    if isinstance(v, tuple) and len(v) == 2:
        return f"{v[0]}..{v[1]}"
    if v is ABSENT:
        return "absent"
    return literal(v)


def _key_matches(cell_v, key) -> bool:
    if isinstance(cell_v, n.Name) or isinstance(key, n.Name):
        return isinstance(cell_v, n.Name) and isinstance(key, n.Name) and cell_v.name == key.name
    if isinstance(cell_v, tuple):
        if isinstance(key, tuple):
            return cell_v == key
        return isinstance(key, int) and not isinstance(key, bool) and cell_v[0] <= key <= cell_v[1]
    if isinstance(cell_v, bool) or isinstance(key, bool):
        return type(cell_v) is type(key) and cell_v == key
    if isinstance(cell_v, str) or isinstance(key, str):
        return isinstance(cell_v, str) and isinstance(key, str) and cell_v == key
    return cell_v == key


# ------------------------------------------------------------------ the pass
class _Amender:
    def __init__(self, base: BookAST, lf: n.LayerFile, book_id: str, text: str):
        self.base, self.lf, self.book_id, self.text = base, lf, book_id, text
        self.tree = _Tree(base.items)
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
    def rule(self, rule_id: str, span) -> _Rule:
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

    def touch(self, rule: Optional[_Rule]):
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

    def changed(self, rule: Optional[_Rule], *names):
        if rule is not None:
            self.touch(rule)
            self.rules_touched.append(rule.node.id)
        self.names_touched.extend(names)

    def owner_of(self, name: str) -> Optional[_Rule]:
        hit = self.tree.decls.get(name)
        return hit[2] if hit is not None else None

    # -- whole declarations
    def _replace_decl(self, c):
        old, container, owner = self.decl(c.target, c.target_span, c.what)
        self.changed(owner, c.target)
        container[_position(container, old)] = c.value
        self.tree.decls[c.target] = (c.value, container, owner)
        if isinstance(c.value, n.Const):
            self.before_value, self.after_value = _expr_text(old.value), _expr_text(c.value.value)

    replace_mechanic = replace_table = replace_const = replace_enum = replace_check = _replace_decl

    def _remove_decl(self, c):
        old, container, owner = self.decl(c.target, c.target_span, c.what)
        self.changed(owner, c.target)
        del container[_position(container, old)]
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
        new = _Rule(c.value)
        self.tree.leave(old)
        container[_position(container, old)] = new
        self.tree.enter(new, container)
        self.rules_touched.append(c.target)
        self.names_touched.extend(d.name for d in old.lists["decls"])
        self.names_touched.extend(d.name for d in new.lists["decls"])
        self._clashes(new, c)

    def _clashes(self, new: _Rule, c):
        """Declarations a new rule brings must not take a name the book already uses."""
        for d in new.lists["decls"]:
            hit = self.tree.decls.get(d.name)
            if hit is not None and hit[0] is not d:
                self.fail(d.span, f"book '{self.base.id}' already has a {kind_of(hit[0])} '{d.name}'",
                          "a name means one thing in a book: give this one a name of its own")
            self.tree.decls[d.name] = (d, new.lists["decls"], new)

    def add_rule(self, c):
        self._free_id(c.target, c.target_span)
        new = _Rule(c.value)
        self._place(new, c)
        self.before[c.target] = None
        self.rules_touched.append(c.target)
        self.names_touched.extend(d.name for d in new.lists["decls"])
        self._clashes(new, c)

    def add_section(self, c):
        self._free_id(c.target, c.target_span)
        sec = _Tree([c.value]).top[0]
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
        at = _position(container, hit[0]) + (1 if how == "after" else 0)
        container.insert(at, item)
        self.tree.enter(item, container)

    def remove_rule(self, c):
        old = self.rule(c.target, c.target_span)
        container = self.tree.rules[c.target][1]
        self.touch(old)
        self.rules_touched.append(c.target)
        self.names_touched.extend(d.name for d in old.lists["decls"])
        del container[_position(container, old)]
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
        del container[_position(container, sec)]
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

    # -- a mechanic's words
    def _phrase(self, c, field):
        old, container, owner = self.decl(c.target, c.target_span, "mechanic")
        self.changed(owner, c.target)
        new = dataclasses.replace(old, **{field: c.value})
        container[_position(container, old)] = new
        self.tree.decls[c.target] = (new, container, owner)
        before = getattr(old, field)
        self.before_value, self.after_value = (before.text if before else ""), c.value.text

    def change_question(self, c):
        self._phrase(c, "question")

    def change_answer(self, c):
        self._phrase(c, "answer")

    # -- constants
    def change_const(self, c):
        hit = self.tree.decls.get(c.target)
        if hit is not None and not isinstance(hit[0], n.Const):
            k = kind_of(hit[0])
            more = (f": change a row with {c.target}(keys) to | ... |, or a cell with {c.target}(keys).column"
                    if k == "table" else f": `replace {k} {c.target} ...` gives it a new definition")
            self.fail(c.target_span, f"'{c.target}' is a {k}, not a constant" + more)
        old, container, owner = self.decl(c.target, c.target_span, "const")
        self.changed(owner, c.target)
        new = dataclasses.replace(old, value=c.value)
        container[_position(container, old)] = new
        self.tree.decls[c.target] = (new, container, owner)
        self.before_value, self.after_value = _expr_text(old.value), _expr_text(c.value)

    # -- tables
    def _table(self, c):
        return self.decl(c.target, c.target_span, "table")

    def _keys(self, c, table: n.Table, row_only: bool = False) -> list:
        names = [p.name for p in table.params]
        if row_only and table.grid:
            names = names[:1]           # a grid's row is named by its first key
        if len(c.keys) != len(names):
            self.fail(c.target_span, f"table {table.name} has {len(names)} key{'s' if len(names) != 1 else ''} "
                      f"({', '.join(names)}); this change gives {len(c.keys)}",
                      f"name a row by all its keys: {table.name}({', '.join(names)})")
        keys = [None] * len(names)
        for i, (name, e) in enumerate(c.keys):
            at = i
            if name:
                if name not in names:
                    self.fail(e.span, f"table {table.name} has no key '{name}'", did_you_mean(name, names))
                at = names.index(name)
            v = cell_value(e)
            if v is None:
                self.fail(e.span, "a row's key is a value: a number, \"text\", true/false, a member or a range")
            keys[at] = v
        return keys

    def _find_row(self, c, table: n.Table, rows: list, row_only: bool = False) -> int:
        keys = self._keys(c, table, row_only)
        want = keys[:1] if table.grid else keys
        for i, row in enumerate(rows):
            if len(row) >= len(want) and all(_key_matches(cell.value, k) for cell, k in zip(row, want)):
                self.row_keys = tuple(cell_text(cell.value) for cell in row[:len(want)])
                return i
        shown = ", ".join(f"{p.name}={cell_text(k)}" for p, k in zip(table.params, want))
        candidates = [" ".join(cell_text(cell.value) for cell in row[:len(want)]) for row in rows]
        asked = " ".join(cell_text(k) for k in want)
        hint = did_you_mean(asked, candidates)
        self.fail(c.target_span, f"table {table.name} has no row for {shown}",
                  hint or f"its rows start: {', '.join(candidates[:8])}{' ...' if len(candidates) > 8 else ''}")

    def _grid_column(self, c, table, key) -> int:
        for j, cell in enumerate(table.header[1:], 1):
            if _key_matches(cell.value, key):
                return j
        cols = [cell_text(cell.value) for cell in table.header[1:]]
        self.fail(c.target_span, f"grid {table.name} has no column for {cell_text(key)}",
                  did_you_mean(cell_text(key), cols) or f"its columns: {', '.join(cols)}")

    def _set_table(self, old, container, owner, **changes):
        new = dataclasses.replace(old, **changes)
        container[_position(container, old)] = new
        self.tree.decls[old.name] = (new, container, owner)
        self.changed(owner, old.name)
        return new

    def _width(self, table: n.Table) -> int:
        if table.grid:
            return len(table.header)
        fields = table.returns.fields if isinstance(table.returns, n.RecordType) else (("value", None),)
        return len(table.params) + len(fields)

    def add_row(self, c):
        old, container, owner = self._table(c)
        row = c.value
        if len(row) != self._width(old):
            self.fail(c.span, f"a row of table {old.name} has {self._width(old)} cells; this one has {len(row)}")
        nkeys = 1 if old.grid else len(old.params)
        for existing in old.rows:
            if all(_key_matches(a.value, b.value) for a, b in zip(existing, row[:nkeys])):
                keys = ", ".join(cell_text(x.value) for x in row[:nkeys])
                self.fail(c.span, f"table {old.name} already has a row for {keys}",
                          f"`change {old.name}({keys}) to | ... |` replaces it")
        self.row_keys = tuple(cell_text(x.value) for x in row[:nkeys])
        self._set_table(old, container, owner, rows=old.rows + (row,))
        self.after_value = " | ".join(cell_text(x.value) for x in row)

    def remove_row(self, c):
        old, container, owner = self._table(c)
        i = self._find_row(c, old, list(old.rows), row_only=True)
        self.before_value = " | ".join(cell_text(x.value) for x in old.rows[i])
        self._set_table(old, container, owner, rows=old.rows[:i] + old.rows[i + 1:])

    def change_row(self, c):
        old, container, owner = self._table(c)
        if old.grid:
            self.fail(c.target_span, f"{old.name} is a grid: change one of its cells, {old.name}(row key, column key)")
        i = self._find_row(c, old, list(old.rows))
        if len(c.value) != self._width(old):
            self.fail(c.span, f"a row of table {old.name} has {self._width(old)} cells; this one has {len(c.value)}")
        self.before_value = " | ".join(cell_text(x.value) for x in old.rows[i])
        self.after_value = " | ".join(cell_text(x.value) for x in c.value)
        self._set_table(old, container, owner, rows=old.rows[:i] + (tuple(c.value),) + old.rows[i + 1:])

    def change_cell(self, c):
        old, container, owner = self._table(c)
        value = cell_value(c.value)
        if value is None:
            self.fail(c.value.span, "a table cell is a value: a number, \"text\", true/false, absent, a member "
                      "or a range", "the cell holds what the book prints; a formula belongs in a mechanic")
        i = self._find_row(c, old, list(old.rows))
        if old.grid:
            keys = self._keys(c, old)
            j = self._grid_column(c, old, keys[1])
            self.row_keys = self.row_keys[:1] + (cell_text(old.header[j].value),)
            if c.field:
                self.fail(c.target_span, f"a grid's cell has no columns: write {old.name}(row key, column key)")
        else:
            fields = [f for f, _ in old.returns.fields] if isinstance(old.returns, n.RecordType) else None
            if fields is None:
                if c.field:
                    self.fail(c.target_span, f"table {old.name} has one value column: write "
                              f"`change {old.name}(keys) to VALUE`")
                j = len(old.params)
            else:
                if not c.field:
                    self.fail(c.target_span, f"a row of {old.name} holds {', '.join(fields)}: name the column, "
                              f"e.g. {old.name}(...).{fields[-1]}, or give the whole row as | ... |")
                if c.field not in fields:
                    self.fail(c.target_span, f"table {old.name} has no column '{c.field}'",
                              did_you_mean(c.field, fields) or f"its columns: {', '.join(fields)}")
                j = len(old.params) + fields.index(c.field)
        row = list(old.rows[i])
        if j >= len(row):
            self.fail(c.target_span, f"that row of {old.name} has no cell {j + 1}")
        self.before_value, self.after_value = cell_text(row[j].value), cell_text(value)
        row[j] = n.Cell(c.value.span, value)
        self._set_table(old, container, owner, rows=old.rows[:i] + (tuple(row),) + old.rows[i + 1:])

    # -- enums
    def add_member(self, c):
        old, container, owner = self.decl(c.target, c.target_span, "enum")
        name, called, printed = c.value
        if name in old.members:
            self.fail(c.span, f"enum {old.name} already has the member '{name}'")
        self._set_enum(old, container, owner, members=old.members + (name,),
                       displays=old.displays + (((name, called),) if called is not None else ()),
                       printed=old.printed + (((name, printed),) if printed is not None else ()))
        self.names_touched.append(name)

    def remove_member(self, c):
        old, container, owner = self.decl(c.target, c.target_span, "enum")
        if c.field not in old.members:
            self.missing(c.span, "member", c.field, old.members, where=f"enum {old.name}")
        self._set_enum(old, container, owner, members=tuple(m for m in old.members if m != c.field),
                       displays=tuple(d for d in old.displays if d[0] != c.field),
                       printed=tuple(p for p in old.printed if p[0] != c.field))
        self.names_touched.append(c.field)

    def _set_enum(self, old, container, owner, **changes):
        new = dataclasses.replace(old, **changes)
        container[_position(container, old)] = new
        self.tree.decls[old.name] = (new, container, owner)
        self.changed(owner, old.name)

    # -- words for players
    def change_called(self, c):
        die = next((d for d in self.header.dice if d.name == c.target), None)
        if die is not None and c.target not in self.tree.decls:
            return self._called_face(c, die)
        old, container, owner = self.decl(c.target, c.target_span)
        new = _with_words(old, c.field, c.value)
        if new is None:
            parts = _named_parts(old)
            self.missing(c.target_span, "input, member, key, field or roll", c.field, parts,
                         where=f"{kind_of(old)} {old.name}")
        before = _words_of(old, c.field)
        self.before_value, self.after_value = before, c.value.text
        container[_position(container, old)] = new
        self.tree.decls[c.target] = (new, container, owner)
        self.changed(owner, c.target)

    def _called_face(self, c, die):
        if not c.field:
            self.fail(c.target_span, f"{c.target} is a die: give words to one of its faces, {c.target}.FACE")
        if not die.custom or c.field not in die.faces:
            self.missing(c.target_span, "face", c.field, sorted(set(map(str, die.faces))), where=f"die {die.name}")
        displays = tuple(d for d in die.displays if d[0] != c.field) + ((c.field, c.value),)
        new = dataclasses.replace(die, displays=displays)
        self.header = dataclasses.replace(self.header, dice=tuple(new if d is die else d for d in self.header.dice))
        self.before_value = dict(die.displays).get(c.field).text if c.field in dict(die.displays) else ""
        self.after_value = c.value.text
        self.names_touched.append(c.target)


def _named_parts(decl) -> list:
    if isinstance(decl, n.Mechanic):
        return [p.name for p in decl.params] + [s.name for s in decl.body if isinstance(s, n.Roll)] + ["result"]
    if isinstance(decl, n.Table):
        fields = [f for f, _ in decl.returns.fields] if isinstance(decl.returns, n.RecordType) else []
        return [p.name for p in decl.params] + fields
    if isinstance(decl, n.Enum):
        return list(decl.members)
    return []


def _words_of(decl, field: str) -> str:
    if not field:
        return decl.display.text if getattr(decl, "display", None) else ""
    if isinstance(decl, n.Mechanic):
        if field == "result" and field not in [p.name for p in decl.params]:
            return decl.result_display.text if decl.result_display else ""
        for p in decl.params:
            if p.name == field:
                return p.display.text if p.display else ""
        for s in decl.body:
            if isinstance(s, n.Roll) and s.name == field:
                return s.display.text if s.display else ""
    if isinstance(decl, n.Enum):
        return dict(decl.displays)[field].text if field in dict(decl.displays) else ""
    if isinstance(decl, n.Table):
        for p in decl.params:
            if p.name == field:
                return p.display.text if p.display else ""
        if isinstance(decl.returns, n.RecordType):
            return dict(decl.returns.displays)[field].text if field in dict(decl.returns.displays) else ""
    return ""


def _with_words(decl, field: str, phrase: n.Phrase):
    """`decl` with `phrase` as the words of itself (no `field`) or of one of its parts;
    None when it has no such part."""
    rep = dataclasses.replace
    if not field:
        return rep(decl, display=phrase) if hasattr(decl, "display") else None
    if isinstance(decl, n.Mechanic):
        names = [p.name for p in decl.params]
        if field in names:
            return rep(decl, params=tuple(rep(p, display=phrase) if p.name == field else p for p in decl.params))
        rolls = [s.name for s in decl.body if isinstance(s, n.Roll)]
        if field in rolls:
            return rep(decl, body=tuple(rep(s, display=phrase) if isinstance(s, n.Roll) and s.name == field else s
                                        for s in decl.body))
        if field == "result":
            return rep(decl, result_display=phrase)
        return None
    if isinstance(decl, n.Enum):
        if field not in decl.members:
            return None
        return rep(decl, displays=tuple(d for d in decl.displays if d[0] != field) + ((field, phrase),))
    if isinstance(decl, n.Table):
        if field in [p.name for p in decl.params]:
            return rep(decl, params=tuple(rep(p, display=phrase) if p.name == field else p for p in decl.params))
        if isinstance(decl.returns, n.RecordType) and field in [f for f, _ in decl.returns.fields]:
            rt = decl.returns
            return rep(decl, returns=rep(rt, displays=tuple(d for d in rt.displays if d[0] != field)
                                         + ((field, phrase),)))
    return None


def _expr_text(e) -> str:
    from .render import Notation
    try:
        return Notation().text(e)
    except Exception:          # the words of a value are for messages only
        return ""


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
    from .model import assemble
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
