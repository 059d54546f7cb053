"""Tables -> JavaScript: a `defineTable` call holding every entry as a literal.

The entries are those of the compiled `TableFn` (keys and values already read from the
checked AST's cells and checked against the declared types: members, constants and
ranges resolved, absent cells kept as absent), written as JS values by `Globals.value`;
the runtime's `Table.lookup` finds a row exactly as `TableFn.lookup` does (exact keys
through a dictionary, else the first row whose keys or ranges cover them)."""
from __future__ import annotations

from .emit import Globals, js_str
from .types import js_type


def table_js(g: Globals, fn) -> str:
    keys = ", ".join(f"{{name: {js_str(p.name)}, type: {js_type(p.type, g.compiled)}, describe: {js_str(ch.describe)}}}"
                     for p, ch in zip(fn.keys, fn.key_checks))
    rows = ",\n  ".join(f"[[{', '.join(g.value(k) for k in ks)}], {g.value(v)}]" for ks, v in fn.entries)
    fields = "null" if fn.fields is None else "[" + ", ".join(js_str(f) for f in fn.fields) + "]"
    return (f"$t[{g.tables[fn.name]}] = B.defineTable({{name: {js_str(fn.name)}, keys: [{keys}], fields: {fields}, entries: [\n  "
            + rows + "]});")
