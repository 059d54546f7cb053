"""The tree builder's readers of single tokens: a node's span, a number within limits, a
string unescaped, a prose block dedented with its cross-references found.

Every rule method of the tree builder (`tree_builder.TreeBuilder`) reads its tokens
through these, so that three things hold in one place: a span always comes from lark's
positions (`meta` for a rule, the token's own for a token); a number or a reference a
book gets wrong becomes a `Diagnostic` kept in `errors` (the build goes on, and the
caller decides whether to raise); and a book from a stranger cannot ask for a huge
integer (`MAX_DIGITS`).
"""
from __future__ import annotations

import re
import textwrap
from fractions import Fraction

from . import nodes as n
from ..errors import Diagnostic, line_of
from .prose import REF_HINT, REF_RE, parse_ref

MAX_DIGITS = 15                 # a number in a rulebook; larger ones are mistakes or attacks


class TokenReading:
    """Spans, diagnostics and token values, for the rule methods of the tree builder.
    A subclass sets `path` (the file, for spans), `text` (its source, for carets) and
    `errors` (the diagnostics found so far, in the order the walk meets them)."""

    path: str
    text: str
    errors: list

    def span(self, x) -> n.Span:
        m = getattr(x, "meta", None)
        if m is not None and not getattr(m, "empty", True):
            return n.Span(self.path, m.line, m.column, m.end_line, m.end_column)
        if hasattr(x, "line") and x.line is not None:
            return n.Span(self.path, x.line, x.column, x.end_line or x.line, x.end_column or x.column)
        return n.Span(self.path, 0, 0)

    def error(self, where, message, hint=""):
        """Keep a diagnostic at `where` (a tree, a token or a Span) and go on building."""
        sp = where if isinstance(where, n.Span) else self.span(where)
        self.errors.append(Diagnostic(self.path, sp.line, sp.column, message, hint, line_of(self.text, sp.line)))

    def int(self, tok) -> int:
        """A whole number token; a runaway length is a diagnostic, not a huge int."""
        if len(str(tok)) > MAX_DIGITS:
            self.error(tok, "number too large", f"at most {MAX_DIGITS} digits")
            return 0
        return int(str(tok))

    def decimal(self, tok) -> Fraction:
        whole, _, part = str(tok).partition(".")
        if len(whole) > MAX_DIGITS or len(part) > MAX_DIGITS:
            self.error(tok, "number too large", f"at most {MAX_DIGITS} digits on each side of the point")
            return Fraction(0)
        return Fraction(str(tok))

    @staticmethod
    def string(tok) -> str:
        """A "string" token's value: quotes dropped, `\\n`, `\\t` and `\\x` escapes read."""
        s = str(tok)[1:-1]
        return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)

    def read_prose(self, tok) -> n.Prose:
        """A \"\"\"prose\"\"\" or "string" token as prose: dedented, with each `[[reference]]`
        located in the file (a malformed one is a diagnostic at its own line and column)."""
        raw = str(tok)
        if raw.startswith('"""'):
            body = raw[3:-3]
            offset = 3
        else:
            body = self.string(tok)
            offset = 1
        sp = self.span(tok)
        refs = []
        for m in REF_RE.finditer(body):
            # locate the reference in the file for diagnostics
            before = raw[: offset + m.start()]
            line = sp.line + before.count("\n")
            col = (len(before) - before.rfind("\n")) if "\n" in before else sp.column + len(before)
            rsp = n.Span(self.path, line, col)
            parsed = parse_ref(m.group(1))
            if parsed is None:
                self.error(rsp, f"malformed cross-reference [[{m.group(1)}]]", REF_HINT)
                continue
            refs.append(n.Ref(rsp, *parsed))
        return n.Prose(sp, dedent(body), tuple(refs))

    def text_or_string(self, tok) -> str:
        """The grammar's `text` (a \"\"\"prose\"\"\" or a "string" token) as plain text."""
        return dedent(str(tok)[3:-3]) if str(tok).startswith('"""') else self.string(tok)


def dedent(body: str) -> str:
    """Strip the common indentation of a triple-quoted block and its edge blank lines."""
    lines = body.split("\n")
    if lines and not lines[0].strip():
        lines = lines[1:]
    else:
        # text starting on the quote line: dedent the rest, keep the first line as is
        first, rest = (lines[0].strip(), lines[1:]) if lines else ("", [])
        rest_text = textwrap.dedent("\n".join(rest))
        return (first + ("\n" + rest_text if rest else "")).strip()
    return textwrap.dedent("\n".join(lines)).strip()
