"""What a roll gives when every one of its dice is pinned to one face.

The range analysis confirms a finding by analysing a mechanic again with its inputs
pinned (range_proofs.py): parameters to values, and rolls to faces.  A pinned roll
is one the dice can really show (every die of a pool showing one face is a possible
roll), so a pinned analysis whose result is one value proves that value is reached.
A roll a pin cannot say exactly (a chain, a custom die, explode faces not written
as numbers) is analysed unpinned, which then proves nothing.
"""
from __future__ import annotations

from . import intervals as iv
from ..language import nodes as n
from ..language.dice import EXPLODE_CAP
from .intervals import L, Num, V

__all__ = ["pinned_roll", "literal_faces"]


def pinned_roll(s: n.Roll, face, count, cap):
    """The value of roll `s` with every die pinned to `face` (a witness under
    confirmation; every die showing one face is a roll that can happen), or None
    where a pin cannot say it exactly (a chain, a custom die, faces not written as
    numbers): the roll is then analysed unpinned."""
    spec = s.dice
    if spec.kind == "one" or (spec.kind == "reroll" and spec.count is None):
        return iv.point(face, ((s.name, face),))
    if spec.kind not in ("pool", "reroll", "explode"):
        return None
    k = count.num if count is not None else Num(1, 1, whole=True)
    if k is None or k.point is None:
        return None
    length = k.point
    if spec.kind == "explode":
        on = literal_faces(spec.on)
        if on is None:
            return None
        if face in on and length:   # every die, the extra ones too, explodes until the limit
            extra = cap.num if cap is not None else Num(EXPLODE_CAP, EXPLODE_CAP, whole=True)
            if extra is None or extra.point is None:
                return None
            length += extra.point
    return V(lst=L(Num(length, length, whole=True), iv.point(face, ((s.name, face),))))


def literal_faces(e):
    """The faces of a set literal of numbers ({5, 6}), else None."""
    if not isinstance(e, (n.SetLit, n.ListLit)):
        return None
    out = set()
    for x in e.items:
        if not isinstance(x, n.Literal) or isinstance(x.value, bool) or not isinstance(x.value, int):
            return None
        out.add(x.value)
    return out

