"""Tables: `TableFn` looks a value up by its keys; `Printed` and `RowRecord` say where
an entry is printed (the checks' findings point there)."""
from __future__ import annotations

from itertools import product
from ..language import nodes as n
from ..errors import EvaluationError, InputError, RulebookError
from ..language.values import ABSENT, Record, show
from .context import BookParts
from .typecheck import TypeCheck

# the most key combinations a table's coverage check enumerates
COVERAGE_LIMIT = 100_000


def looked_up_tables(ast, syms) -> set:
    """The tables that play reads by key: named anywhere in a mechanic or constant
    other than as the argument of `rows(...)`.  A table only listed through `rows`
    (a record of what the source prints, such as one worked example), or read by key
    only in checks and examples (which fail loudly on a missing row when run), need
    not have a row for every key; one that a mechanic looks up must."""
    from ..language.model import decls_of
    from ..analysis.resolve import scoped_parts
    used, listed = set(), set()
    for p in decls_of(ast):
        if not isinstance(p.node, (n.Mechanic, n.Const)):
            continue
        for what, part, _ in scoped_parts(p.node):
            roots = (part,) if what == "expr" else (part.dice.count, part.dice.on, part.dice.then)
            for x in n.iter_nodes(roots):
                if isinstance(x, n.Call) and isinstance(x.func, n.Name) and x.func.name == "rows" \
                        and len(x.args) == 1 and isinstance(x.args[0], n.Name):
                    listed.add(x.args[0])
                elif isinstance(x, n.Name):
                    r = syms.resolved.get(x)
                    if r is not None and r.kind == "table":
                        used.add(x)
    return {x.name for x in used - listed}


class Printed(tuple):
    """Where a table entry is printed: (table name, span of its row or grid cell, its keys)."""
    __slots__ = ()

    def __new__(cls, table, span, keys):
        return super().__new__(cls, (table, span, keys))

    table = property(lambda self: self[0])
    span = property(lambda self: self[1])
    keys = property(lambda self: self[2])


class RowRecord(Record):
    """A table row as a record that remembers where it is printed.

    It equals, hashes, prints and pickles as the plain `Record` it is (the origin
    is dropped on pickling): only the checks' findings read the origin."""
    __slots__ = ("_origin",)

    def __init__(self, fields: dict, origin: Printed):
        super().__init__(fields)
        object.__setattr__(self, "_origin", origin)


def origin(value):
    """Where a table row or entry value is printed (a `Printed`), or None."""
    return value._origin if isinstance(value, RowRecord) else None


