"""Dice as the compiler understands them, and the rollers that give them values.

A mechanic never calls `random` itself: each `roll` statement asks the roller in
its context for a value.  `GivenRoller` uses rolls the caller supplied and rolls
the rest with a (seedable) RNG; the exact-odds engine supplies its own roller
that enumerates outcomes instead.  This is what lets one mechanic run with given
rolls, seeded rolls, or as an exact distribution.
"""
from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from fractions import Fraction

from . import rollpaths
from ..errors import EvaluationError
from .symbolic import Symbolic
from .values import Sym, literal

MAX_DICE = 1000        # a pool larger than this is surely a mistake in the inputs
MAX_CHAIN = 10_000     # a random chain is cut here (probability is negligible)
EXPLODE_CAP = 20       # `explode on F` without `up to N` adds at most this many dice (docs/language.md)


@dataclass(frozen=True)
class DieInfo:
    name: str
    faces: tuple           # one entry per physical face (repeats for custom dice)
    custom: bool

    @property
    def distinct(self) -> tuple:
        return tuple(dict.fromkeys(self.faces))

    def weight(self, face) -> Fraction:
        return Fraction(self.faces.count(face), len(self.faces))

    def describe(self) -> str:
        if not self.custom:
            return f"{self.name} (faces 1..{len(self.faces)})"
        counts = ", ".join(f"{f} x{self.faces.count(f)}" for f in self.distinct)
        return f"{self.name} ({counts})"

    def face(self, value, roll_name: str):
        """Validate a face a caller supplied (ints for dN, names for custom dice)."""
        if self.custom:
            if isinstance(value, str) and value in self.faces:
                return Sym(str(value), self.name)
        elif isinstance(value, int) and not isinstance(value, bool) and value in self.faces:
            return value
        raise EvaluationError(f"roll '{roll_name}': {literal(value)} is not a face of {self.describe()}")


def roll_faces(die: DieInfo, faces, roll_name: str, what: str) -> frozenset:
    """The faces a `reroll` or `explode on` names, checked against the die when the roll
    is made (the checks catch literal ones earlier): each must be a face of the die."""
    out = set()
    for f in faces:
        shown = literal(f)
        if die.custom and isinstance(f, Sym):
            f = str(f)
        if f not in die.faces or isinstance(f, bool):
            raise EvaluationError(f"roll '{roll_name}': {shown} is not a face of {die.describe()}, so it cannot be {what}")
        out.add(f)
    return frozenset(out)


