"""Completion: the names that can be written at the cursor.

Inside `[[`, the ids of the book's rules and sections and the other books of the
library (after `book:`, that book's rule ids); elsewhere the book's declarations
(from its `SymbolIndex`), the locals of the mechanic around the cursor, a called
mechanic's parameters and rolls by name (`f(n=`), the built-ins and the keywords.
Only the labels that start with the word being typed are offered, each once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..language import nodes as n
from .ws_hover import short_detail
from .ws_places import other_state

KEYWORDS = ("book", "title", "edition", "source", "units", "dice", "die", "vocabulary", "about", "start", "quick",
            "reference", "turn", "tables", "section", "rule", "aliases",
            "keywords", "uses", "odds", "findings", "flavour", "note", "example", "const", "enum", "mechanic", "table", "check",
            "let", "roll", "require", "return", "chain", "of", "on", "then", "reroll", "explode", "up", "to", "grid", "for", "in", "where",
            "priced", "per",
            "if", "else", "and", "or", "not", "true", "false", "absent", "list", "int", "bool", "text", "number",
            "called", "question", "answer", "finding")


@dataclass
class Completion:
    label: str
    kind: str            # rule | section | book | mechanic | table | enum | member | const | die | builtin | keyword | local
    detail: str = ""


def complete(ws, path: str, line: int, col: int) -> list:
    """The `Completion`s for the cursor at (line, col)."""
    st = ws.state_of(path)
    before = st.line(path, line)[: max(col - 1, 0)]
    opened = before.rfind("[[")
    if opened >= 0 and "]]" not in before[opened:]:
        typed = before[opened + 2:]
        if ":" in typed:
            other = other_state(ws, st, typed.split(":", 1)[0])
            return rule_items(other) if other is not None else []
        items = rule_items(st)
        lib = ws.library(st.books_dir)
        items += [Completion(b + ":", "book", "another book") for b in lib.book_ids() if b != st.book_id]
        return items
    word = re.search(r"[A-Za-z_][A-Za-z0-9_]*$", before)
    prefix = word.group(0) if word else ""
    index = st.index
    out = []
    for kind in ("mechanic", "table", "enum", "const", "die"):
        out += [Completion(d.name, kind, short_detail(kind, d.node)) for d in index.of_kind(kind)]
    for m in index.syms.members:
        out.append(Completion(m, "member", "member of " + ", ".join(index.member_owners(m))))
    target = index.global_(open_call(before), ("mechanic", "table"))   # inside `f(...`: f's parameters and rolls
    if target is not None:
        from ..language.render import type_text
        out += [Completion(pa.name + "=", "local", f"parameter: {type_text(pa.type)}") for pa in target.node.params]
        if isinstance(target.node, n.Mechanic):
            from ..language.render import dice_text
            out += [Completion(s.name + "=", "local", f"roll: {dice_text(s.dice)}")
                    for s in target.node.body if isinstance(s, n.Roll)]
    d = index.scope_at(path, line)
    if isinstance(d, n.Mechanic):
        out += [Completion(x.name, "local", "parameter" if x.role == "parameter" else x.role)
                for x in index.locals_of(d) if x.role in ("parameter", "let", "roll")]
    from ..language.builtins import BUILTINS
    out += [Completion(b, "builtin", BUILTINS[b][3]) for b in BUILTINS]
    out += [Completion(k, "keyword") for k in KEYWORDS]
    seen, uniq = set(), []
    for c in out:
        if c.label.startswith(prefix) and c.label not in seen:
            seen.add(c.label)
            uniq.append(c)
    return uniq


def rule_items(st) -> list:
    """A completion for each rule and section of a book, by id, with its title."""
    return [Completion(d.name, d.kind, d.node.title) for d in st.index.rules.values()]


def open_call(before: str) -> str:
    """The name called by the innermost bracket still open in `before` ("" if none)."""
    depth = 0
    for i in range(len(before) - 1, -1, -1):
        c = before[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            if depth == 0:
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", before[:i]) if c == "(" else None
                return m.group(1) if m else ""
            depth -= 1
    return ""