class TableFn:
    """A data table: call it with its keys to look a value up; `rows()` lists it."""

    def __init__(self, book: BookParts, node: n.Table):
        self.book, self.node = book, node
        self.name = self.__name__ = node.name
        self.keys = node.params
        self.key_checks = [TypeCheck(p.type, book) for p in node.params]
        rt = node.returns
        self.fields = [f for f, _ in rt.fields] if isinstance(rt, n.RecordType) else None
        self.value_checks = ([TypeCheck(t, book) for _, t in rt.fields] if self.fields
                             else [TypeCheck(rt, book)])
        self.entries = []      # list of (keys tuple of value-or-range, value)
        self.spans = []        # parallel to entries: where each is printed (a row, or a grid's cell)
        diags = []
        if node.grid:
            self._build_grid(diags)
        else:
            self._build_rows(diags)
        if not diags:
            self._check_coverage(diags, node.name in book.looked_up)
        if diags:
            raise RulebookError(diags)
        self._exact, self._exact_at = {}, {}
        if not any(isinstance(k, range) for keys, _ in self.entries for k in keys):
            for i, (keys, v) in enumerate(self.entries):
                self._exact[keys] = v
                self._exact_at.setdefault(keys, i)
        self.__doc__ = node.doc

    def _check_coverage(self, diags, looked_up=True):
        """Over keys of finite types (ranges, bool, enums, dice faces): every key
        combination has exactly one row.  Two rows for one key: the second could never
        be read.  No row for a key of a table that play looks up (`looked_up_tables`):
        a lookup of it would fail during play.  (A value the source does not print is
        a row with `absent`, not a missing row.)"""
        domains = [ch.finite_values(COVERAGE_LIMIT) for ch in self.key_checks]
        if any(d is None for d in domains):
            return
        size = 1
        for d in domains:
            size *= len(d)
        if size > COVERAGE_LIMIT:
            return
        first = {}             # key combination -> index of the entry that reads it
        clashes = {}           # index of a later entry -> (a combination, the earlier entry)
        for i, (keys, _) in enumerate(self.entries):
            combos = [[]]
            for k, dom in zip(keys, domains):
                vals = [v for v in dom if v in k] if isinstance(k, range) else [k]
                combos = [c + [v] for c in combos for v in vals]
            for c in combos:
                c = tuple(c)
                if c in first:
                    clashes.setdefault(i, (c, first[c]))
                else:
                    first[c] = i
        names = [p.name for p in self.keys]

        def at(c):
            return ", ".join(f"{k}={show(v)}" for k, v in zip(names, c))
        for i, (c, j) in sorted(clashes.items()):
            diags.append(self.book.diag(self.spans[i], f"table {self.name}: this row repeats {at(c)}",
                                        f"line {self.spans[j].line} already gives it; a key has one row"))
        missing = [c for c in product(*domains) if c not in first] if looked_up else []
        if missing:
            diags.extend(missing_rows(self, domains, missing, at))

    def _cell(self, cell: n.Cell, check: TypeCheck, diags, key=False):
        v = cell.value
        if isinstance(v, n.Name):
            name = v.name
            v = self.book.members[name] if name in self.book.members else (
                self.book.const(name) if name in self.book.syms.consts else name)
        if isinstance(v, tuple):
            if not key:
                diags.append(self.book.diag(cell.span, "a range can only be a key cell"))
                return None
            for bound in v:
                try:
                    check.convert(bound)
                except ValueError:
                    diags.append(self.book.diag(cell.span, f"range {v[0]}..{v[1]} does not fit the key's type",
                                                f"allowed: {check.describe}"))
            return range(v[0], v[1] + 1)
        if v is ABSENT:
            if key:
                diags.append(self.book.diag(cell.span, "a key cannot be absent"))
            return ABSENT
        try:
            return check.convert(v)
        except ValueError:
            diags.append(self.book.diag(cell.span, f"{show(v)} does not fit this column",
                                        f"allowed: {check.describe}"))
            return None

    def _build_rows(self, diags):
        nk, nv = len(self.keys), len(self.value_checks)
        width = nk + nv
        if self.node.header and len(self.node.header) != width:
            diags.append(self.book.diag(self.node.span, f"the header has {len(self.node.header)} columns; "
                                        f"the table has {nk} key(s) and {nv} value(s)"))
        labels = column_labels(self.node, [p.name for p in self.keys] + (self.fields or ["value"]))
        for row in self.node.rows:
            if len(row) != width:
                diags.append(row_width_diagnostic(self.book, row, labels))
                continue
            keys = tuple(self._cell(c, ch, diags, key=True) for c, ch in zip(row[:nk], self.key_checks))
            vals = [self._cell(c, ch, diags) for c, ch in zip(row[nk:], self.value_checks)]
            origin = Printed(self.name, row[0].span, keys)
            value = RowRecord(dict(zip(self.fields, vals)), origin) if self.fields else vals[0]
            self.entries.append((keys, value))
            self.spans.append(row[0].span)

    def _build_grid(self, diags):
        if len(self.keys) != 2 or self.fields:
            diags.append(self.book.diag(self.node.span, "a grid table has exactly two keys and one value",
                                        "the header row holds the second key's values"))
            return
        cols = [self._cell(c, self.key_checks[1], diags, key=True) for c in self.node.header[1:]]
        labels = column_labels(self.node, [self.keys[0].name] + [f"column {i + 1}" for i in range(len(cols))])
        for row in self.node.rows:
            if len(row) != len(cols) + 1:
                diags.append(row_width_diagnostic(self.book, row, labels))
                continue
            rk = self._cell(row[0], self.key_checks[0], diags, key=True)
            for ck, c in zip(cols, row[1:]):
                self.entries.append(((rk, ck), self._cell(c, self.value_checks[0], diags)))
                self.spans.append(c.span)

    def unknown_input(self, name: str):
        """The error for a key this table does not have: the near names, then its keys."""
        from ..errors import NotFound, did_you_mean
        names = [p.name for p in self.keys]
        hint = did_you_mean(name, names)
        keys = f"its keys: {', '.join(names)}"
        return NotFound("key", name, where=f"table {self.book.book_id}:{self.name}",
                        note=f"{hint} ({keys})" if hint else keys)

    def lookup(self, *args, **kwargs):
        names = [p.name for p in self.keys]
        if len(args) > len(names):
            raise InputError(self.name, names[-1], args[-1], f"{len(names)} key(s): {', '.join(names)}")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.unknown_input(k)
            bound[k] = v
        keys = []
        for p, check in zip(self.keys, self.key_checks):
            if p.name not in bound:
                raise InputError(self.name, p.name, None, f"a value is required ({check.describe})")
            try:
                keys.append(check.convert(bound[p.name]))
            except ValueError:
                raise InputError(self.name, p.name, bound[p.name], check.describe) from None
        keys = tuple(keys)
        if self._exact:
            if keys in self._exact:
                return self._exact[keys]
        else:
            for ks, v in self.entries:
                if all((k in want) if isinstance(want, range) else k == want for k, want in zip(keys, ks)):
                    return v
        shown = ", ".join(f"{p.name}={show(k)}" for p, k in zip(self.keys, keys))
        raise EvaluationError(f"table {self.name} has no row for {shown}")

    __call__ = lookup

    def read(self, reads: list, *args, **kwargs):
        """`lookup`, also appending where the value is printed to `reads` (see `Ctx.reads`)."""
        value = self.lookup(*args, **kwargs)
        names = [p.name for p in self.keys]
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.unknown_input(k)
            bound[k] = v
        keys = tuple(ch.convert(bound[p.name]) for p, ch in zip(self.keys, self.key_checks))
        if self._exact_at:
            i = self._exact_at[keys]
        else:
            i = next(i for i, (ks, _) in enumerate(self.entries)
                     if all((k in want) if isinstance(want, range) else k == want for k, want in zip(keys, ks)))
        reads.append(self.printed(i))
        return value

    def printed(self, i: int) -> "Printed":
        """Where entry `i` is printed: this table, the row (or grid cell), its keys."""
        return Printed(self.name, self.spans[i], self.entries[i][0])

    def rows(self):
        """Every row as a record of its keys and values (ranges stay ranges).

        Each record remembers where it is printed (`origin(record)`); that does not
        change how it compares, hashes or pickles."""
        out = []
        names = [p.name for p in self.keys]
        for i, (keys, v) in enumerate(self.entries):
            d = dict(zip(names, keys))
            if isinstance(v, Record):
                d.update(v.as_dict())
            else:
                d["value"] = v
            out.append(RowRecord(d, self.printed(i)))
        return out

    def __repr__(self):
        return f"<table {self.book.book_id}:{self.name} ({len(self.entries)} entries)>"


