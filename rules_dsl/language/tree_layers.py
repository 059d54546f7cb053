"""The tree builder's methods for layer files (`layer NAME on BOOK { ... }`, then one
change a line): the header, one `nodes.Change` per change, and one method per
alternative of the grammar's `change_body` (`replace_decl`, `add_rule`, `remove_row`,
`change_value`, ...).

A change only says *what* it amends and *with what*; the things it brings (rules,
sections, declarations, rows, prose, examples) are built by the same methods as in a
book (`visit`), so a layer's rule is a book's rule. Applying the changes is
`layers.py`'s job, after the checks can see both sides.
"""
from __future__ import annotations

from . import nodes as n
from ..errors import line_of

MAX_CHANGES = 10_000     # changes in one layer file


class LayerRules:
    """Methods named after the grammar's layer rules (see `tree_builder`). Each
    `change_body` alternative gives (what, target, where the target is written,
    the Change's other fields), or None after a diagnostic."""

    def layer_file(self, t) -> n.LayerFile:
        head, *changes = t.children
        header = self.visit(head)
        if len(changes) > MAX_CHANGES:
            self.error(changes[MAX_CHANGES], f"a layer holds at most {MAX_CHANGES} changes",
                       "split it into layers on top of each other")
            changes = changes[:MAX_CHANGES]
        out = []
        for ch in changes:
            c = self.visit(ch)
            if c is not None:
                out.append(c)
        return n.LayerFile(self.path, header, tuple(out), tuple(self.errors))

    def layer_header(self, t) -> n.LayerHeader:
        """A layer restates its title, edition, source and prose; the book keeps the rest."""
        name, base, *fields = t.children
        kept = {"title": "", "edition": "", "source": ""}
        prose = []
        for f in fields:
            if f.data in ("h_title", "h_edition", "h_source"):
                key, value = self.visit(f)
                kept[key] = value
            elif f.data == "h_prose":
                prose.extend(self.visit(f)[1])
            else:
                word = {"h_custom_die": "die", "h_quick": "quick reference"}.get(f.data, f.data[2:])
                self.error(f, f"a layer keeps its book's `{word}`",
                           "a layer's header holds its title, edition, source and prose; "
                           "the book it amends keeps the rest")
        return n.LayerHeader(self.span(t), str(name), str(base), self.span(base), prose=tuple(prose), **kept)

    def change(self, t):
        body, because = t.children
        sp, bsp = self.span(t), self.span(body)
        first = line_of(self.text, sp.line)
        text = (first[sp.column - 1:bsp.end_column - 1] if bsp.end_line == sp.line
                else first[sp.column - 1:].rstrip() + " …").strip()
        reason = self.visit(because) if because is not None else None
        made = self.visit(body)
        if made is None:
            return None
        what, target, target_span, extra = made
        verb = body.data.split("_", 1)[0]
        return n.Change(sp, verb, what, target, target_span, reason=reason,
                        text=text if len(text) <= 200 else text[:199] + "…", **extra)

    def because(self, t) -> n.Prose:
        return self.read_prose(t.children[0])

    # ---------------------------------------------------------------- replace
    def replace_decl(self, t):
        d = self.visit(t.children[0])
        return type(d).__name__.lower(), d.name, d.span, {"value": d}

    def replace_rule(self, t):
        r = self.visit(t.children[0])
        return "rule", r.id, self.span(t.children[0].children[0]), {"value": r}

    # -------------------------------------------------------------------- add
    def add_rule(self, t):
        r = self.visit(t.children[0])
        return "rule", r.id, self.span(t.children[0].children[0]), {"value": r, "place": self.visit(t.children[1])}

    def add_section(self, t):
        sec = self.visit(t.children[0])
        place = self.visit(t.children[1]) if t.children[1] is not None else ()
        return "section", sec.id, self.span(t.children[0].children[0]), {"value": sec, "place": place}

    def place_in(self, t) -> tuple:
        return "section", str(t.children[0]), self.span(t.children[0])

    def place_after(self, t) -> tuple:
        return "after", str(t.children[0]), self.span(t.children[0])

    def place_before(self, t) -> tuple:
        return "before", str(t.children[0]), self.span(t.children[0])

    def add_decl(self, t):
        d = self.visit(t.children[0])
        rid = t.children[1]
        return "decl", str(rid), self.span(rid), {"value": d}

    def add_note(self, t):
        kind, text, rid = t.children
        return "note", str(rid), self.span(rid), {"value": self.read_note(t, kind, text)}

    def add_example(self, t):
        title, body, rid = t.children
        return "example", str(rid), self.span(rid), {"value": self.read_example(title, body)}

    def add_row(self, t):
        row, name = t.children
        return "row", str(name), self.span(name), {"value": self.visit(row)}

    def add_member(self, t):
        member, name = t.children
        value = self.visit(member)
        return "member", str(name), self.span(name), {"value": value, "field": value[0]}

    def add_aliases(self, t):
        *words, rid = t.children
        return "aliases", str(rid), self.span(rid), {"value": tuple(self.string(w) for w in words)}

    def add_keywords(self, t):
        *words, rid = t.children
        return "keywords", str(rid), self.span(rid), {"value": tuple(self.string(w) for w in words)}

    # ----------------------------------------------------------------- remove
    def remove_rule(self, t):
        return "rule", str(t.children[0]), self.span(t.children[0]), {}

    def remove_section(self, t):
        return "section", str(t.children[0]), self.span(t.children[0]), {}

    def remove_decl(self, t):
        kind, name = t.children
        return self.visit(kind), str(name), self.span(name), {}

    def decl_kind(self, t) -> str:
        return str(t.children[0])

    def remove_row(self, t):
        return self.row_address(t.children[0], "row")

    def remove_member(self, t):
        member, name = t.children
        return "member", str(name), self.span(name), {"field": str(member)}

    def remove_note(self, t):
        number, rid = t.children
        return "note", str(rid), self.span(rid), {"index": self.int(number)}

    def remove_example(self, t):
        ref, rid = t.children
        return "example", str(rid), self.span(rid), self.example_ref(ref)

    def example_ref(self, tok) -> dict:
        """The grammar's `example_ref` (lark inlines it to its token): an example named by
        its title ("...") or its number in the rule (from 1)."""
        if tok.type == "INT":
            return {"index": self.int(tok)}
        return {"title": self.string(tok)}

    # ----------------------------------------------------------------- change
    def change_title(self, t):
        rid, title = t.children
        return "title", str(rid), self.span(rid), {"value": self.string(title)}

    def change_text(self, t):
        rid, text = t.children
        return "text", str(rid), self.span(rid), {"value": self.read_prose(text)}

    def change_note(self, t):
        number, rid, text = t.children
        return "note", str(rid), self.span(rid), {"index": self.int(number), "value": self.read_prose(text)}

    def change_example(self, t):
        ref, rid, body = t.children
        return "example", str(rid), self.span(rid), dict(self.example_ref(ref),
                                                         value=self.read_example(ref if ref.type == "STRING" else None, body))

    def change_question(self, t):
        name, words = t.children
        return "question", str(name), self.span(name), {"value": n.Phrase(self.span(words), self.string(words))}

    def change_answer(self, t):
        name, words = t.children
        return "answer", str(name), self.span(name), {"value": n.Phrase(self.span(words), self.string(words))}

    def change_row(self, t):
        what, target, where, extra = self.row_address(t.children[0], "row") or (None,) * 4
        if what is None:
            return None
        return what, target, where, dict(extra, value=self.visit(t.children[1]))

    def change_value(self, t):
        target, value = self.visit(t.children[0]), self.visit(t.children[1])
        if isinstance(target, n.Name):
            return "const", target.name, target.span, {"value": value}
        made = self.row_address(t.children[0], "cell", target)     # built once: its problems said once
        if made is None:
            return None
        return made[0], made[1], made[2], dict(made[3], value=value)

    def change_called(self, t):
        target, words = self.visit(t.children[0]), t.children[1]
        phrase = n.Phrase(self.span(words), self.string(words))
        if isinstance(target, n.Name):
            return "called", target.name, target.span, {"value": phrase}
        if isinstance(target, n.Attr) and isinstance(target.obj, n.Name):
            return "called", target.obj.name, target.obj.span, {"field": target.name, "value": phrase}
        self.error(target.span, "`change ... called` names a declaration, or one of its inputs, members, "
                   "keys, fields or rolls", 'e.g. change suppression_state.under_fire called "Pinned"')
        return None

    def row_address(self, t, what, built=None):
        """`table(keys)` (a row, or a one-value table's cell) or `table(keys).field` (a cell);
        `built`: the address already built from `t`."""
        e = self.visit(t) if built is None else built
        field = ""
        if what == "cell" and isinstance(e, n.Attr):
            field, e = e.name, e.obj
        if isinstance(e, n.Call) and isinstance(e.func, n.Name) and not e.mode:
            keys = tuple(("", a) for a in e.args) + tuple(e.kwargs)
            return what, e.func.name, e.func.span, {"keys": keys, "field": field}
        self.error(e.span, "a table's row is named by the table and its keys",
                   'e.g. superterrans_prices("Sniper") for a row, superterrans_prices("Sniper").listed for '
                   "one of its cells, max_actions for a constant")
        return None
