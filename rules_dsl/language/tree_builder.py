"""Lark's parse tree -> the frozen dataclasses of `nodes`: one method per grammar rule.

`TreeBuilder.visit(tree)` calls the method named after the tree's rule (or its
`-> alias`), as lark's `Interpreter` does: the grammar (`grammar.lark`) is the
table of contents, and the method that builds a node is found by the rule's name.
The walk is top down, like `Interpreter` and unlike lark's bottom-up `Transformer`,
because a parent decides what of its children is built: a book header reports a
second `about` without building it, a layer's header refuses a book's `dice` without
checking them, a call's named argument is read as a name or a roll's path before any
value is built, and diagnostics come out in the order a reader meets them. Unlike
`Interpreter`, a tree no method names is an error (`__default__` raises): a new
grammar rule without its method fails loudly, and `tests/test_parser_rules.py`
checks that every rule the grammar can make has one.

The methods live in one mixin per part of the language, each in its own module:
`tree_book` (the file, sections, rules and their items), `tree_header` (a book's
header), `tree_declarations` (constants, enums, mechanics, tables, checks, priced
views, types, dice), `tree_expressions`, `tree_layers` (a layer file's changes); and
`tree_tokens` reads the tokens (spans, numbers within limits, strings, prose).
A problem the grammar cannot see (an unknown note kind, a die of 5000 sides) is
kept in `errors` and the walk goes on; `parser.py` decides whether to raise.
"""
from __future__ import annotations

from .tree_book import BookRules
from .tree_declarations import DeclarationRules
from .tree_expressions import ExpressionRules
from .tree_header import HeaderRules
from .tree_layers import LayerRules
from .tree_tokens import TokenReading


class TreeBuilder(BookRules, HeaderRules, LayerRules, DeclarationRules, ExpressionRules, TokenReading):
    """Builds the nodes of one file. `visit` the tree of the grammar's `start` (a book
    file: a `SourceFile`), `layer_file` (a `LayerFile`) or `example_expr` (an expression);
    a file's diagnostics are in `errors`, in source order, and in the file node."""

    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.errors = []

    def visit(self, tree):
        """The node (or part) built by the method named after `tree`'s rule."""
        try:
            method = getattr(self, tree.data)
        except AttributeError:
            return self.__default__(tree)
        return method(tree)

    def optional(self, tree):
        """`visit` for an optional part (`[called]`, `["=" expr]`): None when it is absent."""
        return None if tree is None else self.visit(tree)

    def __default__(self, tree):
        raise AssertionError(f"the tree builder has no method for the grammar rule {tree.data!r}")
