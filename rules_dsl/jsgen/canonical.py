"""The tagged JSON form in which both back ends write a value or an error, to be compared.

`["int", "12"]`, `["frac", "7/2"]`, `["bool", true]`, `["text", "x"]`, `["sym", "pinned"]`
(an enum member or die face, by name), `["absent"]`, `["list", [...]]` (a range is its
list), `["set", [...]]` (sorted by the items' compact JSON), `["record", [[field, v], ...]]`
(fields sorted); an error is `["error", kind]` with the parameter for an InputError and the
name for a NotFound.  The runtime's `canonical` and `canonicalError` write the same;
`encode` is the input side (what `decode` in the runtime reads)."""
from __future__ import annotations

import json
from fractions import Fraction

from ..errors import InputError, NotFound
from ..language.values import ABSENT, Record, Sym


def canonical(v):
    if v is ABSENT:
        return ["absent"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, Fraction):
        return ["int", str(v.numerator)] if v.denominator == 1 else ["frac", f"{v.numerator}/{v.denominator}"]
    if isinstance(v, Sym):
        return ["sym", str(v)]
    if isinstance(v, str):
        return ["text", v]
    if isinstance(v, (list, tuple, range)):
        return ["list", [canonical(x) for x in v]]
    if isinstance(v, (set, frozenset)):
        items = sorted(json.dumps(canonical(x), separators=(",", ":"), ensure_ascii=False) for x in v)
        return ["set", [json.loads(s) for s in items]]
    if isinstance(v, Record):
        return ["record", [[k, canonical(x)] for k, x in sorted(v.as_dict().items())]]
    return ["other", repr(v)]


def canonical_error(e) -> list:
    if isinstance(e, InputError):
        return ["error", "InputError", e.param]
    if isinstance(e, NotFound):
        return ["error", "NotFound", e.name]
    return ["error", "Error"]


def encode(v):
    """An input value (int, Fraction, bool, text, a member's name, lists) in the tagged form."""
    if v is ABSENT:
        return ["absent"]
    if isinstance(v, Sym):
        return ["sym", str(v)]
    return canonical(v)
