"""The tree builder's methods for expressions: one per rule (or alias) of the grammar's
expression section, each building one `nodes` expression with its span.

Expressions are the one part of the language every other part holds (a constant's
value, a mechanic's body, a table's key, a check's claim, a layer's `change ... to`, a
worked example's `>>>` line), so they are built here alone and reached only through
`visit`. The methods run top down, children in source order, so the diagnostics they
keep (a positional argument after a named one, a name given where only a parameter
or a roll's path may stand) come out in the order a reader meets them.
"""
from __future__ import annotations

from . import nodes as n
from .values import ABSENT


class ExpressionRules:
    """Methods named after the grammar's expression rules (see `tree_builder`)."""

    def example_expr(self, t) -> n.Expr:
        """The start symbol of a worked example's `>>>` line and of its expected value."""
        return self.visit(t.children[0])

    # ------------------------------------------------------------------ atoms
    def int_lit(self, t) -> n.Literal:
        return n.Literal(self.span(t), self.int(t.children[0]))

    def decimal_lit(self, t) -> n.Literal:
        return n.Literal(self.span(t), self.decimal(t.children[0]))

    def str_lit(self, t) -> n.Literal:
        return n.Literal(self.span(t), self.string(t.children[0]))

    def true_lit(self, t) -> n.Literal:
        return n.Literal(self.span(t), True)

    def false_lit(self, t) -> n.Literal:
        return n.Literal(self.span(t), False)

    def absent_lit(self, t) -> n.Literal:
        return n.Literal(self.span(t), ABSENT)

    def name(self, t) -> n.Name:
        return n.Name(self.span(t), str(t.children[0]))

    def list_lit(self, t) -> n.ListLit:
        return n.ListLit(self.span(t), tuple(self.visit(x) for x in t.children if x is not None))

    def list_comp(self, t) -> n.Comprehension:
        return self.comprehension(t)

    def set_lit(self, t) -> n.SetLit:
        return n.SetLit(self.span(t), tuple(self.visit(x) for x in t.children))

    def comprehension(self, t) -> n.Comprehension:
        """`[elem for var in src if cond]`, or the same inside a call's brackets."""
        elem, var, src, cond = t.children
        return n.Comprehension(self.span(t), self.visit(elem), str(var), self.visit(src),
                               self.visit(cond) if cond is not None else None)

    # -------------------------------------------------------------- operators
    def ifelse(self, t) -> n.IfElse:
        return n.IfElse(self.span(t), *(self.visit(x) for x in t.children))

    def or_op(self, t) -> n.BoolOp:
        return n.BoolOp(self.span(t), "or", self.visit(t.children[0]), self.visit(t.children[1]))

    def and_op(self, t) -> n.BoolOp:
        return n.BoolOp(self.span(t), "and", self.visit(t.children[0]), self.visit(t.children[1]))

    def not_op(self, t) -> n.Not:
        return n.Not(self.span(t), self.visit(t.children[0]))

    def compare(self, t) -> n.Compare:
        left, op, right = t.children
        return n.Compare(self.span(t), str(op), self.visit(left), self.visit(right))

    def member(self, t) -> n.Compare:
        return n.Compare(self.span(t), "in", self.visit(t.children[0]), self.visit(t.children[1]))

    def not_member(self, t) -> n.Compare:
        return n.Compare(self.span(t), "notin", self.visit(t.children[0]), self.visit(t.children[1]))

    def range_expr(self, t) -> n.RangeExpr:
        return n.RangeExpr(self.span(t), self.visit(t.children[0]), self.visit(t.children[1]))

    def binop(self, t) -> n.BinOp:
        left, op, right = t.children
        return n.BinOp(self.span(t), str(op), self.visit(left), self.visit(right))

    def neg(self, t) -> n.Neg:
        return n.Neg(self.span(t), self.visit(t.children[0]))

    def pos(self, t) -> n.Expr:
        """`+1`: a sign as books print modifiers; the value itself."""
        return self.visit(t.children[0])

    # ---------------------------------------------------------------- postfix
    def attr(self, t) -> n.Attr:
        return n.Attr(self.span(t), self.visit(t.children[0]), str(t.children[1]))

    def index(self, t) -> n.Index:
        return n.Index(self.span(t), self.visit(t.children[0]), self.visit(t.children[1]))

    def call(self, t) -> n.Call:
        """`f(args)`; the arguments are built before the function, as the walk always did."""
        func_tree, arg_tree = t.children
        args, kwargs = self.visit(arg_tree) if arg_tree is not None else ([], [])
        func = self.visit(func_tree)
        if isinstance(func, n.Name) and func.name == "round" and len(args) == 2 and not kwargs \
                and isinstance(args[1], n.Name):
            # `round(x, up)`: the mode is a word, kept apart from the arguments (checked in checks.py)
            return n.Call(self.span(t), func, (args[0],), (), args[1].name)
        return n.Call(self.span(t), func, tuple(args), tuple(kwargs))

    def args(self, t) -> tuple:
        """A call's arguments: ([positional], [(name, value)]), named ones last."""
        args, kwargs = [], []
        for arg in t.children:
            if getattr(arg, "data", None) == "kwarg":
                named = self.visit(arg)
                if named is not None:
                    kwargs.append(named)
                continue
            if kwargs:
                hint = ""
                if getattr(arg, "data", None) == "int_lit":
                    hint = f"a list of dice is written in brackets: {kwargs[-1][0]}=[..., {arg.children[0]}]"
                self.error(arg, "a positional argument cannot follow a named one", hint)
            args.append(self.visit(arg))
        return args, kwargs

    def generator(self, t) -> tuple:
        """`f(x for x in xs if ...)`: one argument, a comprehension."""
        return [self.comprehension(t)], []

    def kwarg(self, t):
        """`name=value`: (the name, the value), or None when the name is not one a call takes."""
        key = self.kwarg_name(t.children[0])
        if key is None:
            return None
        return key, self.visit(t.children[1])

    def kwarg_name(self, t):
        """The name before `=` in a call: a parameter or roll (`die`), or a roll made in a
        called mechanic by its path (`morale.first`, `attack[1].hit_dice`: rollpaths).
        Read from the tree as written (nothing is built), else a diagnostic and None."""
        parts = []
        while True:
            d = getattr(t, "data", None)
            if d == "name":
                parts.append(str(t.children[0]))
                break
            if d == "attr":
                parts.append("." + str(t.children[1]))
                t = t.children[0]
                continue
            if d == "index" and getattr(t.children[1], "data", None) == "int_lit" and parts:
                parts.append(f"[{self.int(t.children[1].children[0])}]")
                t = t.children[0]
                continue
            self.error(t, "only a parameter or a roll can be given by name here",
                       "write name=value, or a roll made inside a called mechanic by its path: "
                       "morale_test.first=[6, 6] (attack[1].hit_dice for the second call of attack)")
            return None
        if parts and parts[0].startswith("["):
            self.error(t, "a roll's path ends with the roll's name, not a number", "e.g. attack[1].hit_dice=[6, 6]")
            return None
        return "".join(reversed(parts))