def column_labels(node: n.Table, names: list) -> list:
    """What each column is called: its header cell as printed, else its key or field name."""
    from ..language.render import literal_text
    out = []
    for i, name in enumerate(names):
        cell = node.header[i] if i < len(node.header) else None
        out.append(literal_text(cell.value) if cell is not None else name)
    return out


def row_width_diagnostic(book, row, labels):
    """A row with too few or too many cells, said by column: where the missing cell goes
    (after the row's last bar) or where the extra cells start."""
    from ..errors import Diagnostic
    width, have = len(labels), len(row)
    cols = ", ".join(labels)
    if have < width:
        missing = labels[have:]
        last = row[-1].span
        text = book.texts.get(last.file, "")
        line = text.split("\n")[last.line - 1] if 0 < last.line <= text.count("\n") + 1 else ""
        bar = line.find("|", (last.end_column or last.column) - 1)
        col = bar + 2 if bar >= 0 else (last.end_column or last.column)
        names = " and ".join(f"'{m}'" for m in missing) if len(missing) < 3 else \
            ", ".join(f"'{m}'" for m in missing[:-1]) + f" and '{missing[-1]}'"
        d = book.diag(n.Span(last.file, last.line, col), f"this row has {have} cell{'s' if have != 1 else ''} "
                      f"where the table has {width} ({cols}): the {names} cell{'s are' if len(missing) > 1 else ' is'} "
                      "missing here", "give every column a cell between bars; a value the source does not "
                      "give is written absent")
        return Diagnostic(d.file, d.line, d.column, d.message, d.hint, d.source_line)
    extra = row[width]
    return book.diag(extra.span, f"this row has {have} cells where the table has {width} ({cols}): "
                     f"the cells from here on are extra", "one cell per column: remove the extra cells, or add "
                     "the column to the table's keys or values")


