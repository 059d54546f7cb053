"""Go to definition and find references: where a name or a rule is declared, and used.

Names are answered by the book's `SymbolIndex` (one resolution, shared with hover,
completion and explain).  Rules are referred to from prose (`[[id]]`, also from the
library's other books), which no resolver reads: their uses are found in the text
of every file of every book beside this one, as a reader would search for them.
"""
from __future__ import annotations

from .ws_places import REF, at, target_of_ref
from .ws_state import Loc, span_loc


def definition(ws, path: str, line: int, col: int) -> list:
    """Where the thing at (line, col) is declared: a list of `Loc` (empty if nothing is there)."""
    st, what = at(ws, path, line, col)
    if what is None:
        return []
    if what[0] in ("ref", "rule-id"):
        book, rule = (what[1], what[2]) if what[0] == "ref" else (None, what[1])
        if what[0] == "rule-id":
            d = st.index.rules.get(rule)
        else:
            d = target_of_ref(ws, st, book, rule)[1]
        return [span_loc(d.name_span)] if d is not None else []
    d = st.index.definition(what[1], path, line)
    return [span_loc(d.name_span)] if d is not None else []


def references(ws, path: str, line: int, col: int, include_declaration: bool = True) -> list:
    """Every place that names the thing at (line, col) (`Loc`s, in book order): a name's
    uses in its book, a rule's references in every book of the library."""
    st, what = at(ws, path, line, col)
    if what is None:
        return []
    if what[0] in ("ref", "rule-id"):
        return _rule_references(ws, st, what, include_declaration)
    res = what[1]
    out = definition(ws, path, line, col) if include_declaration else []
    out += [span_loc(s) for s in st.index.references(res, path, line)]
    seen, uniq = set(), []
    for loc in sorted(out, key=lambda x: (st.files.index(x.path) if x.path in st.files else 99, x[1:])):
        if (loc.path, loc.line, loc.column) not in seen:
            seen.add((loc.path, loc.line, loc.column))
            uniq.append(loc)
    return uniq


def _rule_references(ws, st, what, include_declaration) -> list:
    from ..language.prose import parse_ref

    book, rule = (what[1], what[2]) if what[0] == "ref" else (None, what[1])
    tst, d = target_of_ref(ws, st, book, rule)
    if d is None:
        return []
    out = [span_loc(d.name_span)] if include_declaration else []
    for book_id, f in _all_files(ws, st):
        for i, text in enumerate(ws.text_of(f).split("\n")):
            for m in REF.finditer(text):
                r = parse_ref(m.group(1))
                if r and r[1] == rule and (r[0] or book_id) == tst.book_id:
                    out.append(Loc(f, i + 1, m.start() + 1, i + 1, m.end() + 1))
    return out


def _all_files(ws, st) -> list:
    """(book id, path) of every file of this book and of the other books beside it."""
    out = [(st.book_id, f) for f in st.files]
    lib = ws.library(st.books_dir)
    for b in lib.book_ids():
        if b == st.book_id:
            continue
        try:
            out.extend((b, str(f.resolve())) for f in lib.book_files(b))
        except Exception:
            continue
    return out
