"""The budget of one exact computation: time, memory and work, and the refusal.

Every exact computation runs against a `Budget` (`distribution(..., _budget=...)`,
`Book.odds`, `rules odds --time-limit`, the site's page odds); its `Meter` is what
is spent so far.  Two things keep a refusal quick and informative:

* **Estimates before the work.**  Where the size of what is about to be enumerated
  is known before it is made -- a pool's distinguishable rolls over its classes of
  faces (`multisets._pool_alternatives`, the aggregate fast path), a chain's number
  of terms (`chains._ChainLaw`) -- it is checked against the budget first, and noted
  (`Meter.note`): "sum of 2 d1000: about 500,500 distinguishable rolls".  A size
  past `MAX_ROLLS`, or one that would hold more than the budget's cells, is refused
  at once, before anything is built.
* **A deadline checked in the loops.**  Everything that can take long polls
  `check()`: the engine's evaluations (`engine._Engine.tick`), the multiset and join
  loops of the fast path, the chain terms, the making of alternatives.  No signals
  and no threads: the check is a clock read every few hundred steps, so a refusal
  comes within milliseconds of the deadline, from whatever thread asked.

The refusal (`TooLarge`) names the computation, what ran out, the largest thing the
estimates saw, and what to try (fewer dice, a roll given by name, more time).

The meter in use is kept in a context variable, so the deep loops need no extra
arguments, and two computations in two threads (a language server, a site build
with workers) each see their own.
"""
from __future__ import annotations

import contextvars
import dataclasses
import time

from .result import TooLarge

DEFAULT_SECONDS = 5.0        # a few seconds: `rules odds` answers or refuses in about this
DEFAULT_CELLS = 4_000_000    # values held at once (alternatives x classes, memo entries, outcomes)
DEFAULT_EVALUATIONS = 2_000_000   # the engine's evaluations of a statement (page odds budget in them)
MAX_ROLLS = 1_000_000        # distinguishable rolls of one roll: more is refused before it is made


@dataclasses.dataclass(frozen=True)
class Budget:
    """What one exact computation may spend: `seconds` of wall time (None: no deadline);
    `cells` of memory (values held at once: a pool's alternatives times its classes,
    memo entries, outcomes); and two counts of work, the same on every machine:
    `evaluations` (of a statement by the engine: the unit the site's page odds share
    out) and `steps` (every unit of work the loops count: an evaluation, a face of a
    class a use is tried on, a multiset made, a join; None: no limit), which bound a
    computation whose evaluations are slow without reading a clock."""
    seconds: float | None = DEFAULT_SECONDS
    cells: int = DEFAULT_CELLS
    evaluations: int = DEFAULT_EVALUATIONS
    steps: int | None = None

    def meter(self) -> "Meter":
        return Meter(self)


class Meter:
    """What a computation has spent of its `Budget`, and the largest sizes seen so far."""
    __slots__ = ("budget", "start", "deadline", "cells", "steps", "largest", "_next")

    def __init__(self, budget: Budget | None = None):
        self.budget = budget or Budget()
        self.start = time.monotonic()
        s = self.budget.seconds
        self.deadline = None if s is None else self.start + s
        self.cells = 0
        self.steps = 0
        self.largest = None          # (size, what) of the largest estimate noted
        self._next = 0

    # -- time and steps
    def check(self):
        """Refuse when past the deadline (a clock read) or past the steps."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise self.refusal(f"it takes more than {_seconds(self.budget.seconds)}", "time")
        limit = self.budget.steps
        if limit is not None and self.steps > limit:
            raise self.refusal(f"it takes more than {limit:,} steps", "work")

    def poll(self, every: int = 256):
        """One step of work; `check` every `every` steps: for the innermost loops."""
        self.steps += 1
        if self.steps >= self._next:
            self._next = self.steps + every
            self.check()

    # -- memory
    def hold(self, cells: int):
        """Count `cells` more values held; refuse past the budget (before they are made)."""
        if self.cells + cells > self.budget.cells:
            raise self.refusal(f"it would hold more than {self.budget.cells:,} values at once", "memory")
        self.cells += cells

    def release(self, cells: int):
        self.cells = max(0, self.cells - cells)

    # -- what was large
    def note(self, what: str, size: int, unit: str = "distinguishable rolls"):
        """Remember an estimate ("sum of 2 d1000", 500500 distinguishable rolls): the
        largest is what a refusal names."""
        if self.largest is None or size > self.largest[0]:
            self.largest = (size, f"{what}: about {size:,} {unit}")

    def refusal(self, reason: str, kind: str = "size") -> TooLarge:
        return TooLarge(reason, self.largest, kind=kind)


def refuse(reason: str, what: str, size: int, unit: str = "distinguishable rolls") -> TooLarge:
    """A refusal decided by an estimate, before the work: noted on the meter in use."""
    m = _CURRENT.get()
    if m is None:
        return TooLarge(reason, (size, f"{what}: about {size:,} {unit}"))
    m.note(what, size, unit)
    return m.refusal(reason)


def note(what: str, size: int, unit: str = "distinguishable rolls"):
    """`Meter.note` on the meter in use (nothing outside a computation)."""
    m = _CURRENT.get()
    if m is not None:
        m.note(what, size, unit)


def hold(cells: int):
    """`Meter.hold` on the meter in use, if any (else: always allowed)."""
    m = _CURRENT.get()
    if m is not None:
        m.hold(cells)


def _seconds(s) -> str:
    return f"{s:g} s" if s is not None else "its time"


_CURRENT: contextvars.ContextVar = contextvars.ContextVar("rules_dsl_odds_meter", default=None)


def current() -> Meter | None:
    """The meter of the computation running in this context, if any."""
    return _CURRENT.get()


def check():
    """The deadline check of the computation in progress (nothing outside one)."""
    m = _CURRENT.get()
    if m is not None:
        m.check()


class using:
    """`with using(meter):` the meter of the computation inside."""
    __slots__ = ("meter", "_token")

    def __init__(self, meter: Meter):
        self.meter = meter

    def __enter__(self):
        self._token = _CURRENT.set(self.meter)
        return self.meter

    def __exit__(self, *exc):
        _CURRENT.reset(self._token)
        return False


def pool_words(k: int, die_name: str) -> str:
    """`2 d1000`, `a d6`: a pool as a player says it."""
    return f"a {die_name}" if k == 1 else f"{k} {die_name}"
