"""Dice as the compiler understands them, and the rollers that give them values.

A mechanic never calls `random` itself: each `roll` statement asks the roller in
its context for a value.  `GivenRoller` uses rolls the caller supplied and rolls
the rest with a (seedable) RNG; the exact-odds engine supplies its own roller
that enumerates outcomes instead.  This is what lets one mechanic run with given
rolls, seeded rolls, or as an exact distribution.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from .errors import EvaluationError
from .symbolic import Symbolic
from .values import Sym

MAX_DICE = 1000        # a pool larger than this is surely a mistake in the inputs
MAX_CHAIN = 10_000     # a random chain is cut here (probability is negligible)


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
        raise EvaluationError(f"roll '{roll_name}': {value!r} is not a face of {self.describe()}")


class GivenRoller:
    """Rolls from `given` (name -> value) where supplied, otherwise from `rng`."""

    def __init__(self, given=None, rng=None):
        self.given = dict(given or {})
        self.rng = rng or random.Random()
        self.made = {}
        self.used = set()

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
                        raise EvaluationError(f"roll '{name}': the chain {list(seq)} ends on a success; roll until a miss")
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


class ForcedRoller:
    """Wraps a roller so that some rolls (by qualified name) take given values.

    Used when a mechanic passes a callee's roll by name, as in
    `heavy_armour_save(3, die=d)`: those rolls are not random; every other roll
    goes to the wrapped roller (a GivenRoller, or the exact-odds enumerator).
    """

    def __init__(self, inner, forced: dict):
        self.inner, self.forced = inner, forced

    def __getattr__(self, item):
        return getattr(self.inner, item)

    def one(self, name, die):
        if name in self.forced:
            return GivenRoller({name: self.forced[name]}).one(name, die)
        return self.inner.one(name, die)

    def pool(self, name, die, count):
        if name in self.forced:
            return GivenRoller({name: self.forced[name]}).pool(name, die, count)
        return self.inner.pool(name, die, count)

    def chain(self, name, die, count, on, then):
        if name in self.forced:
            return GivenRoller({name: self.forced[name]}).chain(name, die, count, on, then)
        return self.inner.chain(name, die, count, on, then)


__all__ = ["MAX_DICE", "MAX_CHAIN", "Symbolic", "DieInfo", "GivenRoller", "ForcedRoller"]   # Symbolic: see rules_dsl.symbolic