def missing_rows(table: "TableFn", domains, missing, at) -> list:
    """One diagnostic per missing key (the first four), located where its row goes among
    the rows in the keys' order (before the first row that comes after it, else after the
    last row), with a quick fix inserting the row with its keys and `absent` values."""
    from ..errors import Fix
    from ..language.values import literal
    node = table.node
    if not node.rows or node.grid:
        shown = "; ".join(at(c) for c in missing[:4]) + (f"; and {len(missing) - 4} more" if len(missing) > 4 else "")
        return [table.book.diag(node.span, f"table {table.name} has no row for {shown}",
                                "add the rows (a value the source does not give is written absent),"
                                " or narrow the key's type")]
    index = [{repr(v): i for i, v in enumerate(dom)} for dom in domains]

    def order(keys):
        out = []
        for k, dom, ix in zip(keys, domains, index):
            first = next((v for v in dom if v in k), None) if isinstance(k, range) else k
            out.append(ix.get(repr(first), len(dom)))
        return tuple(out)
    placed = sorted(((order(keys), i) for i, (keys, _) in enumerate(table.entries)), key=lambda x: x[0])
    text_lines = table.book.texts.get(node.span.file, "").split("\n")
    width = len(table.keys) + len(table.value_checks)
    out = []
    for c in missing[:4]:
        want = order(c)
        after = next((i for o, i in placed if o > want), None)
        row_span = table.spans[after] if after is not None else table.spans[placed[-1][1]]
        line = row_span.line if after is not None else row_span.line + 1
        src = text_lines[row_span.line - 1] if 0 < row_span.line <= len(text_lines) else ""
        indent = src[: len(src) - len(src.lstrip())]
        cells = [literal(v) for v in c] + ["absent"] * (width - len(c))
        fix = Fix(f"Insert the row for {at(c)}", line, 1, line, 1, indent + "| " + " | ".join(cells) + " |\n")
        where = "before this row" if after is not None else "after this row"
        d = table.book.diag(row_span, f"table {table.name} has no row for {at(c)}: it goes {where}",
                            "add the row (a value the source does not give is written absent), or narrow the "
                            "key's type")
        out.append(type(d)(d.file, d.line, d.column, d.message, d.hint, d.source_line, fixes=(fix,)))
    if len(missing) > 4:
        out.append(table.book.diag(node.span, f"table {table.name} has no row for {len(missing) - 4} more keys",
                                   "add the rows, or narrow the key's type"))
    return out
