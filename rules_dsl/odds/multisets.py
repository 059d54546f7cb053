"""Face classes and multisets: `_Partition` (the classes of a die's faces a roll is
enumerated over), `_pool_alternatives` (a pool of k dice as multisets of classes,
weighted by multinomial coefficients) and `_Origin` (which roll a stand-in came
from, so a use can split that roll's classes)."""
from __future__ import annotations

import math

from . import budget
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
_ALTS_CELLS = [0]                # values held by the cache: it is emptied past CACHE_CELLS
CACHE_CELLS = 2_000_000

MAX_ALTERNATIVES = budget.MAX_ROLLS     # one roll with more outcomes than this is refused unmade


def _pool_alternatives(weights, faces, k, what=None):
    """([(counts per class; integer weight)], denominator) for k dice over classes
    of `weights` physical faces each (out of `faces`): every multiset, weighted by its
    multinomial coefficient.

    How many there are is known before one is made (C(k + m - 1, m - 1) for m
    classes): past `MAX_ALTERNATIVES`, or past the memory budget (each holds m
    counts), the roll is refused at once with that number; `what` says the roll in a
    player's words for the refusal ("sum of 2 d1000").  The multisets are made by a
    loop, not a recursion, so no die has too many faces for it."""
    key = (weights, faces, k)
    hit = _ALTS_CACHE.get(key)
    if hit is not None:
        return hit
    m = len(weights)
    size = math.comb(k + m - 1, m - 1)
    words = what or f"a roll of {k} {'die' if k == 1 else 'dice'} read as {m} kinds of face"
    if size > MAX_ALTERNATIVES:
        raise budget.refuse(f"more than {MAX_ALTERNATIVES:,} distinguishable rolls of one roll", words, size)
    budget.note(words, size)
    budget.hold(size * (m + 1))
    out = []
    fact = math.factorial
    fk = fact(k)
    powers = [[weights[j] ** c for c in range(k + 1)] for j in range(m)]
    counts = [0] * m
    counts[0] = k
    meter = budget.current()
    while True:
        w = fk
        for c in counts:
            if c > 1:
                w //= fact(c)
        for j, c in enumerate(counts):
            if c:
                w *= powers[j][c]
        out.append((tuple(counts), w))
        if meter is not None:
            meter.poll()
        # the next multiset, in the order of the classes' counts, the first class's highest first
        i = m - 2
        while i >= 0 and counts[i] == 0:
            i -= 1
        if i < 0:
            break
        rest = counts[m - 1] + 1
        counts[i] -= 1
        counts[m - 1] = 0
        counts[i + 1] = rest
    res = (out, faces ** k)
    cells = size * (m + 1)
    if _ALTS_CELLS[0] + cells > CACHE_CELLS or len(_ALTS_CACHE) > 4096:
        _ALTS_CACHE.clear()
        _ALTS_CELLS[0] = 0
    _ALTS_CACHE[key] = res
    _ALTS_CELLS[0] += cells
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
