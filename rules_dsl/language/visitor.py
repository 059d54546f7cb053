"""The one visitor protocol for passes over the AST, in the manner of Jinja2's `NodeVisitor`.

A pass subclasses `NodeVisitor` and writes a `visit_<NodeClass>` method for each node
type it cares about (`visit_Name`, `visit_Call`...).  `visit(node, *args)` calls that
method, or `generic_visit(node, *args)` when there is none, which visits the node's
children with the same arguments.  The children come from the node's dataclass fields
(`iter_child_nodes`), so no pass has to list every node type: a pass that only checks
names writes `visit_Name` and, where a node changes the arguments (a comprehension's
variable enters the scope), that node's method.

A back end that must handle every node (a compiler) overrides `generic_visit` to
refuse, so a node type it does not know fails loudly instead of compiling to nothing:
`compiler.expressions.ExprCompiler` does.

Who uses it: the expressions check (`checks_names.ExprChecker`), the type and range
passes (`checks_types.TypePass`, `range_analysis.RangeAnalysis`: their `expr` asks
`get_visitor` and answers "anything" for a node they do not model), the Python back end's
expression compiler (`compiler.expressions.ExprCompiler`, and so its subclasses in
`odds/` and explain's tracing) and the JavaScript back end's (`jsgen.expressions.ExprGen`,
which refuses an unknown node as the compiler does).  `nodes.iter_nodes` stays the flat walk for passes that only
filter by type (calls made, names used).
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Iterator

from .nodes import Span


def iter_child_nodes(node) -> Iterator:
    """The AST nodes directly inside `node`, in field order: fields holding a node, and
    the nodes inside fields holding lists or tuples (a call's keyword arguments are
    `(name, expr)` pairs: the expr is yielded).  Spans and plain values are not nodes."""
    for f in fields(node):
        if f.name == "span":
            continue
        yield from _nodes_in(getattr(node, f.name))


def _nodes_in(value) -> Iterator:
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _nodes_in(item)
    elif is_dataclass(value) and not isinstance(value, (Span, type)):
        yield value


class NodeVisitor:
    """Walks the AST: `visit` calls `visit_<NodeClass>(node, *args, **kwargs)`, else
    `generic_visit`, which visits each child with the same arguments and returns None."""

    def get_visitor(self, node):
        """The `visit_<NodeClass>` method for `node`, or None."""
        return getattr(self, "visit_" + type(node).__name__, None)

    def visit(self, node, *args, **kwargs):
        visitor = self.get_visitor(node)
        if visitor is not None:
            return visitor(node, *args, **kwargs)
        return self.generic_visit(node, *args, **kwargs)

    def generic_visit(self, node, *args, **kwargs):
        for child in iter_child_nodes(node):
            self.visit(child, *args, **kwargs)
