"""The tree builder's methods for declarations (`const`, `enum`, `mechanic`, `table`,
`check`, `priced`) and for the parts only they hold: parameters, types, statements,
dice, table rows and cells; one method per grammar rule or alias.

Declarations are what make a rule executable, and they appear in three places (a
book's top level, a section, a rule) and in a layer's `replace`/`add`: keeping their
builders together, apart from where they sit, lets each place reach them through
`visit` alone. Where a declaration's parts are built in an order other than the
source's (a mechanic's body before its parameters), that is the order the walk has
always used, kept so that diagnostics come out as they always did.
"""
from __future__ import annotations

from . import nodes as n
from .tree_tokens import MAX_DIGITS
from .values import ABSENT


class DeclarationRules:
    """Methods named after the grammar's declaration rules (see `tree_builder`)."""

    # ------------------------------------------------------------ shared parts
    def called(self, t) -> n.Phrase:
        """`called "words"`: a located Phrase (the words are checked in checks_display.py)."""
        tok = t.children[0]
        return n.Phrase(self.span(tok), self.string(tok))

    question = answer = finding = called   # `question "..."`, `answer "..."`, `finding "..."`: phrases too

    def docstring(self, t) -> str:
        return self.text_or_string(t.children[0])

    def params(self, t) -> tuple:
        return tuple(self.visit(p) for p in t.children)

    def param(self, t) -> n.Param:
        name, called, typ, default = t.children
        return n.Param(self.span(t), str(name), self.visit(typ), self.optional(default), self.optional(called))

    def binding(self, t) -> n.Binding:
        """`name in domain`, in a check's or a priced view's `for`."""
        return n.Binding(self.span(t), str(t.children[0]), self.visit(t.children[1]))

    # ------------------------------------------------------------ declarations
    def const(self, t) -> n.Const:
        name, called, value, doc = t.children
        return n.Const(self.span(t), str(name), self.visit(value), self.string(doc) if doc else "",
                       self.optional(called))

    def enum(self, t) -> n.Enum:
        members = [self.visit(m) for m in t.children[2:]]
        return n.Enum(self.span(t), str(t.children[0]), tuple(name for name, _, _ in members),
                      tuple((name, printed) for name, _, printed in members if printed is not None),
                      tuple((name, called) for name, called, _ in members if called is not None),
                      self.optional(t.children[1]))

    def enum_member(self, t) -> tuple:
        """(name, its words for players or None, how the source prints it or None)."""
        name, called, printed = t.children
        return str(name), self.optional(called), self.string(printed) if printed is not None else None

    def mechanic(self, t) -> n.Mechanic:
        name, called, params, ret, ret_called, doc, question, answer, body = t.children
        stmts, result = self.visit(body)
        return n.Mechanic(self.span(t), str(name), self.visit(params) if params is not None else (),
                          self.visit(ret), self.visit(doc) if doc is not None else "", stmts, result,
                          self.optional(called), self.optional(ret_called), self.optional(question),
                          self.optional(answer))

    def expr_body(self, t) -> tuple:
        """`= expression`: (no statements, the result)."""
        return (), self.visit(t.children[0])

    def block_body(self, t) -> tuple:
        """`{ statements return expression }`: (the statements, the result)."""
        return tuple(self.visit(s) for s in t.children[:-1]), self.visit(t.children[-1])

    def table(self, t) -> n.Table:
        name, called, params, ret, doc, grid, *rows = t.children
        keys = self.visit(params)
        rtype = self.visit(ret)
        header, body = None, []
        for r in rows:
            cells = self.visit(r)
            if all(c.value == "---" for c in cells):
                continue
            if header is None:
                header = cells
            else:
                body.append(cells)
        return n.Table(self.span(t), str(name), keys, rtype, self.visit(doc) if doc is not None else "",
                       grid is not None, header or (), tuple(body), self.optional(called))

    def check(self, t) -> n.Check:
        name, doc, reports, follows, finding, *rest = t.children
        where, claim = rest[-2], rest[-1]
        binds = tuple(self.visit(b) for b in rest[:-2])
        kind = self.visit(reports) if reports is not None else "disagreement"
        cause, cause_span = self.visit(follows) if follows is not None else (None, None)
        return n.Check(self.span(t), str(name), self.visit(doc) if doc is not None else "", binds,
                       self.optional(where), self.visit(claim), self.optional(finding),
                       kind or "disagreement", cause, cause_span)

    def follows(self, t) -> tuple:
        """`follows NAME`: (the cause's name, where it is written); analysis/checks_findings.py checks it."""
        return str(t.children[0]), self.span(t.children[0])

    def reports(self, t) -> str:
        """`reports gap` or `reports disagreement`; anything else is a diagnostic (and None)."""
        kind = str(t.children[0])
        if kind not in n.CHECK_REPORTS:
            self.error(t.children[0], f"reports {kind}: a check reports a gap or a disagreement",
                       "write `reports gap` (a failing case is something the book names or prices "
                       "and never defines or gives a formula for) or leave the line out (a failing "
                       "case is a disagreement: two printed things contradict)")
            return None
        return kind

    def priced(self, t) -> n.Priced:
        name, doc, *rest = t.children
        where, cost, effect = rest[-3], rest[-2], rest[-1]
        binds = tuple(self.visit(b) for b in rest[:-3])
        return n.Priced(self.span(t), str(name), self.visit(doc) if doc is not None else "", binds,
                        self.optional(where), self.visit(cost), self.visit(effect))

    # -------------------------------------------------------------- statements
    def let(self, t) -> n.Let:
        return n.Let(self.span(t), str(t.children[0]), self.visit(t.children[1]))

    def require(self, t) -> n.Require:
        return n.Require(self.span(t), self.visit(t.children[0]), self.string(t.children[1]))

    def roll(self, t) -> n.Roll:
        name, called, dice = t.children
        return n.Roll(self.span(t), str(name), self.visit(dice), self.optional(called))

    # -------------------------------------------------------------------- dice
    def one_die(self, t) -> n.DiceSpec:
        return n.DiceSpec(self.span(t), "one", str(t.children[0]))

    def dice_literal(self, t) -> n.DiceSpec:
        sp = self.span(t)
        count, die = str(t.children[0]).split("d")
        if len(count) > MAX_DIGITS:
            self.error(t, "number too large", f"at most {MAX_DIGITS} digits")
            count = "0"
        return n.DiceSpec(sp, "pool", "d" + die, n.Literal(sp, int(count)))

    def pool(self, t) -> n.DiceSpec:
        return n.DiceSpec(self.span(t), "pool", str(t.children[1]), self.visit(t.children[0]))

    def reroll(self, t) -> n.DiceSpec:
        base = self.visit(t.children[0])
        return n.DiceSpec(self.span(t), "reroll", base.die, base.count, self.visit(t.children[1]), cap=None)

    def explode(self, t) -> n.DiceSpec:
        base = self.visit(t.children[0])
        return n.DiceSpec(self.span(t), "explode", base.die, base.count, self.visit(t.children[1]),
                          cap=self.optional(t.children[2]))

    def chain(self, t) -> n.DiceSpec:
        count, die, on, then = t.children
        return n.DiceSpec(self.span(t), "chain", str(die), self.optional(count), self.visit(on), self.optional(then))

    # ------------------------------------------------------------ rows & cells
    def row(self, t) -> tuple:
        return tuple(self.visit(c) for c in t.children)

    def int_cell(self, t) -> n.Cell:
        return n.Cell(self.span(t), self.visit(t.children[0]))

    def decimal_cell(self, t) -> n.Cell:
        return n.Cell(self.span(t), self.decimal(t.children[0]))

    def str_cell(self, t) -> n.Cell:
        return n.Cell(self.span(t), self.string(t.children[0]))

    def name_cell(self, t) -> n.Cell:
        sp = self.span(t)
        return n.Cell(sp, n.Name(sp, str(t.children[0])))

    def dice_cell(self, t) -> n.Cell:
        return n.Cell(self.span(t), str(t.children[0]))

    def true_cell(self, t) -> n.Cell:
        return n.Cell(self.span(t), True)

    def false_cell(self, t) -> n.Cell:
        return n.Cell(self.span(t), False)

    def absent_cell(self, t) -> n.Cell:
        return n.Cell(self.span(t), ABSENT)

    def range_cell(self, t) -> n.Cell:
        return n.Cell(self.span(t), (self.visit(t.children[0]), self.visit(t.children[1])))

    def rule_line(self, t) -> n.Cell:
        """`|---|---|` under a header row: dropped by `table`."""
        return n.Cell(self.span(t), "---")

    def signed(self, t) -> int:
        return self.int(t.children[0])

    def positive(self, t) -> int:
        """`+1`: a modifier as the source prints it."""
        return self.int(t.children[0])

    def negative(self, t) -> int:
        return -self.int(t.children[0])

    # ------------------------------------------------------------------- types
    def type(self, t) -> n.Type:
        opts = [self.visit(c) for c in t.children]
        return opts[0] if len(opts) == 1 else n.UnionType(self.span(t), tuple(opts))

    def named_type(self, t) -> n.NamedType:
        return n.NamedType(self.span(t), str(t.children[0]))

    def range_type(self, t) -> n.RangeType:
        lo, hi = self.visit(t.children[0]), self.visit(t.children[1])
        if lo > hi:
            self.error(t, f"empty range {lo}..{hi}", "write the low bound first")
        return n.RangeType(self.span(t), lo, hi)

    def list_type(self, t) -> n.ListType:
        return n.ListType(self.span(t), self.visit(t.children[0]))

    def record_type(self, t) -> n.RecordType:
        fields = [self.visit(f) for f in t.children]
        return n.RecordType(self.span(t), tuple((name, typ) for name, typ, _ in fields),
                            tuple((name, called) for name, _, called in fields if called is not None))

    def field(self, t) -> tuple:
        """A record type's field: (name, type, its words for players or None)."""
        name, called, typ = t.children
        return str(name), self.visit(typ), self.optional(called)
