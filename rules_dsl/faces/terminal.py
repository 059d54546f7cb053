"""Terminal output for the `rules` command: a book's parts as the website shows them.

A call's result and its rolls, tables (records and grids, fitted to the width),
dice and signatures, and a whole rule (prose, notes, mechanics, tables), drawn with
terminal_prose.py's `Out` (width, colour) and its prose wrapping.

Split from terminal.py's first half (issue 32), which is now terminal_prose.py: the
terminal itself and prose, which `rules lookup` loads without this module.

Nothing heavy is imported at module level: `rules show` and `rules call` load it.
"""
from __future__ import annotations

from .terminal_prose import Out, inline, prose_lines, wrap_segments

__all__ = ["result_lines", "answer_lines", "rolls_line", "labelled", "absent_text", "cell_text", "table_lines",
           "mechanic_lines", "table_title_lines", "rule_lines", "NOTE_TITLES"]


# ------------------------------------------------------------------ values
def result_lines(value, out: Out) -> list:
    """A call's result: a record one field a line (names aligned), anything else on one line."""
    from ..language.values import ABSENT, Record, show
    if isinstance(value, Record):
        fields = value.as_dict()
        w = max((len(k) for k in fields), default=0)
        lines = []
        for k, v in fields.items():
            shown = absent_text(out) if v is ABSENT else show(v)
            lines.extend(labelled(k, w, shown, out, ""))
        return lines
    if value is ABSENT:
        return [absent_text(out)]
    return [show(value)]


def answer_lines(book, name: str, result, given: dict, out: Out, table: bool = False, lead: str = "") -> list:
    """A call's result in words: as the mechanic answers it (wording.answer: "The unit is
    Under Fire.", else "Token dice: 3"), a table's value by the table's name, a record one
    field a line (labels in words, aligned)."""
    from ..language.display import capitalised
    from ..language.values import ABSENT, Record
    from ..language.wording import answer
    names = book.display
    if isinstance(result, Record):
        fields = result.as_dict()
        labels = {k: capitalised(names.field(name if table else None, k)) for k in fields}
        w = max((len(x) for x in labels.values()), default=0)
        lines = wrap_segments([(lead + capitalised(names.table(name) if table else names.result(name)) + ":", ())],
                              out.width, out)
        for k, v in fields.items():
            lines.extend(labelled(labels[k], w, absent_text(out) if v is ABSENT else names.value(v), out, "  "))
        return lines
    if result is ABSENT:
        text = f"{capitalised(names.table(name) if table else names.result(name))}: {absent_text(out)}"
    elif table:
        text = f"{capitalised(names.table(name))}: {names.value(result, name)}"
    else:
        text = answer(names, name, result, given)
    return wrap_segments([(lead + text, ())], out.width, out, "", "  ")


def rolls_line(book, name: str, rolls: dict, out: Out) -> str:
    """The dice a call rolled, in words ("rolled: dice army symbol, shield"); a roll inside a
    called mechanic (`callee.roll`) says whose it is."""
    import re
    names = book.display
    parts = []
    for key, v in rolls.items():
        path = key.split(".")
        if len(path) == 1:
            owner, call, roll = name, None, key
        else:     # `callee.roll`, `callee[k].roll` (the k+1-th call), deepest caller last
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?", path[-2])
            owner, call, roll = (m.group(1), m.group(2), path[-1]) if m else (path[-2], None, path[-1])
        whose = names.mechanic(owner) + (f", call {int(call) + 1}" if call is not None else "")
        label = names.roll(owner, roll) + (f" ({whose})" if owner != name else "")
        parts.append(f"{label} {names.value(v)}")
    return "\n".join(out.style(line, "dim") for line in
                     wrap_segments([("rolled: " + "; ".join(parts), ())], out.width, out, "", "  "))


def labelled(label: str, w: int, text: str, out: Out, indent: str, styles=()) -> list:
    """`label  text` with the label padded to `w` and bold, the text wrapped under itself."""
    hang = " " * (len(indent) + w + 2)
    if out.width - len(hang) < 24:     # labels too wide to leave room: the text under its label
        below = indent + "    "
        return ([line.rstrip() for line in wrap_segments([(label, ("bold",))], out.width, out, indent, indent + "  ")]
                + [line.rstrip() for line in wrap_segments([(text, tuple(styles))], out.width, out, below)])
    wrapped = wrap_segments([(text, tuple(styles))], out.width, out, hang) or [hang]
    wrapped[0] = indent + out.style(label.ljust(w), "bold") + "  " + wrapped[0][len(hang):]
    return [line.rstrip() for line in wrapped]


def absent_text(out: Out) -> str:
    return "absent (the rulebook gives no value)"