def rerolled_die(die: DieInfo, faces: frozenset) -> DieInfo:
    """The die a re-roll keeps: a face in `faces` is rolled once more and the new face kept.
    P(keep f) = P(f)[f not in faces] + P(faces) P(f), as a die with repeated faces
    (weights over len(faces)**2, divided by their gcd), so the odds engine enumerates it
    exactly like a custom die."""
    if not faces:
        return die
    N = len(die.faces)
    c_r = sum(1 for f in die.faces if f in faces)
    counts = {f: die.faces.count(f) * ((0 if f in faces else N) + c_r) for f in die.distinct}
    g = 0
    for c in counts.values():
        g = math.gcd(g, c)
    return DieInfo(die.name, tuple(f for f in die.distinct for _ in range(counts[f] // g)), die.custom)


@functools.lru_cache(maxsize=1024)
def explode_law(n: int, p: Fraction, cap: int) -> tuple:
    """The exact law of an exploding pool of `n` dice (an explode face with probability p)
    with at most `cap` extra dice, as [((A, B, C), probability)]: A dice showing explode
    faces, B showing other faces, C any face (the dice rolled after the cap was reached).

    Rolled one at a time, the pool stops when every die has been answered (X explode faces
    before the n-th other face, X < cap: (X, n, 0), a negative binomial) or when the cap-th
    extra die is owed (its cap-th explode face comes after j < n other faces: the n - j dice
    still owed are rolled and add nothing: (cap, j, n - j)).  The two cases sum to 1."""
    q = 1 - p
    if n == 0:
        return (((0, 0, 0), Fraction(1)),)
    if cap == 0 or p == 0:
        return (((0, 0, n), Fraction(1)),) if cap == 0 else (((0, n, 0), Fraction(1)),)
    out = [((x, n, 0), math.comb(x + n - 1, x) * p ** x * q ** n) for x in range(cap)]
    out += [((cap, j, n - j), math.comb(cap - 1 + j, j) * p ** cap * q ** j) for j in range(n)]
    return tuple((abc, pr) for abc, pr in out if pr)


@functools.lru_cache(maxsize=1024)
def explode_more(n: int, p: Fraction, cap: int) -> Fraction:
    """P(the uncapped pool would roll more than `cap` extra dice): how far the capped rule
    (which the language defines and the odds are exact for) is from "again and again"."""
    q = 1 - p
    if n == 0 or p == 0:
        return Fraction(0)
    return 1 - sum((math.comb(x + n - 1, x) * p ** x * q ** n for x in range(cap + 1)), Fraction(0))


def check_explode_given(name: str, faces: list, count: int, on: frozenset, cap: int):
    """A given exploding roll lists every face in the order rolled: the `count` dice, then
    one extra die for each explode face (the first `cap` of them).  Its length must be what
    its own explode faces call for."""
    needed, extra = count, 0
    for i, f in enumerate(faces):
        if i >= needed:
            raise EvaluationError(f"roll '{name}': {len(faces)} faces were given, but {count} dice and the "
                                  f"{_extra(extra)} their explode faces add make {needed}")
        if f in on and extra < cap:
            needed, extra = needed + 1, extra + 1
    if len(faces) < needed:
        raise EvaluationError(f"roll '{name}': {len(faces)} faces were given, but {count} dice and the "
                              f"{_extra(extra)} their explode faces add make {needed}: "
                              f"list the extra dice after the first {count}")


def _extra(k: int) -> str:
    return f"{k} extra {'die' if k == 1 else 'dice'}"


def _either(faces) -> str:
    items = [str(f) for f in sorted(faces, key=lambda f: (isinstance(f, str), f))]
    return " or ".join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else (items[0] if items else "nothing")


def _listing(faces) -> str:
    return ", ".join(str(f) for f in faces) or "nothing"


class GivenRoller:
    """Rolls from `given` (name -> value) where supplied, otherwise from `rng`."""

    def __init__(self, given=None, rng=None):
        self.given = dict(given or {})
        self.rng = rng or random.Random()
        self.made = {}
        self.used = set()
        self.working = {}       # roll name -> how a re-roll or an explosion went, in words

    def _take(self, name):
        if name in self.given:
            self.used.add(name)
            return True, self.given[name]
        return False, None

    def _random_face(self, die: DieInfo):
        f = self.rng.choice(die.faces)
        return Sym(f, die.name) if die.custom else f

    def one(self, name: str, die: DieInfo):
        ok, v = self._take(name)
        if ok:
            if isinstance(v, (list, tuple)) and len(v) == 1:
                v = v[0]
            value = die.face(v, name)
        else:
            value = self._random_face(die)
        self.made[name] = value
        return value

    def pool(self, name: str, die: DieInfo, count: int):
        ok, v = self._take(name)
        if ok:
            if not isinstance(v, (list, tuple)):
                v = [v]
            if len(v) != count:
                raise EvaluationError(f"roll '{name}' is {count} x {die.name}, but {len(v)} value(s) were given")
            value = [die.face(x, name) for x in v]
        else:
            value = [self._random_face(die) for _ in range(count)]
        self.made[name] = value
        return value

    def chain(self, name: str, die: DieInfo, count: int, on, then):
        """Roll `count` chains: each rolls again while it succeeds; returns total successes."""
        ok, v = self._take(name)
        if ok:
            if isinstance(v, int) and not isinstance(v, bool):
                if v < 0:
                    raise EvaluationError(f"roll '{name}': a chain cannot score {v} successes")
                self.made[name] = v
                return v
            seqs = v if (count != 1 or (v and isinstance(v[0], (list, tuple)))) else [v]
            if len(seqs) != count:
                raise EvaluationError(f"roll '{name}' is {count} chain(s); give a list of {count} sequences or a total")
            total = 0
            for seq in seqs:
                faces = [die.face(x, name) for x in seq]
                for i, f in enumerate(faces):
                    hit = f in (on if i == 0 else then)
                    if not hit and i != len(faces) - 1:
                        raise EvaluationError(f"roll '{name}': a chain stops at its first miss ({f} at position {i + 1})")
                    if hit and i == len(faces) - 1:
                        raise EvaluationError(f"roll '{name}': the chain {literal(list(seq))} ends on a success; roll until a miss")
                    total += hit
            self.made[name] = total
            return total
        total = 0
        for _ in range(count):
            for i in range(MAX_CHAIN):
                if self._random_face(die) in (on if i == 0 else then):
                    total += 1
                else:
                    break
        self.made[name] = total
        return total


    def reroll(self, name: str, die: DieInfo, count, faces: frozenset):
        """`count` dice (None: one die); each showing a face in `faces` is rolled once more
        and the new face is kept.  Given: the faces kept."""
        if name in self.given:
            return self.one(name, die) if count is None else self.pool(name, die, count)
        first = [self._random_face(die) for _ in range(1 if count is None else count)]
        again = [(f, self._random_face(die)) if f in faces else None for f in first]
        kept = [a[1] if a else f for f, a in zip(first, again)]
        redone = [a for a in again if a]
        said = f"rolled {_listing(first)}; "
        said += ("re-rolled " + ", ".join(f"{a} -> {b}" for a, b in redone) + " (once each; the new face is kept)"
                 if redone else f"none showed {_either(faces)}, so none was re-rolled")
        self.working[name] = said
        value = kept[0] if count is None else kept
        self.made[name] = value
        return value

    def explode(self, name: str, die: DieInfo, count: int, on: frozenset, cap: int):
        """`count` dice; each die showing a face in `on` adds another die, which may add
        another, up to `cap` extra dice in all.  The value lists every face, the first
        `count` dice first, then the extra dice in the order rolled."""
        ok, v = self._take(name)
        if ok:
            if not isinstance(v, (list, tuple)):
                v = [v]
            value = [die.face(x, name) for x in v]
            check_explode_given(name, value, count, on, cap)
            extra = len(value) - count
            self.working[name] = (f"given {count} dice and {extra} extra" if extra else f"given {count} dice, none exploding")
            self.made[name] = value
            return value
        value = [self._random_face(die) for _ in range(count)]
        rounds, owed, extra = [], sum(1 for f in value if f in on), 0
        while owed and extra < cap:
            batch = [self._random_face(die) for _ in range(min(owed, cap - extra))]
            rounds.append((owed, batch))
            extra += len(batch)
            owed = sum(1 for f in batch if f in on)
            value += batch
        said = f"rolled {_listing(value[:count])}"
        for k, batch in rounds:
            said += f"; {k} {'die' if k == 1 else 'dice'} showing {_either(on)} added {_listing(batch)}"
        if owed:
            said += f"; the limit of {cap} extra dice was reached"
        self.working[name] = said
        self.made[name] = value
        return value


class ForcedRoller:
    """Wraps a roller so that some rolls (by qualified name) take given values.

    Used when a mechanic passes a callee's roll by name, as in
    `heavy_armour_save(3, die=d)`: those rolls are not random; every other roll
    goes to the wrapped roller (a GivenRoller, or the exact-odds enumerator).
    """

    def __init__(self, inner, forced: dict):
        self.inner, self.forced = inner, forced
        self.asked = {}         # every roll made through this roller (name -> True), in order

    def __getattr__(self, item):
        return getattr(self.inner, item)

    def _given(self, name):
        self.asked[name] = True
        return name in self.forced

    def check_used(self, mechanic: str, prefix: str = ""):
        """After the call: a roll given by name (or path) that no roll took is a mistake
        in the caller (a misspelt path, a call the branch taken never made)."""
        unused = [k for k in self.forced if k not in self.asked]
        if unused:
            made = [k[len(prefix):] for k in self.asked if k.startswith(prefix)]
            shown = ", ".join(rollpaths.shown_names(dict.fromkeys(made))) or "none"
            raise EvaluationError(f"{mechanic}() was given the roll '{unused[0][len(prefix):]}', but made no roll "
                                  f"of that name (rolls made: {shown})")

    def one(self, name, die):
        if self._given(name):
            return GivenRoller({name: self.forced[name]}).one(name, die)
        return self.inner.one(name, die)

    def pool(self, name, die, count):
        if self._given(name):
            return GivenRoller({name: self.forced[name]}).pool(name, die, count)
        return self.inner.pool(name, die, count)

    def chain(self, name, die, count, on, then):
        if self._given(name):
            return GivenRoller({name: self.forced[name]}).chain(name, die, count, on, then)
        return self.inner.chain(name, die, count, on, then)

    def reroll(self, name, die, count, faces):
        if self._given(name):
            return GivenRoller({name: self.forced[name]}).reroll(name, die, count, faces)
        return self.inner.reroll(name, die, count, faces)

    def explode(self, name, die, count, on, cap):
        if self._given(name):
            return GivenRoller({name: self.forced[name]}).explode(name, die, count, on, cap)
        return self.inner.explode(name, die, count, on, cap)


__all__ = ["MAX_DICE", "MAX_CHAIN", "EXPLODE_CAP", "roll_faces", "rerolled_die", "explode_law", "explode_more",
           "check_explode_given", "Symbolic", "DieInfo", "GivenRoller", "ForcedRoller"]   # Symbolic: see rules_dsl.language.symbolic
