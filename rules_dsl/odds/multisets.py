"""Face classes and multisets: `_Partition` (the classes of a die's faces a roll is
enumerated over), `_pool_alternatives` (a pool of k dice as multisets of classes,
weighted by multinomial coefficients) and `_Origin` (which roll a stand-in came
from, so a use can split that roll's classes)."""
from __future__ import annotations

import math

from .result import TooLarge
from .standins import _Refine


# ============================================================ partitions
class _Partition:
    """The classes of a roll's faces that the mechanic has not (yet) told apart."""
    __slots__ = ("die", "classes", "weights", "_ordered", "alts", "rank")

    def __init__(self, die):
        self.die = die
        self.rank = {f: i for i, f in enumerate(die.distinct)}
        self.classes = (die.distinct,)
        self._ordered = False
        self._probs()

    @property
    def ordered(self):
        return self._ordered

    @ordered.setter
    def ordered(self, value):
        self._ordered = value
        self.alts = {}

    def alternatives(self, k):
        hit = self.alts.get(k)
        if hit is None:
            hit = self.alts[k] = _pool_alternatives(self.weights, len(self.die.faces), k)
        return hit

    def size(self, faces):
        """How many physical faces of the die (out of len(die.faces)) a class covers."""
        return sum(self.die.faces.count(f) for f in faces)

    def _probs(self):
        self.weights = tuple(self.size(c) for c in self.classes)
        self.alts = {}

    def refine(self, faces, keys) -> bool:
        """Split every class so that faces with different keys part (`faces` need not
        be one class: a path may have split its own classes further)."""
        kmap = dict(zip(faces, keys))
        outside = object()
        new, changed = [], False
        for c in self.classes:
            groups = {}
            for f in c:
                groups.setdefault(kmap.get(f, outside), []).append(f)
            changed = changed or len(groups) > 1
            new.extend(tuple(g) for g in groups.values())
        if changed:
            rank = self.rank
            self.classes = tuple(sorted(new, key=lambda g: rank[g[0]]))
            self._probs()
        return changed


_ALTS_CACHE: dict = {}


MAX_ALTERNATIVES = 1_000_000     # one roll with more outcomes than this is too large to enumerate


def _pool_alternatives(weights, faces, k):
    """([(counts per class; integer weight)], denominator) for k dice over classes
    of `weights` physical faces each (out of `faces`): every multiset, weighted by its
    multinomial coefficient."""
    key = (weights, faces, k)
    hit = _ALTS_CACHE.get(key)
    if hit is not None:
        return hit
    m = len(weights)
    size = math.comb(k + m - 1, m - 1)
    if size > MAX_ALTERNATIVES:
        raise TooLarge(f"a roll of {k} dice has {size} distinguishable outcomes here; too many to enumerate")
    out = []
    fact = math.factorial

    def rec(j, left, counts):
        if j == m - 1:
            counts.append(left)
            yield tuple(counts)
            counts.pop()
            return
        for c in range(left, -1, -1):
            counts.append(c)
            yield from rec(j + 1, left - c, counts)
            counts.pop()
    powers = [[weights[j] ** c for c in range(k + 1)] for j in range(m)]
    fk = fact(k)
    for counts in rec(0, k, []):
        w = fk
        for c in counts:
            if c > 1:
                w //= fact(c)
        for j, c in enumerate(counts):
            if c:
                w *= powers[j][c]
        out.append((counts, w))
    if len(_ALTS_CACHE) > 4096:
        _ALTS_CACHE.clear()
    res = (out, faces ** k)
    _ALTS_CACHE[key] = res
    return res


# ================================================================= origins
class _Origin:
    """One roll's stand-ins within one statement's enumeration (token: its `_Replay`).

    A *local* origin is one roll call on one path (an unordered pool or a single die):
    `counts` holds its classes (which may be finer than the roll's partition) and how
    many dice fell in each.  While its statement is being evaluated, a use its class
    cannot answer splits the class for this path only: a new choice point of the
    replay (how many of those dice fall in each part).  A stand-in used after its
    statement refines the roll's partition for every path instead, and that
    enumeration restarts."""
    __slots__ = ("token", "part", "ident", "counts", "serial")

    def __init__(self, token, part, ident, counts=None, serial=None):
        self.token, self.part, self.ident = token, part, ident
        self.counts, self.serial = counts, serial

    def is_local(self):
        rep = self.token
        return self.counts is not None and rep.eng.active is rep and rep.serial == self.serial

    def split(self, faces, keys, restart=True):
        if self.is_local():
            self.token.refine(self, faces, keys)        # raises _Restart
        self.part.refine(faces, keys)
        if restart:
            raise _Refine({self.token})

    def make_ordered(self):
        self.part.ordered = True
        raise _Refine({self.token})
