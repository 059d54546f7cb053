"""The tree builder has one method per grammar rule, and only those (tree_builder.py).

The grammar is the table of contents of the builder: every tree lark can make (a
rule's name, or its `-> alias`) is built by the method of that name, defined in one of
the rule modules; a rule dropped from the grammar takes its method with it; and a tree
no method names fails loudly instead of being skipped.
"""
from __future__ import annotations

import pytest

from rules_dsl.language import tree_book, tree_declarations, tree_expressions, tree_header, tree_layers
from rules_dsl.language.syntax import lark_parser
from rules_dsl.language.tree_builder import TreeBuilder

RULE_MIXINS = (tree_book.BookRules, tree_header.HeaderRules, tree_declarations.DeclarationRules,
               tree_expressions.ExpressionRules, tree_layers.LayerRules)
# methods of the rule modules that build a part for several rules, not a tree of their own
HELPERS = {"read_note", "read_example", "comprehension", "kwarg_name", "row_address", "example_ref"}


def grammar_trees() -> set:
    """Every tree name the grammar can produce: each alias, and each rule lark does not
    inline (`_rule`, or `?rule` with one child and no alias)."""
    names = set()
    for r in lark_parser().rules:
        if r.alias:
            names.add(str(r.alias))
        elif not r.origin.name.startswith("_"):
            kept = [s for s in r.expansion if not getattr(s, "filter_out", False)]
            if not (r.options.expand1 and len(kept) == 1):
                names.add(str(r.origin.name))
    return names


def rule_methods() -> set:
    return {name for mixin in RULE_MIXINS for name, value in vars(mixin).items()
            if callable(value) and not name.startswith("_")}


def test_the_grammar_reader_finds_the_rules():
    names = grammar_trees()
    assert {"start", "layer_file", "example_expr", "rule", "mechanic", "call", "h_dice", "change_value"} <= names
    assert not {"expr", "item", "decl", "text", "count", "header_field"} & names     # inlined by lark
    assert len(names) > 100


def test_every_tree_the_grammar_makes_has_its_method():
    methods = rule_methods()
    missing = sorted(grammar_trees() - methods)
    assert not missing, f"grammar rules without a tree builder method: {missing}"
    for name in grammar_trees():
        assert getattr(TreeBuilder, name) is next(vars(m)[name] for m in TreeBuilder.__mro__ if name in vars(m))


def test_no_method_outlives_its_rule():
    stale = sorted(rule_methods() - grammar_trees() - HELPERS)
    assert not stale, f"tree builder methods no grammar rule calls for: {stale}"


def test_no_two_rule_modules_define_the_same_method():
    seen = {}
    for mixin in RULE_MIXINS:
        for name, value in vars(mixin).items():
            if callable(value) and not name.startswith("_"):
                assert name not in seen, f"{name} is defined in {seen[name]} and {mixin.__name__}"
                seen[name] = mixin.__name__


def test_a_tree_no_method_names_fails_loudly():
    from lark import Tree

    with pytest.raises(AssertionError, match="no method for the grammar rule 'nonsense'"):
        TreeBuilder("x.rules", "").visit(Tree("nonsense", []))


def test_each_start_symbol_builds_its_node():
    from rules_dsl.language import nodes as n

    b = TreeBuilder("x.rules", "")
    assert isinstance(b.visit(lark_parser().parse('rule r "R" { }\n', start="start")), n.SourceFile)
    assert isinstance(b.visit(lark_parser().parse("layer l on b { }\n", start="layer_file")), n.LayerFile)
    e = b.visit(lark_parser().parse("f(x=1) + 2", start="example_expr"))
    assert isinstance(e, n.BinOp) and isinstance(e.left, n.Call) and e.left.kwargs[0][0] == "x"
    assert (e.span.line, e.span.column, e.span.end_line, e.span.end_column) == (1, 1, 1, 11)
