"""The shared visitor protocol (rules_dsl/language/visitor.py): dispatch, the generic walk, the children."""
from __future__ import annotations

import pytest

from rules_dsl.language import nodes as n
from rules_dsl.compiler.expressions import ExprCompiler
from rules_dsl.language.parser import parse_text
from rules_dsl.language.visitor import NodeVisitor, iter_child_nodes

SP = n.Span("t", 1, 1)


def _call():
    # f(a + 1, k=b) -- a call whose keyword arguments are (name, expr) pairs
    return n.Call(SP, n.Name(SP, "f"), (n.BinOp(SP, "+", n.Name(SP, "a"), n.Literal(SP, 1)),),
                  (("k", n.Name(SP, "b")),))


def test_children_come_from_the_fields_in_order_keyword_arguments_included():
    kids = list(iter_child_nodes(_call()))
    assert [type(k).__name__ for k in kids] == ["Name", "BinOp", "Name"]
    assert kids[2].name == "b"


def test_visit_dispatches_and_the_generic_walk_passes_the_arguments_on():
    class Names(NodeVisitor):
        def __init__(self):
            self.seen = []

        def visit_Name(self, e, scope):
            self.seen.append((e.name, e.name in scope))

        def visit_Comprehension(self, e, scope):       # a node that changes the arguments
            self.visit(e.source, scope)
            self.generic_visit(n.ListLit(e.span, (e.elem,)), scope | {e.var})

    v = Names()
    v.visit(_call(), frozenset({"a"}))
    assert v.seen == [("f", False), ("a", True), ("b", False)]
    comp = n.Comprehension(SP, n.Name(SP, "x"), "x", n.Name(SP, "xs"), None)
    v.seen = []
    v.visit(comp, frozenset())
    assert v.seen == [("xs", False), ("x", True)]


def test_every_node_of_a_parsed_book_has_its_children_reached():
    src = ('book t {\n  title "T"\n  dice d6\n}\nsection s "S" {\n  rule r "R" {\n    """Text."""\n'
           '    mechanic m(n: 1..5) -> int "doc" {\n      roll hits: n of d6\n'
           '      return count([h for h in hits if h >= 4]) + max(1, n)\n    }\n  }\n}\n')
    tree = parse_text(src, "t.rules")

    class Count(NodeVisitor):
        names = 0

        def visit_Name(self, e):
            self.names += 1

    c = Count()
    c.visit(tree)
    # n (count), count, h, hits, h, max, n
    assert c.names == sum(1 for x in n.iter_nodes(tree) if isinstance(x, n.Name)) >= 6


def test_a_compiler_refuses_a_node_it_has_no_method_for():
    with pytest.raises(TypeError, match="cannot compile a Span"):
        ExprCompiler(None).compile(SP, frozenset())


def test_the_passes_over_expressions_share_the_one_visitor_protocol():
    """Checks, compiler and back ends dispatch through `NodeVisitor` (`visit_<Node>`),
    not each through a dispatch of its own: a node added to the language is one method
    name to add in each, found by the same rule."""
    from rules_dsl.analysis.checks_names import ExprChecker
    from rules_dsl.analysis.checks_types import TypePass
    from rules_dsl.analysis.range_analysis import RangeAnalysis
    from rules_dsl.jsgen.expressions import ExprGen
    from rules_dsl.language.visitor import NodeVisitor
    for cls in (ExprChecker, TypePass, RangeAnalysis, ExprCompiler, ExprGen):
        assert issubclass(cls, NodeVisitor), cls
        assert not [m for m in dir(cls) if m.startswith("e_")], f"{cls.__name__} keeps a dispatch of its own"
    expression_nodes = {name for name in dir(ExprCompiler) if name.startswith("visit_")}
    for cls in (TypePass, RangeAnalysis, ExprGen):
        known = {name for name in dir(cls) if name.startswith("visit_")}
        assert known, cls
        assert known <= expression_nodes | {"visit_Call"}, (cls.__name__, sorted(known - expression_nodes))


def test_the_javascript_back_end_refuses_a_node_it_has_no_method_for():
    from rules_dsl.jsgen.emit import JSGenError
    from rules_dsl.jsgen.expressions import ExprGen
    gen = ExprGen.__new__(ExprGen)          # no book needed to refuse
    with pytest.raises(JSGenError, match="Span"):
        gen.compile(SP, {})