# ------------------------------------------------------------------ tables
def cell_text(v, out: Out, names=None):
    """A table cell from the source -> (text, absent?); with `names` (display.Names) a
    member or face in its words, a boolean yes/no."""
    from ..language import nodes as n
    from ..language.values import ABSENT, show
    if v is ABSENT:
        return out.dash, True
    if isinstance(v, n.Name):
        if names is not None:
            owner, _, member = v.name.rpartition(".")
            return (names.member(owner, member) if owner else names.name(member)), False
        return v.name, False
    if names is not None and isinstance(v, bool):
        return names.value(v), False
    if isinstance(v, tuple) and len(v) == 2:
        return f"{v[0]}..{v[1]}", False
    if isinstance(v, str):
        return v, False
    return show(v), False


def table_lines(node, out: Out, indent: str = "  ", names=None) -> list:
    """A table declaration -> aligned text: header, a rule, rows; wrapped cells when too
    wide; one record per block when even that does not fit. Absent cells are a dash,
    explained under the table.  With `names` (display.Names) the header's names, the
    members and faces in the cells and yes/no are in words."""
    from ..language import nodes as n
    keys = [p.name for p in node.params]
    columns = keys + ([k for k, _ in node.returns.fields] if isinstance(node.returns, n.RecordType) else [])

    def head(c):
        if names is not None and isinstance(c.value, n.Name) and c.value.name in columns:
            ident = c.value.name
            return names.param(node.name, ident) if ident in keys else names.field(node.name, ident)
        return cell_text(c.value, out, names)[0]
    header = [head(c) for c in node.header]
    rows = [[cell_text(c.value, out, names) for c in row] for row in node.rows]
    ncols = max([len(header)] + [len(r) for r in rows]) if (header or rows) else 0
    if len(header) < ncols:
        rt = node.returns
        if names is not None:
            labels = [names.param(node.name, k) for k in keys]
            labels += ([names.field(node.name, k) for k, _ in rt.fields] if isinstance(rt, n.RecordType)
                       else [names.table(node.name)])
        else:
            labels = keys + ([k for k, _ in rt.fields] if isinstance(rt, n.RecordType) else ["value"])
        header = header + labels[len(header):ncols] + [""] * max(0, ncols - len(labels))
    rows = [r + [("", False)] * (ncols - len(r)) for r in rows]
    any_absent = any(a for r in rows for _, a in r)
    lines = _grid_text(header, rows, out, indent)
    if lines is None:
        labels = list(header)
        if node.grid and len(node.params) == 2:   # a grid's row key, then "column-key value" labels
            said = [names.param(node.name, p.name) if names is not None else p.name for p in node.params]
            labels = [said[0]] + [f"{said[1]} {h}" for h in header[1:]]
        lines = _records_text(labels, rows, out, indent)
    if any_absent:
        lines.append(indent + out.style(f"{out.dash} absent: the rulebook gives no value", "dim"))
    return lines


_GAP = "  "


def _grid_text(header, rows, out: Out, indent: str):
    ncols = len(header)
    if not ncols:
        return []
    natural = [max([len(header[i])] + [len(r[i][0]) for r in rows]) for i in range(ncols)]
    longest_word = [max([_longest_word(header[i])] + [_longest_word(r[i][0]) for r in rows]) for i in range(ncols)]
    avail = out.width - len(indent) - len(_GAP) * (ncols - 1)
    widths = list(natural)
    if sum(widths) > avail:
        # shrink the widest columns, never below their longest word (nor 6)
        floor = [min(natural[i], max(longest_word[i], 6)) for i in range(ncols)]
        if sum(floor) > avail:
            return None
        while sum(widths) > avail:
            i = max(range(ncols), key=lambda k: (widths[k] - floor[k] > 0, widths[k]))
            if widths[i] <= floor[i]:
                return None
            widths[i] -= 1

    def render_row(cells, styles):
        import textwrap
        wrapped = [textwrap.wrap(c, widths[i], break_on_hyphens=False) or [""] for i, c in enumerate(cells)]
        height = max(len(w) for w in wrapped)
        lines = []
        for k in range(height):
            parts = []
            for i, w in enumerate(wrapped):
                text = w[k] if k < len(w) else ""
                pad = text.ljust(widths[i]) if i < ncols - 1 else text
                parts.append(out.style(pad, *styles[i]) if text else pad)
            lines.append((indent + _GAP.join(parts)).rstrip())
        return lines

    lines = render_row(header, [("bold",)] * ncols)
    lines.append(indent + _GAP.join(out.rule * w for w in widths))
    for r in rows:
        lines.extend(render_row([t for t, _ in r], [("dim",) if a else () for _, a in r]))
    return lines


def _longest_word(s: str) -> int:
    return max((len(w) for w in s.split()), default=0)


