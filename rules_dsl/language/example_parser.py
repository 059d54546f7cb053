"""A worked example's text -> `ExampleCase`s, parsed by the book's own grammar.

An example keeps the doctest look designers know::

    Some words about the situation.
    >>> opposed_target(5, 3)
    4
    >>> opposed_target(11, 3)
    InputError: yours

but nothing in it ever reaches Python: each `>>>` line (with its `...`
continuation lines) is parsed from the grammar's `example_expr` start symbol,
and so is the expected value on the lines after it, up to a blank line or the
next `>>>`.  Lines before a `>>>` are prose.  An expected line of the form
`InputError: PARAM [words]` or `Error: words` expects an error instead of a
value (see `nodes.ExpectedError`).

Each expression is parsed in a copy of the file's layout (blank lines and
spaces before it), so every span and diagnostic points at the real
file:line:column of the source.
"""
from __future__ import annotations

import re

from . import nodes as n
from ..errors import Diagnostic, line_of

_PROMPT = re.compile(r"^([ \t]*)>>>(?: |$)")
_MORE = re.compile(r"^([ \t]*)\.\.\.(?: |$)")
_ERROR = re.compile(r"^(InputError|Error)\s*:\s*(.*)$")
_ABOUT = re.compile(r"^about\s+(-?[0-9]{1,15})(?:\.([0-9]{1,15}))?\s*(%?)$")


def parse_example(builder, body_tok) -> tuple:
    """Cases of one `example \"\"\"...\"\"\"` block; diagnostics go to `builder.errors`.
    `builder` is the file's `tree_builder.TreeBuilder`: its `visit` builds each expression."""
    raw = str(body_tok)[3:-3]
    lines = raw.split("\n")
    line0, col0 = body_tok.line, body_tok.column + 3   # where the text after the quotes starts

    def where(i):  # (line, column of the first character) of raw line i
        return line0 + i, (col0 if i == 0 else 1)

    cases, i = [], 0
    while i < len(lines):
        m = _PROMPT.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        parts = [(i, m.end(), lines[i][m.end():])]
        i += 1
        while i < len(lines):
            mm = _MORE.match(lines[i])
            if not mm:
                break
            parts.append((i, mm.end(), lines[i][mm.end():]))
            i += 1
        want = []
        while i < len(lines) and lines[i].strip() and not _PROMPT.match(lines[i]):
            want.append((i, len(lines[i]) - len(lines[i].lstrip()), lines[i].strip()))
            i += 1
        case = _case(builder, parts, want, where, start)
        if case is not None:
            cases.append(case)
    return tuple(cases)


def _layout(parts, where) -> tuple:
    """The parts placed at their own lines and columns, blank elsewhere: positions stay true."""
    first_line, _ = where(parts[0][0])
    out, line = ["\n" * (first_line - 1)], first_line
    for idx, offset, text in parts:
        ln, col = where(idx)
        out.append("\n" * (ln - line))
        line = ln
        out.append(" " * (col - 1 + offset) + text)
    return "".join(out)


def _parse_expr(builder, parts, where, hint=""):
    from lark.exceptions import UnexpectedInput

    from .syntax import lark_parser, syntax_diagnostic

    padded = _layout(parts, where)
    try:
        tree = lark_parser().parse(padded, start="example_expr")
    except UnexpectedInput as e:
        d = syntax_diagnostic(e, padded, builder.path)
        builder.errors.append(Diagnostic(d.file, d.line, d.column, d.message.replace("end of file", "end of line"),
                                         hint or d.hint.replace(" (is a '}' missing?)", ""),
                                         line_of(builder.text, d.line)))
        return None
    from .syntax import MAX_NESTING, too_deep

    deep = too_deep(tree)
    if deep is not None:
        builder.error(n.Span(builder.path, *deep), f"nested more than {MAX_NESTING} levels deep",
                      "split the example into several '>>>' lines")
        return None
    return builder.visit(tree)


def _case(builder, parts, want, where, start):
    ln, col = where(parts[0][0])
    span = n.Span(builder.path, ln, col + parts[0][1])
    source = " ".join(p[2].strip() for p in parts).strip()
    if not source:
        builder.error(span, "an example's '>>>' needs an expression after it")
        return None
    if not want:
        builder.error(span, "this example line has no expected value",
                      "write the value it must give on the next line, e.g. '>>> roll_needed(4)' then '3'")
        return None
    expr = _parse_expr(builder, parts, where)
    if expr is not None:
        span = n.Span(builder.path, expr.span.line, expr.span.column, expr.span.end_line, expr.span.end_column)
    expected_text = "\n".join(w[2] for w in want)
    wl, wc = where(want[0][0])
    m = _ERROR.match(expected_text) if len(want) == 1 else None
    if m:
        kind, rest = m.group(1), m.group(2).strip()
        param, detail = "", rest
        if kind == "InputError":
            pm = re.match(r"'?([A-Za-z_][A-Za-z0-9_]*)'?\s*(.*)$", rest)
            if not pm:
                builder.error(n.Span(builder.path, wl, wc + want[0][1]),
                              "an expected InputError names the parameter it rejects",
                              "e.g. 'InputError: yours' or 'InputError: yours 1..10'")
                return None
            param, detail = pm.group(1), pm.group(2).strip()
        err = n.ExpectedError(n.Span(builder.path, wl, wc + want[0][1]), kind, param, detail)
        return None if expr is None else n.ExampleCase(span, source, expr, expected_text, None, err)
    ma = _ABOUT.match(expected_text) if len(want) == 1 else None
    if ma:      # `about 82.6%`: a value as a book prints it, rounded (example_odds.about)
        from fractions import Fraction
        places = len(ma.group(2) or "")
        value = Fraction(ma.group(1) + "." + (ma.group(2) or "0"))
        approx = n.Approx(n.Span(builder.path, wl, wc + want[0][1]), value, places, bool(ma.group(3)))
        return None if expr is None else n.ExampleCase(span, source, expr, expected_text, None, None, approx)
    expected = _parse_expr(builder, [(w[0], w[1], w[2]) for w in want], where,
                           "an expected value runs until a blank line or the next '>>>': "
                           "put a blank line before prose" if len(want) > 1 else "")
    if expr is None or expected is None:
        return None
    return n.ExampleCase(span, source, expr, expected_text, expected, None)
