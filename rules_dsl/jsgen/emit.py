"""Safe JavaScript text for what comes from a book: strings, identifiers, values.

A book is untrusted data, so nothing it names reaches the generated JavaScript as code.
Every name or text from a book is written as a JSON string literal that is also safe
inside an HTML `<script>` (`<`, `>`, `&`, U+2028 and U+2029 escaped); every local name
becomes a JavaScript identifier only through `Idents`, which checks it against the
language's NAME token and prefixes it (`v_`), so `constructor` or `__proto__` is just
`v_constructor`.  Globals (mechanics, tables, constants...) are never identifiers at
all: they are numbered slots (`$m[3]`) whose names live in strings.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction

from ..errors import RulesError
from ..language.values import ABSENT, Record, Sym

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class JSGenError(RulesError):
    """A construct the JavaScript back end does not support (or a name it refuses), at file:line."""


def unsupported(span, what: str) -> JSGenError:
    return JSGenError(f"{span}: the JavaScript back end does not support {what}")


def js_str(text: str) -> str:
    """A JSON string literal, safe in a JS module and inside an HTML <script>."""
    s = json.dumps(str(text), ensure_ascii=True)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def js_int(v: int) -> str:
    return f"{int(v)}n" if v >= 0 else f"(-{-int(v)}n)"


class Idents:
    """Language names -> JavaScript identifiers: `v_NAME`, with `$k` added when a name is
    bound again in the same function (a second `let x`), so every binding is its own `const`."""

    def __init__(self):
        self.used = set()

    def fresh(self, name: str, span) -> str:
        if not NAME.match(name):
            raise unsupported(span, f"the name {js_str(name)} (names are letters, digits and _)")
        ident, k = f"v_{name}", 1
        while ident in self.used:
            k += 1
            ident = f"v_{name}${k}"
        self.used.add(ident)
        return ident


class Globals:
    """The numbered slots of one book module: mechanics, tables, constants, enums, dice,
    symbols (enum members and die faces) and spans (the file:line:col of error messages)."""

    def __init__(self, compiled, span_text):
        self.compiled = compiled
        self.span_text = span_text
        self.mechanics = {name: i for i, name in enumerate(compiled.mechanics)}
        self.tables = {name: i for i, name in enumerate(compiled.tables)}
        self.consts = {name: i for i, name in enumerate(compiled.syms.consts)}
        self.enums = {name: i for i, name in enumerate(compiled.enums)}
        self.dice = {name: i for i, name in enumerate(compiled.dice)}
        self.syms = {}
        for members in compiled.enums.values():
            for m in members.values():
                self.sym_index(m)
        for die in compiled.dice.values():
            if die.custom:
                for f in die.distinct:
                    self.sym_index(f)
        self.spans = {}

    def sym_index(self, s: Sym) -> int:
        return self.syms.setdefault((s.enum, str(s)), len(self.syms))

    def sym(self, s: Sym) -> str:
        key = (s.enum, str(s))
        if key in self.syms:
            return f"$y[{self.syms[key]}]"
        return f"new R.Sym({js_str(s)}, {js_str(s.enum)})"

    def span(self, span) -> str:
        text = self.span_text(span)
        return f"$s[{self.spans.setdefault(text, len(self.spans))}]"

    def value(self, v) -> str:
        """A value of the compiled book (a table cell, a key) as a JS expression."""
        if v is ABSENT:
            return "R.ABSENT"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return js_int(v)
        if isinstance(v, Fraction):
            if v.denominator == 1:
                return js_int(v.numerator)
            return f"R.frac({js_int(v.numerator)}, {js_int(v.denominator)})"
        if isinstance(v, Sym):
            return self.sym(v)
        if isinstance(v, str):
            return js_str(v)
        if isinstance(v, range):
            return f"new R.Range({js_int(v.start)}, {js_int(v.stop)})"
        if isinstance(v, Record):
            return "new R.Record([" + ", ".join(f"[{js_str(k)}, {self.value(x)}]" for k, x in v.as_dict().items()) + "])"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        raise JSGenError(f"the JavaScript back end cannot write the value {v!r}")
