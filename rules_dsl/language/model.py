"""A whole book's AST assembled from its source files, and the walks over it.

A book is one `rulebooks/<id>.rules` file, or a folder `rulebooks/<id>/` whose
`.rules` files are read in name order (the first holds the `book` header).
`BookAST` is plain, frozen and picklable: it is what the cache stores and what
the checks, the compiler, the index and the Sphinx extension all read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from . import nodes as n
from ..errors import Diagnostic, RulebookError


@dataclass(frozen=True)
class BookAST:
    id: str
    header: n.Header
    files: tuple           # of str (paths)
    items: tuple           # top-level items of every file, in order
    skipped: frozenset = frozenset()   # names declared by items a syntax error left out (not "unknown")
    layers: tuple = ()     # of layers.LayerInfo: what each layer on the book changed (a layered book)


@dataclass(frozen=True)
class Placed:
    """A node with where it sits: the titles and ids of the sections around it."""
    node: object
    section_ids: tuple
    section_titles: tuple
    rule: object = None    # the enclosing Rule for a declaration, else None


def assemble(book_id: str, files: list) -> BookAST:
    headers = [(f, f.header) for f in files if f.header is not None]
    if not headers:
        where = files[0].path if files else book_id
        raise RulebookError([Diagnostic(where, 1, 1, f"book '{book_id}' has no `book {book_id} {{ ... }}` header",
                                        "start the (first) file with a book header")])
    diags = []
    for f, h in headers[1:]:
        diags.append(Diagnostic(f.path, h.span.line, h.span.column, "a book has exactly one header",
                                f"the header is already in {headers[0][0].path}"))
    header = headers[0][1]
    if header.id != book_id:
        diags.append(Diagnostic(header.span.file, header.span.line, header.span.column,
                                f"header says book '{header.id}' but the file is for '{book_id}'",
                                f"name the file {header.id}.rules or change the header id"))
    if diags:
        raise RulebookError(diags)
    items = tuple(it for f in files for it in f.items)
    skipped = frozenset(x for f in files for x in getattr(f, "skipped", ()))
    return BookAST(book_id, header, tuple(f.path for f in files), items, skipped)


def walk(items, sec_ids=(), sec_titles=(), rule=None) -> Iterator[Placed]:
    """Every section, rule and declaration in reading order."""
    for it in items:
        if isinstance(it, n.Section):
            yield Placed(it, sec_ids, sec_titles)
            yield from walk(it.items, sec_ids + (it.id,), sec_titles + (it.title,))
        elif isinstance(it, n.Rule):
            yield Placed(it, sec_ids, sec_titles)
            for d in it.decls:
                yield Placed(d, sec_ids, sec_titles, it)
        elif not isinstance(it, n.Prose):
            yield Placed(it, sec_ids, sec_titles, rule)


def rules_of(book: BookAST):
    return [p for p in walk(book.items) if isinstance(p.node, n.Rule)]


def sections_of(book: BookAST):
    return [p for p in walk(book.items) if isinstance(p.node, n.Section)]


def decls_of(book: BookAST):
    return [p for p in walk(book.items) if not isinstance(p.node, (n.Rule, n.Section))]
