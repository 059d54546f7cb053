"""`CompiledBook`: the executable side of a book (constants, enums, dice, tables, mechanics, checks)."""
from __future__ import annotations

import functools

from ..language import nodes as n
from ..language.dice import DieInfo, GivenRoller
from ..errors import Diagnostic, EvaluationError, RulebookError, line_of
from ..language.model import BookAST, decls_of
from ..analysis.symbols import Symbols, defined_names, name_key
from ..language.values import Sym, show
from .checks import CheckFn
from .context import Ctx
from .expressions import compile_expr
from .mechanics import MechanicFn
from .priced import PricedFn
from .tables import TableFn, looked_up_tables


class CompiledBook:
    """The executable side of a book: constants, enums, dice, tables, mechanics, checks."""

    def __init__(self, ast: BookAST, syms: Symbols, texts: dict):
        self.ast, self.syms, self.texts = ast, syms, texts
        self.book_id = ast.id
        self.enums = {name: {m: Sym(m, name) for m in e.members} for name, e in syms.enums.items()}
        self.dice = {name: DieInfo(name, tuple(Sym(f, name) for f in d.faces) if d.custom else d.faces, d.custom)
                     for name, d in syms.dice.items()}
        self.members = {}
        for m, owners in syms.members.items():
            if len(owners) == 1:
                owner = owners[0]
                self.members[m] = self.enums[owner][m] if owner in self.enums else Sym(m, owner)
        self._const_values, self._const_busy = {}, set()
        self.tables, self.mechanics, self.checks, self.priced = {}, {}, {}, {}
        self.looked_up = looked_up_tables(ast, syms)
        diags = []
        for p in decls_of(ast):
            d = p.node
            try:
                if isinstance(d, n.Table):
                    self.tables[d.name] = TableFn(self, d)
                elif isinstance(d, n.Mechanic):
                    self.mechanics[d.name] = MechanicFn(self, d)
                elif isinstance(d, n.Check):
                    self.checks[d.name] = CheckFn(self, d, p.rule.id if p.rule else "")
                elif isinstance(d, n.Priced):
                    self.priced[d.name] = PricedFn(self, d, p.rule.id if p.rule else "")
            except RulebookError as e:
                diags.extend(e.diagnostics)
        if not diags:
            for name in syms.consts:
                try:
                    self.const(name)
                except EvaluationError as e:
                    c = syms.consts[name]
                    diags.append(self.diag(c.span, f"constant '{name}' cannot be evaluated: {e}"))
            for m in self.mechanics.values():
                diags.extend(m.check_defaults())
            diags.extend(self._collect_odds_inputs())
        if diags:
            raise RulebookError(diags)

    def _collect_odds_inputs(self) -> list:
        """The `odds mech(...)` lines of every rule: {mechanic: [(args, kwargs), ...]},
        their values computed once here from the checked AST (literals, members and
        constants only: the examples pass refuses computations); diagnostics for a
        mechanic that rolls no dice or inputs it refuses."""
        from ..language.dice import GivenRoller
        from ..errors import InputError
        from ..language.model import walk
        from .context import Ctx
        from .expressions import compile_expr
        self.odds_inputs, self.odds_sweeps, diags = {}, {}, []

        def value(e):
            return compile_expr(self, e, frozenset())({}, Ctx(GivenRoller()))
        for p in walk(self.ast.items):
            if not isinstance(p.node, n.Rule):
                continue
            for o in p.node.odds:
                name = o.call.func.name
                m = self.mechanics[name]
                if not m.has_dice:
                    diags.append(self.diag(o.span, f"'{name}' rolls no dice, so it has no odds to show",
                                           "`odds` lines are for dice mechanics; show a value with an example"))
                    continue
                names = [p.name for p in m.params]
                swept = [(names[i] if i < len(names) else "", a) for i, a in enumerate(o.call.args)
                         if isinstance(a, n.RangeExpr)] + [(k, a) for k, a in o.call.kwargs if isinstance(a, n.RangeExpr)]
                if swept:       # `odds hits(n=3, target=2..6)`: a sweep of one input (design.sweep on the page)
                    sname, rng = swept[0]
                    fixed = {names[i]: value(a) for i, a in enumerate(o.call.args) if not isinstance(a, n.RangeExpr)}
                    fixed.update({k: value(a) for k, a in o.call.kwargs if not isinstance(a, n.RangeExpr)})
                    values = value(rng)
                    self.odds_sweeps.setdefault(name, []).append((fixed, sname, (values.start, values.stop - 1)))
                    continue
                args = [value(a) for a in o.call.args]
                kwargs = {k: value(a) for k, a in o.call.kwargs}
                params = dict(kwargs)
                m.given_rolls(params)             # leaves the parameters
                try:
                    m.bind(list(args), params)
                except InputError as e:
                    diags.append(self.diag(o.span, f"odds {name}(...): {e}", "give values the mechanic accepts"))
                    continue
                self.odds_inputs.setdefault(name, []).append((tuple(args), kwargs))
        return diags

    @functools.cached_property
    def defined_names(self) -> dict:
        """The names the book defines (rule titles and aliases, not keywords; see checks.defined_names) -> rule id."""
        return defined_names(self.ast)

    @functools.cached_property
    def symbol_index(self):
        """The book's `SymbolIndex` (every name's definition and references), built once on first use."""
        from ..analysis.symbol_index import SymbolIndex
        return SymbolIndex(self.ast, self.syms, self.texts)

    def defined(self, name) -> bool:
        """The `defined` built-in: does a rule of this book have that title or alias?"""
        if not isinstance(name, str):
            raise EvaluationError(f"defined() takes a name (text), got {show(name)}")
        return name_key(name) in self.defined_names

    def diag(self, span, msg, hint=""):
        return Diagnostic(span.file, span.line, span.column, msg, hint, line_of(self.texts.get(span.file, ""), span.line))

    def const(self, name):
        if name in self._const_values:
            return self._const_values[name]
        if name in self._const_busy:
            raise EvaluationError(f"constant '{name}' is defined in terms of itself")
        self._const_busy.add(name)
        try:
            value = compile_expr(self, self.syms.consts[name].value, frozenset())({}, Ctx(GivenRoller()))
        finally:
            self._const_busy.discard(name)
        self._const_values[name] = value
        return value
