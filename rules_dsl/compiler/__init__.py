"""Checked AST -> executable resolvers, as Python closures.

Each expression node becomes a closure `f(env, ctx)`: `env` holds the locals
(parameters, lets, rolls), `ctx` the roller and the roll-name prefix.  Nothing
from the rulebook text is ever evaluated as Python: the closures are built from
the AST's node types alone, so a rulebook cannot run arbitrary code.

The package, one module per part:

* `context`      -- `Ctx` (roller, roll-name prefix, step budget, `reads`) and the
  limits on one evaluation (`MAX_STEPS`, `MAX_CALL_DEPTH`, `MAX_RANGE`, `MAX_CHECK_CASES`);
* `typecheck`    -- `TypeCheck`, a declared type as a run-time check;
* `expressions`  -- `ExprCompiler`, a visitor with one `visit_<NodeType>` method per
  expression node: the extension point (the odds engine subclasses it), and
  `compile_expr`;
* `mechanics`    -- `MechanicFn` and its compiled steps (`LetStep`, `RollStep`, `RequireStep`);
* `tables`       -- `TableFn`, `Printed`, `RowRecord`, `origin`;
* `checks`       -- `CheckFn`, `case_text`;
* `priced`       -- `PricedFn`, a design view's cases and costs (`rules_dsl.evaluation.design` prices them);
* `book`         -- `CompiledBook`, which compiles a checked book with all of these.

Everything is importable from `rules_dsl.compiler` as before.
"""
from __future__ import annotations

from .book import CompiledBook
from .checks import CheckFn, case_text
from .context import MAX_CALL_DEPTH, MAX_CHECK_CASES, MAX_RANGE, MAX_STEPS, UNLIMITED, Ctx
from .expressions import ExprCompiler, iterable, EnumNamespace, compile_expr
from .mechanics import LetStep, MechanicFn, RequireStep, RollStep
from .priced import PricedFn
from .tables import Printed, RowRecord, TableFn, origin
from .typecheck import TypeCheck

__all__ = ["CompiledBook", "CheckFn", "case_text", "MAX_CALL_DEPTH", "MAX_CHECK_CASES", "MAX_RANGE",
           "MAX_STEPS", "UNLIMITED", "Ctx", "ExprCompiler", "compile_expr", "LetStep", "MechanicFn",
           "RequireStep", "RollStep", "PricedFn", "Printed", "RowRecord", "TableFn", "origin", "TypeCheck",
           "iterable", "EnumNamespace"]

# The public classes present themselves at their public path (docs cross-references,
# pickles of table rows and findings made before this was a package).
for _cls in (CompiledBook, CheckFn, Ctx, ExprCompiler, LetStep, MechanicFn, RequireStep, RollStep,
             Printed, RowRecord, TableFn, TypeCheck):
    _cls.__module__ = __name__
del _cls
