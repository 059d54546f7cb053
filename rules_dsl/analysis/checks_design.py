"""The design views pass: a `priced` view must price something the dice decide.

`priced NAME { for ...: COST per EFFECT }` shows, for each case, COST divided by
EFFECT's exact mean (design.py); an EFFECT that calls no mechanic rolling dice has
one value, not a mean: that is a plain formula, and the view is refused with a hint.
Names, kinds and the cost's being a number are the other passes' (checks.py,
checks_types.py).
"""
from __future__ import annotations

from .callgraph import rolls_in
from ..language.model import decls_of
from ..language import nodes as n


def check_design_views(book, syms, report):
    for p in decls_of(book):
        d = p.node
        if isinstance(d, n.Priced) and not rolls_in(d.effect, syms):
            report(d.effect.span, f"priced '{d.name}' is per an expected result, but this rolls no dice",
                   "the part after 'per' calls a mechanic that rolls (its mean is what the cost buys), "
                   "e.g. roster(kind) per attack(...)")
