"""Declared types as data for the runtime's `convert` (the twin of `compiler.typecheck.TypeCheck`).

A type is written as a small JS object literal (`{k: "range", lo: 1n, hi: 6n}`); its
words for messages (`describe`) are taken from the Python `TypeCheck`, so an InputError
says exactly what Python says."""
from __future__ import annotations

from ..language import nodes as n
from .emit import js_int, js_str, unsupported

BASE = ("int", "bool", "text", "number", "absent")


def js_type(t: n.Type, compiled) -> str:
    if isinstance(t, n.RangeType):
        return f"{{k: \"range\", lo: {js_int(t.low)}, hi: {js_int(t.high)}}}"
    if isinstance(t, n.ListType):
        return f"{{k: \"list\", item: {js_type(t.item, compiled)}}}"
    if isinstance(t, n.UnionType):
        return "{k: \"union\", options: [" + ", ".join(js_type(o, compiled) for o in t.options) + "]}"
    if isinstance(t, n.RecordType):
        return "{k: \"record\"}"
    if isinstance(t, n.NamedType):
        if t.name in BASE:
            return f"{{k: {js_str(t.name)}}}"
        if t.name in compiled.enums:
            return f"{{k: \"enum\", name: {js_str(t.name)}}}"
        if t.name in compiled.dice:
            return f"{{k: \"die\", name: {js_str(t.name)}}}"
    raise unsupported(t.span, f"the type {type(t).__name__}")
