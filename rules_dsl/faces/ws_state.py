"""What the editor's features read: a book as last analysed (`BookState`) and a place (`Loc`).

`workspace.Workspace` fills a `BookState` per book; the features (`ws_places`,
`ws_navigation`, `ws_hover`, `ws_completion`, `ws_outline`) read it and answer in
`Loc`s.  Both sit here, below the workspace and its features, so that each
feature module needs neither the workspace nor another feature to say what it
returns.  Positions are 1-based lines and columns, as in `nodes.Span` and
`Diagnostic`; a `Loc` is (path, line, column, end_line, end_column), the end exclusive.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..language import nodes as n
from ..analysis.symbol_index import name_span


class Loc(NamedTuple):
    path: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass
class BookState:
    """One book as last analysed: its files' texts and trees, and what the names mean."""
    book_id: str
    books_dir: Path
    files: list                      # str paths in reading order
    texts: dict                      # path -> text
    trees: dict                      # path -> SourceFile (the last that parsed)
    ast: object = None               # model.BookAST over `trees`
    syms: object = None              # checks.Symbols (declarations only)
    resolved: dict = field(default_factory=dict)   # Name -> resolve.Resolved
    diagnostics: dict = field(default_factory=dict)  # path -> [Diagnostic]
    layered: object = None           # a layered book's amended BookAST (layers.py), when the layer applied
    index: object = None             # symbol_index.SymbolIndex over `ast`, `syms` and `texts`

    def line(self, path: str, line: int) -> str:
        """The text of one line of one of the book's files ("" past its end)."""
        lines = self.texts.get(path, "").split("\n")
        return lines[line - 1] if 0 < line <= len(lines) else ""


def span_loc(span: n.Span) -> Loc:
    """A span as a `Loc` (a span without an end is empty at its start)."""
    end_line = span.end_line or span.line
    end_col = span.end_column or span.column
    return Loc(span.file, span.line, span.column, end_line, end_col)


def name_loc(text: str, path: str, span: n.Span, name: str) -> Loc:
    """Where `name` is first written at or after `span`'s start (the span itself if not found)."""
    return span_loc(name_span(text, path, span, name))