def _records_text(header, rows, out: Out, indent: str):
    """One block per row: `column  value` lines, labels aligned."""
    lines = []
    labels = [h or f"column {i + 1}" for i, h in enumerate(header)]
    w = max(len(x) for x in labels)
    for k, r in enumerate(rows):
        if k:
            lines.append("")
        for i, (text, absent) in enumerate(r):
            lines.extend(labelled(labels[i], w, text, out, indent, ("dim",) if absent else ()))
    return lines


# ------------------------------------------------------------------ dice and signatures
def mechanic_lines(mech, out: Out, book_id: str, indent: str = "  ") -> list:
    """A mechanic as a player needs it, in words: the question it answers (or its name),
    what it is for, each input with what it accepts and its default, each roll in words;
    then, dim, the command that calls it (by its identifiers, as `rules call` takes them)."""
    from ..language.display import capitalised, names_of
    from ..language.render import expr_text
    from ..language.wording import dice_phrase, doc_words, expr_words, title
    names = names_of(mech.book)
    node = mech.node
    sub = indent + "  "
    said = [(title(names, mech.name), ("name",))]
    if mech.has_dice:
        said.append(("  (rolls dice)", ("dim",)))
    lines = wrap_segments(said, out.width, out, indent, sub + "  ")
    if node.doc:
        lines.extend(wrap_segments(inline(doc_words(node.doc, names, mech.name)), out.prose_width, out, sub))
    scope = {p.name: names.param(mech.name, p.name) for p in node.params}
    rows = []
    for p in mech.params:
        desc = names.describe(p.type)
        if p.default is not None:
            try:
                desc += f"; default {names.value(mech.default(p.name))}"
            except Exception:  # a default that does not evaluate: show its source
                desc += f"; default {expr_text(p.default)}"
        rows.append((capitalised(names.param(mech.name, p.name)), desc))
    for r in mech.rolls:
        phrase = dice_phrase(r.dice, text=lambda e: expr_words(e, names, scope), face=names.name)
        rows.append((capitalised(names.roll(mech.name, r.name)), f"{phrase} (rolled unless given: {r.name}=...)"))
    if rows:
        w = max(len(k) for k, _ in rows)
        for k, desc in rows:
            lines.extend(labelled(k, w, desc, out, sub))
    args = " ".join(f"{p.name}=..." for p in mech.params if p.default is None)
    lines.extend(wrap_segments([(f"rules call {book_id}:{mech.name}" + (f" {args}" if args else ""), ("dim",))],
                               out.width, out, sub, sub + "    "))
    return lines


def table_title_lines(node, table, out: Out, book_id: str, indent: str = "  ") -> list:
    """A table's caption in words (its docstring, else its name), what it is looked up by
    and gives; then, dim, the command that looks it up."""
    from ..language import nodes as n
    from ..language.display import capitalised
    from ..language.display import names_of
    names = names_of(table.book) if table is not None else None
    label = node.doc or (capitalised(names.table(node.name)) if names is not None else node.name)
    lines = wrap_segments([(label, ("name",))], out.prose_width, out, indent, indent + "  ")
    if names is not None:
        keys = " and ".join(names.param(node.name, p.name) for p in node.params)
        gives = (", ".join(names.field(node.name, k) for k, _ in node.returns.fields)
                 if isinstance(node.returns, n.RecordType) else "")
        lines.extend(wrap_segments([(f"look up by {keys}" + (f"; gives {gives}" if gives else ""), ("dim",))],
                                   out.width, out, indent + "  ", indent + "    "))
    if node.grid and len(node.params) == 2 and names is not None:
        rows_, cols = (names.param(node.name, p.name) for p in node.params)
        lines.append(f"{indent}  {out.style(f'rows: {rows_}; columns: {cols}', 'dim')}")
    keys = " ".join(f"{p.name}=..." for p in node.params)
    lines.extend(wrap_segments([(f"rules call {book_id}:{node.name} {keys}", ("dim",))], out.width, out,
                               indent + "  ", indent + "      "))
    return lines


# ------------------------------------------------------------------ a whole rule
NOTE_TITLES = {"clarification": "Clarification", "interpretation": "Interpretation",
               "erratum": "Erratum", "absent": "Absent in the source"}


