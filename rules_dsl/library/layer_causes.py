"""Which change of a layer a problem follows from.

A layered book is checked, and its examples run, as any book's.  A problem in the
layer's own file is at its change already.  One in the base book's files (an
example that no longer holds, a call of a mechanic the layer replaced, a reference
to a rule it removed) is the base's text checked under the layer's changes: it
follows from the changes whose names the broken part reaches (reach.py: the
declarations it names, and theirs, transitively) or whose rules it refers to.  The
diagnostic, or the failing example's report, then names each such change where it
is written, so the message says which change caused it; when none can be named,
it names the layer.
"""
from __future__ import annotations

import dataclasses

from ..language import nodes as n
from ..errors import Diagnostic, Related
from ..language.model import BookAST
from ..analysis.reach import Reach

MAX_NAMED = 3        # changes named under one problem


def causes(ast: BookAST, node, reach: Reach | None = None) -> list:
    """The changes (layers.ChangeRecord) of `ast`'s layers that `node` reaches."""
    reach = reach or Reach(ast)
    names = reach.closure(node)
    refs = {x.rule for x in n.iter_nodes(node) if isinstance(x, n.Ref) and x.book is None}
    return [c for layer in ast.layers for c in layer.changes if set(c.names) & names or set(c.rules) & refs]


def _contains(span: n.Span, line: int, column: int) -> bool:
    if span.line == 0:
        return False
    end = (span.end_line, span.end_column) if span.end_line else (span.line, 10 ** 9)
    return (span.line, span.column) <= (line, column) <= end


def enclosing(ast: BookAST, file: str, line: int, column: int):
    """The smallest rule, declaration, note, prose block, example or example case of
    `ast` written around file:line:column (None when there is none)."""
    best, size = None, None
    for x in n.iter_nodes(ast.items):
        if not isinstance(x, (n.Rule, n.Const, n.Enum, n.Mechanic, n.Table, n.Check, n.Note, n.Prose,
                              n.Example, n.ExampleCase)):
            continue
        sp = x.span
        if sp.file != file or not _contains(sp, line, column):
            continue
        s = ((sp.end_line or sp.line) - sp.line, (sp.end_column or 0) - sp.column)
        if size is None or s < size:
            best, size = x, s
    return best


def _said(c) -> str:
    return f"{c.layer}'s change at {c.location}: {c.text}"


def explain_diagnostics(ast: BookAST, diags: list) -> list:
    """`diags` with each problem in the base book's files saying which change of the
    layers it follows from (in its message, and as a related place)."""
    mine = {layer.file for layer in ast.layers}
    reach = Reach(ast)
    out = []
    for d in diags:
        if d.file in mine or d.file.startswith("<"):
            out.append(d)
            continue
        node = enclosing(ast, d.file, d.line, d.column)
        found = causes(ast, node, reach) if node is not None else []
        if found:
            first = found[0]
            message = f"{d.message} (after {_said(first)})"
            related = tuple(d.related) + tuple(Related.at(c.span, f"caused by change {c.number} of {c.layer}: {c.text}")
                                               for c in found[:MAX_NAMED])
        else:
            top = ast.layers[-1]
            message = f"{d.message} (in the base book, checked with the changes of {top.id})"
            related = tuple(d.related) + (Related.at(top.span, f"the layer {top.id}"),)
        out.append(Diagnostic(d.file, d.line, d.column, message, d.hint, d.source_line, d.severity, related))
    return out


def explain_example(ast: BookAST, result, example: n.Example):
    """A failing example's result whose report also says which changes it follows
    from (an example of the base book that no longer holds under the layers)."""
    if result.passed or not ast.layers or example.span.file in {layer.file for layer in ast.layers}:
        return result
    reach = Reach(ast)
    found = []
    for case, got in zip(example.cases, result.cases):
        if not got.passed:
            found.extend(c for c in causes(ast, case.expr, reach) if c not in found)
    if found:
        lines = [f"     = a consequence of {_said(c)}" for c in found[:MAX_NAMED]]
        if len(found) > MAX_NAMED:
            lines.append(f"     = and {len(found) - MAX_NAMED} more changes of the layers")
    else:
        lines = [f"     = an example of the base book, run with the changes of {ast.layers[-1].id}"]
    rule = next((r.id for r in n.iter_nodes(ast.items) if isinstance(r, n.Rule) and example in r.examples), "...")
    number = next((r.examples.index(example) + 1 for r in n.iter_nodes(ast.items)
                   if isinstance(r, n.Rule) and example in r.examples), 1)
    which = f"\"{example.title}\"" if example.title else str(number)
    how = f"`change example {which} of rule {rule} to \"\"\"...\"\"\"`"
    lines.append(f"     = hint: if the layer means this, give the example its new value in the layer ({how}), "
                 "or remove it")
    return dataclasses.replace(result, report=result.report + "\n" + "\n".join(lines))
