"""`rules diff`'s tables: rows matched by their keys (a grid's cells by both keys),
each changed cell before and after, rows added and removed, and the columns a table
gained or lost (a `replace table` may add or drop one: its rows' cells of a new column
are in `after` only, of a removed one in `before` only, and each row names the change
that rewrote the table).  Every part with its words for players (`said`).  Split from
diff.py (issue 38), which assembles the whole diff.
"""
from __future__ import annotations

from ..analysis.reach import shape
from ..language import nodes as n

__all__ = ["table_changes", "cell_words"]


def table_changes(ctx) -> list:
    """Each table added, removed or changed from book A to book B (`ctx`: diff.py's
    context), a changed one with its rows changed, added and removed and its columns."""
    ta, tb = ctx.a.tables, ctx.b.tables
    out = []
    for name in list(tb) + [x for x in ta if x not in tb]:
        book = ctx.b if name in tb else ctx.a
        head = {"name": name, "display": book.display.table(name), "rule": book.rule_of(name) or "",
                "changed_by": ctx.changes(name=name)}
        if name not in ta or name not in tb:
            out.append(dict(head, status="added" if name not in ta else "removed", rows={}))
            continue
        a, b = ctx.decls_a[name], ctx.decls_b[name]
        if shape(a) == shape(b):
            continue
        rows_a, rows_b = _rows(a), _rows(b)
        whole = ctx.changes(name=name, row=())       # the changes that rewrote the whole table

        def by(key, name=name, whole=whole):     # a row's own changes, else the whole table's
            return ctx.changes(name=name, row=key) or whole
        changed = []
        for key, (cells, span) in rows_b.items():
            if key in rows_a and rows_a[key][0] != cells:
                before = rows_a[key][0]
                changed.append({"keys": _keyed(b, key), "before": before, "after": cells,
                                "columns": _cells_changed(before, cells),
                                "location": ctx.rel(f"{span.file}:{span.line}"),
                                "changed_by": by(key), "said": _row_said(ctx, name, b, key, before, cells)})
        added = [{"keys": _keyed(b, k), "after": c, "location": ctx.rel(f"{s.file}:{s.line}"),
                  "changed_by": by(k), "said": _row_said(ctx, name, b, k, {}, c)}
                 for k, (c, s) in rows_b.items() if k not in rows_a]
        removed = [{"keys": _keyed(a, k), "before": c, "changed_by": by(k),
                    "said": _row_said(ctx, name, a, k, c, {})}
                   for k, (c, _) in rows_a.items() if k not in rows_b]
        entry = dict(head, status="changed", rows={"changed": changed, "added": added, "removed": removed})
        if shape(a.params) != shape(b.params) or shape(a.returns) != shape(b.returns) or a.grid != b.grid:
            entry["definition_changed"] = True
        columns = _column_changes(ctx, name, a, b)
        if columns is not None:
            entry["columns"] = columns
        out.append(entry)
    return out


def _cells_changed(before: dict, after: dict) -> list:
    """The columns whose cell changed: those both have (B's order), then new ones, then
    removed ones."""
    return [c for c in after if c in before and after[c] != before[c]] + \
        [c for c in after if c not in before] + [c for c in before if c not in after]


def _column_changes(ctx, name: str, a: n.Table, b: n.Table):
    """The columns a table gained and lost ({"added", "removed", "said"}), None when
    they are the same (a grid's columns are keys: its cells are rows added and removed)."""
    if a.grid or b.grid:
        return None
    cols_a, cols_b = _columns(a), _columns(b)
    added = [c for c in cols_b if c not in cols_a]
    removed = [c for c in cols_a if c not in cols_b]
    if not added and not removed:
        return None

    def said(book, c):
        return book.display.table(name) if c == "value" else book.display.field(name, c)
    return {"added": added, "removed": removed,
            "said": {**{c: said(ctx.a, c) for c in removed}, **{c: said(ctx.b, c) for c in added}}}


def _columns(t: n.Table) -> list:
    if isinstance(t.returns, n.RecordType):
        return [f for f, _ in t.returns.fields]
    return ["value"]


def _rows(t: n.Table) -> dict:
    """{key tuple (as the language writes them): ({column: value text}, span)}."""
    from ..library.layer_decls import cell_text
    out = {}
    if t.grid:
        cols = [cell_text(c.value) for c in t.header[1:]]
        for row in t.rows:
            for col, cell in zip(cols, row[1:]):
                out.setdefault((cell_text(row[0].value), col), ({"value": cell_text(cell.value)}, cell.span))
        return out
    nkeys = len(t.params)
    cols = _columns(t)
    for row in t.rows:
        key = tuple(cell_text(c.value) for c in row[:nkeys])
        values = {c: cell_text(cell.value) for c, cell in zip(cols, row[nkeys:])}
        out.setdefault(key, (values, row[0].span if row else n.NOWHERE))
    return out


def _keyed(t: n.Table, key) -> dict:
    return {p.name: k for p, k in zip(t.params, key)}


def cell_words(book, text: str) -> str:
    """A table cell as the language writes it (`"Sniper"`, `under_fire`, `3`, `1..3`), in
    players' words (the book's display forms)."""
    import json
    if text.startswith('"'):
        try:
            return json.loads(text)
        except ValueError:
            return text
    if text in ("true", "false"):
        return "yes" if text == "true" else "no"
    if text == "absent":
        return "absent (not given)"
    if text and (text[0].isalpha() or text[0] == "_"):
        return book.display.name(text)
    return text


def _row_said(ctx, table: str, t: n.Table, key, before: dict, after: dict) -> dict:
    """A row's keys, columns and cells in words (B's words; A's for what only A has)."""
    book = ctx.b if table in ctx.b.tables else ctx.a
    names = book.display
    keys = [cell_words(book, k) for k in key]
    if len(keys) == 1:
        keys_said = keys[0]
    elif t.grid:
        keys_said = f"{keys[0]}, {keys[1]}"
    else:
        keys_said = ", ".join(f"{names.param(table, p.name)} {k}" for p, k in zip(t.params, keys))
    columns = list(dict.fromkeys(list(before) + list(after)))
    old = ctx.a if table in ctx.a.tables else book

    def column(c):          # a column only A has keeps A's words
        shown = names if c in after or old is book else old.display
        return shown.table(table) if c == "value" else shown.field(table, c)
    return {"keys": keys_said,
            "columns": {c: column(c) for c in columns},
            "before": {c: cell_words(ctx.a if table in ctx.a.tables else book, v) for c, v in before.items()},
            "after": {c: cell_words(book, v) for c, v in after.items()}}