def rule_lines(book, rv, record: dict, out: Out, title_of=None) -> list:
    """A rule as the website shows it: title, reference line, prose, flavour, notes, then
    its mechanics, tables, constants, enumerations and checks, findings, examples.
    `record` is the rule's index record; its findings are the book's, as sentences."""
    from ..language import nodes as n
    from ..language.render import expr_text
    W = out.prose_width
    node = rv.node
    lines = wrap_segments([(node.title, ("bold",))], W, out)
    lines.append(out.rule * min(len(node.title), W))
    meta = [f"{rv.book}:{rv.id}"]
    if rv.section:
        meta.append(rv.section)
    if node.source:
        meta.append(f"source: {node.source}")
    if node.aliases:
        meta.append("also: " + ", ".join(node.aliases))
    if node.keywords:
        meta.append("keywords: " + ", ".join(node.keywords))
    sep = " · " if out.bullet == "•" else " | "
    lines.extend(wrap_segments([(sep.join(meta), ("dim",))], W, out))

    def section(lines_):
        if lines_:
            lines.append("")
            lines.extend(lines_)

    for p in node.prose:
        section(prose_lines(p.text, out, title_of))
    for p in node.flavour:
        section(prose_lines(p.text, out, title_of, indent="  | ", subsequent="  | ", styles=("italic",)))
    for note in node.notes:
        label = NOTE_TITLES.get(note.kind, note.kind)
        body = prose_lines(note.text.text, out, title_of, indent="    ")
        section([f"  {out.style(label, 'warn' if note.kind == 'erratum' else 'bold')}"] + body)
    names = book.display
    from ..language.display import capitalised
    for d in node.decls:
        if isinstance(d, n.Mechanic):
            section(mechanic_lines(book.mechanics[d.name], out, rv.book))
        elif isinstance(d, n.Table):
            section(table_title_lines(d, book.tables.get(d.name), out, rv.book) + [""]
                    + table_lines(d, out, indent="    ", names=names))
        elif isinstance(d, n.Const):
            try:
                value = names.value(book.constants[d.name])
            except Exception:  # pragma: no cover - constants are evaluated at compile time
                value = expr_text(d.value)
            text = f"{capitalised(names.const(d.name))}: {value}"
            if d.doc:
                text += f" {out.dash} {d.doc}"
            section(wrap_segments([(text, ())], W, out, "  ", "    "))
        elif isinstance(d, n.Enum):
            said = ", ".join(names.member(d.name, m) for m in d.members)
            section(wrap_segments([(capitalised(names.enum(d.name)), ("name",)), (": " + said, ())], W, out, "  ", "    "))
        elif isinstance(d, n.Check):
            binds = ", ".join(f"{b.name} in {expr_text(b.source)}" for b in d.bindings)
            where = f" where {expr_text(d.where)}" if d.where is not None else ""
            section(wrap_segments([("check: ", ("dim",)), (d.doc or d.name, ())], W, out, "  ", "    ")
                    + wrap_segments([(f"{d.name}: for {binds}{where}: {expr_text(d.claim)}", ("dim",))], out.width,
                                    out, "    ", "      "))
        elif isinstance(d, n.Priced):
            binds = ", ".join(f"{b.name} in {expr_text(b.source)}" for b in d.bindings)
            where = f" where {expr_text(d.where)}" if d.where is not None else ""
            section(wrap_segments([("cost view: ", ("dim",)), (d.doc or d.name, ())], W, out, "  ", "    ")
                    + wrap_segments([(f"{d.name}: for {binds}{where}: {expr_text(d.cost)} per {expr_text(d.effect)}",
                                      ("dim",))],
                                    out.width, out, "    ", "      ")
                    + wrap_segments([(f"rules cost {rv.book}:{d.name}", ("dim",))], out.width, out, "    ", "      "))
    from ..library.findings import heading, ordered
    placed = ordered([f for f in book.findings if f.rule == rv.id])
    for f in [f for g in placed.groups for f in g.findings + g.consequences] + [f for g in placed.names for f in g.uses]:
        said = list(f.sentences) or [f.message]
        head = heading(f.kind, f.category)
        body = []
        if f.cause:
            cause = book.compiled.checks.get(f.cause)
            body.extend(wrap_segments([(f"It follows from another finding, of the check \u201c{cause.node.doc if cause else f.cause}\u201d.", ())],
                                      W, out, "    ", "    "))
        for line in said[:12]:
            body.extend(wrap_segments([(line, ())], W, out, "    " + out.bullet + " ", "      "))
        if len(said) > 12:
            body.append(f"    {out.ellipsis} and {len(said) - 12} more")
        section([f"  {out.style(head, 'warn')}"] + body)
    from ..evaluation.working import example_cases
    for i, ex in enumerate(node.examples):
        label = "Example" + (f" {i + 1}" if len(node.examples) > 1 and not ex.title else "")
        body = [f"  {out.style(label + (': ' + ex.title if ex.title else ''), 'bold')}"]
        for case in example_cases(book, rv.id, ex, working=False):
            if case["sentence"]:
                body.extend(wrap_segments([(case["sentence"], ())], W, out, "    ", "    "))
            for line in case["code"].splitlines():      # the `>>>` lines, for designers: dim, wrapped at spaces
                if line.strip():
                    body.extend(out.style(x, "dim") for x in
                                wrap_segments([(line.strip(), ())], out.width, out, "      ", "          "))
        section(body)
    return lines
