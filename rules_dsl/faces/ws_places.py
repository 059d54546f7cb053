"""What is written at a place of a `.rules` file, for the editor's features.

Every feature that answers for a cursor (hover, definition, references) first asks
`at`: a reference to a rule (`[[combat]]`, `[[other-book:combat]]`, a `uses "Title"`
line), a rule's or section's own id, or a name, resolved through the book's
`SymbolIndex`.  References are found in the text (prose is not an expression, so
the resolver never sees them); names come from the index.  `target_of_ref` finds
the rule a reference points at, in this book or another of the library.
"""
from __future__ import annotations

import re
from typing import Optional

from ..analysis.symbol_index import Definition

REF = re.compile(r"\[\[(.*?)\]\]")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RULE_LINE = re.compile(r"^\s*(rule|section)\s+([a-z0-9]+(?:-[a-z0-9]+)*)")
_USES_LINE = re.compile(r"^\s*uses\s")
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def word_at(text: str, col: int, pattern=_WORD) -> str:
    """The word of `pattern` written at column `col` of a line (touching its end counts), or ""."""
    for m in pattern.finditer(text):
        if m.start() < col <= m.end() + 1:
            return m.group(0)
    return ""


def at(ws, path: str, line: int, col: int):
    """(BookState, what is written at (line, col)): ("ref", book or None, rule id),
    ("rule-id", id), ("name", Resolved, Name node or None), or None."""
    from ..language.prose import parse_ref

    st = ws.state_of(path)
    text = st.line(path, line)
    for m in REF.finditer(text):
        if m.start() < col <= m.end() + 1:
            parsed = parse_ref(m.group(1))
            if parsed:
                return st, ("ref", parsed[0], parsed[1])
    m = _RULE_LINE.match(text)
    if m and m.start(2) < col <= m.end(2) + 1:
        return st, ("rule-id", m.group(2))
    if _USES_LINE.match(text):   # uses "Weapons Skill": the rule whose title or alias it is
        for m in _STRING.finditer(text):
            if m.start() < col <= m.end():
                from ..analysis.symbols import defined_names, name_key
                rule = defined_names(st.ast).get(name_key(m.group(1))) if st.ast is not None else None
                return st, (("ref", None, rule) if rule else None)
    found = st.index.name_at(path, line, col)
    if found is not None:
        return st, ("name", found[1], found[0])
    word = word_at(text, col)
    if not word:
        return st, None
    # a declaration's own name, a table's name cell, an enum's member list, or text the checks never saw
    res = st.index.declared_at(path, line, word)
    return st, (("name", res, None) if res is not None else None)


def other_state(ws, st, book_id: str):
    """The `BookState` of another book beside `st`'s, or None if there is no such book."""
    lib = ws.library(st.books_dir)
    try:
        files = lib.book_files(book_id)
    except Exception:
        return None
    return ws.state_of(files[0])


def target_of_ref(ws, st, book: Optional[str], rule: str):
    """(BookState, Definition) of a reference's target rule or section, or (None, None)."""
    if book is not None and book != st.book_id:
        st = other_state(ws, st, book)
        if st is None:
            return None, None
    d: Optional[Definition] = st.index.rules.get(rule)
    return (st, d) if d is not None else (None, None)
