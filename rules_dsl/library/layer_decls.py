"""The amend pass's changes to a declaration's contents: a constant's value, a table's
rows and cells, an enum's members, the words of a mechanic, its parts and a die's faces.

`DeclarationChanges` holds one method per such change (`change_cell`, `add_row`,
`add_member`, `change_called`...), which the pass (`layers._Amender`, its subclass)
finds by the change's verb and kind; they use the pass's lookups and reporting
(`decl`, `changed`, `fail`, `missing`) and its working tree.  `cell_value` and
`cell_text` read and write a table cell's value as the language writes it.

Split from layers.py (issue 32): layers.py keeps the pass (reporting, lookups, whole
declarations, rules, sections and a rule's parts) and the layer's records; this module
edits what sits inside one declaration.
"""
from __future__ import annotations

import dataclasses

from ..language import nodes as n
from ..errors import did_you_mean
from .layer_tree import kind_of, position_of

__all__ = ["DeclarationChanges", "cell_value", "cell_text", "notation_text"]


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
    from ..language.values import ABSENT, literal
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



class DeclarationChanges:
    """The changes to a declaration's contents, as methods of the amend pass (see the module doc)."""

    # -- a mechanic's words
    def _phrase(self, c, field):
        old, container, owner = self.decl(c.target, c.target_span, "mechanic")
        self.changed(owner, c.target)
        new = dataclasses.replace(old, **{field: c.value})
        container[position_of(container, old)] = new
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
        container[position_of(container, old)] = new
        self.tree.decls[c.target] = (new, container, owner)
        self.before_value, self.after_value = notation_text(old.value), notation_text(c.value)

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
        container[position_of(container, old)] = new
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
        container[position_of(container, old)] = new
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
        container[position_of(container, old)] = new
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


def notation_text(e) -> str:
    from ..language.render import Notation
    try:
        return Notation().text(e)
    except Exception:          # the words of a value are for messages only
        return ""
